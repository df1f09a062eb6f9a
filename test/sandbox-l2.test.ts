/**
 * The sandbox's layer-2 chains at sandbox level (not through an area): OP fees recomputed from the fee vaults, the
 * system transactions where each stack puts them, determinism by seed, resume after stop. A few simulated hours.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { jsonRpc } from '../src/sandbox/chain/anvil.js';
import { BACKGROUND_NICENESS } from '../src/sandbox/chain/priority.js';
import { L2_FILE, type L2Chain, l2Dir, openL2Chain } from '../src/sandbox/l2/chain.js';
import { ARBOS_ADDRESS } from '../src/sandbox/l2/nitro.js';
import { BASE_FEE_VAULT, DEPOSITOR, L1_BLOCK, L1_FEE_VAULT } from '../src/sandbox/l2/op-stack.js';
import { openL2ChainsOnThread } from '../src/sandbox/l2/thread.js';
import { useTempDirs } from './support/temp-dirs.js';

type Json = Record<string, unknown> & { transactions: Json[] };
const log = pino({ level: 'silent' });
const chains: L2Chain[] = [];
const tempDir = useTempDirs(() => Promise.all(chains.map((c) => c.stop())));

const GENESIS = 1_790_000_000 - (1_790_000_000 % 3600);
/** 6 h 10 min after genesis: six hourly blocks, ten one-minute blocks. */
const clockAt = (seconds: number) => ({ nowMs: () => (GENESIS + seconds) * 1000 });

async function open(kind: 'optimism' | 'arbitrum', dataDir: string, seconds = 6 * 3600 + 600, seed = 11) {
  const chain = await openL2Chain({
    kind,
    dataDir,
    seed,
    genesisTimestamp: GENESIS,
    blockSeconds: 5,
    log,
    clock: clockAt(seconds),
    live: false,
  });
  chains.push(chain);
  await chain.caughtUp;
  return chain;
}

const rpc = <T>(url: string, method: string, params: unknown[] = []) => jsonRpc<T>(url, method, params);
const big = (v: unknown) => BigInt(v as string);

describe('sandbox L2 chains', () => {
  it('Optimism: the L1-attributes deposit first in every block; fee vaults equal Σ l1Fee and Σ gasUsed × baseFee', async () => {
    const op = await open('optimism', tempDir('l2-op-'));
    const url = op.rpcUrl;
    expect(Number(await rpc<string>(url, 'eth_chainId'))).toBe(10);
    const head = Number(await rpc<string>(url, 'eth_blockNumber'));
    expect(head).toBe(1 + 6 + 10);
    let l1Fees = 0n;
    let baseFees = 0n;
    let userTxs = 0;
    let deposits = 0;
    for (let n = 1; n <= head; n++) {
      const block = await rpc<Json>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const first = block.transactions[0]!;
      expect(String(first.type).toLowerCase()).toBe('0x7e');
      expect(String(first.from).toLowerCase()).toBe(DEPOSITOR.toLowerCase());
      expect(String(first.to).toLowerCase()).toBe(L1_BLOCK.toLowerCase());
      expect(String(first.input).slice(0, 10)).toBe('0x440a5e20');
      const receipts = await rpc<Json[]>(url, 'eth_getBlockReceipts', [`0x${n.toString(16)}`]);
      expect(receipts).toHaveLength(block.transactions.length);
      for (const r of receipts) {
        if (String(r.type).toLowerCase() === '0x7e') {
          expect(r.depositNonce).toBeDefined();
          expect(r.l1Fee).toBeUndefined();
          if (r.transactionIndex !== '0x0') deposits++;
          continue;
        }
        userTxs++;
        for (const k of [
          'l1Fee',
          'l1GasPrice',
          'l1GasUsed',
          'l1BaseFeeScalar',
          'l1BlobBaseFee',
          'l1BlobBaseFeeScalar',
        ]) {
          expect(r[k], k).toMatch(/^0x[0-9a-f]+$/);
        }
        l1Fees += big(r.l1Fee);
        baseFees += big(r.gasUsed) * big(block.baseFeePerGas);
      }
      // One receipt through eth_getTransactionReceipt carries the same fields.
      const last = receipts.at(-1)!;
      expect(await rpc(url, 'eth_getTransactionReceipt', [last.transactionHash])).toEqual(last);
    }
    expect(userTxs).toBeGreaterThan(10);
    expect(deposits).toBeGreaterThan(0);
    const balance = async (a: string, tag: string) => big(await rpc(url, 'eth_getBalance', [a, tag]));
    expect(l1Fees).toBeGreaterThan(0n);
    expect((await balance(L1_FEE_VAULT, 'latest')) - (await balance(L1_FEE_VAULT, '0x0'))).toBe(l1Fees);
    expect(baseFees).toBeGreaterThan(0n);
    expect((await balance(BASE_FEE_VAULT, 'latest')) - (await balance(BASE_FEE_VAULT, '0x0'))).toBe(baseFees);
    expect(op.status().stats.unexpected).toBe(0);
    // The proxy is read-only.
    await expect(rpc(url, 'evm_mine', [])).rejects.toThrow(/read-only/);
  }, 120_000);

  it('Arbitrum: the ArbOS internal transaction at index 0 everywhere, receipts with gasUsedForL1', async () => {
    const arb = await open('arbitrum', tempDir('l2-arb-'));
    const url = arb.rpcUrl;
    expect(Number(await rpc<string>(url, 'eth_chainId'))).toBe(42161);
    const head = Number(await rpc<string>(url, 'eth_blockNumber'));
    let withL1 = 0;
    for (let n = 1; n <= head; n++) {
      const tag = `0x${n.toString(16)}`;
      const block = await rpc<Json>(url, 'eth_getBlockByNumber', [tag, true]);
      const byHash = await rpc<Json>(url, 'eth_getBlockByHash', [block.hash, false]);
      const internal = block.transactions[0]!;
      expect(internal).toMatchObject({ type: '0x6a', from: ARBOS_ADDRESS, to: ARBOS_ADDRESS, transactionIndex: '0x0' });
      expect(byHash.transactions[0]).toBe(internal.hash);
      expect(block.l1BlockNumber).toMatch(/^0x[0-9a-f]+$/);
      expect(await rpc(url, 'eth_getTransactionByHash', [internal.hash])).toEqual(internal);
      expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', [tag, '0x0'])).toEqual(internal);
      expect(Number(await rpc(url, 'eth_getBlockTransactionCountByNumber', [tag]))).toBe(block.transactions.length);
      const receipts = await rpc<Json[]>(url, 'eth_getBlockReceipts', [tag]);
      expect(receipts.map((r) => r.transactionHash)).toEqual(block.transactions.map((t) => t.hash));
      expect(receipts[0]).toMatchObject({ type: '0x6a', gasUsed: '0x0', status: '0x1', gasUsedForL1: '0x0' });
      expect(await rpc(url, 'eth_getTransactionReceipt', [internal.hash])).toEqual(receipts[0]);
      let cumulative = 0n;
      let gasUsed = 0n;
      receipts.forEach((r, i) => {
        expect(r.transactionIndex).toBe(`0x${i.toString(16)}`);
        expect(r.l1BlockNumber).toBe(block.l1BlockNumber);
        cumulative += big(r.gasUsed);
        gasUsed += big(r.gasUsed);
        expect(big(r.cumulativeGasUsed)).toBe(cumulative);
        // The L1 messages' transactions (batch-posting reports, deposits, retryables) pay no L1 data; users do.
        if (i > 0 && ![0x6a, 0x64, 0x68, 0x69].includes(Number(r.type))) {
          expect(big(r.gasUsedForL1)).toBeGreaterThan(0n);
          expect(big(r.gasUsed)).toBeGreaterThan(big(r.gasUsedForL1));
          withL1++;
        }
      });
      expect(big(block.gasUsed)).toBe(gasUsed);
      for (const [i, tx] of block.transactions.entries()) {
        if (i === 0) continue;
        expect((await rpc<Json>(url, 'eth_getTransactionByHash', [tx.hash])).transactionIndex).toBe(
          tx.transactionIndex,
        );
        expect(await rpc(url, 'eth_getTransactionReceipt', [tx.hash])).toEqual(receipts[i]);
        break;
      }
    }
    expect(withL1).toBeGreaterThan(10);
    expect(arb.status().stats.unexpected).toBe(0);
  }, 120_000);

  it('is deterministic by seed and resumes after a stop with the missed time filled', async () => {
    const dirA = tempDir('l2-a-');
    const a = await open('optimism', dirA, 3 * 3600);
    const b = await open('optimism', tempDir('l2-b-'), 3 * 3600);
    const headOf = (c: L2Chain) => rpc<Json>(c.anvilUrl, 'eth_getBlockByNumber', ['latest', false]);
    const headA = await headOf(a);
    expect((await headOf(b)).hash).toBe(headA.hash);
    const other = await open('optimism', tempDir('l2-c-'), 3 * 3600, 12);
    expect((await headOf(other)).hash).not.toBe(headA.hash);
    await a.stop();
    const resumed = await open('optimism', dirA, 5 * 3600 + 120);
    const atOld = await rpc<Json>(resumed.anvilUrl, 'eth_getBlockByNumber', [headA.number, false]);
    expect(atOld.hash).toBe(headA.hash);
    const head = await headOf(resumed);
    expect(Number(head.timestamp)).toBe(GENESIS + 5 * 3600 + 120);
    expect(Number(head.number)).toBe(Number(headA.number) + 2 + 2);

    // Arbitrum's internal transactions and its L1 messages' stay findable by hash after a resume (the messages and
    // the hashes are saved with the chain).
    const dirArb = tempDir('l2-arb-resume-');
    const arb = await open('arbitrum', dirArb, 2 * 3600);
    const before = await rpc<Json>(arb.rpcUrl, 'eth_getBlockByNumber', ['0x2', true]);
    await arb.stop();
    const again = await open('arbitrum', dirArb, 3 * 3600);
    expect(await rpc(again.rpcUrl, 'eth_getBlockByNumber', ['0x2', true])).toEqual(before);
    for (const tx of before.transactions)
      expect(await rpc(again.rpcUrl, 'eth_getTransactionByHash', [tx.hash])).toEqual(tx);
    expect(Number(await rpc<string>(again.rpcUrl, 'eth_blockNumber'))).toBeGreaterThan(Number(before.number));
  }, 120_000);

  it('on a thread of its own, as start runs them: on the wall clock, in the background, logging through the service, saved on stop', async () => {
    const dir = tempDir('l2-thread-');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const now = Math.floor(Date.now() / 1000);
    const genesis = now - (now % 3600) - 3 * 3600;
    const l2 = await openL2ChainsOnThread({
      dataDir: dir,
      seed: 5,
      genesisTimestamp: genesis,
      blockSeconds: 5,
      log: logger,
    });
    try {
      expect(Object.keys(l2.config).sort()).toEqual(['RPC_URL_ARBITRUM', 'RPC_URL_OPTIMISM']);
      expect(l2.chains.map((c) => [c.kind, c.chainId])).toEqual([
        ['optimism', 10],
        ['arbitrum', 42161],
      ]);
      await l2.caughtUp;
      for (const c of l2.chains) {
        expect(Number(await rpc<string>(c.rpcUrl, 'eth_chainId'))).toBe(c.chainId);
        const head = await rpc<Json>(c.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
        expect(Number(head.timestamp)).toBeGreaterThan(Math.floor(Date.now() / 1000) - 60);
        // The status the thread reports, and its anvil in the background.
        await vi.waitFor(() => expect(c.status().simulated_until).toBe(Number(head.timestamp)), { timeout: 5000 });
        expect(os.getPriority(c.status().anvil_pid)).toBe(BACKGROUND_NICENESS);
      }
      const caught = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'sandbox: L2 chain caught up');
      expect(caught.map((l) => [l.chain, l.level])).toEqual(
        expect.arrayContaining([
          ['optimism', 30],
          ['arbitrum', 30],
        ]),
      );
    } finally {
      await l2.stop();
    }
    await l2.stop();
    for (const kind of ['optimism', 'arbitrum'] as const)
      expect(existsSync(path.join(l2Dir(dir, kind), L2_FILE))).toBe(true);
  }, 120_000);
});
