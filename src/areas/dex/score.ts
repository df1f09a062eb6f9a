/**
 * The volume continuity score of DEX pools and protocols, `dex.volume-continuity@1.1.0`
 * (docs/methodology/dex-volume-continuity.md): how likely a pool's trading volume — the fee income of its LPs — is
 * to continue. Pure: swaps and the evaluation time in, score records out.
 */
import {
  type ComponentInput,
  combineScore,
  halfLifeDecay,
  logScale,
  methodologyId,
  piecewiseLinear,
  roundTo,
  saturating,
  scoreGapReason,
} from '../../core/score.js';
import { coefficientOfVariation, hhi, longestRun, mean, median, sum, topShare } from '../../core/stats.js';
import { DAY, dailyHistoryInstants, HOUR, isoSeconds, utcDate } from '../../core/time.js';
import type { DexScoreRecordEntry } from './schema.js';

/**
 * 1.1.0 (issue 13): concentration is measured on the less favourable of trades and USD volume (was the more
 * favourable), and protocols score the concentration of their volume by trader (`trader_concentration`).
 */
export const DEX_METHODOLOGY = methodologyId('dex', 'volume-continuity', '1.1.0');

/** Length of the window each score looks back over (API.md: 7 days). */
export const SCORE_WINDOW = 7 * DAY;

/** Number of daily records in a score history (API.md "Time windows"). */
export const HISTORY_DAYS = 7;

/** Swaps worth at most $1 are dust: excluded from trade statistics (reference/methodology.md, after Allium). */
export const DUST_USD = 1;

/**
 * Recency: a trade within the last 12 h keeps the value at 1 (pools whose traders sleep in one time zone pause
 * overnight); 72 h without any trade takes it to 0: three days of silence is, on the daily horizon LPs judge their
 * income on, volume that has stopped rather than paused.
 */
export const RECENCY_FULL_HOURS = 12;
export const RECENCY_ZERO_HOURS = 72;
const recencyMap = piecewiseLinear([
  [RECENCY_FULL_HOURS, 1],
  [RECENCY_ZERO_HOURS, 0],
]);

/** Longest idle run: the value halves with every day (24 h) without a trade. */
export const IDLE_HALF_LIFE_HOURS = 24;

/** Transaction rate: 24 qualifying swaps a day — one an hour on average — is the midpoint (value 0.5). */
export const TX_PER_DAY_HALF = 24;

/**
 * Median trade size on a log scale: $1 (the dust threshold) → 0, $10,000 → 1, so $100 (the smallest trade Allium
 * takes as price information) sits at 0.5.
 */
export const MEDIAN_TRADE_ZERO_USD = DUST_USD;
export const MEDIAN_TRADE_FULL_USD = 10_000;

/**
 * Nominal weights of the pool model (they sum to 1), by what each group protects against, combined as a weighted
 * geometric mean (a weakness in one group is not bought back by strength in another):
 * - recency 0.30, the largest single weight: continuing starts with trading now; a pool silent for 72 h or more is
 *   capped at 0.01^0.3 ≈ 0.25 whatever its past;
 * - independence 0.35 (unique traders 0.08, trader concentration 0.15, top trader share 0.12): volume from one
 *   address ends with one decision — a bot switched off, a market maker gone —, the most abrupt way for volume to
 *   stop short of silence;
 * - regularity 0.20 (active hours 0.08, longest idle run 0.06, daily stability 0.06): LP income needs volume
 *   spread over time; bursts may not recur, though bursts from many traders are still demand, hence less weight
 *   than independence;
 * - activity and size 0.10 (transaction count 0.04, median trade 0.04, median/mean 0.02): the legacy inputs; they
 *   say how much trading there is more than whether it continues;
 * - track record 0.05: a pool seen for only part of the window has a shorter record to judge.
 */
export const POOL_WEIGHTS = {
  recency: 0.3,
  unique_traders: 0.08,
  trader_concentration: 0.15,
  top_trader_share: 0.12,
  active_hours: 0.08,
  longest_idle: 0.06,
  daily_stability: 0.06,
  transaction_count: 0.04,
  median_trade: 0.04,
  trade_size_consistency: 0.02,
  window_coverage: 0.05,
} as const;

/**
 * Protocol model: the volume-weighted mean of its pools' scores (0.7), because LP capital and fees follow volume;
 * the breadth of its volume across pools (0.15), because a protocol whose volume sits in one pool is exactly as
 * fragile as that pool; and the breadth of its volume across traders (0.15), because volume that one address makes
 * across all of its pools ends with that address's one decision, however many pools it spreads over (issue 13).
 */
export const PROTOCOL_WEIGHTS = { pool_continuity: 0.7, pool_breadth: 0.15, trader_concentration: 0.15 } as const;

/** One swap as the score sees it. `usd` is null when neither side had a price. */
export interface ContinuitySwap {
  readonly timestamp: number;
  readonly trader: string;
  readonly usd: number | null;
}

export interface PoolScoreContext {
  /** Unix seconds: the instant scored; the window is (t − 7 d, t]. */
  readonly t: number;
  /** When the pool was created (its history cannot start earlier). */
  readonly createdAt: number;
  /** The earliest instant the swap facts cover (exclusive): swaps before it are unknown, not absent. */
  readonly dataStart: number;
}

/** A score history record (API.md "Time windows"): the score at the end of one UTC day, newest first. */
export type DexScoreRecord = DexScoreRecordEntry;

export interface PoolScoreResult {
  readonly record: DexScoreRecord;
  /** USD volume of the window's qualifying priced swaps per trader (the protocol's trader concentration). */
  readonly traderVolumeUsd: ReadonlyMap<string, number>;
  /** Qualifying swaps of the window per trader (its basis when nothing is priced). */
  readonly traderSwaps: ReadonlyMap<string, number>;
  /** USD volume of the window's priced swaps (dust included): the pool's weight in its protocol. */
  readonly volumeUsd: number;
  /** Swaps in the window (all): the weight when a protocol has no priced volume. */
  readonly swapCount: number;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** HHI and the largest share of an amount per trader (ties: the smallest address is named). */
function concentrationOf(
  swaps: readonly ContinuitySwap[],
  amount: (s: ContinuitySwap) => number,
): { hhi: number | null; top: number | null; trader: string | null } {
  const perTrader = new Map<string, number>();
  for (const s of swaps) perTrader.set(s.trader, (perTrader.get(s.trader) ?? 0) + amount(s));
  const amounts = [...perTrader.values()];
  const largest = [...perTrader.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0];
  return { hhi: hhi(amounts), top: topShare(amounts), trader: largest?.[0] ?? null };
}

/** The evaluation instants of a 7-day history: day 0 at asOf, day d ≥ 1 at the last second of that UTC day. */
export function historyInstants(asOf: number): number[] {
  return dailyHistoryInstants(asOf, HISTORY_DAYS);
}

function gapRecord(t: number, partial: boolean, reason: string, methodology: string): DexScoreRecord {
  return {
    ...combineScore([], { methodology, at: t, aggregation: 'weighted-geometric-mean' }),
    date: utcDate(t),
    partial,
    gap_reason: reason,
  };
}

const NO_TRADERS: ReadonlyMap<string, number> = new Map();

function perTrader(swaps: readonly ContinuitySwap[], amount: (s: ContinuitySwap) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of swaps) out.set(s.trader, (out.get(s.trader) ?? 0) + amount(s));
  return out;
}

/** The continuity score of one pool at instant `t`, from its swaps (any order; those outside the window are ignored). */
export function scorePoolAt(swaps: readonly ContinuitySwap[], ctx: PoolScoreContext, partial = false): PoolScoreResult {
  const { t } = ctx;
  const windowStart = t - SCORE_WINDOW;
  const coverageStart = Math.max(windowStart, ctx.createdAt, ctx.dataStart);
  if (t <= coverageStart) {
    const reason = t <= ctx.createdAt ? 'not_deployed' : 'no_data';
    return {
      record: gapRecord(t, partial, reason, DEX_METHODOLOGY),
      volumeUsd: 0,
      swapCount: 0,
      traderVolumeUsd: NO_TRADERS,
      traderSwaps: NO_TRADERS,
    };
  }
  const inWindow = swaps.filter((s) => s.timestamp > coverageStart && s.timestamp <= t);
  const volumeUsd = sum(inWindow.map((s) => s.usd ?? 0));
  // Dust is excluded from every trade statistic: a bot sending $0.01 swaps every hour must not look continuous.
  const qualifying = inWindow.filter((s) => s.usd === null || s.usd > DUST_USD);
  const priced = qualifying.filter((s) => s.usd !== null);
  const byUsd = priced.length > 0;
  const measure = byUsd ? 'usd_volume' : 'swap_count';
  const amount = (s: ContinuitySwap) => (byUsd ? (s.usd ?? 0) : 1);
  const measured = byUsd ? priced : qualifying;

  const coveredSeconds = t - coverageStart;
  const coveredHours = Math.min(SCORE_WINDOW / HOUR, Math.ceil(coveredSeconds / HOUR));
  const coveredDays = Math.min(HISTORY_DAYS, Math.ceil(coveredSeconds / DAY));
  const coverage = coveredSeconds / SCORE_WINDOW;

  // Concentration on two bases: trades (each swap is one decision to use the pool) and USD volume (the LPs' fee
  // income). An address that dominates either makes the pool depend on it: one that holds the dollars but not the
  // trades (an arbitrageur, a whale) still takes most of the fee income with it when it leaves or routes elsewhere.
  // Each component takes the less favourable basis (1.1.0; 1.0.0 took the more favourable one and graded A pools
  // where one address made 80-96 % of the volume); both are in the inputs.
  const traders = new Set(qualifying.map((s) => s.trader));
  const byTrades = concentrationOf(qualifying, () => 1);
  const byVolume = byUsd ? concentrationOf(priced, (s) => s.usd!) : null;
  const hhiUsed = byVolume === null || byTrades.hhi === null ? byTrades.hhi : Math.max(byTrades.hhi, byVolume.hhi!);
  const topUsed = byVolume === null || byTrades.top === null ? byTrades.top : Math.max(byTrades.top, byVolume.top!);

  // Time pattern, in blocks ending at t: hour k is (t − (k+1) h, t − k h], day j likewise.
  const activeHour = new Array<boolean>(coveredHours).fill(false);
  const dailyAmount = new Array<number>(coveredDays).fill(0);
  for (const s of qualifying) {
    const k = Math.floor((t - s.timestamp) / HOUR);
    if (k < coveredHours) activeHour[k] = true;
  }
  for (const s of measured) {
    const j = Math.floor((t - s.timestamp) / DAY);
    if (j < coveredDays) dailyAmount[j]! += amount(s);
  }
  const activeHours = activeHour.filter(Boolean).length;
  const longestIdle = longestRun(activeHour, false);
  const lastTrade = qualifying.reduce<number | null>(
    (last, s) => (last === null || s.timestamp > last ? s.timestamp : last),
    null,
  );
  const hoursSinceTrade = (lastTrade === null ? t - coverageStart : t - lastTrade) / HOUR;
  const dailyCv = coefficientOfVariation(dailyAmount);
  const maxCv = Math.sqrt(coveredDays - 1);
  const tradeSizes = priced.map((s) => s.usd!);
  const medianTrade = median(tradeSizes);
  const meanTrade = mean(tradeSizes);
  const txPerDay = qualifying.length / Math.max(1, coveredSeconds / DAY);
  const noTrades = qualifying.length === 0;

  const r = (x: number | null, digits = 4) => (x === null ? null : roundTo(x, digits));
  const components: ComponentInput[] = [
    {
      name: 'recency',
      value: noTrades ? 0 : recencyMap(hoursSinceTrade),
      weight: POOL_WEIGHTS.recency,
      inputs: {
        hours_since_last_trade: noTrades ? null : r(hoursSinceTrade, 2),
        last_trade: lastTrade === null ? null : isoSeconds(lastTrade),
        full_until_hours: RECENCY_FULL_HOURS,
        zero_at_hours: RECENCY_ZERO_HOURS,
      },
    },
    {
      name: 'unique_traders',
      value: traders.size === 0 ? 0 : 1 - 1 / traders.size,
      weight: POOL_WEIGHTS.unique_traders,
      inputs: { unique_traders: traders.size, formula: '1 - 1/unique_traders' },
    },
    {
      name: 'trader_concentration',
      value: hhiUsed === null ? 0 : 1 - hhiUsed,
      weight: POOL_WEIGHTS.trader_concentration,
      inputs: {
        hhi_by_trades: r(byTrades.hhi),
        hhi_by_usd_volume: r(byVolume?.hhi ?? null),
        formula: '1 - max(hhi_by_trades, hhi_by_usd_volume)',
      },
    },
    {
      name: 'top_trader_share',
      value: topUsed === null ? 0 : 1 - topUsed,
      weight: POOL_WEIGHTS.top_trader_share,
      inputs: {
        top_trader_by_trades: byTrades.trader,
        top_share_of_trades: r(byTrades.top),
        top_trader_by_usd_volume: byVolume?.trader ?? null,
        top_share_of_usd_volume: r(byVolume?.top ?? null),
        formula: '1 - max(top_share_of_trades, top_share_of_usd_volume)',
      },
    },
    {
      name: 'active_hours',
      value: activeHours / coveredHours,
      weight: POOL_WEIGHTS.active_hours,
      inputs: { active_hours: activeHours, covered_hours: coveredHours },
    },
    {
      name: 'longest_idle',
      value: halfLifeDecay(longestIdle, IDLE_HALF_LIFE_HOURS),
      weight: POOL_WEIGHTS.longest_idle,
      inputs: { longest_idle_hours: longestIdle, half_life_hours: IDLE_HALF_LIFE_HOURS },
    },
    {
      name: 'daily_stability',
      value: coveredDays < 2 ? null : dailyCv === null ? 0 : Math.max(0, 1 - dailyCv / maxCv),
      weight: POOL_WEIGHTS.daily_stability,
      inputs: {
        daily_amounts_newest_first: dailyAmount.map((x) => r(x, 2)),
        coefficient_of_variation: r(dailyCv),
        max_coefficient_of_variation: r(maxCv),
        measure,
        formula: '1 - cv/sqrt(days - 1)',
      },
    },
    {
      name: 'transaction_count',
      value: saturating(txPerDay, TX_PER_DAY_HALF),
      weight: POOL_WEIGHTS.transaction_count,
      inputs: {
        transaction_count: qualifying.length,
        dust_swaps_excluded: inWindow.length - qualifying.length,
        per_day: r(txPerDay, 2),
        half_at_per_day: TX_PER_DAY_HALF,
      },
    },
    {
      name: 'median_trade',
      value: medianTrade === null ? null : logScale(medianTrade, MEDIAN_TRADE_ZERO_USD, MEDIAN_TRADE_FULL_USD),
      weight: POOL_WEIGHTS.median_trade,
      inputs: {
        median_trade_usd: r(medianTrade, 2),
        priced_trades: priced.length,
        zero_at_usd: MEDIAN_TRADE_ZERO_USD,
        one_at_usd: MEDIAN_TRADE_FULL_USD,
      },
    },
    {
      name: 'trade_size_consistency',
      value: medianTrade === null || meanTrade === null || meanTrade <= 0 ? null : Math.min(1, medianTrade / meanTrade),
      weight: POOL_WEIGHTS.trade_size_consistency,
      inputs: { median_trade_usd: r(medianTrade, 2), mean_trade_usd: r(meanTrade, 2), formula: 'median / mean' },
    },
    {
      name: 'window_coverage',
      value: coverage,
      weight: POOL_WEIGHTS.window_coverage,
      inputs: {
        window_coverage: r(coverage),
        window_start: isoSeconds(windowStart),
        covered_from: isoSeconds(coverageStart),
        limited_by:
          coverageStart === windowStart ? null : coverageStart === ctx.createdAt ? 'pool_created' : 'data_start',
      },
    },
  ];
  const record = combineScore(components, {
    methodology: DEX_METHODOLOGY,
    at: t,
    aggregation: 'weighted-geometric-mean',
  });
  return {
    record: { ...record, date: utcDate(t), partial, gap_reason: scoreGapReason(record, 'no_data') },
    volumeUsd,
    swapCount: inWindow.length,
    traderVolumeUsd: perTrader(priced, (s) => s.usd!),
    traderSwaps: perTrader(qualifying, () => 1),
  };
}

/** The 7-day history of a pool's score, newest first (`data[0]` is the current score, marked partial). */
export function scorePoolHistory(
  swaps: readonly ContinuitySwap[],
  ctx: { readonly asOf: number; readonly createdAt: number; readonly dataStart: number },
): PoolScoreResult[] {
  return historyInstants(ctx.asOf).map((t, d) =>
    scorePoolAt(swaps, { t, createdAt: ctx.createdAt, dataStart: ctx.dataStart }, d === 0),
  );
}

export interface PoolScoreRef {
  readonly pool: string;
  readonly result: PoolScoreResult;
}

/** Aggregates pool scores at one instant into a protocol score (PROTOCOL_WEIGHTS). */
export function aggregateProtocolScore(pools: readonly PoolScoreRef[], t: number, partial: boolean): DexScoreRecord {
  const scored = pools.filter((p) => p.result.record.score !== null);
  if (scored.length === 0) {
    return gapRecord(t, partial, pools.length === 0 ? 'no_members' : 'insufficient_evidence', DEX_METHODOLOGY);
  }
  const totalUsd = sum(scored.map((p) => p.result.volumeUsd));
  const totalSwaps = sum(scored.map((p) => p.result.swapCount));
  // Weights: USD volume; swap counts when nothing is priced; equal weights when nothing traded at all.
  const weighting = totalUsd > 0 ? 'usd_volume' : totalSwaps > 0 ? 'swap_count' : 'equal';
  const weightOf = (p: PoolScoreRef) =>
    weighting === 'usd_volume' ? p.result.volumeUsd : weighting === 'swap_count' ? p.result.swapCount : 1;
  const weights = scored.map(weightOf);
  const totalWeight = sum(weights);
  const continuity = sum(scored.map((p, i) => p.result.record.score! * weights[i]!)) / totalWeight;
  const breadthHhi = weighting === 'equal' ? null : hhi(weights);
  const top = scored
    .map((p, i) => ({ pool: p.pool, score: p.result.record.score, weight: roundTo(weights[i]! / totalWeight, 4) }))
    .sort((a, b) => b.weight - a.weight || compareText(a.pool, b.pool))
    .slice(0, 10);
  // The protocol's volume by trader, over all its scored pools (USD; swap counts when nothing is priced).
  const byTrader = new Map<string, number>();
  const traderBasis = weighting === 'usd_volume' ? 'usd_volume' : 'swap_count';
  for (const p of scored) {
    const amounts = traderBasis === 'usd_volume' ? p.result.traderVolumeUsd : p.result.traderSwaps;
    for (const [trader, x] of amounts) byTrader.set(trader, (byTrader.get(trader) ?? 0) + x);
  }
  const traderAmounts = [...byTrader.values()];
  const traderHhi = hhi(traderAmounts);
  const topTrader = [...byTrader.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0];
  const topTraderShare = topShare(traderAmounts);
  const components: ComponentInput[] = [
    {
      name: 'pool_continuity',
      value: continuity,
      weight: PROTOCOL_WEIGHTS.pool_continuity,
      inputs: {
        pool_count: pools.length,
        scored_pools: scored.length,
        weighting,
        volume_7d_usd: roundTo(totalUsd, 2),
        top_pools: top,
      },
    },
    {
      name: 'pool_breadth',
      value: breadthHhi === null ? 0 : 1 - breadthHhi,
      weight: PROTOCOL_WEIGHTS.pool_breadth,
      inputs: {
        hhi_of_pool_volume: breadthHhi === null ? null : roundTo(breadthHhi, 4),
        effective_pools: breadthHhi === null ? 0 : roundTo(1 / breadthHhi, 2),
        weighting,
        formula: '1 - hhi',
      },
    },
    {
      name: 'trader_concentration',
      value: traderHhi === null ? null : 1 - traderHhi,
      weight: PROTOCOL_WEIGHTS.trader_concentration,
      inputs: {
        hhi_of_trader_volume: traderHhi === null ? null : roundTo(traderHhi, 4),
        top_trader: topTrader?.[0] ?? null,
        top_trader_share: topTraderShare === null ? null : roundTo(topTraderShare, 4),
        unique_traders: byTrader.size,
        measure: traderBasis,
        formula: '1 - hhi',
      },
    },
  ];
  const record = combineScore(components, { methodology: DEX_METHODOLOGY, at: t, aggregation: 'weighted-mean' });
  return { ...record, date: utcDate(t), partial, gap_reason: scoreGapReason(record, 'insufficient_evidence') };
}

/** Protocol history from its pools' histories (each 7 results, newest first, at the same instants). */
export function protocolScoreHistory(
  pools: readonly { readonly pool: string; readonly history: readonly PoolScoreResult[] }[],
  asOf: number,
): DexScoreRecord[] {
  return historyInstants(asOf).map((t, d) =>
    aggregateProtocolScore(
      pools.map((p) => ({ pool: p.pool, result: p.history[d]! })),
      t,
      d === 0,
    ),
  );
}
