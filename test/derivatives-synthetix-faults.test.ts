import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativesArea } from '../src/areas/derivatives/index.js';
import { historyCheckpointKey } from '../src/areas/derivatives/synthetix/ingest.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { registry } from '../src/registry/index.js';
import type { SynthetixStandin } from '../src/sandbox/standins/synthetix/server.js';
import { readCheckpoint } from '../src/store/checkpoints.js';
import type { Store } from '../src/store/db.js';
import { openServiceStore, TestClock } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { migratedStores, tableRows, venueDatasets } from './support/derivatives-faults.js';
import { type JsonFaultProxy, type ProxyFault, startJsonFaultProxy } from './support/json-fault-proxy.js';
import { killVenueIngest } from './support/kill-venue-ingest.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * Faults on the Synthetix part (issue 27): the info API answering 429 (with `Retry-After` in seconds, and without:
 * Synthetix documents the 429 of its token buckets, not the header), 5xx and `INTERNAL_ERROR`, malformed bodies (not
 * JSON, cut short, valid JSON of the wrong shape: a number where the wire has a decimal string, a field missing), and
 * a worker killed with SIGKILL mid-ingest then restarted, leave the published documents unchanged or complete: equal,
 * byte for byte, to an uninterrupted run's, with the same facts (none lost, none twice). The stand-in sits behind a
 * proxy that spoils chosen answers; the clients wait for real (the stand-in's clock stands still).
 */

const T0 = Date.UTC(2026, 10, 20, 14, 30, 0);
const FACT_TABLES = ['synthetix_markets', 'synthetix_observations', 'synthetix_candles', 'synthetix_funding'];
const KEY = historyCheckpointKey('synthetix');

const datasets = (store: Store) => venueDatasets(store, 'synthetix');

async function facts(store: Store): Promise<Record<string, string[]>> {
  const out = await tableRows(store, FACT_TABLES);
  // Each market's last read, whatever the order the markets were read in.
  const read = (await readCheckpoint<Record<string, number>>(store.db, KEY)) ?? {};
  out.checkpoint = [JSON.stringify(Object.fromEntries(Object.entries(read).sort(([a], [b]) => (a < b ? -1 : 1))))];
  return out;
}

/** The request body's start for an action (and a market's). */
const action = (name: string, symbol?: string) => `"action":"${name}"${symbol ? `,"symbol":"${symbol}"` : ''}`;

const envelope = (code: string, message: string) => ({
  status: 'error',
  error: { code, message },
  request_id: 'fault',
  timestamp: new Date(T0).toISOString(),
});

const rewrite = (change: (response: Record<string, unknown>) => void): ProxyFault => ({
  kind: 'rewrite',
  rewrite: (b) => {
    change((b as { response: Record<string, unknown> }).response);
    return b;
  },
});

describe('Synthetix part under faults', () => {
  let proxy: JsonFaultProxy;
  let opened: TestSources;
  let standin: SynthetixStandin;
  let env: AreaEnv;
  let reference: Awaited<ReturnType<typeof datasets>>;
  let referenceFacts: Record<string, string[]>;
  const stores = migratedStores();
  const fresh = stores.fresh;
  const runner = (store: Store, atMs = T0) => areaRunner(derivativesArea, env, store, new TestClock(atMs)).run;
  const pipeline = async (store: Store, publishAfter = 0) => {
    const run = runner(store);
    await run('derivatives.synthetix.markets');
    await run('derivatives.synthetix.history');
    return runner(store, T0 + publishAfter)('derivatives.synthetix.compute');
  };

  beforeAll(async () => {
    proxy = await startJsonFaultProxy();
    opened = await startTestSources({
      kinds: ['synthetix'],
      clock: new TestClock(T0),
      days: 3,
      realSleep: true,
      keys: { SYNTHETIX_API_URL: proxy.url },
      overrides: { synthetix: { rateLimit: { limit: 1e9, anonymousLimit: 1e9 } } },
    });
    standin = opened.server('synthetix');
    proxy.setTarget(standin.url);
    env = { config: opened.config, registry, book: EMPTY_BOOK, sources: opened.sources };
    const clean = await fresh();
    expect(await pipeline(clean)).toMatch(/^published 5 documents/);
    reference = await datasets(clean);
    referenceFacts = await facts(clean);
    expect(referenceFacts.synthetix_funding!.length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await stores.cleanup();
    await opened?.close();
    await proxy?.close();
  });

  it('429s with and without Retry-After, 5xx, INTERNAL_ERROR, bodies not JSON or cut short: retried, nothing changes', async () => {
    const limited = { status: 429, body: envelope('RATE_LIMIT_EXCEEDED', 'Too many requests') };
    proxy.inject(
      { fault: { kind: 'answer', ...limited, headers: { 'retry-after': '1' } }, match: action('getMarkets') },
      { fault: { kind: 'answer', ...limited }, match: action('getOpenInterest') },
      { fault: { kind: 'not-json' }, match: action('getMarketPrices') },
      { fault: { kind: 'answer', status: 500, body: envelope('INTERNAL_ERROR', 'boom') }, match: 'BTC-USDT' },
      { fault: { kind: 'answer', status: 503, body: '<html>unavailable</html>' }, match: 'ETH-USDT' },
      { fault: { kind: 'answer', status: 200, body: envelope('INTERNAL_ERROR', 'retry') }, match: 'SOL-USDT' },
      { fault: { kind: 'truncate' }, match: action('getFundingRateHistory', 'LINK-USDT') },
      { fault: { kind: 'truncate' }, match: action('getCandles', 'AAVE-USDT') },
    );
    const from = proxy.requests.length;
    const store = await fresh();
    expect(await pipeline(store)).toMatch(/^published 5 documents/);
    expect(proxy.pending()).toBe(0);
    expect(proxy.delivered.length).toBe(8);
    expect(await facts(store)).toEqual(referenceFacts);
    expect(await datasets(store)).toEqual(reference);
    // The wait a 429 asks for (seconds) is honoured; without one, the client backs off and asks again.
    const sent = proxy.requests.slice(from);
    const again = (match: string) => {
      const i = sent.findIndex((r) => r.what.includes(match));
      const next = sent.slice(i + 1).find((r) => r.what === sent[i]!.what);
      expect(next, match).toBeDefined();
      return next!.atMs - sent[i]!.atMs;
    };
    expect(again(action('getMarkets'))).toBeGreaterThanOrEqual(995);
    expect(again(action('getMarkets'))).toBeLessThan(4000);
    expect(again(action('getOpenInterest'))).toBeLessThan(4000);
  }, 60_000);

  it('a market answer of the wrong shape fails the markets run naming the field and changes nothing', async () => {
    const store = await fresh();
    expect(await pipeline(store)).toMatch(/^published 5 documents/);
    const published = await datasets(store);
    const before = await facts(store);
    const run = runner(store);
    const spoil: [string, RegExp, ProxyFault][] = [
      [
        action('getMarketPrices'),
        /markPrice/,
        rewrite((r) => {
          const p = r['BTC-USDT'] as Record<string, unknown>;
          p.markPrice = Number(p.markPrice);
        }),
      ],
      [
        action('getOpenInterest'),
        /longOpenInterest/,
        rewrite((r) => {
          delete (r as unknown as Record<string, unknown>[])[0]!.longOpenInterest;
        }),
      ],
      [
        action('getMarkets'),
        /isOpen/,
        rewrite((r) => {
          (r as unknown as Record<string, unknown>[])[1]!.isOpen = 'true';
        }),
      ],
    ];
    for (const [match, field, fault] of spoil) {
      proxy.inject({ fault, match });
      await expect(run('derivatives.synthetix.markets'), String(field)).rejects.toThrow(field);
      expect(proxy.pending()).toBe(0);
      expect(await facts(store), `${field}: nothing written`).toEqual(before);
      expect(await runner(store, T0 + 60_000)('derivatives.synthetix.compute')).toContain('up to date');
      expect(await datasets(store), `${field}: the documents as published`).toEqual(published);
    }
  }, 60_000);

  it('a history answer of the wrong shape fails that market only; its next read completes the documents', async () => {
    const store = await fresh();
    const run = runner(store);
    await run('derivatives.synthetix.markets');
    proxy.inject(
      {
        fault: rewrite((r) => {
          delete ((r.candles as Record<string, unknown>[]).at(-1) as Record<string, unknown>).closePrice;
        }),
        match: action('getCandles', 'BTC-USDT'),
      },
      {
        fault: rewrite((r) => {
          const f = (r.fundingRates as Record<string, unknown>[])[0]!;
          f.fundingTime = String(f.fundingTime);
        }),
        match: action('getFundingRateHistory', 'ETH-USDT'),
      },
    );
    await expect(run('derivatives.synthetix.history')).rejects.toThrow(
      /2 of 5 failed \(BTC-USDT: .*closePrice.*; ETH-USDT: .*fundingTime/,
    );
    expect(proxy.pending()).toBe(0);
    // Neither market has a fact or a checkpoint entry; the others are read as an uninterrupted run reads them.
    const partial = await facts(store);
    for (const table of ['synthetix_candles', 'synthetix_funding']) {
      const symbols = new Set(partial[table]!.map((r) => (JSON.parse(r) as { symbol: string }).symbol));
      expect([...symbols].sort(), table).toEqual(['AAVE-USDT', 'LINK-USDT', 'SOL-USDT']);
      for (const row of partial[table]!) expect(referenceFacts[table], table).toContain(row);
    }
    expect(Object.keys(JSON.parse(partial.checkpoint![0]!)).sort()).toEqual(['AAVE-USDT', 'LINK-USDT', 'SOL-USDT']);
    // The next read asks for those two markets only (candles and funding each), then the documents are complete.
    const from = proxy.requests.length;
    await run('derivatives.synthetix.history');
    const asked = proxy.requests.slice(from).map((r) => r.what);
    expect(asked).toHaveLength(4);
    expect(asked.every((w) => w.includes('BTC-USDT') || w.includes('ETH-USDT'))).toBe(true);
    expect(await run('derivatives.synthetix.compute')).toMatch(/^published 5 documents/);
    expect(await facts(store)).toEqual(referenceFacts);
    expect(await datasets(store)).toEqual(reference);
  }, 60_000);

  it('a worker killed with SIGKILL mid-ingest, then restarted, loses and repeats nothing', async () => {
    // Killed between a market's candles and its funding, after two markets' reads committed: the worker reads through
    // the proxy, which lets two funding reads through and holds every later one, so the kill lands there however
    // loaded the machine is.
    proxy.inject({ fault: { kind: 'hold' }, match: 'getFundingRateHistory', after: 2, times: 1_000 });
    const heldBefore = proxy.held();
    let killed: Awaited<ReturnType<typeof killVenueIngest>>;
    try {
      killed = await killVenueIngest({
        keys: { SYNTHETIX_API_URL: proxy.url },
        nowMs: T0,
        jobs: ['derivatives.synthetix.markets', 'derivatives.synthetix.history'],
        killWhen: async () => proxy.held() > heldBefore,
        timeoutMs: 60_000,
      });
    } finally {
      proxy.clear();
    }
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.killed, 'killed before the worker was done').toBe(true);
    const store = openServiceStore({ sqliteFile: killed.dbFile });
    try {
      const partial = await facts(store);
      const read = Object.keys(JSON.parse(partial.checkpoint![0]!) as Record<string, number>);
      expect(read.length).toBeGreaterThanOrEqual(2);
      expect(read.length).toBeLessThan(5);
      for (const table of ['synthetix_candles', 'synthetix_funding']) {
        const symbols = new Set(partial[table]!.map((r) => (JSON.parse(r) as { symbol: string }).symbol));
        expect([...symbols].sort(), `${table}: the markets committed, no other`).toEqual([...read].sort());
        for (const row of partial[table]!) expect(referenceFacts[table], table).toContain(row);
      }
      const from = proxy.requests.length;
      expect(await pipeline(store)).toMatch(/^published 5 documents/);
      // The restart reads the markets the worker had not committed, and no other.
      const history = proxy.requests
        .slice(from)
        .map((r) => r.what)
        .filter((w) => w.includes('getCandles') || w.includes('getFundingRateHistory'));
      expect(history).toHaveLength(2 * (5 - read.length));
      for (const symbol of read)
        expect(
          history.some((w) => w.includes(`"${symbol}"`)),
          symbol,
        ).toBe(false);
      expect(await facts(store)).toEqual(referenceFacts);
      expect(await datasets(store)).toEqual(reference);
    } finally {
      await store.close();
      killed.remove();
    }
  }, 90_000);
});
