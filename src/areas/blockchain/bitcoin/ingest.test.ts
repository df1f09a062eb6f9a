import { afterEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../../test/helpers.js';
import { jobRunner } from '../../../../test/support/areas.js';
import { loadConfig } from '../../../config/index.js';
import { registry } from '../../../registry/index.js';
import { coinbase, mineBlock } from '../../../sandbox/standins/bitcoin/build.js';
import { BitcoinChain } from '../../../sandbox/standins/bitcoin/chain.js';
import { type BitcoinStandin, type ChainWorld, startBitcoinStandin } from '../../../sandbox/standins/bitcoin/server.js';
import { BitcoinWorld } from '../../../sandbox/standins/bitcoin/world.js';
import { openBitcoin } from '../../../sources/bitcoin/endpoint.js';
import { SourceMap } from '../../../sources/index.js';
import { DatasetRepository } from '../../../store/datasets.js';
import type { Store } from '../../../store/db.js';
import { blockchainArea } from '../index.js';
import { BitcoinRepository } from './repo.js';
import type { BitcoinTransactionRecord } from './schema.js';
import type { BitcoinTables } from './tables.js';

const clock = new TestClock(Date.UTC(2026, 10, 20, 9, 0, 0));
const world = BitcoinWorld.open({ seed: 21, nowSeconds: clock.nowMs() / 1000, days: 1 });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A node serving `chain()` (swappable), and the area's Bitcoin jobs on a fresh store reading it. */
async function setUp(chain: () => BitcoinChain, options: { pruneHeight?: number } = {}) {
  const served: ChainWorld = {
    get chain() {
      return chain();
    },
    advance: () => [],
    mempool: () => [],
  };
  const node: BitcoinStandin = await startBitcoinStandin({ seed: 21, clock, days: 1, world: served, ...options });
  const { store, cleanup } = testStore();
  await store.migrate();
  cleanups.push(async () => {
    await node.close();
    await cleanup();
  });
  const env = {
    config: loadConfig({}),
    registry,
    book: { origin: 'registry' as const, chains: {} },
    sources: new SourceMap({
      bitcoin: openBitcoin({ url: node.url, user: 'sandbox', password: 'sandbox' }, { sleep: async () => {} }),
    }),
  };
  // Through the area, as the runtime runs it: with Bitcoin Core as the only source, the Bitcoin part's jobs alone.
  return { run: jobRunner(blockchainArea.jobs(env), store, clock), store, node };
}

const stored = (store: Store) =>
  store.db.withTables<BitcoinTables>().selectFrom('btc_blocks').select(['height', 'hash']).orderBy('height').execute();

describe('Bitcoin ingest', () => {
  it('reads every block from the look-back on, and again from the first block a reorganisation replaced', async () => {
    let current = world.chain;
    const { run, store } = await setUp(() => current);
    expect(await run('blockchain.bitcoin.ingest')).toMatch(/^2 batches: blocks 0–199 \(tip \d+\)/);
    const tip = world.chain.height;
    expect((await stored(store)).length).toBe(tip + 1);

    // A competing branch replaces the last two blocks and adds a third.
    const fork = new BitcoinChain(world.chain.params);
    for (let h = 0; h <= tip - 2; h++) fork.connect(world.chain.entry(h)!.raw);
    for (let h = tip - 1; h <= tip + 1; h++) {
      const block = mineBlock({
        prevHash: fork.tip!.block.getHash(),
        time: fork.tip!.time + 300,
        txs: [coinbase({ height: h, value: 1000, payTo: world.pool.script, extra: Uint8Array.of(0x01, 0x07) })],
      });
      fork.connect(block.toBuffer());
    }
    current = fork;
    expect(await run('blockchain.bitcoin.ingest')).toMatch(new RegExp(`reorganisation from ${tip - 1}`));
    const rows = await stored(store);
    expect(rows.length).toBe(tip + 2);
    for (const r of rows) expect(r.hash).toBe(fork.entry(Number(r.height))!.hash);
    expect(await run('blockchain.bitcoin.ingest')).toMatch(/^no new block/);
  });

  it('stores pruned blocks as missing, and their days are published unknown (source_error)', async () => {
    const { run, store } = await setUp(() => world.chain, { pruneHeight: 150 });
    expect(await run('blockchain.bitcoin.ingest')).toMatch(/150 pruned/);
    const missing = await store.db.withTables<BitcoinTables>().selectFrom('btc_missing_blocks').selectAll().execute();
    expect(missing.map((m) => Number(m.height))).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect((await stored(store)).length).toBe(world.chain.height + 1 - 150);
    expect(await run('blockchain.bitcoin.compute')).toMatch(/^published 3 documents/);
    const doc = await new DatasetRepository(store.db).get('/data/blockchain/bitcoin/transaction-statistics');
    const records = JSON.parse(doc!.payload) as BitcoinTransactionRecord[];
    // Heights 0–110 (genesis and bootstrap) fell on the 18th, 111–149 early on the 19th; the 20th is complete.
    expect(records[0]).toMatchObject({ date: '2026-11-20', gap_reason: null });
    expect(records[0]!.tx_count).toBeGreaterThan(0);
    expect(records[1]).toMatchObject({ date: '2026-11-19', tx_count: null, fees_total_sat: null });
    expect(records[1]!.gap_reasons).toMatchObject({ tx_count: 'source_error', fees_total_sat: 'source_error' });
    expect(records[2]).toMatchObject({ date: '2026-11-18', gap_reason: 'source_error' });
  });

  it('records a failing node and changes nothing stored', async () => {
    const { run, store, node } = await setUp(() => world.chain);
    await run('blockchain.bitcoin.ingest');
    const before = await stored(store);
    const repo = new BitcoinRepository(store.db);
    await node.close();
    await expect(run('blockchain.bitcoin.ingest')).rejects.toThrow();
    expect(await repo.checkpoint('blockchain.bitcoin:error')).toMatchObject({ at: clock.nowMs() / 1000 });
    expect(await stored(store)).toEqual(before);
  });
});
