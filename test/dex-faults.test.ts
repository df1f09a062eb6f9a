import { createPublicClient, createTestClient, http, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import type { DexTables } from '../src/areas/dex/public.js';
import { readCheckpoint } from '../src/store/checkpoints.js';
import type { Store } from '../src/store/db.js';
import { openServiceStore, TestClock, testStore } from './helpers.js';
import { areaRunner, sandboxEnv } from './support/areas.js';
import { smallWorld, type TestWorld, WORLD_NOW_MS } from './support/dex-world.js';
import { type FaultyProxy, startFaultyProxy } from './support/faulty-proxy.js';
import { killMidIngest } from './support/kill-mid-ingest.js';

/**
 * Faults on the DEX pipeline: the same world ingested through a misbehaving RPC, or by a worker killed with
 * SIGKILL in the middle, gives byte-identical datasets; a reorg leaves no fact from the abandoned blocks.
 */

async function datasets(store: Store) {
  return store.db.selectFrom('datasets').select(['path', 'payload', 'meta', 'as_of']).orderBy('path').execute();
}

async function pipeline(
  w: TestWorld,
  store: Store,
  overrides: { rpcUrl?: string; maxBlockRange?: number; timeoutMs?: number; maxRetries?: number } = {},
) {
  const env = sandboxEnv(w.world, { endpoint: overrides });
  await areaRunner(dexArea, env, store, new TestClock(WORLD_NOW_MS)).all();
}

describe('DEX pipeline under faults', () => {
  let w: TestWorld;
  const stores: { store: Store; cleanup: () => Promise<void> }[] = [];
  let reference: Awaited<ReturnType<typeof datasets>>;

  const fresh = async () => {
    const s = testStore();
    stores.push(s);
    await s.store.migrate();
    return s.store;
  };

  beforeAll(async () => {
    w = await smallWorld();
    const clean = await fresh();
    await pipeline(w, clean);
    reference = await datasets(clean);
    expect(reference.length).toBeGreaterThan(20);
  }, 240_000);

  afterAll(async () => {
    for (const s of stores) await s.cleanup();
    await w?.close();
  });

  it('errors, timeouts, 429s, truncated bodies and refused log ranges change nothing', async () => {
    let proxy: FaultyProxy | undefined;
    try {
      proxy = await startFaultyProxy(w.world.rpcUrl, {
        seed: 11,
        rates: { error500: 0.08, rateLimit: 0.08, timeout: 0.03, truncate: 0.08 },
        maxLogRange: 8,
        retryAfterSeconds: 0,
      });
      const store = await fresh();
      // 27 % of requests fail: with the default 6 retries a call gives up once in ~10,000 (0.27^7), and concurrent
      // calls interleave their attempts; 12 retries make that ~4e-8.
      await pipeline(w, store, { rpcUrl: proxy.url, timeoutMs: 500, maxRetries: 12 });
      expect(await datasets(store)).toEqual(reference);
      const s = proxy.stats;
      expect(s.error500, 'HTTP 500s injected').toBeGreaterThan(0);
      expect(s.rateLimited, '429s injected').toBeGreaterThan(0);
      expect(s.timeouts, 'timeouts injected').toBeGreaterThan(0);
      expect(s.truncated, 'truncated bodies injected').toBeGreaterThan(0);
      expect(s.tooManyResults, 'log ranges refused').toBeGreaterThan(0);
    } finally {
      await proxy?.close();
    }
  }, 180_000);

  it('a worker killed with SIGKILL mid-ingest, then restarted, gives the same datasets', async () => {
    const head = await w.world.head();
    const killed = await killMidIngest(w.world, {
      job: 'dex.ingest',
      checkpointKey: 'dex:ethereum',
      afterBlock: 2,
      timeoutMs: 60_000,
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.killedAt, 'killed before the end of the chain').toBeLessThan(head);
    const store = openServiceStore({ sqliteFile: killed.dbFile });
    try {
      await pipeline(w, store);
      expect(await datasets(store)).toEqual(reference);
    } finally {
      await store.close();
      killed.remove();
    }
  }, 180_000);

  it('a reorg of the last blocks leaves no fact from the abandoned blocks', async () => {
    const store = await fresh();
    const rpc = http(w.world.rpcUrl);
    const chain = createPublicClient({ transport: rpc });
    const test = createTestClient({ mode: 'anvil', transport: rpc });
    const base = await w.world.head();
    const snapshot = await test.snapshot();
    // The branch that will be abandoned: three more hours of market activity, ingested.
    w.clock.advance(3 * 3600);
    await w.world.sync();
    const abandonedHead = await w.world.head();
    expect(abandonedHead).toBeGreaterThan(base);
    await pipeline(w, store);
    const abandoned = await store.db
      .withTables<DexTables>()
      .selectFrom('dex_swaps')
      .select('tx_hash')
      .where('block_number', '>', base)
      .execute();
    expect(abandoned.length, 'the abandoned branch had swaps').toBeGreaterThan(0);

    // The new history: from the fork point, blocks with other transactions and more of them.
    await test.revert({ id: snapshot });
    const [from, to] = (await test.request({ method: 'eth_accounts' } as never)) as [`0x${string}`, `0x${string}`];
    const forkTime = Number((await chain.getBlock({ blockNumber: BigInt(base) })).timestamp);
    for (let i = 1; i <= abandonedHead - base + 1; i++) {
      await test.sendUnsignedTransaction({ from, to, value: parseEther('0.001') });
      await test.request({ method: 'evm_mine', params: [forkTime + i * 1200] } as never);
    }
    await pipeline(w, store);

    const after = await store.db
      .withTables<DexTables>()
      .selectFrom('dex_swaps')
      .select(['tx_hash', 'block_number'])
      .execute();
    const gone = new Set(abandoned.map((r) => r.tx_hash));
    expect(after.filter((r) => gone.has(r.tx_hash))).toEqual([]);
    expect(after.every((r) => Number(r.block_number) <= base)).toBe(true);
    const cp = await readCheckpoint<{ block: number; hash: string }>(store.db, 'dex:ethereum');
    const onChain = await chain.getBlock({ blockNumber: BigInt(cp!.block) });
    expect(cp!.hash).toBe(onChain.hash);
    const snaps = await store.db
      .withTables<DexTables>()
      .selectFrom('dex_pool_snapshots')
      .select('block_number')
      .where('block_number', '>', base)
      .execute();
    expect(snaps.every((r) => Number(r.block_number) === cp!.block)).toBe(true);
  }, 180_000);
});
