import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import { stablecoinArea } from '../src/areas/stablecoin/index.js';
import { stableCheckpointKey } from '../src/areas/stablecoin/ingest.js';
import type { Store } from '../src/store/db.js';
import { openServiceStore, TestClock, testStore } from './helpers.js';
import { areaRunner, sandboxEnv } from './support/areas.js';
import { smallWorld, type TestWorld, WORLD_NOW_MS } from './support/dex-world.js';
import { type FaultyProxy, startFaultyProxy } from './support/faulty-proxy.js';
import { killMidIngest } from './support/kill-mid-ingest.js';

/**
 * Faults on the stablecoin pipeline (issue 15): the same world with MakerDAO and Liquity, ingested through a
 * misbehaving RPC or by a worker killed with SIGKILL in the middle of `stablecoin.ingest`, gives byte-identical
 * published datasets; an RPC that stops answering fails the runs and leaves what was published as it was.
 */

async function datasets(store: Store) {
  return store.db
    .selectFrom('datasets')
    .select(['path', 'payload', 'meta', 'as_of'])
    .where('path', 'like', '%stablecoin%')
    .orderBy('path')
    .execute();
}

type Overrides = { rpcUrl?: string; maxBlockRange?: number; timeoutMs?: number; maxRetries?: number };

async function pipeline(w: TestWorld, store: Store, overrides: Overrides = {}) {
  const env = sandboxEnv(w.world, { endpoint: overrides });
  const clock = new TestClock(WORLD_NOW_MS);
  await areaRunner(dexArea, env, store, clock).all();
  await areaRunner(stablecoinArea, env, store, clock).all();
}

describe('stablecoin pipeline under faults', () => {
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
    w = await smallWorld({ stablecoins: true });
    const clean = await fresh();
    await pipeline(w, clean);
    reference = await datasets(clean);
    // 2 weekly, 2 collaterals, 2 scores and the all-markets listing.
    expect(reference.length).toBe(7);
  }, 300_000);

  afterAll(async () => {
    for (const s of stores) await s.cleanup();
    await w?.close();
  });

  it('errors, timeouts, 429s, truncated bodies and refused log ranges change nothing', async () => {
    let proxy: FaultyProxy | undefined;
    try {
      proxy = await startFaultyProxy(w.world.rpcUrl, {
        seed: 15,
        rates: { error500: 0.08, rateLimit: 0.08, timeout: 0.03, truncate: 0.08 },
        maxLogRange: 8,
        retryAfterSeconds: 0,
      });
      const store = await fresh();
      await pipeline(w, store, { rpcUrl: proxy.url, timeoutMs: 500, maxRetries: 12 });
      expect(await datasets(store)).toEqual(reference);
      const s = proxy.stats;
      expect(s.error500 + s.rateLimited + s.timeouts + s.truncated, 'faults injected').toBeGreaterThan(0);
      expect(s.tooManyResults, 'log ranges refused').toBeGreaterThan(0);
    } finally {
      await proxy?.close();
    }
  }, 240_000);

  it('an RPC that stops answering fails the runs and leaves the published datasets as they were', async () => {
    let proxy: FaultyProxy | undefined;
    try {
      proxy = await startFaultyProxy(w.world.rpcUrl, { seed: 3, rates: {}, retryAfterSeconds: 0 });
      const store = await fresh();
      await pipeline(w, store, { rpcUrl: proxy.url });
      const published = await datasets(store);
      expect(published).toEqual(reference);
      proxy.setRates({ error500: 1 });
      const env = sandboxEnv(w.world, { endpoint: { rpcUrl: proxy.url, timeoutMs: 200, maxRetries: 1 } });
      const { run } = areaRunner(stablecoinArea, env, store, new TestClock(WORLD_NOW_MS + 3600_000));
      await expect(run('stablecoin.ingest')).rejects.toThrow();
      await run('stablecoin.compute').catch(() => undefined);
      expect(await datasets(store)).toEqual(published);
    } finally {
      await proxy?.close();
    }
  }, 240_000);

  it('a worker killed with SIGKILL mid-ingest, then restarted, gives the same datasets', async () => {
    const head = await w.world.head();
    const killed = await killMidIngest(w.world, {
      job: 'stablecoin.ingest',
      checkpointKey: stableCheckpointKey('ethereum', 'makerdao'),
      afterBlock: w.world.manifest.maker!.startBlock + 4,
      timeoutMs: 90_000,
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
  }, 240_000);
});
