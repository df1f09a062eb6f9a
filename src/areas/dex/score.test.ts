import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/support/random.js';
import { DAY, HOUR, isoSeconds } from '../../core/time.js';
import {
  aggregateProtocolScore,
  type ContinuitySwap,
  DEX_METHODOLOGY,
  historyInstants,
  POOL_WEIGHTS,
  type PoolScoreResult,
  scorePoolAt,
  scorePoolHistory,
} from './score.js';

const T = 1_795_190_400 + 5 * HOUR + 1234; // 2026-11-20T21:20:34Z
const ctx = { t: T, createdAt: T - 60 * DAY, dataStart: T - 14 * DAY };
const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

/**
 * The five pool characters of the ranking property, over the 14 days before T (the score history needs them).
 * Trade sizes are log-normal around a typical size; traders are drawn from a set of addresses.
 */
function character(kind: string, seed: number): ContinuitySwap[] {
  const r = seededRandom(seed * 7919 + kind.length);
  const logNormal = (median: number, sigma: number) =>
    median * Math.exp(sigma * Math.sqrt(-2 * Math.log(Math.max(1e-12, r()))) * Math.cos(2 * Math.PI * r()));
  const poisson = (mean: number) => {
    let k = 0;
    let p = Math.exp(-mean);
    let cumulative = p;
    const u = r();
    while (u > cumulative) {
      k++;
      p *= mean / k;
      cumulative += p;
    }
    return k;
  };
  const swaps: ContinuitySwap[] = [];
  const trades = (hourStart: number, n: number, traders: number, firstTrader: number, median: number, sigma = 0.8) => {
    for (let i = 0; i < n; i++) {
      swaps.push({
        timestamp: hourStart + 1 + Math.floor(r() * (HOUR - 1)),
        trader: addr(firstTrader + Math.floor(r() * traders)),
        usd: logNormal(median, sigma),
      });
    }
  };
  const start = T - 14 * DAY;
  for (let hourStart = start; hourStart < T; hourStart += HOUR) {
    switch (kind) {
      case 'deep-busy': // ~20 trades of ~$5k every hour, 60 traders
        trades(hourStart, poisson(20), 60, 1, 5000);
        break;
      case 'thin-steady': // 1–3 trades of ~$50 in 80 % of hours, 6 traders
        if (r() < 0.8) trades(hourStart, 1 + Math.floor(r() * 3), 6, 100, 50, 0.5);
        break;
      case 'single-trader': // 2 trades of ~$500 every hour by one address; 4 others make ~5 % of the trades
        trades(hourStart, 2, 1, 200, 500, 0.3);
        trades(hourStart, poisson(0.1), 4, 300, 500, 0.3);
        break;
      case 'dormant': // ~10 trades of ~$1k an hour by 30 traders, then nothing for the last 4 days
        if (hourStart < T - 4 * DAY) trades(hourStart, poisson(10), 30, 400, 1000);
        break;
      case 'bursty': // an occasional trade; bursts of 2–3 hours × 30 trades by 25 traders, three a week
        if (r() < 0.02) trades(hourStart, 1, 25, 500, 1000);
        break;
    }
  }
  if (kind === 'bursty') {
    const gap = (7 * DAY) / 3;
    const last = T - 3 * HOUR - Math.floor(r() * 18 * HOUR);
    for (let b = 0; b < 6; b++) {
      const burstStart = b === 0 ? last : Math.floor(last - b * gap + (r() - 0.5) * gap * 0.5);
      const hours = 2 + Math.floor(r() * 2);
      for (let i = 0; i < hours * 30; i++) {
        swaps.push({
          timestamp: Math.min(T, burstStart + Math.floor(r() * hours * HOUR)),
          trader: addr(500 + Math.floor(r() * 25)),
          usd: logNormal(1000, 0.8),
        });
      }
    }
  }
  return swaps;
}

const RANKED = ['deep-busy', 'thin-steady', 'bursty', 'single-trader', 'dormant'];
const component = (result: PoolScoreResult, name: string) => result.record.components.find((c) => c.name === name)!;

describe('volume continuity: the ranking property', () => {
  it.each([1, 2, 3, 4, 5])('deep-busy > thin-steady > bursty > single-trader > dormant (seed %i)', (seed) => {
    const scores = RANKED.map((kind) => scorePoolAt(character(kind, seed), ctx).record.score!);
    for (let i = 0; i + 1 < scores.length; i++) {
      // A robust margin, not a photo finish.
      expect(scores[i]! - scores[i + 1]!, `${RANKED[i]} vs ${RANKED[i + 1]}: ${scores.join(' ')}`).toBeGreaterThan(
        0.05,
      );
    }
  });

  it('each character loses where a person would say it is weak', () => {
    const [deep, thin, bursty, single, dormant] = RANKED.map((kind) => scorePoolAt(character(kind, 1), ctx));
    // thin-steady: small trades (its steadiness and its traders are fine)
    expect(component(thin!, 'median_trade').value!).toBeLessThan(component(deep!, 'median_trade').value! - 0.3);
    expect(component(thin!, 'active_hours').value!).toBeGreaterThan(0.7);
    // bursty: few active hours and long idle runs, but many independent traders
    expect(component(bursty!, 'active_hours').value!).toBeLessThan(0.2);
    expect(component(bursty!, 'longest_idle').value!).toBeLessThan(0.5);
    expect(component(bursty!, 'trader_concentration').value!).toBeGreaterThan(0.9);
    // single-trader: active every hour, yet one address makes almost all of the trades and the volume
    expect(component(single!, 'active_hours').value).toBe(1);
    expect(component(single!, 'top_trader_share').value!).toBeLessThan(0.1);
    expect(component(single!, 'trader_concentration').value!).toBeLessThan(0.15);
    // dormant: silent for 4 days
    expect(component(dormant!, 'recency').value).toBe(0);
    expect(component(dormant!, 'longest_idle').inputs.longest_idle_hours).toBeGreaterThanOrEqual(96);
    // grades read the same way
    expect(deep!.record.grade).toBe('A');
    expect(dormant!.record.grade).toMatch(/[DE]/);
  });
});

describe('scorePoolAt', () => {
  it('weights sum to 1 and the record is self-describing', () => {
    expect(Object.values(POOL_WEIGHTS).reduce((s, w) => s + w, 0)).toBeCloseTo(1, 12);
    const { record } = scorePoolAt(character('deep-busy', 1), ctx);
    expect(record.methodology).toBe('dex.volume-continuity@1.1.0');
    expect(record.methodology).toBe(DEX_METHODOLOGY);
    expect(record.aggregation).toBe('weighted-geometric-mean');
    expect(record.timestamp).toBe(isoSeconds(T));
    expect(record.components.map((c) => c.name)).toEqual(Object.keys(POOL_WEIGHTS));
    for (const c of record.components) {
      expect(c.value === null || (c.value >= 0 && c.value <= 1)).toBe(true);
      expect(Object.keys(c.inputs).length).toBeGreaterThan(0);
    }
  });

  it('a pool without trades scores near zero; dust does not count as trades', () => {
    const none = scorePoolAt([], ctx);
    expect(none.record.score!).toBeLessThan(0.05);
    expect(none.record.grade).toBe('E');
    const dust: ContinuitySwap[] = Array.from({ length: 168 }, (_, k) => ({
      timestamp: T - k * HOUR,
      trader: addr(k),
      usd: 0.5,
    }));
    const dusty = scorePoolAt(dust, ctx);
    expect(dusty.record.score).toBe(none.record.score);
    expect(component(dusty, 'transaction_count').inputs.dust_swaps_excluded).toBe(168);
    expect(dusty.volumeUsd).toBeCloseTo(84, 9);
  });

  it('the window is (t − 7 d, t]', () => {
    const at = (timestamp: number) => scorePoolAt([{ timestamp, trader: addr(1), usd: 100 }], ctx).swapCount;
    expect(at(T - 7 * DAY)).toBe(0);
    expect(at(T - 7 * DAY + 1)).toBe(1);
    expect(at(T)).toBe(1);
    expect(at(T + 1)).toBe(0);
  });

  it('unpriced swaps: concentration and daily volume by swap count; trade size not applicable', () => {
    const swaps: ContinuitySwap[] = Array.from({ length: 168 }, (_, k) => ({
      timestamp: T - k * HOUR,
      trader: addr(k % 4),
      usd: null,
    }));
    const result = scorePoolAt(swaps, ctx);
    expect(component(result, 'trader_concentration').inputs).toMatchObject({
      hhi_by_trades: 0.25,
      hhi_by_usd_volume: null,
    });
    expect(component(result, 'trader_concentration').value).toBe(0.75);
    expect(component(result, 'daily_stability').inputs.measure).toBe('swap_count');
    expect(component(result, 'median_trade')).toMatchObject({ value: null, weight: 0 });
    expect(component(result, 'active_hours').value).toBe(1);
    expect(result.record.score).not.toBeNull();
  });

  it('an address with most of the USD volume but few of the trades weighs on the score (1.1.0)', () => {
    // 30 traders trade ~$500 every hour; one arbitrageur adds one $80k trade every other hour: ~4 % of the trades,
    // ~90 % of the volume. 1.0.0 took the more favourable basis (trades) and graded such pools A (issue 13).
    const swaps: ContinuitySwap[] = [];
    for (let k = 0; k < 14 * 24; k++) {
      for (let i = 0; i < 12; i++)
        swaps.push({ timestamp: T - k * HOUR - i * 60, trader: addr(1 + ((k + i) % 30)), usd: 500 });
      if (k % 2 === 0) swaps.push({ timestamp: T - k * HOUR - 1800, trader: addr(999), usd: 80_000 });
    }
    const result = scorePoolAt(swaps, ctx);
    const top = component(result, 'top_trader_share');
    expect(top.inputs.top_trader_by_usd_volume).toBe(addr(999));
    expect(top.inputs.top_share_of_usd_volume).toBeGreaterThan(0.85);
    expect(top.inputs.top_share_of_trades).toBeLessThan(0.05);
    expect(top.value).toBeCloseTo(1 - (top.inputs.top_share_of_usd_volume as number), 4);
    expect(component(result, 'trader_concentration').inputs.formula).toBe('1 - max(hhi_by_trades, hhi_by_usd_volume)');
    expect(result.record.grade).not.toBe('A');
    expect(result.record.score!).toBeLessThan(0.7);
    // The protocol level sees it through the per-trader volumes.
    expect(result.traderVolumeUsd.get(addr(999))).toBe(84 * 80_000);
  });

  it('a window reaching before the data says so', () => {
    const result = scorePoolAt(character('deep-busy', 1), { ...ctx, dataStart: T - 3 * DAY });
    const coverage = component(result, 'window_coverage');
    expect(coverage.value).toBeCloseTo(3 / 7, 4);
    expect(coverage.inputs.limited_by).toBe('data_start');
    expect(component(result, 'active_hours').inputs.covered_hours).toBe(72);
  });

  it('history: 7 instants, asOf then the last second of each earlier UTC day', () => {
    expect(historyInstants(T).map(isoSeconds)).toEqual([
      '2026-11-20T21:20:34Z',
      '2026-11-19T23:59:59Z',
      '2026-11-18T23:59:59Z',
      '2026-11-17T23:59:59Z',
      '2026-11-16T23:59:59Z',
      '2026-11-15T23:59:59Z',
      '2026-11-14T23:59:59Z',
    ]);
    const history = scorePoolHistory(character('dormant', 1), {
      asOf: T,
      createdAt: ctx.createdAt,
      dataStart: ctx.dataStart,
    });
    expect(history.map((h) => h.record.partial)).toEqual([true, false, false, false, false, false, false]);
    // The dormant pool was healthy five days ago and has been declining since.
    expect(history[5]!.record.score!).toBeGreaterThan(history[0]!.record.score! + 0.3);
  });
});

describe('aggregateProtocolScore', () => {
  /** A pool's result; its volume is one trader's of its own (`trader`), unless `traders` says otherwise. */
  const result = (
    score: number | null,
    volumeUsd: number,
    swapCount = 10,
    traders: Record<string, number> = { [`t${volumeUsd}-${swapCount}-${score}`]: volumeUsd },
  ): PoolScoreResult => ({
    record: {
      score,
      grade: null,
      components: [],
      methodology: DEX_METHODOLOGY,
      timestamp: isoSeconds(T),
      evidence: 1,
      aggregation: 'weighted-geometric-mean',
      date: '2026-11-20',
      partial: true,
      gap_reason: null,
    },
    volumeUsd,
    swapCount,
    traderVolumeUsd: new Map(Object.entries(traders)),
    traderSwaps: new Map(Object.keys(traders).map((k) => [k, swapCount])),
  });

  it.each<[[number | null, number][], number, number]>([
    // pools (score, 7-day USD volume) → continuity, breadth
    [[[0.8, 100]], 0.8, 0],
    [
      [
        [0.8, 100],
        [0.4, 100],
      ],
      0.6,
      0.5,
    ],
    [
      [
        [0.9, 300],
        [0.5, 100],
      ],
      0.8,
      0.375,
    ],
    [
      [
        [0.9, 100],
        [null, 1000],
      ],
      0.9,
      0,
    ],
  ])('pools %j → volume-weighted %s, breadth %s', (pools, continuity, breadth) => {
    const record = aggregateProtocolScore(
      pools.map(([score, volume], i) => ({
        pool: addr(i),
        result: result(score, volume, 10, { [addr(50 + i)]: volume }),
      })),
      T,
      true,
    );
    // One distinct trader per pool: the trader concentration equals the pool breadth.
    expect(record.components.map((c) => [c.name, c.value])).toEqual([
      ['pool_continuity', continuity],
      ['pool_breadth', breadth],
      ['trader_concentration', breadth],
    ]);
    expect(record.score).toBeCloseTo(0.7 * continuity + 0.15 * breadth + 0.15 * breadth, 4);
    expect(record.aggregation).toBe('weighted-mean');
  });

  it('falls back to swap counts, then equal weights, when nothing is priced', () => {
    const counts = aggregateProtocolScore(
      [
        { pool: addr(1), result: result(1, 0, 30) },
        { pool: addr(2), result: result(0, 0, 10) },
      ],
      T,
      true,
    );
    expect(counts.components[0]).toMatchObject({ value: 0.75, inputs: { weighting: 'swap_count' } });
    const equal = aggregateProtocolScore([{ pool: addr(1), result: result(0.2, 0, 0) }], T, true);
    expect(equal.components[0]).toMatchObject({ value: 0.2, inputs: { weighting: 'equal' } });
  });

  it('sees one address making most of the volume across its pools (trader_concentration)', () => {
    // Two pools of equal volume; one address makes 90 % of each (issue 13: the arbitrageur of the sandbox).
    const concentrated = aggregateProtocolScore(
      [
        { pool: addr(1), result: result(0.9, 1000, 10, { [addr(7)]: 900, [addr(8)]: 100 }) },
        { pool: addr(2), result: result(0.9, 1000, 10, { [addr(7)]: 900, [addr(9)]: 100 }) },
      ],
      T,
      true,
    );
    const spread = aggregateProtocolScore(
      [
        { pool: addr(1), result: result(0.9, 1000, 10, { [addr(7)]: 500, [addr(8)]: 500 }) },
        { pool: addr(2), result: result(0.9, 1000, 10, { [addr(10)]: 500, [addr(9)]: 500 }) },
      ],
      T,
      true,
    );
    const tc = concentrated.components.find((c) => c.name === 'trader_concentration')!;
    expect(tc.inputs).toMatchObject({
      top_trader: addr(7),
      top_trader_share: 0.9,
      hhi_of_trader_volume: 0.815,
      unique_traders: 3,
      measure: 'usd_volume',
    });
    expect(tc.value).toBe(0.185);
    expect(spread.components.find((c) => c.name === 'trader_concentration')!.value).toBe(0.75);
    expect(spread.score! - concentrated.score!).toBeCloseTo(0.15 * (0.75 - 0.185), 4);
  });

  it('no pools, or none scored: null with a reason', () => {
    expect(aggregateProtocolScore([], T, true)).toMatchObject({ score: null, grade: null, gap_reason: 'no_members' });
    expect(aggregateProtocolScore([{ pool: addr(1), result: result(null, 0) }], T, false)).toMatchObject({
      score: null,
      gap_reason: 'insufficient_evidence',
      partial: false,
    });
  });
});
