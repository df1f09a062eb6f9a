/**
 * Market indicators from the market-data source's daily prices (docs/methodology/tokenomics.md "Indicators"). Every
 * figure is a value or null with a gap reason, never a 0 standing in for a missing day.
 *
 * - daily close of a UTC day: the last price point in [day start, next day start) and not after `as_of` (a point
 *   stamped 00:00:00 belongs to the day it starts; the running day's close is its last point so far);
 * - daily log return of day D: ln(close_D / close_{D−1}), only where both days have a close;
 * - window: the 30 UTC days ending with the day of `as_of` (30 returns at most), at least 7 returns, else null
 *   (`no_data`);
 * - volatility: sample standard deviation (n − 1) of the window's daily log returns × 100 (percent per day, the unit
 *   the legacy 3.34 shows); `volatility_annualised` = volatility × √365;
 * - correlation with ETH and BTC: Pearson's r of the token's and the reference's daily log returns on the days both
 *   have one in the window (at least 7);
 * - Sharpe ratio: (mean daily log return × 365 − r_f) / (standard deviation × √365), r_f = 0 (annual risk-free rate,
 *   stated in the payload);
 * - market-cap dominance: market cap / the global total market cap × 100 (percent).
 */
import type { GapReason } from '../../core/gaps.js';
import { DAY } from '../../core/time.js';

export const RETURN_WINDOW_DAYS = 30;
export const MIN_RETURNS = 7;
export const RISK_FREE_RATE = 0;
export const ANNUALISATION_DAYS = 365;

export interface Figure {
  readonly value: number | null;
  readonly reason: GapReason | null;
}

export const known = (value: number): Figure =>
  Number.isFinite(value) ? { value, reason: null } : { value: null, reason: 'not_applicable' };
export const unknown = (reason: GapReason): Figure => ({ value: null, reason });

/** A price point of market_chart: [unix milliseconds, price]. */
export type PricePoint = readonly [number, number];

/** Daily closes by UTC day index (unix day number), at or before `asOf` (seconds). */
export function dailyCloses(points: readonly PricePoint[], asOf: number): Map<number, number> {
  const last = new Map<number, { t: number; price: number }>();
  for (const [ms, price] of points) {
    const t = ms / 1000;
    if (t > asOf || !(price > 0) || !Number.isFinite(price)) continue;
    const day = Math.floor(t / DAY);
    const seen = last.get(day);
    if (!seen || t >= seen.t) last.set(day, { t, price });
  }
  return new Map([...last].map(([d, v]) => [d, v.price]));
}

/** Daily log returns of the window's days (day index → return), the window ending with the day of `asOf`. */
export function windowReturns(
  points: readonly PricePoint[],
  asOf: number,
  days = RETURN_WINDOW_DAYS,
): Map<number, number> {
  const closes = dailyCloses(points, asOf);
  const lastDay = Math.floor(asOf / DAY);
  const out = new Map<number, number>();
  for (let d = lastDay - days + 1; d <= lastDay; d++) {
    const a = closes.get(d - 1);
    const b = closes.get(d);
    if (a !== undefined && b !== undefined) out.set(d, Math.log(b / a));
  }
  return out;
}

function meanOf(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

function sampleSd(xs: readonly number[]): number {
  const m = meanOf(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

export interface Volatility {
  readonly daily: Figure;
  readonly annualised: Figure;
}

export function volatility(returns: ReadonlyMap<number, number>): Volatility {
  const xs = [...returns.values()];
  if (xs.length < MIN_RETURNS) return { daily: unknown('no_data'), annualised: unknown('no_data') };
  const sd = sampleSd(xs) * 100;
  return { daily: known(sd), annualised: known(sd * Math.sqrt(ANNUALISATION_DAYS)) };
}

/** Pearson's r on the days both series have a return. */
export function correlation(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number> | null): Figure {
  if (b === null) return unknown('no_data');
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [d, x] of a) {
    const y = b.get(d);
    if (y !== undefined) {
      xs.push(x);
      ys.push(y);
    }
  }
  if (xs.length < MIN_RETURNS) return unknown('no_data');
  const mx = meanOf(xs);
  const my = meanOf(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return unknown('not_applicable');
  return known(Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))));
}

export function sharpeRatio(returns: ReadonlyMap<number, number>, riskFree = RISK_FREE_RATE): Figure {
  const xs = [...returns.values()];
  if (xs.length < MIN_RETURNS) return unknown('no_data');
  const sd = sampleSd(xs);
  if (sd === 0) return unknown('not_applicable');
  return known((meanOf(xs) * ANNUALISATION_DAYS - riskFree) / (sd * Math.sqrt(ANNUALISATION_DAYS)));
}

export function dominance(marketCap: number | null, globalMarketCap: number | null): Figure {
  if (marketCap === null || globalMarketCap === null) return unknown('no_data');
  if (!(globalMarketCap > 0)) return unknown('not_applicable');
  return known((marketCap / globalMarketCap) * 100);
}

/** Market cap / the USD value of the 24 h transfers (NVT). */
export function nvt(marketCap: number | null, transferValueUsd: number | null): Figure {
  if (marketCap === null || transferValueUsd === null) return unknown('no_price');
  if (!(transferValueUsd > 0)) return unknown('not_applicable');
  return known(marketCap / transferValueUsd);
}

/** Percent change of the holder count over 24 hours. */
export function holderGrowth(holders: number, holders24hAgo: number): Figure {
  if (holders24hAgo === 0) return unknown('not_applicable');
  return known(((holders - holders24hAgo) / holders24hAgo) * 100);
}
