import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GMX_EVENT_NAMES } from '../src/areas/derivatives/gmx/events.js';
import { gmxCheckpointKey } from '../src/areas/derivatives/gmx/ingest.js';
import type { GmxTables } from '../src/areas/derivatives/gmx/tables.js';
import { derivativesArea } from '../src/areas/derivatives/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import type { Store } from '../src/store/db.js';
import { openServiceStore, TestClock } from './helpers.js';
import { areaRunner, sandboxEnv } from './support/areas.js';
import { migratedStores, venueDatasets } from './support/derivatives-faults.js';
import { type FaultyProxy, startFaultyProxy } from './support/faulty-proxy.js';
import { GmxTruth } from './support/gmx-truth.js';
import { type GmxTestWorld, gmxWorld } from './support/gmx-world.js';
import { killMidIngest } from './support/kill-mid-ingest.js';

/**
 * Faults on the GMX v2 pipeline (issue 27): the same Arbitrum sandbox chain read through a JSON-RPC proxy answering
 * 429 with `Retry-After`, 5xx, timeouts, malformed (truncated) JSON and refusing wide log ranges, or ingested by a
 * worker killed with SIGKILL between ranges and restarted, gives the same events (none lost, none twice: the
 * chain's own count) and byte-identical published documents; an RPC that stops answering fails the runs and leaves
 * what was published as it was.
 */

const GMX_JOBS = ['derivatives.gmx.ingest', 'derivatives.gmx.snapshot', 'derivatives.gmx.compute'];

const datasets = (store: Store) => venueDatasets(store, 'gmx');

async function events(store: Store) {
  return store.db
    .withTables<GmxTables>()
    .selectFrom('gmx_events')
    .select(['block_number', 'log_index', 'tx_hash', 'name', 'market', 'data'])
    .orderBy('block_number')
    .orderBy('log_index')
    .execute();
}

type Endpoint = { rpcUrl?: string; maxBlockRange?: number; timeoutMs?: number; maxRetries?: number };

describe('GMX v2 pipeline under faults', () => {
  let w: GmxTestWorld;
  const stores = migratedStores();
  const fresh = stores.fresh;
  let reference: Awaited<ReturnType<typeof datasets>>;
  let referenceEvents: Awaited<ReturnType<typeof events>>;
  let head: number;

  /** The world's environment (its chain through `endpoint`, and the keeper). */
  const envWith = (endpoint: Endpoint): AreaEnv => ({
    ...w.env,
    sources: w.env.sources.with('evm', sandboxEnv(w.access, { endpoint }).sources.get('evm')!),
  });
  const pipeline = async (store: Store, endpoint: Endpoint = {}, clock = new TestClock(w.clock.ms)) => {
    const runner = areaRunner(derivativesArea, envWith(endpoint), store, clock);
    for (const job of GMX_JOBS) await runner.run(job);
  };

  beforeAll(async () => {
    w = await gmxWorld();
    const clean = await fresh();
    await pipeline(clean);
    reference = await datasets(clean);
    referenceEvents = await events(clean);
    // The listing, the protocol and the registry's 15 pairs.
    expect(reference).toHaveLength(17);
    // Every log of a name the part reads, once: the chain's own count.
    const truth = await GmxTruth.read(w.chain.anvilUrl, w.section);
    head = truth.head;
    const names = new Set<string>(GMX_EVENT_NAMES);
    expect(referenceEvents.length).toBe(truth.events.filter((e) => names.has(e.name)).length);
    expect(referenceEvents.length).toBeGreaterThan(500);
  }, 300_000);

  afterAll(async () => {
    await stores.cleanup();
    await w?.close();
  });

  it('429s with Retry-After, 5xx, timeouts, malformed JSON and refused log ranges change nothing', async () => {
    let proxy: FaultyProxy | undefined;
    try {
      proxy = await startFaultyProxy(w.chain.rpcUrl, {
        seed: 27,
        rates: { error500: 0.08, rateLimit: 0.08, timeout: 0.02, truncate: 0.08 },
        maxLogRange: 4,
        retryAfterSeconds: 1,
      });
      const store = await fresh();
      // 26 % of requests fail: 12 retries make giving up ~1e-7 per call.
      await pipeline(store, { rpcUrl: proxy.url, timeoutMs: 1000, maxRetries: 12 });
      expect(await events(store)).toEqual(referenceEvents);
      expect(await datasets(store)).toEqual(reference);
      const s = proxy.stats;
      expect(s.error500, 'HTTP 500s injected').toBeGreaterThan(0);
      expect(s.rateLimited, '429s injected').toBeGreaterThan(0);
      expect(s.truncated, 'malformed bodies injected').toBeGreaterThan(0);
      expect(s.tooManyResults, 'log ranges refused').toBeGreaterThan(0);
    } finally {
      await proxy?.close();
    }
  }, 300_000);

  it('a worker killed with SIGKILL between ranges, then restarted, loses and repeats no event', async () => {
    const killed = await killMidIngest(w.access, {
      job: 'derivatives.gmx.ingest',
      checkpointKey: gmxCheckpointKey({ protocol: 'gmx', chain: 'arbitrum' }),
      afterBlock: w.section.startBlock + 6,
      timeoutMs: 120_000,
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.killedAt, 'killed before the end of the chain').toBeLessThan(head);
    const store = openServiceStore({ sqliteFile: killed.dbFile });
    try {
      const partial = await events(store);
      expect(partial.length, 'some events were committed before the kill').toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(referenceEvents.length);
      await pipeline(store);
      expect(await events(store)).toEqual(referenceEvents);
      expect(await datasets(store)).toEqual(reference);
    } finally {
      await store.close();
      killed.remove();
    }
  }, 300_000);

  it('an RPC that stops answering fails the runs and leaves the published documents as they were', async () => {
    let proxy: FaultyProxy | undefined;
    try {
      proxy = await startFaultyProxy(w.chain.rpcUrl, { seed: 3, rates: {}, retryAfterSeconds: 0 });
      const store = await fresh();
      await pipeline(store, { rpcUrl: proxy.url });
      const published = await datasets(store);
      expect(published).toEqual(reference);
      proxy.setRates({ error500: 0.5, truncate: 0.5 });
      const later = new TestClock(w.clock.ms + 3600_000);
      const { run } = areaRunner(
        derivativesArea,
        envWith({ rpcUrl: proxy.url, timeoutMs: 200, maxRetries: 1 }),
        store,
        later,
      );
      for (const job of GMX_JOBS.slice(0, 2)) await expect(run(job)).rejects.toThrow();
      await run('derivatives.gmx.compute').catch(() => undefined);
      expect(await datasets(store)).toEqual(published);
    } finally {
      await proxy?.close();
    }
  }, 300_000);
});
