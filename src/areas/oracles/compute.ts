/**
 * The oracle area's computation: feed rounds in, the pair listing and each pair's 7 daily records out (API.md
 * "Time windows"; definitions in docs/methodology/oracles.md). Pure: the windows end at instants derived from
 * `asOf`, passed in; the same input gives the same output. Answers stay exact bigints until a figure is a ratio.
 */

import { absBig, ratioToFloat, toFloat } from '../../core/decimal.js';
import { type GapReason, nullFieldReasons } from '../../core/gaps.js';
import { choosePrice, FEED_FRESHNESS_FACTOR } from '../../core/price-policy.js';
import { roundTo } from '../../core/score.js';
import { mean, median, quantile } from '../../core/stats.js';
import { DAY, dailyHistoryInstants, HOUR, isoSeconds, utcDate } from '../../core/time.js';
import type { OracleFeedState, OracleRoundFact } from './facts.js';
import type { OracleDailyEntry, OraclePairEntry } from './schema.js';
import type { PricedCollateral } from './targets.js';

/** Each record covers the 7 days that end at its timestamp ("weekly dynamic parameters"). */
export const WINDOW_SECONDS = 7 * DAY;
/** Rounds the computation needs: the oldest record's window starts 7 days before the end of the day 6 days ago. */
export const ROUNDS_HISTORY_SECONDS = 14 * DAY;
const SECONDS_PER_YEAR = 365 * DAY;
/** A realised volatility needs at least two returns: one return says nothing about dispersion. */
const MIN_VOLATILITY_RETURNS = 2;
/** p95 of the intervals between rounds. */
const INTERVAL_QUANTILE = 0.95;
/** Published precision of percentages, ratios and volatilities (well below any feed's resolution). */
const DECIMALS_OUT = 6;

export interface OracleFeedInput {
  readonly chain: string;
  readonly pair: string;
  /** Lowercase feed address. */
  readonly address: string;
  readonly heartbeatSeconds: number;
  readonly deviationThresholdPct: number;
  /** Token whose DEX price the answers are compared with; null when the chain has none for the pair. */
  readonly baseToken: string | null;
  /** What ingestion learned of the feed (aggregator, decimals, why it is not read); null before the first ingest. */
  readonly state: Pick<OracleFeedState, 'aggregator' | 'decimals' | 'unresolved'> | null;
  /**
   * The feed's rounds with updatedAt ≤ asOf in chain order, covering at least (asOf − ROUNDS_HISTORY_SECONDS,
   * asOf] and the newest round before that.
   */
  readonly rounds: readonly OracleRoundFact[];
  /** Rounds are known from this instant on (the first ingested block's time); earlier ones are unknown. */
  readonly coverageFrom: number | null;
  /** The liquid staking collateral (or its underlying) the feed prices. */
  readonly pricesCollateral?: readonly PricedCollateral[];
}

export interface DexPricePoint {
  readonly token: string;
  /** Start of the UTC hour; the price describes the pools at the end of that hour (docs/methodology/prices.md). */
  readonly hour: number;
  readonly priceUsd: number;
  /** The DEX price's confidence (docs/methodology/prices.md); 1 when unknown. */
  readonly confidence?: number;
  /** How it was made (`pools:…`). */
  readonly source?: string;
}

export interface OracleInput {
  /** Newest instant the facts cover: the end of the newest record's window. */
  readonly asOf: number;
  /** One feed per pair (the first of the list wins when a pair is on several chains). */
  readonly feeds: readonly OracleFeedInput[];
  readonly prices: readonly DexPricePoint[];
}

export interface OracleOutput {
  readonly pairs: OraclePairEntry[];
  /** Key: pair. Seven records, newest first. */
  readonly records: Map<string, OracleDailyEntry[]>;
}

const round6 = (x: number) => roundTo(x, DECIMALS_OUT);
const roundOrNull = (x: number | null) => (x === null ? null : round6(x));

/** |change| ≥ threshold, exactly: |answer − previous| × 10^6 ≥ |previous| × threshold in parts per million. */
export function reachesThreshold(previous: bigint, answer: bigint, thresholdPct: number): boolean {
  const thresholdPpm = BigInt(Math.round(thresholdPct * 10_000));
  return absBig(answer - previous) * 1_000_000n >= absBig(previous) * thresholdPpm;
}

function identity(feed: OracleFeedInput) {
  return {
    pair: feed.pair,
    chain: feed.chain,
    feed_address: feed.address,
    aggregator_address: feed.state?.aggregator ?? null,
    heartbeat_seconds: feed.heartbeatSeconds,
    deviation_threshold_pct: feed.deviationThresholdPct,
    decimals: feed.state?.decimals ?? null,
  };
}

function gapRecord(feed: OracleFeedInput, t: number, partial: boolean, reason: string): OracleDailyEntry {
  return {
    date: utcDate(t),
    timestamp: isoSeconds(t),
    partial,
    gap_reason: reason,
    window_complete: false,
    ...identity(feed),
    update_count: null,
    median_interval_seconds: null,
    p95_interval_seconds: null,
    max_interval_seconds: null,
    longest_staleness_seconds: null,
    longest_staleness_heartbeats: null,
    heartbeat_round_count: null,
    deviation_round_count: null,
    heartbeat_triggered_share: null,
    deviation_triggered_share: null,
    deviation_per_update_mean_pct: null,
    deviation_per_update_median_pct: null,
    deviation_per_update_max_pct: null,
    realised_volatility: null,
    dex_deviation_mean_abs_pct: null,
    dex_deviation_max_abs_pct: null,
    dex_compared_rounds: null,
    dex_deviation_reason: null,
    last_answer: null,
    last_answer_raw: null,
    last_updated_at: null,
    stale: null,
    stale_since: null,
    max_staleness_vs_heartbeat: null,
    heartbeat_breaches: null,
    dex_price_usd: null,
    chosen_price: null,
    price_disagreement_pct: null,
    price_flagged: null,
    gap_reasons: {},
  };
}

type PriceIndex = ReadonlyMap<string, number | DexPricePoint>;
const priceOf = (x: number | DexPricePoint | undefined) =>
  x === undefined ? undefined : typeof x === 'number' ? x : x.priceUsd;
const priceKey = (token: string, hour: number) => `${token}@${hour}`;

/** One record: the window (t − 7 d, t] of one feed. */
export function feedRecordAt(feed: OracleFeedInput, t: number, partial: boolean, prices: PriceIndex): OracleDailyEntry {
  if (feed.coverageFrom === null || t < feed.coverageFrom) return gapRecord(feed, t, partial, 'no_data');
  const rounds = feed.rounds;
  let lastKnown = -1;
  for (let i = 0; i < rounds.length && rounds[i]!.updatedAt <= t; i++) lastKnown = i;
  if (lastKnown < 0) return gapRecord(feed, t, partial, 'no_data');

  const start = t - WINDOW_SECONDS;
  const decimals = feed.state?.decimals ?? null;
  const intervals: number[] = [];
  const changesPct: number[] = [];
  let deviationRounds = 0;
  let squaredReturns = 0;
  let returnCount = 0;
  let returnSeconds = 0;
  let updateCount = 0;
  const dexDeviationsPct: number[] = [];
  for (let i = 0; i <= lastKnown; i++) {
    const round = rounds[i]!;
    if (round.updatedAt <= start) continue;
    updateCount += 1;
    if (decimals !== null && feed.baseToken !== null) {
      const price = priceOf(prices.get(priceKey(feed.baseToken, Math.floor(round.updatedAt / HOUR) * HOUR)));
      if (price !== undefined && price > 0) {
        dexDeviationsPct.push(Math.abs(toFloat(round.answer, decimals) / price - 1) * 100);
      }
    }
    // The first round ever (or the first ingested) has no predecessor: no interval, no change.
    const previous = i > 0 ? rounds[i - 1]! : undefined;
    if (!previous) continue;
    const interval = round.updatedAt - previous.updatedAt;
    intervals.push(interval);
    if (previous.answer === 0n) continue;
    changesPct.push(ratioToFloat(absBig(round.answer - previous.answer), absBig(previous.answer)) * 100);
    if (reachesThreshold(previous.answer, round.answer, feed.deviationThresholdPct)) deviationRounds += 1;
    if (round.answer > 0n && previous.answer > 0n && interval > 0) {
      squaredReturns += Math.log(ratioToFloat(round.answer, previous.answer)) ** 2;
      returnCount += 1;
      returnSeconds += interval;
    }
  }
  const classified = changesPct.length;
  const maxInterval = intervals.length ? Math.max(...intervals) : null;
  const last = rounds[lastKnown]!;
  const longestStaleness = Math.max(maxInterval ?? 0, t - last.updatedAt);
  // Staleness flagged, not only measured: beyond heartbeat × 1.5 the price policy no longer trusts the feed.
  const staleAfter = feed.heartbeatSeconds * FEED_FRESHNESS_FACTOR;
  const stale = t - last.updatedAt > staleAfter;
  const breaches = intervals.filter((i) => i > staleAfter).length + (stale ? 1 : 0);
  const lastAnswer = decimals === null ? null : toFloat(last.answer, decimals);
  const dexPoint =
    feed.baseToken === null ? undefined : prices.get(priceKey(feed.baseToken, Math.floor(t / HOUR) * HOUR));
  const dexPrice = priceOf(dexPoint) ?? null;
  const chosen = choosePrice(
    t,
    lastAnswer === null
      ? null
      : { priceUsd: lastAnswer, updatedAt: last.updatedAt, heartbeat: feed.heartbeatSeconds, ref: feed.address },
    dexPrice === null
      ? null
      : {
          priceUsd: dexPrice,
          confidence: typeof dexPoint === 'object' ? (dexPoint.confidence ?? 1) : 1,
          ref: typeof dexPoint === 'object' ? (dexPoint.source ?? 'dex') : 'dex',
        },
  );
  const gapPct =
    lastAnswer !== null && dexPrice !== null && dexPrice > 0 ? Math.abs(lastAnswer / dexPrice - 1) * 100 : null;
  let dexReason: string | null = null;
  if (feed.baseToken === null) dexReason = 'not_listed';
  else if (updateCount === 0) dexReason = 'no_data';
  else if (dexDeviationsPct.length === 0) dexReason = 'no_price';
  const record = {
    date: utcDate(t),
    timestamp: isoSeconds(t),
    partial,
    gap_reason: null,
    window_complete: start >= feed.coverageFrom,
    ...identity(feed),
    update_count: updateCount,
    median_interval_seconds: median(intervals),
    p95_interval_seconds: roundOrNull(quantile(intervals, INTERVAL_QUANTILE)),
    max_interval_seconds: maxInterval,
    longest_staleness_seconds: longestStaleness,
    longest_staleness_heartbeats: round6(longestStaleness / feed.heartbeatSeconds),
    heartbeat_round_count: classified - deviationRounds,
    deviation_round_count: deviationRounds,
    heartbeat_triggered_share: classified ? round6((classified - deviationRounds) / classified) : null,
    deviation_triggered_share: classified ? round6(deviationRounds / classified) : null,
    deviation_per_update_mean_pct: roundOrNull(mean(changesPct)),
    deviation_per_update_median_pct: roundOrNull(median(changesPct)),
    deviation_per_update_max_pct: changesPct.length ? round6(Math.max(...changesPct)) : null,
    realised_volatility:
      returnCount >= MIN_VOLATILITY_RETURNS && returnSeconds > 0
        ? round6(Math.sqrt((squaredReturns / returnSeconds) * SECONDS_PER_YEAR))
        : null,
    dex_deviation_mean_abs_pct: roundOrNull(mean(dexDeviationsPct)),
    dex_deviation_max_abs_pct: dexDeviationsPct.length ? round6(Math.max(...dexDeviationsPct)) : null,
    dex_compared_rounds: feed.baseToken === null ? null : dexDeviationsPct.length,
    dex_deviation_reason: dexReason,
    last_answer: lastAnswer,
    last_answer_raw: last.answer.toString(),
    last_updated_at: isoSeconds(last.updatedAt),
    stale,
    stale_since: stale ? isoSeconds(last.updatedAt + Math.ceil(staleAfter)) : null,
    max_staleness_vs_heartbeat: round6(longestStaleness / feed.heartbeatSeconds),
    heartbeat_breaches: breaches,
    dex_price_usd: dexPrice === null ? null : roundTo(dexPrice, 8),
    chosen_price: chosen && {
      ...chosen,
      price_usd: roundTo(chosen.price_usd, 8),
      alternative_price_usd: chosen.alternative_price_usd === null ? null : roundTo(chosen.alternative_price_usd, 8),
    },
    price_disagreement_pct: roundOrNull(gapPct),
    price_flagged: gapPct === null ? null : (chosen?.flagged ?? false),
  };
  // Why each null figure is null: too few rounds in the window, no comparable DEX price, or an unreadable feed.
  const dexGap: GapReason = feed.baseToken === null ? 'not_listed' : updateCount === 0 ? 'no_data' : 'no_price';
  const reasonOf = (field: string): GapReason => {
    if (field === 'last_answer') return 'source_error';
    if (field.startsWith('dex_')) return dexGap;
    if (field === 'chosen_price' || field.startsWith('price_'))
      return lastAnswer === null ? 'source_error' : feed.baseToken === null ? 'not_listed' : 'no_price';
    return 'no_data';
  };
  const nullable = [
    'median_interval_seconds',
    'p95_interval_seconds',
    'max_interval_seconds',
    'heartbeat_triggered_share',
    'deviation_triggered_share',
    'deviation_per_update_mean_pct',
    'deviation_per_update_median_pct',
    'deviation_per_update_max_pct',
    'realised_volatility',
    'dex_deviation_mean_abs_pct',
    'dex_deviation_max_abs_pct',
    'dex_compared_rounds',
    'last_answer',
    'dex_price_usd',
    'chosen_price',
    'price_disagreement_pct',
    'price_flagged',
  ] as const;
  return { ...record, gap_reasons: nullFieldReasons(record, nullable, reasonOf) };
}

export function computeOracles(input: OracleInput): OracleOutput {
  const prices = new Map(input.prices.map((p) => [priceKey(p.token, p.hour), p]));
  const instants = dailyHistoryInstants(input.asOf);
  const records = new Map<string, OracleDailyEntry[]>();
  const pairs: OraclePairEntry[] = [];
  for (const feed of input.feeds) {
    if (records.has(feed.pair)) continue;
    const history = instants.map((t, d) => feedRecordAt(feed, t, d === 0, prices));
    records.set(feed.pair, history);
    const current = history[0]!;
    pairs.push({
      ...identity(feed),
      name: feed.pair.replace('-', ' / '),
      unresolved_reason: feed.state?.unresolved?.reason ?? null,
      latest_answer: current.last_answer,
      latest_updated_at: current.last_updated_at,
      update_count_7d: current.update_count,
      prices_collateral: [...(feed.pricesCollateral ?? [])],
      stale: current.stale,
      stale_since: current.stale_since,
      dex_price_usd: current.dex_price_usd,
      price_disagreement_pct: current.price_disagreement_pct,
      price_flagged: current.price_flagged,
    });
  }
  pairs.sort((a, b) => (a.pair < b.pair ? -1 : a.pair > b.pair ? 1 : 0));
  return { pairs, records };
}
