import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativesArea } from '../src/areas/derivatives/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { registry } from '../src/registry/index.js';
import type { DydxStandin } from '../src/sandbox/standins/dydx/server.js';
import { readCheckpoint } from '../src/store/checkpoints.js';
import type { Store } from '../src/store/db.js';
import { openServiceStore, TestClock } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { migratedStores, tableRows, venueDatasets } from './support/derivatives-faults.js';
import { type JsonFaultProxy, startJsonFaultProxy } from './support/json-fault-proxy.js';
import { killVenueIngest } from './support/kill-venue-ingest.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * Faults on the dYdX v4 part (issue 27): the indexer and the node answering 429 with comlink's `Retry-After`
 * (milliseconds), 5xx and malformed bodies (not JSON, cut short, valid JSON of the wrong shape: a number where the
 * wire has a string, a field missing), and a worker killed with SIGKILL mid-ingest then restarted, leave the published
 * documents unchanged or complete: equal, byte for byte, to an uninterrupted run's, with the same facts (none lost,
 * none twice). The stand-in sits behind a proxy that spoils chosen answers; the clients wait for real (the stand-in's
 * clock stands still, so its answers do not move while a client waits).
 */

const T0 = Date.UTC(2026, 10, 20, 14, 30, 0);
const FACT_TABLES = ['dydx_markets', 'dydx_candles', 'dydx_funding', 'dydx_trade_hours', 'dydx_balances'];
const HOURLY_KEY = 'derivatives.dydx.hourly:dydx';

const datasets = (store: Store) => venueDatasets(store, 'dydx');

/** Every fact row of the part and its checkpoint, in a stable order. */
async function facts(store: Store): Promise<Record<string, string[]>> {
  const out = await tableRows(store, FACT_TABLES);
  out.checkpoint = [JSON.stringify(await readCheckpoint(store.db, HOURLY_KEY))];
  return out;
}

const readTo = async (store: Store) => (await readCheckpoint<{ readTo: number }>(store.db, HOURLY_KEY))?.readTo;

/** comlink's 429: `Retry-After` in milliseconds beside its `RateLimit-*` headers. */
const comlink429 = (retryAfterMs: number) => ({
  kind: 'answer' as const,
  status: 429,
  headers: {
    'ratelimit-limit': '100',
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(T0 + 10_000),
    'retry-after': String(retryAfterMs),
  },
  body: { errors: [{ msg: 'Too many requests' }] },
});

describe('dYdX v4 part under faults', () => {
  let proxy: JsonFaultProxy;
  let opened: TestSources;
  let dydx: DydxStandin;
  let env: AreaEnv;
  let reference: Awaited<ReturnType<typeof datasets>>;
  let referenceFacts: Record<string, string[]>;
  const stores = migratedStores();
  const fresh = stores.fresh;
  const runner = (store: Store, atMs = T0) => areaRunner(derivativesArea, env, store, new TestClock(atMs)).run;
  /**
   * The part's jobs as the scheduler runs them: the ingest again until it has caught up; the compute `publishAfter`
   * ms later (a store that published at T0 publishes again a minute on: the configuration's least interval).
   */
  const pipeline = async (store: Store, publishAfter = 0) => {
    const run = runner(store);
    await run('derivatives.dydx.markets');
    for (let i = 0; i < 10 && !((await run('derivatives.dydx.ingest')) ?? '').includes('up to date'); i++);
    return runner(store, T0 + publishAfter)('derivatives.dydx.compute');
  };

  beforeAll(async () => {
    proxy = await startJsonFaultProxy();
    opened = await startTestSources({
      kinds: ['dydx'],
      clock: new TestClock(T0),
      days: 2,
      realSleep: true,
      keys: { DYDX_INDEXER_URL: proxy.url, DYDX_NODE_REST_URL: proxy.url },
      // The stand-in's clock stands still: its windows would never reset.
      overrides: { dydx: { rateLimit: { limit: 1e9, anonymousLimit: 1e9 } } },
    });
    dydx = opened.server('dydx');
    proxy.setTarget(dydx.url);
    env = { config: opened.config, registry, book: EMPTY_BOOK, sources: opened.sources };
    const clean = await fresh();
    expect(await pipeline(clean)).toMatch(/^published/);
    reference = await datasets(clean);
    referenceFacts = await facts(clean);
    expect(reference.length).toBe(2 + registry.protocol('dydx')!.derivatives!.pairs.length);
    expect(referenceFacts.dydx_balances!.length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await stores.cleanup();
    await opened?.close();
    await proxy?.close();
  });

  it('429s with Retry-After (milliseconds, as comlink sends it), 5xx, bodies not JSON or cut short: retried, nothing changes', async () => {
    proxy.inject(
      { fault: comlink429(400), match: '/v4/perpetualMarkets' },
      { fault: comlink429(250), match: '/v4/trades/perpetualMarket/BTC-USD' },
      { fault: { kind: 'answer', status: 503, body: { errors: [{ msg: 'Service Unavailable' }] } }, match: 'ETH-USD' },
      { fault: { kind: 'answer', status: 502, body: '<html>bad gateway</html>' }, match: '/cosmos/bank' },
      { fault: { kind: 'not-json' }, match: '/v4/historicalFunding/SOL-USD' },
      { fault: { kind: 'truncate' }, match: '/v4/candles/perpetualMarkets/BTC-USD' },
      { fault: { kind: 'truncate' }, match: '/v4/trades/perpetualMarket/ETH-USD' },
    );
    const from = proxy.requests.length;
    const store = await fresh();
    // Every fault is retried within its request: no run fails.
    expect(await pipeline(store)).toMatch(/^published/);
    expect(proxy.pending()).toBe(0);
    expect(proxy.delivered.length).toBe(7);
    expect(await facts(store)).toEqual(referenceFacts);
    expect(await datasets(store)).toEqual(reference);
    // The wait asked for is honoured: the same request again no sooner than Retry-After's milliseconds.
    const sent = proxy.requests.slice(from);
    for (const [match, ms] of [
      ['/v4/perpetualMarkets', 400],
      ['/v4/trades/perpetualMarket/BTC-USD', 250],
    ] as const) {
      const i = sent.findIndex((r) => r.what.includes(match));
      const again = sent.slice(i + 1).find((r) => r.what === sent[i]!.what);
      expect(again, match).toBeDefined();
      expect(again!.atMs - sent[i]!.atMs, match).toBeGreaterThanOrEqual(ms - 5);
      expect(again!.atMs - sent[i]!.atMs, `${match}: no longer than asked`).toBeLessThan(ms + 4000);
    }
  }, 60_000);

  it('an answer of the wrong shape fails its run naming the field, writes nothing and changes no document', async () => {
    const store = await fresh();
    const run = runner(store);
    // The market list with one market's open interest missing: nothing stored; the next run reads it.
    proxy.inject({
      fault: {
        kind: 'rewrite',
        rewrite: (b) => {
          const body = b as { markets: Record<string, Record<string, unknown>> };
          delete body.markets['ETH-USD']!.openInterest;
          return body;
        },
      },
      match: '/v4/perpetualMarkets',
    });
    await expect(run('derivatives.dydx.markets')).rejects.toThrow(/markets\/ETH-USD\/openInterest/);
    expect((await facts(store)).dydx_markets).toEqual([]);
    await run('derivatives.dydx.markets');
    // The first runs' 48 hours lie before the world's first fill; the next one reads the world's first hours.
    expect(await run('derivatives.dydx.ingest')).toContain(' 0 fills');
    expect(await run('derivatives.dydx.ingest')).toContain(' 0 fills');
    expect(await run('derivatives.dydx.compute')).toMatch(/^published/);
    const published = await datasets(store);
    const before = await facts(store);
    const spoil: [string, string, RegExp, (b: Record<string, unknown[]>) => void][] = [
      // A number where the wire has a decimal string.
      [
        '/v4/trades/perpetualMarket/ETH-USD',
        'trade size',
        /trades\/0\/size/,
        (b) => {
          const t = b.trades![0] as Record<string, unknown>;
          t.size = Number(t.size);
        },
      ],
      // A field missing.
      [
        '/v4/historicalFunding/BTC-USD',
        'funding rate',
        /historicalFunding\/0\/rate/,
        (b) => {
          delete (b.historicalFunding![0] as Record<string, unknown>).rate;
        },
      ],
      // A count as a string.
      [
        '/v4/candles/perpetualMarkets/SOL-USD',
        'candle trades',
        /candles\/0\/trades/,
        (b) => {
          const c = b.candles![0] as Record<string, unknown>;
          c.trades = String(c.trades);
        },
      ],
      // An instant that is no date.
      [
        '/v4/trades/perpetualMarket/BTC-USD',
        'trade time',
        /trades\/1\/createdAt/,
        (b) => {
          (b.trades![1] as Record<string, unknown>).createdAt = '2026-13-45T99:00:00.000Z';
        },
      ],
      // The node's balance as a number: not a gap in the TVL, a failed read.
      [
        '/cosmos/bank',
        'module balance',
        /balances\/0\/amount/,
        (b) => {
          const x = b.balances![0] as Record<string, unknown>;
          x.amount = Number(x.amount);
        },
      ],
    ];
    for (const [match, what, field, change] of spoil) {
      proxy.inject({
        fault: {
          kind: 'rewrite',
          rewrite: (b) => {
            change(b as Record<string, unknown[]>);
            return b;
          },
        },
        match,
      });
      await expect(run('derivatives.dydx.ingest'), what).rejects.toThrow(field);
      expect(proxy.pending(), what).toBe(0);
      expect(await facts(store), `${what}: nothing written`).toEqual(before);
      expect(await run('derivatives.dydx.compute'), what).toContain('up to date');
      expect(await datasets(store), `${what}: the documents as published`).toEqual(published);
    }
    // The next runs read what failed: the documents end complete, as an uninterrupted run's.
    expect(await pipeline(store, 60_000)).toMatch(/^published/);
    expect(await facts(store)).toEqual(referenceFacts);
    expect(await datasets(store)).toEqual(reference);
  }, 60_000);

  it('a worker killed with SIGKILL mid-ingest, then restarted, loses and repeats nothing', async () => {
    let committedAt: number | undefined;
    const killed = await killVenueIngest({
      keys: { DYDX_INDEXER_URL: dydx.url, DYDX_NODE_REST_URL: dydx.url },
      nowMs: T0,
      jobs: ['derivatives.dydx.markets', 'derivatives.dydx.ingest'],
      // Killed a few requests into the read after the first one with funding points committed.
      killWhen: async (w) => {
        if (committedAt === undefined) {
          const { rows } = await sql<{ n: number }>`select count(*) as n from dydx_funding`.execute(w.db);
          if (Number(rows[0]?.n) > 0) committedAt = dydx.stats.requests;
          return false;
        }
        return dydx.stats.requests >= committedAt + 7;
      },
      timeoutMs: 60_000,
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.killed, 'killed before the worker was done').toBe(true);
    const store = openServiceStore({ sqliteFile: killed.dbFile });
    try {
      const partial = await facts(store);
      const committed = (await readTo(store))!;
      const done = Number(JSON.parse(referenceFacts.checkpoint![0]!).readTo);
      expect(committed).toBeLessThan(done);
      // What the killed worker committed is the uninterrupted run's, every row of it.
      for (const table of ['dydx_trade_hours', 'dydx_funding']) {
        expect(partial[table]!.length, table).toBeGreaterThan(0);
        for (const row of partial[table]!) expect(referenceFacts[table], table).toContain(row);
      }
      const from = dydx.log.length;
      expect(await pipeline(store)).toMatch(/^published/);
      // The restart reads on from the checkpoint: no hour before it is asked for again.
      const trades = dydx.log
        .slice(from)
        .map((r) => new URL(r.url, 'http://x').searchParams.get('createdBeforeOrAt'))
        .filter((v): v is string => v !== null);
      expect(trades.length).toBeGreaterThan(0);
      for (const t of trades) expect(Date.parse(t)).toBeGreaterThanOrEqual(committed * 1000);
      expect(await facts(store)).toEqual(referenceFacts);
      expect(await datasets(store)).toEqual(reference);
    } finally {
      await store.close();
      killed.remove();
    }
  }, 90_000);
});
