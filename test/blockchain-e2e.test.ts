import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockchainArea } from '../src/areas/blockchain/index.js';
import { BLOCKCHAIN_COMPUTATION } from '../src/areas/blockchain/public.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import type { BeaconStandin } from '../src/sandbox/standins/beacon/server.js';
import { BeaconClient } from '../src/sources/beacon/client.js';
import { DatasetRepository } from '../src/store/datasets.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner, sandboxEnv } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * End to end on a small seeded sandbox world with the beacon stand-in: chain → blockchain ingest → compute → API.
 * Ethereum's daily transaction count, distinct senders and fees are recomputed here from the chain alone (full
 * blocks and one `eth_getTransactionReceipt` per transaction, over plain JSON-RPC, not through the pipeline's
 * reader or tables), and the validator count from the stand-in's unfiltered registry; they must be equal. The burn is
 * recounted through viem from the blocks: Σ baseFeePerGas × gasUsed plus Σ blobGasUsed × the blob base fee; the
 * sandbox's blocks carry a base fee and its rollup batchers' blob transactions (issue 26), so neither is zero.
 */

interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown> & { as_of: string; source: string; methodology?: string };
}

type Hex = `0x${string}`;

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

interface Truth {
  txCount: number;
  senders: Set<string>;
  /** Senders, targets and created contracts. */
  addresses: Set<string>;
  fees: bigint;
  blocks: number;
  failed: number;
}

interface Burn {
  baseFeeBurned: bigint;
  blobGasUsed: bigint;
  blobFees: bigint;
  blobTransactions: number;
}

/**
 * Per UTC day, through viem: Σ baseFeePerGas × gasUsed of the blocks, Σ blobGasUsed, and Σ blobGasUsed × the
 * block's blob base fee (the price every blob transaction of the block paid, `blobGasPrice` of its receipts).
 */
async function burnTruth(url: string): Promise<Map<string, Burn>> {
  const client = createPublicClient({ transport: http(url) });
  const head = await client.getBlockNumber();
  const out = new Map<string, Burn>();
  for (let n = 0n; n <= head; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    const day = new Date(Number(block.timestamp) * 1000).toISOString().slice(0, 10);
    const b = out.get(day) ?? { baseFeeBurned: 0n, blobGasUsed: 0n, blobFees: 0n, blobTransactions: 0 };
    b.baseFeeBurned += (block.baseFeePerGas ?? 0n) * block.gasUsed;
    b.blobGasUsed += block.blobGasUsed ?? 0n;
    const blobTxs = block.transactions.filter((tx) => tx.type === 'eip4844');
    if (blobTxs.length > 0) {
      const receipt = await client.getTransactionReceipt({ hash: blobTxs[0]!.hash });
      b.blobFees += (block.blobGasUsed ?? 0n) * (receipt.blobGasPrice ?? 0n);
      b.blobTransactions += blobTxs.length;
    }
    out.set(day, b);
  }
  return out;
}

/** Per UTC day of block timestamps: counts, senders and Σ gasUsed × effectiveGasPrice, from the chain alone. */
async function chainTruth(url: string): Promise<Map<string, Truth>> {
  const head = Number.parseInt(await rpc<string>(url, 'eth_blockNumber', []), 16);
  const out = new Map<string, Truth>();
  for (let n = 0; n <= head; n++) {
    const block = await rpc<{ timestamp: Hex; transactions: { hash: Hex; from: Hex; to: Hex | null }[] }>(
      url,
      'eth_getBlockByNumber',
      [`0x${n.toString(16)}`, true],
    );
    const day = new Date(Number.parseInt(block.timestamp, 16) * 1000).toISOString().slice(0, 10);
    const t = out.get(day) ?? { txCount: 0, senders: new Set(), addresses: new Set(), fees: 0n, blocks: 0, failed: 0 };
    t.blocks++;
    for (const tx of block.transactions) {
      const r = await rpc<{ gasUsed: Hex; effectiveGasPrice: Hex; status: Hex; contractAddress: Hex | null }>(
        url,
        'eth_getTransactionReceipt',
        [tx.hash],
      );
      t.txCount++;
      t.senders.add(tx.from.toLowerCase());
      // Senders and recipients: the target, or for a creation the contract it created.
      t.addresses.add(tx.from.toLowerCase());
      if (tx.to) t.addresses.add(tx.to.toLowerCase());
      if (r.contractAddress) t.addresses.add(r.contractAddress.toLowerCase());
      t.fees += BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
      if (r.status === '0x0') t.failed++;
    }
    out.set(day, t);
  }
  return out;
}

describe('blockchain end to end on the sandbox', () => {
  let w: TestWorld;
  let t: TestApp;
  let opened: TestSources;
  let beacon: BeaconStandin;
  let env: AreaEnv;

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as Envelope<T>;
  };

  /** Runs ingest until it has caught up with the head, then the computation. */
  const runAll = async (runner: ReturnType<typeof areaRunner>) => {
    for (let i = 0; i < 50; i++) {
      const summary = await runner.run('blockchain.ingest');
      if (/up to date/.test(summary ?? '')) break;
    }
    return runner.run(BLOCKCHAIN_COMPUTATION);
  };

  beforeAll(async () => {
    w = await smallWorld({ days: 3, scale: 0.2 });
    // The beacon stand-in started and its source opened as `start` does, following the world's chain.
    opened = await startTestSources({
      kinds: ['beacon'],
      clock: w.clock,
      seed: 7,
      days: 3,
      overrides: { beacon: { rpcUrl: w.world.rpcUrl, validators: 200 } },
      maxRetries: 0,
    });
    beacon = opened.server('beacon');
    env = { ...w.env, sources: w.env.sources.with('beacon', opened.sources.get('beacon')!) };
    t = await testApp();
    const summary = await runAll(areaRunner(blockchainArea, env, t.store, t.clock, () => t.sync()));
    expect(summary).toMatch(/published/);
    await t.sync();
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    await opened?.close();
    await w?.close();
  });

  it('transaction statistics equal the counts, senders and fees recomputed from blocks and receipts', async () => {
    const doc = await get<
      {
        date: string;
        partial: boolean;
        tx_count: number | null;
        active_senders: number | null;
        active_addresses: number | null;
        fees_total_wei: string | null;
        block_count: number | null;
        failed_tx_count: number | null;
        tx_type_mix: Record<string, number> | null;
        base_fee_burned_wei: string | null;
        blob_fees_wei: string | null;
        burned_total_wei: string | null;
        gap_reason: string | null;
      }[]
    >('/data/blockchain/ethereum/transaction-statistics');
    expect(doc.meta.methodology).toBe('blockchain.evm-counting@3.0.0');
    expect(doc.meta.source).toBe('sandbox:ethereum:31337, sandbox:beacon');
    expect(doc.data).toHaveLength(7);
    expect(doc.data.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);
    const truth = await chainTruth(w.world.rpcUrl);
    let compared = 0;
    for (const r of doc.data) {
      const day = truth.get(r.date);
      if (!day) {
        // Before the chain's genesis: unknown, never zero.
        expect(r.tx_count).toBeNull();
        expect(r.gap_reason).toBe('no_data');
        continue;
      }
      expect(r.tx_count, r.date).toBe(day.txCount);
      expect(r.active_senders, r.date).toBe(day.senders.size);
      expect(r.active_addresses, r.date).toBe(day.addresses.size);
      // Recipients the senders do not cover are counted (the world's traffic pays and calls other accounts).
      if (day.txCount > 0) expect(day.addresses.size, r.date).toBeGreaterThan(day.senders.size);
      expect(r.fees_total_wei, r.date).toBe(String(day.fees));
      expect(r.block_count, r.date).toBe(day.blocks);
      expect(r.failed_tx_count, r.date).toBe(day.failed);
      expect(Object.values(r.tx_type_mix ?? {}).reduce((a, b) => a + b, 0)).toBe(day.txCount);
      // The burn holds the blob fees (burned whole under EIP-4844) beside the base fee.
      expect(r.burned_total_wei, r.date).toBe(String(BigInt(r.base_fee_burned_wei!) + BigInt(r.blob_fees_wei!)));
      if (day.txCount > 0) compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('the burn recounted from the blocks: a base fee burned every day, and blob fees', async () => {
    const doc = await get<
      {
        date: string;
        tx_count: number | null;
        tx_type_mix: Record<string, number> | null;
        base_fee_burned_wei: string | null;
        blob_fees_wei: string | null;
        blob_gas_used: string | null;
        burned_total_wei: string | null;
      }[]
    >('/data/blockchain/ethereum/transaction-statistics');
    const truth = await burnTruth(w.world.rpcUrl);
    let blobDays = 0;
    let burned = 0n;
    for (const r of doc.data) {
      const day = truth.get(r.date);
      if (!day || !r.tx_count) continue;
      expect(r.base_fee_burned_wei, r.date).toBe(String(day.baseFeeBurned));
      expect(r.blob_gas_used, r.date).toBe(String(day.blobGasUsed));
      expect(r.blob_fees_wei, r.date).toBe(String(day.blobFees));
      expect(r.burned_total_wei, r.date).toBe(String(day.baseFeeBurned + day.blobFees));
      expect(r.tx_type_mix?.blob ?? 0, r.date).toBe(day.blobTransactions);
      // Every day with transactions burns base fee (the sandbox's base fee is never zero).
      expect(day.baseFeeBurned, r.date).toBeGreaterThan(0n);
      if (day.blobFees > 0n) blobDays++;
      burned += BigInt(r.burned_total_wei!);
    }
    expect(blobDays).toBeGreaterThanOrEqual(2);
    expect(burned).toBeGreaterThan(0n);
  }, 120_000);

  it('network statistics: the validator count of the beacon stand-in, finality from the chain’s tags', async () => {
    const doc = await get<
      {
        date: string;
        validator_count: number | null;
        finalized_epoch: number | null;
        finality_lag_blocks: number | null;
        mempool_pending: number | null;
      }[]
    >('/data/blockchain/ethereum/network-statistics');
    const today = doc.data[0]!;
    const res = await fetch(`${beacon.url}/eth/v1/beacon/states/head/validators`);
    const registry = ((await res.json()) as { data: unknown[] }).data;
    expect(today.validator_count).toBe(registry.length);
    const finalized = await rpc<{ number: Hex; timestamp: Hex }>(w.world.rpcUrl, 'eth_getBlockByNumber', [
      'finalized',
      false,
    ]);
    const latest = await rpc<{ number: Hex }>(w.world.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
    expect(today.finality_lag_blocks).toBe(Number(BigInt(latest.number) - BigInt(finalized.number)));
    const genesis = await new BeaconClient({ baseUrl: beacon.url }).genesis();
    expect(today.finalized_epoch).toBe(Math.floor((Number(BigInt(finalized.timestamp)) - genesis.genesisTime) / 384));
    expect(today.mempool_pending).toBe(0);
    const combined =
      await get<{ transaction_statistics: unknown; network_statistics: unknown }[]>('/data/blockchain/ethereum');
    expect(combined.data[0]!.network_statistics).toEqual(today);
  });

  it('a node that stops answering leaves the published documents intact', async () => {
    const datasets = new DatasetRepository(t.store.db);
    const before = await get<unknown[]>('/data/blockchain/ethereum/transaction-statistics');
    const published = await datasets.latestPublication(BLOCKCHAIN_COMPUTATION);
    expect(published).toBeDefined();
    const stopped = sandboxEnv(w.world, { endpoint: { rpcUrl: 'http://127.0.0.1:9', maxRetries: 0, timeoutMs: 500 } });
    const dead = { ...stopped, sources: stopped.sources.with('beacon', env.sources.get('beacon')!) };
    const runner = areaRunner(blockchainArea, dead, t.store, t.clock, () => t.sync());
    await expect(runner.run('blockchain.ingest')).rejects.toThrow(/ethereum/);
    // Past the price refresh: the computation runs again from the stored facts and publishes nothing new.
    t.clock.advance(30 * 60);
    expect(await runner.run(BLOCKCHAIN_COMPUTATION)).toMatch(/unchanged/);
    await t.sync();
    const after = await get<unknown[]>('/data/blockchain/ethereum/transaction-statistics');
    expect(after.data).toEqual(before.data);
    expect(after.meta.as_of).toBe(before.meta.as_of);
    expect((await datasets.latestPublication(BLOCKCHAIN_COMPUTATION))?.version).toBe(published!.version);
  }, 60_000);
});
