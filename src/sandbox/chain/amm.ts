/**
 * AMM math of the Uniswap designs (floats are fine here: these choose trade sizes and seed amounts; the chain does
 * the exact math): prices in raw units, sqrtPriceX96 and ticks, V3 position amounts, and the inputs that move a pool
 * to a target price.
 */
import { pow } from '../world/pow.js';

export const Q96 = 2n ** 96n;
export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
/** Bounds of sqrtPriceX96 (TickMath.MIN_SQRT_RATIO / MAX_SQRT_RATIO). */
export const MIN_SQRT_RATIO = 4295128739n;
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;

/** A non-negative float amount to a bigint (floored); NaN and negatives become 0. */
export function toRawAmount(x: number): bigint {
  if (!(x > 0) || !Number.isFinite(x)) return 0n;
  return BigInt(Math.floor(x));
}

/** The smaller of two raw amounts. */
export function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** The price of raw token0 in raw token1 from two USD prices and the decimals. */
export function rawPrice(price0Usd: number, decimals0: number, price1Usd: number, decimals1: number): number {
  return (price0Usd / price1Usd) * pow(10, decimals1 - decimals0);
}

export function sqrtPriceX96FromPrice(price: number): bigint {
  const s = BigInt(Math.round(Math.sqrt(price) * pow(2, 96)));
  return s < MIN_SQRT_RATIO ? MIN_SQRT_RATIO : s >= MAX_SQRT_RATIO ? MAX_SQRT_RATIO - 1n : s;
}

export function priceFromSqrtPriceX96(sqrtPriceX96: bigint): number {
  const s = Number(sqrtPriceX96) / pow(2, 96);
  return s * s;
}

export function tickFromPrice(price: number): number {
  return Math.floor(Math.log(price) / Math.log(1.0001));
}

/** `tick` rounded to a multiple of `spacing` (down or up), kept inside the usable range. */
export function alignTick(tick: number, spacing: number, direction: 'down' | 'up'): number {
  const aligned = (direction === 'down' ? Math.floor(tick / spacing) : Math.ceil(tick / spacing)) * spacing;
  const lo = Math.ceil(MIN_TICK / spacing) * spacing;
  const hi = Math.floor(MAX_TICK / spacing) * spacing;
  // `+ 0` turns the -0 of Math.ceil(-0.1) * 10 into 0.
  return Math.min(hi, Math.max(lo, aligned)) + 0;
}

/** A tick range around `price` of ±`width` (a fraction), aligned outwards to `spacing`, never empty. */
export function tickRange(price: number, width: number, spacing: number): [number, number] {
  const lower = alignTick(tickFromPrice(price * (1 - width)), spacing, 'down');
  let upper = alignTick(tickFromPrice(price * (1 + width)) + 1, spacing, 'up');
  if (upper <= lower) upper = lower + spacing;
  return [lower, upper];
}

/** The full usable range for a tick spacing. */
export function fullRange(spacing: number): [number, number] {
  return [alignTick(MIN_TICK, spacing, 'up'), alignTick(MAX_TICK, spacing, 'down')];
}

/**
 * Token amounts (raw) of a V3 position over [tickLower, tickUpper] worth `value` (in raw token1) at `price`
 * (raw token1 per raw token0): x = L(1/√p − 1/√pb), y = L(√p − √pa), value = x·p + y.
 */
export function v3AmountsForValue(
  price: number,
  tickLower: number,
  tickUpper: number,
  value: number,
): { amount0: number; amount1: number } {
  const sp = Math.sqrt(price);
  const sa = pow(1.0001, tickLower / 2);
  const sb = pow(1.0001, tickUpper / 2);
  if (sp <= sa) return { amount0: value / price, amount1: 0 };
  if (sp >= sb) return { amount0: 0, amount1: value };
  const liquidity = value / (2 * sp - price / sb - sa);
  return { amount0: liquidity * (1 / sp - 1 / sb), amount1: liquidity * (sp - sa) };
}

/** Raw amount of token0 (zeroForOne) or token1 to sell into a V2 pool to bring its price to `target`. */
export function v2ArbitrageAmountIn(
  reserve0: number,
  reserve1: number,
  target: number,
  fee: number,
): { zeroForOne: boolean; amountIn: number } {
  const k = reserve0 * reserve1;
  const gamma = 1 - fee;
  if (reserve1 / reserve0 > target) return { zeroForOne: true, amountIn: (Math.sqrt(k / target) - reserve0) / gamma };
  return { zeroForOne: false, amountIn: (Math.sqrt(k * target) - reserve1) / gamma };
}

/** Raw input that moves a V3 pool from `sqrtPrice` to `sqrtTarget` within liquidity `liquidity` (no fee). */
export function v3AmountToTarget(liquidity: bigint, sqrtPrice: bigint, sqrtTarget: bigint): bigint {
  if (sqrtTarget < sqrtPrice) return (liquidity * Q96 * (sqrtPrice - sqrtTarget)) / sqrtPrice / sqrtTarget;
  return (liquidity * (sqrtTarget - sqrtPrice)) / Q96;
}

/** Raw output of a V2 swap of `amountIn` against reserves (the pair's getAmountOut, in floats). */
export function v2AmountOut(amountIn: number, reserveIn: number, reserveOut: number, fee: number): number {
  const input = amountIn * (1 - fee);
  return reserveIn + input > 0 ? (input * reserveOut) / (reserveIn + input) : 0;
}

/**
 * The √price (raw token1 per raw token0, not scaled by 2^96) of a V3 pool after a swap of `amountIn` within
 * in-range liquidity `liquidity` (no tick crossed): token0 in gives L·√p / (L + a·√p), token1 in gives √p + a / L,
 * with a the input net of the fee. An estimate: crossing a tick changes the liquidity.
 */
export function v3SqrtAfterSwap(
  sqrtPrice: number,
  liquidity: number,
  zeroForOne: boolean,
  amountIn: number,
  fee: number,
): number {
  if (!(liquidity > 0)) return sqrtPrice;
  const a = amountIn * (1 - fee);
  return zeroForOne ? (liquidity * sqrtPrice) / (liquidity + a * sqrtPrice) : sqrtPrice + a / liquidity;
}
