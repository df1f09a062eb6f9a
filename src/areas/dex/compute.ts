/**
 * The DEX area's computation: facts in, every DEX payload out (API.md "Payloads", "Time windows"). Pure: the
 * windows end at `asOf`, passed in; the same input gives the same output.
 *
 * Conventions (reference/methodology.md, docs/methodology/dex-volume-continuity.md):
 * - volume counts one side of each swap, gross of fees: the input token (positive amount, pool's point of view) ×
 *   its USD price of the swap's hour; if that token has no price, the output token; if neither, the swap is
 *   unpriced: it counts in swap counts and traders, not in USD figures, and the payload says so;
 * - swaps worth $1 or less are dust: in volume, not in trade statistics (mean, median, the score);
 * - a TVL that needs a missing price is null, never a guess.
 */
import { absBig, formatUnits, reservesToPrice, sqrtPriceX96ToPrice, toFloat } from '../../core/decimal.js';
import { poolDepthState, sellDepth } from '../../core/depth.js';
import { roundTo } from '../../core/score.js';
import { mean, median } from '../../core/stats.js';
import { DAY, HOUR, inDayWindow, isoSeconds, utcDayWindow } from '../../core/time.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from './facts.js';
import type {
  AvailableDexEntry,
  AvailablePoolEntry,
  DeploymentSummaryEntry,
  DexDeploymentScoreRecordEntry,
  DexOverviewScoreRecordEntry,
  DexPoolScoreRecordEntry,
  DexProtocolScoreEntry,
  DexTokenInfo,
  HourlyVolumeEntry,
  PoolAnalyticsPayload,
  PoolDepthEntry,
  ProtocolAnalyticsPayload,
  ProtocolOverviewPayload,
  TopPoolEntry,
} from './schema.js';
import {
  type ContinuitySwap,
  DUST_USD,
  historyInstants,
  type PoolScoreResult,
  protocolScoreHistory,
  scorePoolHistory,
} from './score.js';
import { swapUsdValue } from './swap-value.js';

export interface DexDeploymentInfo {
  chain: string;
  protocol: string;
  version: string;
  exchangeName: string;
  design: string;
}

export interface DexInput {
  /** Newest block included; windows end here. */
  asOf: { blockNumber: number; timestamp: number };
  /** What is listed (even with zero pools). */
  deployments: DexDeploymentInfo[];
  pools: PoolFact[];
  tokens: TokenFact[];
  /** All swaps with timestamp in (asOf − 14 d, asOf]. */
  swaps: SwapFact[];
  /** One per pool, at asOf.blockNumber. */
  snapshots: PoolSnapshotFact[];
  /** Hourly, covering the swaps' hours and the asOf hour. */
  prices: TokenPriceFact[];
  /**
   * V2 syncs with timestamp ≤ asOf covering the history's days (the newest one before them per pool included): the
   * daily records' TVL of V2 pools. Without them a past day's V2 TVL is unknown (`no_data`).
   */
  syncs?: SyncFact[];
}

export interface DexOutput {
  availableDexes: AvailableDexEntry[];
  /** Key `${chain}/${protocol}/${version}`: all pools, by TVL desc (null TVL last), address as tie-break. */
  availablePools: Map<string, AvailablePoolEntry[]>;
  /** Key: pool address. */
  poolAnalytics: Map<string, PoolAnalyticsPayload>;
  /** Key `${chain}/${protocol}/${version}`. */
  protocolAnalytics: Map<string, ProtocolAnalyticsPayload>;
  /** Key: protocol. */
  protocolOverview: Map<string, ProtocolOverviewPayload>;
  /** 7 daily records, newest first; data[0] is the current score. */
  poolScores: Map<string, DexPoolScoreRecordEntry[]>;
  protocolScores: Map<string, DexDeploymentScoreRecordEntry[]>;
  protocolOverviewScores: Map<string, DexOverviewScoreRecordEntry[]>;
  /** One current score per protocol, by protocol id. */
  allProtocols: DexProtocolScoreEntry[];
}

/** The 24-hour window. */
export const WINDOW_24H = DAY;
/** The 7-day window. */
export const WINDOW_7D = 7 * DAY;
/** How far back the swaps reach: 7 daily scores, each over the 7 days before it. */
export const SWAP_HISTORY = 14 * DAY;
/** Entries of the `hourly` series: the hours of 7 days. */
export const HOURLY_ENTRIES = 168;
/** Pools listed in `top_pools`. */
export const TOP_POOLS = 10;
/** Price moves of the pools' depth (API.md: depth to move the price 1/2/5 %). */
export const DEPTH_MOVES = [0.01, 0.02, 0.05] as const;
/** Fee APR annualises the 7-day fees: × 365 / 7. */
const DAYS_PER_YEAR = 365;

/** A swap with its USD value (null when unpriced) and what it needs to be aggregated. */
interface ValuedSwap {
  readonly chain: string;
  readonly pool: string;
  readonly timestamp: number;
  readonly trader: string;
  readonly amount0: bigint;
  readonly amount1: bigint;
  readonly usd: number | null;
  /** Pool fee in hundredths of a basis point. */
  readonly fee: number;
  /** When unpriced: the pool's tokens (neither had a price). */
  readonly unpricedTokens: readonly string[];
}

interface PoolContext {
  readonly pool: PoolFact;
  readonly deployment: DexDeploymentInfo;
  readonly token0: TokenFact;
  readonly token1: TokenFact;
  readonly swaps: ValuedSwap[];
  readonly analytics: PoolAnalyticsPayload;
  readonly history: PoolScoreResult[];
  /** The figures of each history record's day (same order as `history`). */
  readonly days: DailyFigures[];
}

/** A history record's own day: volume and swaps of its UTC day up to its instant, TVL at its instant. */
interface DailyFigures {
  readonly volume_usd: number;
  readonly swap_count: number;
  readonly tvl_usd: number | null;
  readonly gap_reasons: Record<string, string>;
}

/**
 * `{ field: reason }` for the null top-level fields of a payload: `reasons[field]`, else `no_data`. Every null
 * figure says why (API.md "Conventions").
 */
function gapReasonsOf(payload: object, reasons: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(payload)) {
    if (value === null && field !== 'gap_reason') out[field] = reasons[field] ?? 'no_data';
  }
  return out;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const deploymentKey = (d: { chain: string; protocol: string; version: string }) =>
  `${d.chain}/${d.protocol}/${d.version}`;
const hourOf = (timestamp: number) => Math.floor(timestamp / HOUR) * HOUR;
/** USD amounts are published to the micro-dollar. */
const usd = (x: number) => roundTo(x, 6);

function tokenInfo(t: TokenFact): DexTokenInfo {
  return { address: t.address, symbol: t.symbol, decimals: t.decimals };
}

/** Swaps in (asOf − window, asOf]. */
function inWindow<T extends { timestamp: number }>(swaps: readonly T[], asOf: number, window: number): T[] {
  return swaps.filter((s) => s.timestamp > asOf - window && s.timestamp <= asOf);
}

type ActivityFields = Pick<
  PoolAnalyticsPayload,
  | 'volume_24h_usd'
  | 'volume_7d_usd'
  | 'swap_count_24h'
  | 'swap_count_7d'
  | 'unique_traders_24h'
  | 'unique_traders_7d'
  | 'mean_trade_usd_7d'
  | 'median_trade_usd_7d'
  | 'dust_swap_count_7d'
  | 'fees_24h_usd'
  | 'fees_7d_usd'
  | 'volume_complete'
  | 'unpriced_swap_count_24h'
  | 'unpriced_swap_count_7d'
  | 'unpriced_tokens'
  | 'hourly'
  | 'as_of'
  | 'gap_reasons'
>;

/** Activity over the 24 h and 7 d windows of a set of swaps (one pool or many; traders are told apart per chain). */
function activity(swaps: readonly ValuedSwap[], asOf: number, extraUnpricedTokens: Iterable<string>): ActivityFields {
  const week = inWindow(swaps, asOf, WINDOW_7D);
  const day = inWindow(week, asOf, WINDOW_24H);
  const volume = (xs: readonly ValuedSwap[]) => xs.reduce((total, s) => total + (s.usd ?? 0), 0);
  const fees = (xs: readonly ValuedSwap[]) => xs.reduce((total, s) => total + ((s.usd ?? 0) * s.fee) / 1e6, 0);
  const traders = (xs: readonly ValuedSwap[]) => new Set(xs.map((s) => `${s.chain}:${s.trader}`)).size;
  const unpriced = (xs: readonly ValuedSwap[]) => xs.filter((s) => s.usd === null);
  const trades = week.filter((s) => s.usd !== null && s.usd > DUST_USD).map((s) => s.usd!);
  const unpricedTokens = new Set(extraUnpricedTokens);
  for (const s of unpriced(week)) for (const t of s.unpricedTokens) unpricedTokens.add(t);

  const newestHour = hourOf(asOf);
  const buckets = new Map<number, { volume: number; count: number; unpriced: number }>();
  for (const s of week) {
    const h = hourOf(s.timestamp);
    let b = buckets.get(h);
    if (!b) {
      b = { volume: 0, count: 0, unpriced: 0 };
      buckets.set(h, b);
    }
    b.count++;
    if (s.usd === null) b.unpriced++;
    else b.volume += s.usd;
  }
  const hourly: HourlyVolumeEntry[] = Array.from({ length: HOURLY_ENTRIES }, (_, k) => {
    const hour = newestHour - k * HOUR;
    const b = buckets.get(hour);
    return {
      hour: isoSeconds(hour),
      partial: k === 0,
      volume_usd: usd(b?.volume ?? 0),
      swap_count: b?.count ?? 0,
      unpriced_swap_count: b?.unpriced ?? 0,
    };
  });
  const meanTrade = mean(trades);
  const medianTrade = median(trades);
  return {
    volume_24h_usd: usd(volume(day)),
    volume_7d_usd: usd(volume(week)),
    swap_count_24h: day.length,
    swap_count_7d: week.length,
    unique_traders_24h: traders(day),
    unique_traders_7d: traders(week),
    mean_trade_usd_7d: meanTrade === null ? null : usd(meanTrade),
    median_trade_usd_7d: medianTrade === null ? null : usd(medianTrade),
    dust_swap_count_7d: week.filter((s) => s.usd !== null && s.usd <= DUST_USD).length,
    fees_24h_usd: usd(fees(day)),
    fees_7d_usd: usd(fees(week)),
    volume_complete: unpriced(week).length === 0,
    unpriced_swap_count_24h: unpriced(day).length,
    unpriced_swap_count_7d: unpriced(week).length,
    unpriced_tokens: [...unpricedTokens].sort(compareText),
    hourly,
    as_of: isoSeconds(asOf),
    gap_reasons: {},
  };
}

function poolName(protocol: string, token0: TokenFact, token1: TokenFact, fee: number): string {
  return `${protocol} ${token0.symbol}/${token1.symbol} ${fee / 10_000}%`;
}

/** Pools by TVL, largest first, pools without a TVL last, address as tie-break. */
function byTvl<T extends { tvl_usd: number | null; pool_address: string }>(a: T, b: T): number {
  if (a.tvl_usd !== b.tvl_usd) {
    if (a.tvl_usd === null) return 1;
    if (b.tvl_usd === null) return -1;
    return b.tvl_usd - a.tvl_usd;
  }
  return compareText(a.pool_address, b.pool_address);
}

function aggregate(pools: readonly PoolContext[], asOf: number) {
  const swaps = pools.flatMap((p) => p.swaps);
  const tvlMissingTokens: string[] = [];
  let tvl = 0;
  let withTvl = 0;
  for (const p of pools) {
    if (p.analytics.tvl_usd === null) {
      for (const [token, price] of [
        [p.token0.address, p.analytics.token0_price_usd],
        [p.token1.address, p.analytics.token1_price_usd],
      ] as const) {
        if (price === null) tvlMissingTokens.push(token);
      }
    } else {
      tvl += p.analytics.tvl_usd;
      withTvl++;
    }
  }
  const top: TopPoolEntry[] = pools
    .map((p) => p.analytics)
    .sort(byTvl)
    .slice(0, TOP_POOLS)
    .map((a) => ({
      pool_address: a.pool_address,
      pool_name: a.pool_name,
      chain: a.chain,
      version: a.version,
      tvl_usd: a.tvl_usd,
      volume_24h_usd: a.volume_24h_usd,
      volume_7d_usd: a.volume_7d_usd,
      gap_reasons: tvlGap(a),
    }));
  const totals = {
    pool_count: pools.length,
    tvl_usd: pools.length === 0 ? 0 : withTvl === 0 ? null : usd(tvl),
    tvl_complete: withTvl === pools.length,
    pools_without_tvl: pools.length - withTvl,
    ...activity(swaps, asOf, tvlMissingTokens),
    top_pools: top,
  };
  return { ...totals, gap_reasons: gapReasonsOf(totals, { tvl_usd: 'no_price' }) };
}

/** The reason of a listing's null TVL, taken from the payload it comes from. */
function tvlGap(from: { tvl_usd: number | null; gap_reasons: Record<string, string> }): Record<string, string> {
  return from.tvl_usd === null ? { tvl_usd: from.gap_reasons.tvl_usd ?? 'no_data' } : {};
}

/** Sums the pools' figures of one history day; a TVL over an unknown part is unknown (its reason kept). */
function sumDays(days: readonly DailyFigures[]): DailyFigures {
  const missing = days.find((d) => d.tvl_usd === null);
  const out = {
    volume_usd: usd(days.reduce((total, d) => total + d.volume_usd, 0)),
    swap_count: days.reduce((total, d) => total + d.swap_count, 0),
    tvl_usd: missing ? null : usd(days.reduce((total, d) => total + d.tvl_usd!, 0)),
  };
  return { ...out, gap_reasons: missing ? { tvl_usd: missing.gap_reasons.tvl_usd ?? 'no_data' } : {} };
}

/** Computes every DEX payload and score from the facts. */
export function computeDex(input: DexInput): DexOutput {
  const asOf = input.asOf.timestamp;
  const asOfHour = hourOf(asOf);
  const tokens = new Map(input.tokens.map((t) => [`${t.chain}/${t.address}`, t]));
  const priceFacts = new Map(input.prices.map((p) => [`${p.chain}/${p.token}/${p.hour}`, p]));
  const priceFact = (chain: string, token: string, hour: number) => priceFacts.get(`${chain}/${token}/${hour}`);
  const priceOf = (chain: string, token: string, hour: number) => priceFact(chain, token, hour)?.priceUsd;
  const syncsByPool = new Map<string, SyncFact[]>();
  for (const s of [...(input.syncs ?? [])].sort(
    (a, b) => a.timestamp - b.timestamp || a.blockNumber - b.blockNumber || a.logIndex - b.logIndex,
  )) {
    if (s.timestamp > asOf) continue;
    const key = `${s.chain}/${s.pool}`;
    let list = syncsByPool.get(key);
    if (!list) {
      list = [];
      syncsByPool.set(key, list);
    }
    list.push(s);
  }
  const deployments = [...input.deployments].sort((a, b) => compareText(deploymentKey(a), deploymentKey(b)));
  const deploymentByKey = new Map(deployments.map((d) => [deploymentKey(d), d]));

  const snapshots = new Map<string, PoolSnapshotFact>();
  for (const s of input.snapshots) {
    if (s.blockNumber > input.asOf.blockNumber) continue;
    const key = `${s.chain}/${s.pool}`;
    const current = snapshots.get(key);
    if (!current || s.blockNumber > current.blockNumber) snapshots.set(key, s);
  }
  const swapsByPool = new Map<string, SwapFact[]>();
  for (const s of input.swaps) {
    if (s.timestamp <= asOf - SWAP_HISTORY || s.timestamp > asOf) continue;
    const key = `${s.chain}/${s.pool}`;
    let list = swapsByPool.get(key);
    if (!list) {
      list = [];
      swapsByPool.set(key, list);
    }
    list.push(s);
  }

  const contexts: PoolContext[] = [];
  const pools = [...input.pools].sort((a, b) => compareText(a.address, b.address) || compareText(a.chain, b.chain));
  for (const pool of pools) {
    const token0 = tokens.get(`${pool.chain}/${pool.token0}`);
    const token1 = tokens.get(`${pool.chain}/${pool.token1}`);
    if (!token0 || !token1) {
      throw new Error(
        `computeDex: pool ${pool.chain}/${pool.address} references a token without a TokenFact (${!token0 ? pool.token0 : pool.token1})`,
      );
    }
    const deployment = deploymentByKey.get(deploymentKey(pool)) ?? {
      chain: pool.chain,
      protocol: pool.protocol,
      version: pool.version,
      exchangeName: pool.protocol,
      design: pool.design,
    };
    const raw = (swapsByPool.get(`${pool.chain}/${pool.address}`) ?? []).sort(
      (a, b) => a.timestamp - b.timestamp || a.blockNumber - b.blockNumber || a.logIndex - b.logIndex,
    );
    const swaps: ValuedSwap[] = raw.map((s) => {
      const value = swapUsdValue(s, token0, token1, (token, hour) => priceOf(pool.chain, token, hour));
      return {
        chain: s.chain,
        pool: s.pool,
        timestamp: s.timestamp,
        trader: s.trader,
        amount0: s.amount0,
        amount1: s.amount1,
        usd: value,
        fee: pool.fee,
        unpricedTokens: value === null ? [token0.address, token1.address] : [],
      };
    });

    const snapshot = snapshots.get(`${pool.chain}/${pool.address}`);
    const priceFact0 = priceFact(pool.chain, token0.address, asOfHour);
    const priceFact1 = priceFact(pool.chain, token1.address, asOfHour);
    const price0 = priceFact0?.priceUsd ?? null;
    const price1 = priceFact1?.priceUsd ?? null;
    const reserve0 = snapshot ? toFloat(snapshot.reserve0, token0.decimals) : null;
    const reserve1 = snapshot ? toFloat(snapshot.reserve1, token1.decimals) : null;
    let price: number | null = null;
    if (snapshot) {
      price =
        snapshot.sqrtPriceX96 !== null && snapshot.sqrtPriceX96 > 0n
          ? sqrtPriceX96ToPrice(snapshot.sqrtPriceX96, token0.decimals, token1.decimals)
          : reservesToPrice(snapshot.reserve0, snapshot.reserve1, token0.decimals, token1.decimals);
    }
    const tvl =
      reserve0 !== null && reserve1 !== null && price0 !== null && price1 !== null
        ? reserve0 * price0 + reserve1 * price1
        : null;
    const tvlMissing: string[] = [];
    if (snapshot) {
      if (price0 === null) tvlMissing.push(token0.address);
      if (price1 === null) tvlMissing.push(token1.address);
    }
    const volumeOfToken = (xs: readonly ValuedSwap[], side: 0 | 1) =>
      toFloat(
        xs.reduce((total, s) => total + absBig(side === 0 ? s.amount0 : s.amount1), 0n),
        side === 0 ? token0.decimals : token1.decimals,
      );
    const week = inWindow(swaps, asOf, WINDOW_7D);
    const day = inWindow(week, asOf, WINDOW_24H);
    const depth: PoolDepthEntry[] = [];
    if (snapshot) {
      const state = poolDepthState(pool, snapshot, token0.decimals, token1.decimals);
      for (const move of DEPTH_MOVES) {
        const sell0 = sellDepth(state, 0, move);
        const sell1 = sellDepth(state, 1, move);
        const amount0 = toFloat(sell0.amountIn, token0.decimals);
        const amount1 = toFloat(sell1.amountIn, token1.decimals);
        depth.push({
          price_move: move,
          sell_token0: amount0,
          sell_token0_usd: price0 === null ? null : usd(amount0 * price0),
          sell_token1: amount1,
          sell_token1_usd: price1 === null ? null : usd(amount1 * price1),
          reachable: sell0.reachable && sell1.reachable,
        });
      }
    }
    const activityFields = activity(swaps, asOf, tvlMissing);
    const tvlUsd = tvl === null ? null : usd(tvl);
    const feeApr =
      tvlUsd === null || tvlUsd <= 0 ? null : roundTo((activityFields.fees_7d_usd * DAYS_PER_YEAR) / 7 / tvlUsd, 6);
    const analyticsFields = {
      pool_address: pool.address,
      pool_name: poolName(pool.protocol, token0, token1, pool.fee),
      chain: pool.chain,
      protocol: pool.protocol,
      version: pool.version,
      exchange_name: deployment.exchangeName,
      design: pool.design,
      token0: tokenInfo(token0),
      token1: tokenInfo(token1),
      fee_tier: pool.fee,
      fee_percent: pool.fee / 10_000,
      created_at: isoSeconds(pool.createdAt),
      snapshot_block: snapshot?.blockNumber ?? null,
      reserve0,
      reserve1,
      reserve0_raw: snapshot ? formatUnits(snapshot.reserve0, 0) : null,
      reserve1_raw: snapshot ? formatUnits(snapshot.reserve1, 0) : null,
      price,
      token0_price_usd: price0,
      token1_price_usd: price1,
      token0_price_source: priceFact0?.source ?? null,
      token0_price_confidence: priceFact0 ? roundTo(priceFact0.confidence, 4) : null,
      token1_price_source: priceFact1?.source ?? null,
      token1_price_confidence: priceFact1 ? roundTo(priceFact1.confidence, 4) : null,
      tvl_usd: tvlUsd,
      fee_apr: feeApr,
      depth,
      volume_24h_token0: volumeOfToken(day, 0),
      volume_24h_token1: volumeOfToken(day, 1),
      volume_7d_token0: volumeOfToken(week, 0),
      volume_7d_token1: volumeOfToken(week, 1),
      ...activityFields,
    };
    const unpricedReason = snapshot ? 'no_price' : 'no_data';
    const analytics: PoolAnalyticsPayload = {
      ...analyticsFields,
      gap_reasons: {
        ...gapReasonsOf(analyticsFields, {
          token0_price_usd: 'no_price',
          token1_price_usd: 'no_price',
          token0_price_source: 'no_price',
          token0_price_confidence: 'no_price',
          token1_price_source: 'no_price',
          token1_price_confidence: 'no_price',
          tvl_usd: unpricedReason,
          fee_apr: tvlUsd === 0 ? 'no_liquidity' : unpricedReason,
        }),
        ...(snapshot ? {} : { depth: 'no_data' }),
      },
    };
    const continuity: ContinuitySwap[] = swaps.map((s) => ({ timestamp: s.timestamp, trader: s.trader, usd: s.usd }));
    const history = scorePoolHistory(continuity, {
      asOf,
      createdAt: pool.createdAt,
      dataStart: asOf - SWAP_HISTORY,
    });
    const poolSyncs = syncsByPool.get(`${pool.chain}/${pool.address}`) ?? [];
    const days = historyInstants(asOf).map((t): DailyFigures => {
      // The record's UTC day up to its instant: facts up to t only (no record uses later data).
      const window = utcDayWindow(t);
      const ofDay = swaps.filter((x) => inDayWindow(x.timestamp, window));
      // Reserves at t: V2 from the newest Sync at or before t; a pool's snapshot when it is at or before t and
      // newer (V3 has no other state: a past day's V3 TVL is unknown, the area keeps no past balances).
      let reserves: { r0: bigint; r1: bigint; block: number } | null = null;
      for (const sync of poolSyncs) {
        if (sync.timestamp > t) break;
        reserves = { r0: sync.reserve0, r1: sync.reserve1, block: sync.blockNumber };
      }
      if (snapshot && snapshot.timestamp <= t && (!reserves || snapshot.blockNumber >= reserves.block)) {
        reserves = { r0: snapshot.reserve0, r1: snapshot.reserve1, block: snapshot.blockNumber };
      }
      const hour = hourOf(t);
      const p0 = priceOf(pool.chain, token0.address, hour);
      const p1 = priceOf(pool.chain, token1.address, hour);
      const tvlAt =
        t < pool.createdAt
          ? 0
          : reserves && p0 !== undefined && p1 !== undefined
            ? usd(toFloat(reserves.r0, token0.decimals) * p0 + toFloat(reserves.r1, token1.decimals) * p1)
            : null;
      return {
        volume_usd: usd(ofDay.reduce((total, x) => total + (x.usd ?? 0), 0)),
        swap_count: ofDay.length,
        tvl_usd: tvlAt,
        gap_reasons: tvlAt === null ? { tvl_usd: reserves ? 'no_price' : 'no_data' } : {},
      };
    });
    contexts.push({ pool, deployment, token0, token1, swaps, analytics, history, days });
  }

  const poolAnalytics = new Map(contexts.map((c) => [c.pool.address, c.analytics]));
  const poolScores = new Map(
    contexts.map((c) => [
      c.pool.address,
      c.history.map(
        (h, d): DexPoolScoreRecordEntry => ({
          chain: c.pool.chain,
          protocol: c.pool.protocol,
          version: c.pool.version,
          pool_address: c.pool.address,
          ...c.days[d]!,
          ...h.record,
        }),
      ),
    ]),
  );
  const daysOf = (members: readonly PoolContext[]) =>
    historyInstants(asOf).map((_, d) => sumDays(members.map((c) => c.days[d]!)));
  const poolsOf = (d: DexDeploymentInfo) =>
    contexts.filter((c) => c.pool.chain === d.chain && c.pool.protocol === d.protocol && c.pool.version === d.version);
  const scoreRefs = (xs: readonly PoolContext[]) => xs.map((c) => ({ pool: c.pool.address, history: c.history }));

  const availableDexes: AvailableDexEntry[] = [];
  const availablePools = new Map<string, AvailablePoolEntry[]>();
  const protocolAnalytics = new Map<string, ProtocolAnalyticsPayload>();
  const protocolScores = new Map<string, DexDeploymentScoreRecordEntry[]>();
  for (const d of deployments) {
    const key = deploymentKey(d);
    const members = poolsOf(d);
    const totals = aggregate(members, asOf);
    availableDexes.push({
      chain: d.chain,
      protocol: d.protocol,
      version: d.version,
      exchange_name: d.exchangeName,
      design: d.design,
      pool_count: members.length,
      number_of_pools: members.length,
      tvl_usd: totals.tvl_usd,
      tvl_complete: totals.tvl_complete,
      gap_reasons: tvlGap(totals),
    });
    availablePools.set(
      key,
      members
        .map((c) => c.analytics)
        .sort(byTvl)
        .map((a) => ({
          pool_address: a.pool_address,
          pool_name: a.pool_name,
          token0: a.token0,
          token1: a.token1,
          fee_tier: a.fee_tier,
          tvl_usd: a.tvl_usd,
          volume_24h_usd: a.volume_24h_usd,
          volume_complete: a.volume_complete,
          gap_reasons: tvlGap(a),
        })),
    );
    protocolAnalytics.set(key, {
      chain: d.chain,
      protocol: d.protocol,
      version: d.version,
      exchange_name: d.exchangeName,
      design: d.design,
      ...totals,
    });
    const memberDays = daysOf(members);
    protocolScores.set(
      key,
      protocolScoreHistory(scoreRefs(members), asOf).map((record, i) => ({
        chain: d.chain,
        protocol: d.protocol,
        version: d.version,
        ...memberDays[i]!,
        ...record,
      })),
    );
  }

  const protocolOverview = new Map<string, ProtocolOverviewPayload>();
  const protocolOverviewScores = new Map<string, DexOverviewScoreRecordEntry[]>();
  const allProtocols: DexProtocolScoreEntry[] = [];
  const protocols = [...new Set(deployments.map((d) => d.protocol))].sort(compareText);
  for (const protocol of protocols) {
    const own = deployments.filter((d) => d.protocol === protocol);
    const members = own.flatMap(poolsOf);
    const summaries: DeploymentSummaryEntry[] = own
      .map((d) => {
        const a = protocolAnalytics.get(deploymentKey(d))!;
        return {
          chain: d.chain,
          version: d.version,
          exchange_name: d.exchangeName,
          pool_count: a.pool_count,
          tvl_usd: a.tvl_usd,
          volume_24h_usd: a.volume_24h_usd,
          volume_7d_usd: a.volume_7d_usd,
          swap_count_24h: a.swap_count_24h,
          gap_reasons: tvlGap(a),
        };
      })
      .sort((a, b) => compareText(a.chain, b.chain) || compareText(a.version, b.version));
    protocolOverview.set(protocol, {
      protocol,
      exchange_names: [...new Set(own.map((d) => d.exchangeName))].sort(compareText),
      chain_count: new Set(own.map((d) => d.chain)).size,
      deployment_count: own.length,
      deployments: summaries,
      ...aggregate(members, asOf),
    });
    const memberDays = daysOf(members);
    const history = protocolScoreHistory(scoreRefs(members), asOf).map(
      (record, i): DexOverviewScoreRecordEntry => ({ protocol, ...memberDays[i]!, ...record }),
    );
    protocolOverviewScores.set(protocol, history);
    allProtocols.push(history[0]!);
  }

  return {
    availableDexes,
    availablePools,
    poolAnalytics,
    protocolAnalytics,
    protocolOverview,
    poolScores,
    protocolScores,
    protocolOverviewScores,
    allProtocols,
  };
}
