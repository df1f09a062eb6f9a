/**
 * The soak benchmark's reading of its samples (bench/soak/run.ts): per series, the least-squares slope over the
 * run and whether it is flat within the series' own noise.
 *
 * "Flat within noise": the change the slope predicts over the measured span, |slope| × span, is no larger than
 * twice the standard deviation of the residuals around the fitted line (the round-to-round scatter), or no larger
 * than a floor of the series' own unit (a series that barely moves, such as 0.4 % CPU, is flat whatever its
 * residuals). A series with fewer than 4 points has no verdict.
 *
 * Disk is judged otherwise by the bench (it may grow with the published history); this module only fits.
 */

export interface Point {
  /** Hours since the first sample. */
  readonly x: number;
  readonly y: number;
}

export interface Fit {
  readonly n: number;
  readonly first: number | null;
  readonly last: number | null;
  readonly mean: number | null;
  readonly min: number | null;
  readonly max: number | null;
  /** Units per hour. */
  readonly slopePerHour: number | null;
  /** Standard deviation of the residuals around the line. */
  readonly residualSd: number | null;
  /** The change the slope predicts over the span measured (slope × span). */
  readonly predictedChange: number | null;
  /** null: too few points. */
  readonly flat: boolean | null;
}

export function fitLine(points: readonly Point[], floor = 0): Fit {
  const ps = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const n = ps.length;
  if (n === 0) {
    return {
      n,
      first: null,
      last: null,
      mean: null,
      min: null,
      max: null,
      slopePerHour: null,
      residualSd: null,
      predictedChange: null,
      flat: null,
    };
  }
  const ys = ps.map((p) => p.y);
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  const base = {
    n,
    first: ps[0]!.y,
    last: ps[n - 1]!.y,
    mean: meanY,
    min: Math.min(...ys),
    max: Math.max(...ys),
  };
  const meanX = ps.reduce((a, p) => a + p.x, 0) / n;
  const sxx = ps.reduce((a, p) => a + (p.x - meanX) ** 2, 0);
  if (n < 2 || sxx === 0) return { ...base, slopePerHour: null, residualSd: null, predictedChange: null, flat: null };
  const slope = ps.reduce((a, p) => a + (p.x - meanX) * (p.y - meanY), 0) / sxx;
  const intercept = meanY - slope * meanX;
  const residuals = ps.map((p) => p.y - (intercept + slope * p.x));
  const residualSd = Math.sqrt(residuals.reduce((a, r) => a + r * r, 0) / Math.max(1, n - 2));
  const span = ps[n - 1]!.x - ps[0]!.x;
  const predictedChange = slope * span;
  const flat = n < 4 ? null : Math.abs(predictedChange) <= Math.max(2 * residualSd, floor);
  return { ...base, slopePerHour: slope, residualSd, predictedChange, flat };
}

/** Percentile (nearest rank) of a list; null when empty. */
export function percentile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}
