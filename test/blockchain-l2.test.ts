/**
 * The blockchain area on the sandbox's layer-2 chains (src/sandbox/l2/): OP's daily L1 data fees equal the L1 fee
 * vault's gain and its execution fees the base fee and sequencer vaults' gains; the system transactions are found
 * where each stack puts them (no violation); Arbitrum's L1 data fees equal Σ gasUsedForL1 × effectiveGasPrice
 * recounted from the receipts; transaction counts equal a recount from the blocks, classified as
 * docs/methodology/blockchain-evm.md says: on Arbitrum, the batch-posting reports as system transactions, the
 * deposits, retryable submissions and their auto-redeems as deposits, a submission's prepaid gas counted once.
 */
import pino from 'pino';
import { keccak256, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { blockchainArea } from '../src/areas/blockchain/index.js';
import { BLOCKCHAIN_COMPUTATION } from '../src/areas/blockchain/public.js';
import { loadConfig } from '../src/config/index.js';
import { registry } from '../src/registry/index.js';
import { jsonRpc } from '../src/sandbox/chain/anvil.js';
import { type L2Chain, openL2Chain } from '../src/sandbox/l2/chain.js';
import { ARBOS_ADDRESS } from '../src/sandbox/l2/nitro.js';
import { BASE_FEE_VAULT, L1_FEE_VAULT, SEQUENCER_FEE_VAULT } from '../src/sandbox/l2/op-stack.js';
import { EvmChains } from '../src/sources/evm/chains.js';
import { SourceMap } from '../src/sources/index.js';
import { testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { useTempDirs } from './support/temp-dirs.js';

type Json = Record<string, unknown>;
const log = pino({ level: 'silent' });
const chains: L2Chain[] = [];
const tempDir = useTempDirs(() => Promise.all(chains.map((c) => c.stop())));

const GENESIS = 1_790_000_000 - (1_790_000_000 % 86_400) + 20 * 3600;
/** 30 h after genesis: hourly history across a UTC midnight, then minute blocks. */
const NOW = GENESIS + 30 * 3600 + 600;
const rpc = <T>(url: string, method: string, params: unknown[] = []) => jsonRpc<T>(url, method, params);
const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
/** ArbosActs selectors (nitro `precompiles/ArbosActs.go`). */
const START_BLOCK = keccak256(toHex('startBlock(uint256,uint64,uint64,uint64)')).slice(0, 10);
const BATCH_POSTING_REPORT_V2 = keccak256(
  toHex('batchPostingReportV2(uint256,address,uint64,uint64,uint64,uint64,uint256)'),
).slice(0, 10);

interface L2Doc {
  date: string;
  stack: string;
  tx_count: number | null;
  user_tx_count: number | null;
  system_tx_count: number | null;
  deposit_tx_count: number | null;
  system_tx_violations: number | null;
  block_count: number | null;
  fees_total_wei: string | null;
  l1_data_fee_wei: string | null;
  l2_execution_fee_wei: string | null;
  active_senders: number | null;
  active_addresses: number | null;
}

describe('blockchain on the sandbox layer-2 chains', () => {
  it('OP and Arbitrum: counts, system transactions and fees equal the chain’s own accounts', async () => {
    const open = async (kind: 'optimism' | 'arbitrum') => {
      const chain = await openL2Chain({
        kind,
        dataDir: tempDir(`bc-${kind}-`),
        seed: 5,
        genesisTimestamp: GENESIS,
        blockSeconds: 5,
        log,
        clock: { nowMs: () => NOW * 1000 },
        live: false,
      });
      chains.push(chain);
      await chain.caughtUp;
      return chain;
    };
    const [op, arb] = await Promise.all([open('optimism'), open('arbitrum')]);
    const t = await testApp();
    t.clock.ms = NOW * 1000;
    const env = {
      config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
      registry,
      book: { origin: 'registry' as const, chains: {} },
      sources: new SourceMap({
        evm: new EvmChains(
          [
            { id: 'optimism', rpcUrl: op.rpcUrl, finalityDepth: 64 },
            { id: 'arbitrum', rpcUrl: arb.rpcUrl, finalityDepth: 64 },
          ],
          { log },
        ),
      }),
    };
    const runner = areaRunner(blockchainArea, env, t.store, t.clock, () => t.sync());
    for (let i = 0; i < 20; i++)
      if (/optimism: up to date.*arbitrum: up to date/.test((await runner.run('blockchain.ingest')) ?? '')) break;
    expect(await runner.run(BLOCKCHAIN_COMPUTATION)).toMatch(/published/);
    await t.sync();
    const get = async (chain: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/data/blockchain/${chain}`,
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json() as { data: L2Doc[]; meta: { source: string } };
      // Each chain's documents name their own chain (registry chain id), not every chain the area reads.
      expect(body.meta.source).toBe(`${chain}:${registry.chain(chain)!.evmChainId}`);
      return body.data;
    };

    // Recount from the chains: per day, transactions by kind and fees.
    const recount = async (url: string, nitro: boolean) => {
      const head = Number(await rpc<string>(url, 'eth_blockNumber'));
      const out = new Map<
        string,
        {
          txs: number;
          system: number;
          deposits: number;
          blocks: number;
          l1: bigint;
          gas: bigint;
          senders: Set<string>;
          addresses: Set<string>;
        }
      >();
      // Nitro's transactions by kind over the whole chain: the internal ones by ArbosActs selector.
      const seen: Record<string, number> = {};
      for (let n = 0; n <= head; n++) {
        const b = await rpc<Json & { transactions: Json[]; timestamp: string }>(url, 'eth_getBlockByNumber', [
          `0x${n.toString(16)}`,
          true,
        ]);
        const d = day(Number(b.timestamp));
        const c = out.get(d) ?? {
          txs: 0,
          system: 0,
          deposits: 0,
          blocks: 0,
          l1: 0n,
          gas: 0n,
          senders: new Set<string>(),
          addresses: new Set<string>(),
        };
        c.blocks++;
        for (const [i, tx] of b.transactions.entries()) {
          const type = Number(tx.type);
          const r = await rpc<Json>(url, 'eth_getTransactionReceipt', [tx.hash]);
          if (nitro) {
            const kind = type === 0x6a ? String(tx.input).slice(0, 10) : `0x${type.toString(16)}`;
            seen[kind] = (seen[kind] ?? 0) + 1;
          }
          // OP: the L1-attributes deposit at index 0; Nitro: every ArbOS internal transaction (startBlock at index 0,
          // the batch-posting reports after it).
          const arbos = String(tx.from).toLowerCase() === ARBOS_ADDRESS.toLowerCase();
          if ((!nitro && i === 0 && type === 0x7e) || (nitro && type === 0x6a && arbos)) {
            c.system++;
            continue;
          }
          c.txs++;
          c.senders.add(String(tx.from).toLowerCase());
          // Senders and recipients: the target, or for a creation the contract it created.
          for (const a of [tx.from, tx.to, r.contractAddress]) if (a) c.addresses.add(String(a).toLowerCase());
          if ((nitro && [0x64, 0x65, 0x66, 0x68, 0x69].includes(type)) || (!nitro && type === 0x7e)) c.deposits++;
          // OP deposits pay no L2 gas (bought on L1); a Nitro retryable submission's gas is its auto-redeem's.
          if ((nitro && type !== 0x69) || (!nitro && type !== 0x7e))
            c.gas += BigInt(r.gasUsed as string) * BigInt(r.effectiveGasPrice as string);
          if (nitro) c.l1 += BigInt(r.gasUsedForL1 as string) * BigInt(r.effectiveGasPrice as string);
          else if (r.l1Fee !== undefined) c.l1 += BigInt(r.l1Fee as string);
        }
        out.set(d, c);
      }
      if (nitro) {
        // The sandbox's Arbitrum carries what Nitro's blocks carry: batch-posting reports, ETH deposits, retryable
        // submissions with their auto-redeems, beside startBlock in every block.
        expect(seen[START_BLOCK]).toBe(head);
        expect(seen[BATCH_POSTING_REPORT_V2]).toBeGreaterThan(0);
        expect(seen['0x64']).toBeGreaterThan(0);
        expect(seen['0x69']).toBeGreaterThan(0);
        expect(seen['0x68']).toBe(seen['0x69']);
      }
      return out;
    };

    for (const [chain, url, nitro] of [
      ['optimism', op.rpcUrl, false],
      ['arbitrum', arb.rpcUrl, true],
    ] as const) {
      const docs = await get(chain);
      const truth = await recount(url, nitro);
      expect(truth.size).toBeGreaterThanOrEqual(2);
      for (const r of docs) {
        const c = truth.get(r.date);
        if (!c) {
          expect(r.tx_count).toBeNull();
          continue;
        }
        expect(r.stack).toBe(nitro ? 'nitro' : 'op');
        expect(r.block_count, `${chain} ${r.date}`).toBe(c.blocks);
        expect(r.tx_count, `${chain} ${r.date}`).toBe(c.txs);
        expect(r.system_tx_count).toBe(c.system);
        expect(r.system_tx_violations).toBe(0);
        expect(r.deposit_tx_count).toBe(c.deposits);
        expect(r.user_tx_count).toBe(c.txs - c.deposits);
        expect(r.active_senders, `${chain} ${r.date}`).toBe(c.senders.size);
        expect(r.active_addresses, `${chain} ${r.date}`).toBe(c.addresses.size);
        if (c.txs > 0) expect(c.addresses.size).toBeGreaterThan(c.senders.size);
        expect(r.l1_data_fee_wei).toBe(String(c.l1));
        expect(r.fees_total_wei).toBe(String(nitro ? c.gas : c.gas + c.l1));
      }
      if (!nitro) {
        // Every OP fee lands in a vault: Σ l1_data_fee = the L1 fee vault's gain; Σ execution = base + sequencer vaults.
        const bal = async (a: string, tag: string) => BigInt(await rpc<string>(url, 'eth_getBalance', [a, tag]));
        const gain = async (a: string) => (await bal(a, 'latest')) - (await bal(a, '0x0'));
        const sum = (f: (r: L2Doc) => string | null) => docs.reduce((s, r) => s + BigInt(f(r) ?? '0'), 0n);
        expect(sum((r) => r.l1_data_fee_wei)).toBe(await gain(L1_FEE_VAULT));
        // Tips go to the block's coinbase: the sequencer fee vault, except in blocks mined before the sandbox made it
        // the coinbase (its set-up block); those blocks' tips are recounted from their receipts and added.
        let elsewhere = 0n;
        const head = Number(await rpc<string>(url, 'eth_blockNumber'));
        for (let n = 1; n <= head; n++) {
          const hex = `0x${n.toString(16)}`;
          const b = await rpc<Json & { transactions: Json[] }>(url, 'eth_getBlockByNumber', [hex, true]);
          if (String(b.miner).toLowerCase() === SEQUENCER_FEE_VAULT.toLowerCase()) continue;
          for (const r of await rpc<Json[]>(url, 'eth_getBlockReceipts', [hex])) {
            if (Number(r.type) === 0x7e) continue;
            elsewhere +=
              BigInt(r.gasUsed as string) * (BigInt(r.effectiveGasPrice as string) - BigInt(b.baseFeePerGas as string));
          }
        }
        expect(sum((r) => r.l2_execution_fee_wei)).toBe(
          (await gain(BASE_FEE_VAULT)) + (await gain(SEQUENCER_FEE_VAULT)) + elsewhere,
        );
      }
    }
    await t.close();
  }, 300_000);
});
