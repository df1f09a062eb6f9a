/**
 * Analytics of a DEX pool of a liquid staking token (LST) against its underlying, from the DEX area's facts (pool,
 * tokens, state snapshot, swaps, V2 syncs, hourly USD prices) and the token's exchange rate read at the same block.
 * Pure. docs/methodology/liquid-staking-dex-pool.md explains the figures and the score.
 */
import { absBig, formatUnits, toFloat } from '../../core/decimal.js';
import { type DepthPoolState, poolDepthState, poolPrice, sellDepth } from '../../core/depth.js';
import { choosePrice, type PolicyPrice, roundPriceUsd, roundUsd } from '../../core/price-policy.js';
import { roundTo } from '../../core/score.js';
import { DAY, HOUR, isoSeconds } from '../../core/time.js';
import {
  type HourlyPriceLookup,
  type PoolFact,
  type PoolSnapshotFact,
  type SwapFact,
  type SyncFact,
  swapUsdValue,
  type TokenFact,
} from '../dex/public.js';
import { type LstRef, lstInfo, publishedPrice } from './exposure.js';
import type { DepthEntryPayload, LstPoolAnalyticsPayload, PegHistoryEntry } from './schema.js';

/** Price moves of the depth table (issue 4: 1, 2 and 5 %). */
export const DEPTH_MOVES = [0.01, 0.02, 0.05] as const;

/** The exchange rate's scale: `stEthPerToken()` returns underlying per token × 1e18 (wstETH's interface). */
export const EXCHANGE_RATE_SCALE = 10n ** 18n;

export function exchangeRateOf(raw: bigint): number {
  return toFloat(raw, 18);
}

/** USD price of a token for an hour, or undefined. */
export type PriceLookup = HourlyPriceLookup;

export interface LstPoolInput {
  readonly pool: PoolFact;
  readonly token0: TokenFact;
  readonly token1: TokenFact;
  readonly lst: LstRef;
  readonly snapshot: PoolSnapshotFact;
  /** stEthPerToken() at the snapshot's block. */
  readonly exchangeRateRaw: bigint;
  /** This pool's swaps with timestamp in (asOf − 14 d, asOf]. */
  readonly swaps: readonly SwapFact[];
  readonly prices: PriceLookup;
  /** LST collateral in the tracked lending markets (tokens), latest snapshots; null when unknown. */
  readonly lstCollateralToken: number | null;
  /** The LST's policy price (core/price-policy) at as_of; null: the DEX price of the hour, if any. */
  readonly lstPrice: PolicyPrice | null;
  /** The underlying's policy price at as_of (the lending exposure's); null or absent: the DEX price of the hour. */
  readonly underlyingPrice?: PolicyPrice | null;
}

const hourOf = (t: number) => Math.floor(t / HOUR) * HOUR;
/** One USD precision with lending (core/price-policy `roundUsd`). */
const usd6 = roundUsd;

/** Which side of the pool is the LST. */
export function lstSide(pool: { token0: string; token1: string }, lst: LstRef): 0 | 1 {
  if (pool.token0 === lst.token) return 0;
  if (pool.token1 === lst.token) return 1;
  throw new Error(`pool ${pool.token0}/${pool.token1} does not hold ${lst.symbol} ${lst.token}`);
}

/** Underlying per LST in the pool, normalised; null for an empty pool. */
export function lstPoolPrice(state: DepthPoolState, side: 0 | 1): number | null {
  const p = poolPrice(state);
  if (p === null || p <= 0) return null;
  return side === 0 ? p : 1 / p;
}

/** USD value of each swap: the DEX area's own convention (its `swapUsdValue`). */
export const swapUsd: (s: SwapFact, token0: TokenFact, token1: TokenFact, prices: PriceLookup) => number | null =
  swapUsdValue;

/**
 * Depth of the pool in both directions at each move: `down` sells the LST until its price in the underlying falls
 * by m; `up` sells the underlying until the LST price rises by m (the underlying's price falls by m / (1 + m)).
 */
export function depthEntries(
  state: DepthPoolState,
  side: 0 | 1,
  lstPriceUsd: number | null,
  underlyingPriceUsd: number | null,
  moves: readonly number[] = DEPTH_MOVES,
): DepthEntryPayload[] {
  const other = side === 0 ? 1 : 0;
  const decimalsOf = (s: 0 | 1) => (s === 0 ? state.decimals0 : state.decimals1);
  const describe = (d: ReturnType<typeof sellDepth>, sold: 0 | 1, price: number | null) => {
    const tokenIn = toFloat(d.amountIn, decimalsOf(sold));
    return {
      token_in: tokenIn,
      token_out: toFloat(d.amountOut, decimalsOf(sold === 0 ? 1 : 0)),
      usd: price === null ? null : usd6(tokenIn * price),
      reachable: d.reachable,
    };
  };
  return moves.map((m) => ({
    price_move_pct: roundTo(m * 100, 4),
    down: { sells: 'lst' as const, ...describe(sellDepth(state, side, m), side, lstPriceUsd) },
    up: {
      sells: 'underlying' as const,
      ...describe(sellDepth(state, other, m / (1 + m)), other, underlyingPriceUsd),
    },
  }));
}

export interface PoolPegFigures {
  readonly poolPrice: number | null;
  readonly priceVsPeg: number | null;
  /** Fraction: positive below peg. */
  readonly discount: number | null;
  readonly lstShareOfValue: number | null;
  readonly imbalance: number | null;
}

/** Price against the exchange rate, and the balance of the pool's holdings valued in the underlying. */
export function pegFigures(
  state: DepthPoolState,
  side: 0 | 1,
  exchangeRate: number,
  balances: { lst: number; underlying: number } | null,
): PoolPegFigures {
  const price = lstPoolPrice(state, side);
  const vsPeg = price === null || !(exchangeRate > 0) ? null : price / exchangeRate;
  let share: number | null = null;
  let imbalance: number | null = null;
  if (balances && exchangeRate > 0) {
    const lstValue = balances.lst * exchangeRate;
    const total = lstValue + balances.underlying;
    if (total > 0) {
      share = lstValue / total;
      imbalance = (lstValue - balances.underlying) / total;
    }
  }
  return {
    poolPrice: price,
    priceVsPeg: vsPeg,
    discount: vsPeg === null ? null : 1 - vsPeg,
    lstShareOfValue: share,
    imbalance,
  };
}

/** The pool's current analytics (API.md "Liquid staking": balances, imbalance, price vs peg, depth). */
export function lstPoolAnalytics(input: LstPoolInput): LstPoolAnalyticsPayload {
  const { pool, token0, token1, lst, snapshot } = input;
  const asOf = snapshot.timestamp;
  const side = lstSide(pool, lst);
  const lstToken = side === 0 ? token0 : token1;
  const underlyingToken = side === 0 ? token1 : token0;
  const state = poolDepthState(pool, snapshot, token0.decimals, token1.decimals);
  const lstRaw = side === 0 ? snapshot.reserve0 : snapshot.reserve1;
  const underlyingRaw = side === 0 ? snapshot.reserve1 : snapshot.reserve0;
  const lstBalance = toFloat(lstRaw, lstToken.decimals);
  const underlyingBalance = toFloat(underlyingRaw, underlyingToken.decimals);
  const rate = exchangeRateOf(input.exchangeRateRaw);
  const hour = hourOf(asOf);
  // One price of the LST for every figure here (balances, depth, collateral): the policy's.
  const lstPolicy =
    input.lstPrice ??
    (() => {
      const p = input.prices(lstToken.address, hour);
      return p === undefined ? null : choosePrice(asOf, null, { priceUsd: p, confidence: 1, ref: 'dex' });
    })();
  const lstPrice = lstPolicy?.price_usd ?? null;
  // The underlying's price is the policy's too: the one the lending exposure publishes for it at the instant.
  const underlyingPolicy =
    input.underlyingPrice ??
    (() => {
      const p = input.prices(underlyingToken.address, hour);
      return p === undefined ? null : choosePrice(asOf, null, { priceUsd: p, confidence: 1, ref: 'dex' });
    })();
  const underlyingPrice = underlyingPolicy?.price_usd ?? null;
  const peg = pegFigures(state, side, rate, { lst: lstBalance, underlying: underlyingBalance });

  const swaps = input.swaps.filter(
    (s) => s.pool === pool.address && s.timestamp > asOf - 7 * DAY && s.timestamp <= asOf,
  );
  const day = swaps.filter((s) => s.timestamp > asOf - DAY);
  const valued = (xs: readonly SwapFact[]) => xs.map((s) => swapUsd(s, token0, token1, input.prices));
  const volume = (xs: readonly SwapFact[]) => valued(xs).reduce<number>((t, v) => t + (v ?? 0), 0);
  const lstVolume = (xs: readonly SwapFact[]) =>
    toFloat(
      xs.reduce((t, s) => t + absBig(side === 0 ? s.amount0 : s.amount1), 0n),
      lstToken.decimals,
    );
  const lstUsd = lstPrice === null ? null : usd6(lstBalance * lstPrice);
  const underlyingUsd = underlyingPrice === null ? null : usd6(underlyingBalance * underlyingPrice);
  const r6 = (x: number | null) => (x === null ? null : roundTo(x, 6));
  const payload: LstPoolAnalyticsPayload = {
    pool_address: pool.address,
    chain: pool.chain,
    protocol: pool.protocol,
    version: pool.version,
    design: pool.design,
    fee_tier: pool.fee,
    liquid_staking_token: lstInfo(lst),
    lst_is_token0: side === 0,
    snapshot_block: snapshot.blockNumber,
    lst_balance: lstBalance,
    underlying_balance: underlyingBalance,
    lst_balance_raw: formatUnits(lstRaw, 0),
    underlying_balance_raw: formatUnits(underlyingRaw, 0),
    lst_balance_usd: lstUsd,
    underlying_balance_usd: underlyingUsd,
    tvl_usd: lstUsd === null || underlyingUsd === null ? null : usd6(lstUsd + underlyingUsd),
    lst_share_of_value: r6(peg.lstShareOfValue),
    imbalance: r6(peg.imbalance),
    exchange_rate: rate,
    exchange_rate_raw: input.exchangeRateRaw.toString(),
    pool_price: peg.poolPrice,
    price_vs_peg: r6(peg.priceVsPeg),
    discount_pct: peg.discount === null ? null : roundTo(peg.discount * 100, 4),
    lst_price_usd: lstPrice === null ? null : roundPriceUsd(lstPrice),
    underlying_price_usd: underlyingPrice === null ? null : roundPriceUsd(underlyingPrice),
    depth: depthEntries(state, side, lstPrice, underlyingPrice),
    volume_24h_usd: usd6(volume(day)),
    volume_7d_usd: usd6(volume(swaps)),
    volume_24h_lst: lstVolume(day),
    volume_7d_lst: lstVolume(swaps),
    swap_count_24h: day.length,
    swap_count_7d: swaps.length,
    unpriced_swap_count_7d: valued(swaps).filter((v) => v === null).length,
    lst_collateral_in_lending_token: input.lstCollateralToken === null ? null : roundTo(input.lstCollateralToken, 9),
    lst_collateral_in_lending_usd:
      input.lstCollateralToken === null || lstPrice === null ? null : usd6(input.lstCollateralToken * lstPrice),
    lst_price: publishedPrice(lstPolicy),
    underlying_price: publishedPrice(underlyingPolicy),
    as_of: isoSeconds(asOf),
    gap_reasons: {},
  };
  // Every null figure has a reason: a missing price, else a lending market without a snapshot (collateral) or a
  // price the pool state does not give.
  const priced = new Set([
    'lst_balance_usd',
    'underlying_balance_usd',
    'tvl_usd',
    'lst_price_usd',
    'underlying_price_usd',
    'lst_price',
    'underlying_price',
  ]);
  for (const [field, value] of Object.entries(payload)) {
    if (value !== null) continue;
    payload.gap_reasons[field] =
      priced.has(field) || (field === 'lst_collateral_in_lending_usd' && input.lstCollateralToken !== null)
        ? 'no_price'
        : 'no_data';
  }
  return payload;
}

/**
 * Peg history of a pool at instant `t`: the least and greatest discount (percent; positive below the exchange
 * rate) at which it traded over the UTC day of t (up to t) and over the 7 days ending at t, from the price after
 * each swap (V3: its sqrtPriceX96) or sync (V2: its reserves) at or before t. One exchange rate, the record's (the
 * rate drifts by the staking yield, ~0.06 % a week, far below the discounts of interest). Null without a rate.
 */
export function pegHistory(
  pool: PoolFact,
  decimals0: number,
  decimals1: number,
  side: 0 | 1,
  swaps: readonly SwapFact[],
  syncs: readonly SyncFact[],
  rate: number | null,
  t: number,
): PegHistoryEntry | null {
  if (rate === null || !(rate > 0)) return null;
  const dayStart = Math.floor(t / DAY) * DAY;
  const weekStart = t - 7 * DAY;
  const unbounded = 2n ** 200n;
  const points: { timestamp: number; discount: number }[] = [];
  const add = (timestamp: number, state: DepthPoolState) => {
    const price = lstPoolPrice(state, side);
    if (price !== null) points.push({ timestamp, discount: (1 - price / rate) * 100 });
  };
  if (pool.design === 'uniswap-v3') {
    for (const s of swaps) {
      if (s.pool !== pool.address || s.timestamp <= weekStart || s.timestamp > t) continue;
      if (s.sqrtPriceX96 === null || s.liquidity === null) continue;
      add(
        s.timestamp,
        poolDepthState(
          pool,
          { reserve0: unbounded, reserve1: unbounded, sqrtPriceX96: s.sqrtPriceX96, liquidity: s.liquidity },
          decimals0,
          decimals1,
        ),
      );
    }
  } else {
    for (const y of syncs) {
      if (y.pool !== pool.address || y.timestamp <= weekStart || y.timestamp > t) continue;
      add(
        y.timestamp,
        poolDepthState(
          pool,
          { reserve0: y.reserve0, reserve1: y.reserve1, sqrtPriceX96: null, liquidity: null },
          decimals0,
          decimals1,
        ),
      );
    }
  }
  const day = points.filter((p) => p.timestamp >= dayStart).map((p) => p.discount);
  const week = points.map((p) => p.discount);
  const r = (xs: number[], f: (...v: number[]) => number) => (xs.length ? roundTo(f(...xs), 4) : null);
  return {
    discount_min_pct_day: r(day, Math.min),
    discount_max_pct_day: r(day, Math.max),
    discount_min_pct_7d: r(week, Math.min),
    discount_max_pct_7d: r(week, Math.max),
    swaps_day: day.length,
    swaps_7d: week.length,
  };
}
