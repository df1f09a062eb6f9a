/**
 * Descriptive statistics on plain numbers. Empty or degenerate inputs give null (never NaN), so callers decide what
 * "not applicable" means for them.
 */
import { roundTo } from './score.js';

export function sum(xs: readonly number[]): number {
  let total = 0;
  for (const x of xs) total += x;
  return total;
}

export function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : sum(xs) / xs.length;
}

function sorted(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** Quantile with linear interpolation between order statistics (type 7, the default of R and NumPy). */
export function quantile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null;
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q = ${q} is outside [0, 1]`);
  const s = sorted(xs);
  const position = (s.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = s[lower]!;
  const b = s[upper]!;
  return a + (b - a) * (position - lower);
}

/**
 * Mean, median and 95th percentile (`quantile`) of a list, each rounded to `decimals` (the block interval figures of
 * the blockchain area); null for an empty list.
 */
export function meanMedianP95(
  xs: readonly number[],
  decimals: number,
): { mean: number; median: number; p95: number } | null {
  if (xs.length === 0) return null;
  return {
    mean: roundTo(mean(xs)!, decimals),
    median: roundTo(quantile(xs, 0.5)!, decimals),
    p95: roundTo(quantile(xs, 0.95)!, decimals),
  };
}

/** Median: the middle value, or the mean of the two middle values. */
export function median(xs: readonly number[]): number | null {
  return quantile(xs, 0.5);
}

/**
 * Weighted median: the value at which the cumulative weight (values ascending) reaches half of the total; when it
 * reaches exactly half at a value, the midpoint with the next value (so equal weights give the ordinary median).
 * Entries with non-positive weight are ignored.
 */
export function weightedMedian(values: readonly number[], weights: readonly number[]): number | null {
  if (values.length !== weights.length) throw new RangeError('weightedMedian: values and weights differ in length');
  const pairs = values
    .map((value, i) => ({ value, weight: weights[i]! }))
    .filter((p) => p.weight > 0)
    .sort((a, b) => a.value - b.value);
  if (pairs.length === 0) return null;
  const total = sum(pairs.map((p) => p.weight));
  const half = total / 2;
  let cumulative = 0;
  for (let i = 0; i < pairs.length; i++) {
    cumulative += pairs[i]!.weight;
    const gap = cumulative - half;
    if (Math.abs(gap) <= total * 1e-12 && i + 1 < pairs.length) return (pairs[i]!.value + pairs[i + 1]!.value) / 2;
    if (gap > 0) return pairs[i]!.value;
  }
  return pairs[pairs.length - 1]!.value;
}

/** Population standard deviation (divides by n). */
export function stdDev(xs: readonly number[]): number | null {
  const m = mean(xs);
  if (m === null) return null;
  let squares = 0;
  for (const x of xs) squares += (x - m) ** 2;
  return Math.sqrt(squares / xs.length);
}

/**
 * Coefficient of variation: population standard deviation / mean. Null when empty or when the mean is not
 * positive. Over n values it is at most √(n − 1), reached when one value holds the whole total.
 */
export function coefficientOfVariation(xs: readonly number[]): number | null {
  const m = mean(xs);
  if (m === null || m <= 0) return null;
  return stdDev(xs)! / m;
}

/** Shares of a total: each amount / Σ amounts. Null when the total is not positive. */
export function shares(amounts: readonly number[]): number[] | null {
  const total = sum(amounts);
  if (!(total > 0)) return null;
  return amounts.map((a) => a / total);
}

/**
 * Herfindahl-Hirschman index on shares in [0, 1]: Σ share². 1 = one holder of everything; 1/n = n equal holders.
 * Null when the total is not positive.
 */
export function hhi(amounts: readonly number[]): number | null {
  const s = shares(amounts);
  if (s === null) return null;
  return sum(s.map((x) => x * x));
}

/** Share of the largest amount in the total. Null when the total is not positive. */
export function topShare(amounts: readonly number[]): number | null {
  const total = sum(amounts);
  if (!(total > 0)) return null;
  let largest = 0;
  for (const a of amounts) if (a > largest) largest = a;
  return largest / total;
}

/** Length of the longest run of consecutive entries equal to `value`. */
export function longestRun<T>(xs: readonly T[], value: T): number {
  let longest = 0;
  let current = 0;
  for (const x of xs) {
    current = x === value ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}
