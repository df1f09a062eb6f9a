import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../core/time.js';
import {
  computeOracles,
  type DexPricePoint,
  feedRecordAt,
  type OracleFeedInput,
  reachesThreshold,
  WINDOW_SECONDS,
} from './compute.js';
import type { OracleRoundFact } from './facts.js';

/** 2026-11-20 14:00 UTC. */
const AS_OF = Date.UTC(2026, 10, 20, 14) / 1000;
const WETH = '0x00000000000000000000000000000000000000e1';
const E8 = 100_000_000n;

function rounds(points: readonly (readonly [number, bigint])[]): OracleRoundFact[] {
  return points.map(([updatedAt, answer], i) => ({
    chain: 'ethereum',
    feed: '0xfeed',
    aggregator: '0xagg',
    roundId: BigInt(i + 1),
    answer,
    updatedAt,
    blockNumber: i + 1,
    logIndex: 0,
  }));
}

function feed(over: Partial<OracleFeedInput> = {}): OracleFeedInput {
  return {
    chain: 'ethereum',
    pair: 'ETH-USD',
    address: '0xfeed',
    heartbeatSeconds: 3600,
    deviationThresholdPct: 0.5,
    baseToken: WETH,
    state: { aggregator: '0xagg', decimals: 8, unresolved: null },
    rounds: [],
    coverageFrom: AS_OF - 30 * DAY,
    ...over,
  };
}

const NO_PRICES = new Map<string, number>();

describe('the deviation threshold, exactly', () => {
  it.each([
    { previous: 100_000n, answer: 100_500n, pct: 0.5, expected: true },
    { previous: 100_000n, answer: 100_499n, pct: 0.5, expected: false },
    { previous: 100_000n, answer: 99_500n, pct: 0.5, expected: true },
    { previous: 100_000_000n, answer: 100_250_000n, pct: 0.25, expected: true },
    { previous: 100_000_000n, answer: 100_249_999n, pct: 0.25, expected: false },
    { previous: -100n, answer: -101n, pct: 1, expected: true },
  ])('$previous → $answer at $pct %: $expected', ({ previous, answer, pct, expected }) => {
    expect(reachesThreshold(previous, answer, pct)).toBe(expected);
  });
});

describe('one daily record (the window of 7 days ending at t)', () => {
  const t = AS_OF;
  const start = t - WINDOW_SECONDS;

  it.each([
    {
      name: 'hourly heartbeats at a flat price',
      points: Array.from({ length: 169 }, (_, i) => [start + i * HOUR, 3000n * E8] as const),
      expected: {
        update_count: 168,
        median_interval_seconds: 3600,
        p95_interval_seconds: 3600,
        max_interval_seconds: 3600,
        heartbeat_round_count: 168,
        deviation_round_count: 0,
        heartbeat_triggered_share: 1,
        deviation_per_update_max_pct: 0,
        realised_volatility: 0,
      },
    },
    {
      name: 'a round exactly at the window start belongs to the window before (the interval of the next counts)',
      points: [
        [start - 100, 100n * E8],
        [start, 100n * E8],
        [start + 7200, 101n * E8],
      ] as const,
      expected: {
        update_count: 1,
        max_interval_seconds: 7200,
        deviation_round_count: 1,
        deviation_per_update_max_pct: 1,
        realised_volatility: null,
      },
    },
    {
      name: 'one late round among heartbeats: max interval, p95 between, staleness in heartbeats',
      points: [
        [t - 5 * HOUR, 100n * E8],
        [t - 4 * HOUR, 100n * E8],
        [t - 3 * HOUR, 100n * E8],
        [t - HOUR / 2, 100n * E8],
      ] as const,
      expected: {
        update_count: 4,
        median_interval_seconds: 3600,
        max_interval_seconds: 9000,
        p95_interval_seconds: 3600 + 0.9 * 5400,
        longest_staleness_seconds: 9000,
        longest_staleness_heartbeats: 2.5,
      },
    },
    {
      name: 'a feed silent since before the window: no rounds, stale by the whole gap',
      points: [[start - 10 * HOUR, 100n * E8]] as const,
      expected: {
        update_count: 0,
        median_interval_seconds: null,
        max_interval_seconds: null,
        longest_staleness_seconds: WINDOW_SECONDS + 10 * HOUR,
        deviation_triggered_share: null,
        dex_deviation_reason: 'no_data',
      },
    },
  ])('$name', ({ points, expected }) => {
    const record = feedRecordAt(feed({ rounds: rounds(points) }), t, true, NO_PRICES);
    expect(record.gap_reason).toBeNull();
    expect(record).toMatchObject(expected);
  });

  it('classifies rounds by their change against the threshold and measures the change per update', () => {
    // +0.3 % (heartbeat), +1 % (deviation), −0.5 % (deviation, exactly the threshold)
    const r = rounds([
      [t - 4 * HOUR, 1_000_000n],
      [t - 3 * HOUR, 1_003_000n],
      [t - 2 * HOUR, 1_013_030n],
      [t - HOUR, 1_007_964n],
    ]);
    const record = feedRecordAt(feed({ rounds: r, deviationThresholdPct: 0.5 }), t, false, NO_PRICES);
    expect(record.heartbeat_round_count).toBe(1);
    expect(record.deviation_round_count).toBe(2);
    expect(record.deviation_triggered_share).toBeCloseTo(2 / 3, 6);
    expect(record.deviation_per_update_max_pct).toBeCloseTo(1, 6);
    expect(record.deviation_per_update_median_pct).toBeCloseTo(0.5, 3);
  });

  it('annualises the realised volatility from log returns over the time they span', () => {
    // Alternating ±1 % every hour: each squared log return is ~1e-4 per hour.
    const points: [number, bigint][] = [];
    let answer = 100n * E8;
    for (let i = 0; i <= 100; i++) {
      points.push([t - (100 - i) * HOUR, answer]);
      answer = i % 2 === 0 ? (answer * 101n) / 100n : (answer * 100n) / 101n;
    }
    const record = feedRecordAt(feed({ rounds: rounds(points) }), t, false, NO_PRICES);
    const perHour = Math.log(1.01) ** 2;
    expect(record.realised_volatility!).toBeCloseTo(Math.sqrt(perHour * 24 * 365), 3);
  });

  it('compares answers with the DEX price of their hour', () => {
    const hour = Math.floor((t - HOUR) / HOUR) * HOUR;
    const prices = new Map([
      [`${WETH}@${hour}`, 2970],
      [`${WETH}@${hour - HOUR}`, 3000],
    ]);
    const r = rounds([
      [hour - HOUR + 10, 3000n * E8],
      [hour + 10, 3000n * E8],
      [t, 3000n * E8],
    ]);
    const record = feedRecordAt(feed({ rounds: r }), t, true, prices);
    expect(record.dex_compared_rounds).toBe(2);
    expect(record.dex_deviation_max_abs_pct).toBeCloseTo((3000 / 2970 - 1) * 100, 6);
    expect(record.dex_deviation_mean_abs_pct).toBeCloseTo(((3000 / 2970 - 1) * 100) / 2, 6);
    expect(record.dex_deviation_reason).toBeNull();
    const none = feedRecordAt(feed({ rounds: r, baseToken: null }), t, true, prices);
    expect(none).toMatchObject({ dex_compared_rounds: null, dex_deviation_reason: 'not_listed' });
    const unpriced = feedRecordAt(feed({ rounds: r }), t, true, NO_PRICES);
    expect(unpriced).toMatchObject({ dex_compared_rounds: 0, dex_deviation_reason: 'no_price' });
  });

  it.each([
    { name: 'before ingestion covers', coverageFrom: t + 1, points: [[t - 10, 1n]] as const, reason: 'no_data' },
    { name: 'never ingested', coverageFrom: null, points: [] as const, reason: 'no_data' },
    { name: 'before the first round', coverageFrom: t - DAY, points: [[t + 10, 1n]] as const, reason: 'no_data' },
  ])('a gap: $name', ({ coverageFrom, points, reason }) => {
    const record = feedRecordAt(feed({ coverageFrom, rounds: rounds(points) }), t, false, NO_PRICES);
    expect(record.gap_reason).toBe(reason);
    expect(record.update_count).toBeNull();
    expect(record.heartbeat_seconds).toBe(3600);
    expect(record.feed_address).toBe('0xfeed');
  });

  it('says when ingestion began inside the window', () => {
    const r = rounds([[t - HOUR, 1n]]);
    expect(feedRecordAt(feed({ rounds: r, coverageFrom: t - DAY }), t, false, NO_PRICES).window_complete).toBe(false);
    expect(feedRecordAt(feed({ rounds: r, coverageFrom: t - 8 * DAY }), t, false, NO_PRICES).window_complete).toBe(
      true,
    );
  });
});

describe('the pairs and their 7 daily records', () => {
  const genesis = AS_OF - 5 * DAY;
  const hourly = rounds(
    Array.from({ length: 5 * 24 + 1 }, (_, i) => [genesis + i * HOUR, (3000n + BigInt(i % 3)) * E8] as const),
  );
  const prices: DexPricePoint[] = [];
  const output = computeOracles({
    asOf: AS_OF,
    feeds: [
      feed({ rounds: hourly, coverageFrom: genesis }),
      feed({ chain: 'arbitrum', address: '0xother' }),
      feed({ pair: 'BTC-USD', address: '0xbtc', rounds: [], coverageFrom: genesis, baseToken: null }),
      feed({
        pair: 'LINK-USD',
        address: '0xlink',
        state: { aggregator: null, decimals: null, unresolved: { reason: 'no_decimals', detail: 'reverted' } },
        coverageFrom: null,
      }),
    ],
    prices,
  });

  it('lists each pair once (the first chain), sorted, and says why a feed is not read', () => {
    expect(output.pairs.map((p) => [p.pair, p.chain, p.feed_address, p.unresolved_reason])).toEqual([
      ['BTC-USD', 'ethereum', '0xbtc', null],
      ['ETH-USD', 'ethereum', '0xfeed', null],
      ['LINK-USD', 'ethereum', '0xlink', 'no_decimals'],
    ]);
    const eth = output.pairs[1]!;
    expect(eth).toMatchObject({
      name: 'ETH / USD',
      decimals: 8,
      latest_answer: 3000 + (120 % 3),
      update_count_7d: 121,
    });
  });

  it('seven records newest first: the running day partial, the days before the world as gaps', () => {
    const history = output.records.get('ETH-USD')!;
    expect(history).toHaveLength(7);
    expect(history.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);
    expect(history[0]!.timestamp).toBe('2026-11-20T14:00:00Z');
    expect(history[1]!.timestamp).toBe('2026-11-19T23:59:59Z');
    expect(history.map((r) => r.date)).toEqual([
      '2026-11-20',
      '2026-11-19',
      '2026-11-18',
      '2026-11-17',
      '2026-11-16',
      '2026-11-15',
      '2026-11-14',
    ]);
    expect(history.map((r) => r.gap_reason)).toEqual([null, null, null, null, null, null, 'no_data']);
    expect(history[0]!.update_count).toBe(121);
    expect(history[1]!.update_count).toBe(4 * 24 + 10);
    expect(output.records.get('BTC-USD')![0]!.gap_reason).toBe('no_data');
    // A feed never read: nothing is known of it, on any day.
    expect(new Set(output.records.get('LINK-USD')!.map((r) => r.gap_reason))).toEqual(new Set(['no_data']));
  });
});

describe('issue 13: staleness flagged, the DEX price beside the feed, no look-ahead', () => {
  const hourly = (from: number, to: number, answer: bigint) => {
    const out: (readonly [number, bigint])[] = [];
    for (let x = from; x <= to; x += HOUR) out.push([x, answer] as const);
    return out;
  };

  it('a feed silent beyond heartbeat × 1.5 is stale, since when, and the breach is counted', () => {
    // Hourly until 5 h before the window end, then silence.
    const f = feed({ rounds: rounds(hourly(AS_OF - 3 * DAY, AS_OF - 5 * HOUR, 3000n * E8)) });
    const r = feedRecordAt(f, AS_OF, true, NO_PRICES);
    expect(r).toMatchObject({
      stale: true,
      stale_since: new Date((AS_OF - 5 * HOUR + 5400) * 1000).toISOString().replace('.000Z', 'Z'),
      max_staleness_vs_heartbeat: 5,
      heartbeat_breaches: 1,
    });
    // The price policy no longer lets the stale feed win (DEX absent: the feed at low confidence).
    expect(r.chosen_price).toMatchObject({ source: 'oracle', confidence: 0.2375 });
    const fresh = feedRecordAt(
      feed({ rounds: rounds(hourly(AS_OF - 3 * DAY, AS_OF, 3000n * E8)) }),
      AS_OF,
      true,
      NO_PRICES,
    );
    expect(fresh).toMatchObject({ stale: false, stale_since: null, heartbeat_breaches: 0 });
  });

  it('publishes the DEX price of the same asset and flags a disagreement above 2 % (LINK 7.3 % above its feed)', () => {
    const LINK = '0x00000000000000000000000000000000000011c0';
    const f = feed({ pair: 'LINK-USD', baseToken: LINK, rounds: rounds(hourly(AS_OF - 2 * DAY, AS_OF, 15n * E8)) });
    const hour = Math.floor(AS_OF / HOUR) * HOUR;
    const prices = new Map([[`${LINK}@${hour}`, { token: LINK, hour, priceUsd: 16.095, confidence: 0.8 }]]);
    const r = feedRecordAt(f, AS_OF, true, prices);
    expect(r.dex_price_usd).toBe(16.095);
    expect(r.price_disagreement_pct).toBeCloseTo(6.8035, 3);
    expect(r.price_flagged).toBe(true);
    expect(r.chosen_price).toMatchObject({
      source: 'oracle',
      price_usd: 15,
      flagged: true,
      alternative_price_usd: 16.095,
    });
    const out = computeOracles({
      asOf: AS_OF,
      feeds: [f],
      prices: [{ token: LINK, hour, priceUsd: 16.095 }],
    });
    expect(out.pairs[0]).toMatchObject({ pair: 'LINK-USD', price_flagged: true, dex_price_usd: 16.095 });
  });

  it('a past day recomputed from the rounds and prices up to that day only is the same record', () => {
    const points = hourly(AS_OF - 13 * DAY, AS_OF, 0n).map(([x], i) => [x, (3000n + BigInt(i % 17)) * E8] as const);
    const all = rounds(points);
    const prices: DexPricePoint[] = points.map(([x]) => ({
      token: WETH,
      hour: Math.floor(x / HOUR) * HOUR,
      priceUsd: 3005,
    }));
    const full = computeOracles({ asOf: AS_OF, feeds: [feed({ rounds: all })], prices }).records.get('ETH-USD')!;
    for (let d = 1; d < 7; d++) {
      const t = Date.parse(full[d]!.timestamp) / 1000;
      const past = computeOracles({
        asOf: t,
        feeds: [feed({ rounds: all.filter((r) => r.updatedAt <= t) })],
        prices: prices.filter((p) => p.hour <= t),
      }).records.get('ETH-USD')!;
      expect({ ...past[0]!, partial: false }, `day ${d}`).toEqual(full[d]);
    }
  });
});
