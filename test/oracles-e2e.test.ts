import { createPublicClient, http, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import { oraclesArea } from '../src/areas/oracles/index.js';
import { registry } from '../src/registry/index.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';

/**
 * End to end on a small seeded world: the sandbox's feeds → oracles.ingest → oracles.compute (with the DEX jobs'
 * prices) → API. The newest record's update count and longest interval are recounted from the chain's
 * AnswerUpdated logs with viem alone (none of the service's decoding or computation) and must be equal.
 */

interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown> & { as_of: string };
}

type DailyRecord = Record<string, number | string | boolean | null>;

const ANSWER_UPDATED = parseAbiItem(
  'event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)',
);
const WEEK = 7 * 86_400;

describe('oracle feeds end to end on the sandbox', () => {
  let w: TestWorld;
  let t: TestApp;

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    w = await smallWorld();
    t = await testApp();
    await areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync()).all();
    await areaRunner(oraclesArea, w.env, t.store, t.clock, () => t.sync()).all();
    await t.sync();
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    await w?.close();
  });

  it('lists the deployed feeds with the registry’s parameters', async () => {
    const res = await get<DailyRecord[]>('/data/oracle/chainlink/pairs');
    const feeds = w.world.manifest.oracles ?? [];
    expect(feeds.length).toBeGreaterThanOrEqual(6);
    expect(res.data.map((p) => p.pair)).toEqual(feeds.map((f) => f.pair).sort());
    for (const p of res.data) {
      const feed = feeds.find((f) => f.pair === p.pair)!;
      const ref = registry.oracleFeed('chainlink', String(p.pair))!.feed;
      expect(p).toMatchObject({
        chain: 'ethereum',
        // The service reads the proxy (the address book's entry point) and finds the aggregator behind it.
        feed_address: feed.proxy.toLowerCase(),
        aggregator_address: feed.address.toLowerCase(),
        heartbeat_seconds: ref.heartbeatSeconds,
        deviation_threshold_pct: ref.deviationThresholdPct,
        decimals: 8,
      });
    }
  });

  it('per pair, the newest record’s update count and longest interval equal a recount of AnswerUpdated logs', async () => {
    const client = createPublicClient({ transport: http(w.world.rpcUrl) });
    let deviationRounds = 0;
    let lateFeeds = 0;
    for (const feed of w.world.manifest.oracles ?? []) {
      const res = await get<DailyRecord[]>(`/data/oracle/chainlink/${feed.pair}`);
      expect(res.data, feed.pair).toHaveLength(7);
      const newest = res.data[0]!;
      expect(newest.timestamp).toBe(res.meta.as_of);
      expect(newest.partial).toBe(true);
      const asOf = Date.parse(res.meta.as_of) / 1000;

      const logs = await client.getLogs({ address: feed.address, event: ANSWER_UPDATED, fromBlock: 0n });
      const times = logs.map((l) => Number(l.args.updatedAt!)).filter((u) => u <= asOf);
      const inWindow = times.map((u, i) => ({ u, i })).filter(({ u }) => u > asOf - WEEK);
      const intervals = inWindow.filter(({ i }) => i > 0).map(({ u, i }) => u - times[i - 1]!);

      const ref = registry.oracleFeed('chainlink', feed.pair)!.feed;
      expect(newest, feed.pair).toMatchObject({
        pair: feed.pair,
        feed_address: feed.proxy.toLowerCase(),
        heartbeat_seconds: ref.heartbeatSeconds,
        deviation_threshold_pct: ref.deviationThresholdPct,
        update_count: inWindow.length,
        max_interval_seconds: intervals.length ? Math.max(...intervals) : null,
        gap_reason: null,
      });
      expect(newest.update_count as number, feed.pair).toBeGreaterThan(0);
      deviationRounds += newest.deviation_round_count as number;
      if ((newest.longest_staleness_heartbeats as number) > 1) lateFeeds += 1;
      if (feed.token !== 'USDC' && feed.token !== 'USDT') {
        // A pair the DEX prices: the feed tracks it within a few percent (LINK's thin pools sit 1–3 % off).
        expect(newest.dex_compared_rounds as number, feed.pair).toBeGreaterThan(0);
        expect(newest.dex_deviation_mean_abs_pct as number, feed.pair).toBeLessThan(5);
      }
      // The world is 5 days old: the oldest record ends before its genesis.
      expect(res.data[6]!.gap_reason, feed.pair).toBe('no_data');
    }
    // Volatile pairs move past their thresholds between hourly heartbeats; the reporter's rare outages show.
    expect(deviationRounds).toBeGreaterThan(0);
    expect(lateFeeds).toBeGreaterThan(0);
  });

  it('a registry pair the sandbox does not deploy has no data; an unknown pair names the listing', async () => {
    const missing = registry
      .oracles()[0]!
      .oracle!.feeds.find((f) => !(w.world.manifest.oracles ?? []).some((o) => o.pair === f.pair));
    if (missing) {
      const res = await get<unknown>(`/data/oracle/chainlink/${missing.pair}`, 404);
      expect(JSON.stringify(res)).toContain('no_data');
    }
    const unknown = await get<unknown>('/data/oracle/chainlink/FOO-USD', 404);
    expect(JSON.stringify(unknown)).toContain('/data/oracle/chainlink/pairs');
  });
});
