/**
 * The scoring engine shared by every area (API.md "Scores"): named components with values in [0, 1], weights and
 * inputs are combined into a score in [0, 1] (higher is healthier), rounded to 4 decimals, with a grade A–E, the
 * methodology id and a timestamp. Pure: the evaluation time is passed in.
 */
import { GAP_REASONS, type GapReason } from './gaps.js';
import { isoSeconds } from './time.js';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'E';

/**
 * Grade bands, best first: the lowest score of each grade. Five equal bands of width 0.2 over [0, 1], so that a
 * grade reads as a quintile of the scale and no model has to publish its own cut-offs.
 */
export const GRADE_THRESHOLDS: readonly { readonly grade: Grade; readonly min: number }[] = [
  { grade: 'A', min: 0.8 },
  { grade: 'B', min: 0.6 },
  { grade: 'C', min: 0.4 },
  { grade: 'D', min: 0.2 },
  { grade: 'E', min: 0 },
];

/** Decimals of published scores (API.md). Component values are published with the same precision. */
export const SCORE_DECIMALS = 4;

/**
 * How components are combined:
 * - `weighted-mean`: Σ wᵢ·vᵢ. Components compensate each other linearly.
 * - `weighted-geometric-mean`: Π max(vᵢ, floor)^wᵢ. A component that fails drags the score down whatever the
 *   others say (limited substitutability; the UN Human Development Index moved to this form in 2010 for that
 *   reason). Values are floored at `GEOMETRIC_FLOOR` so that one zero does not erase the rest.
 */
export type Aggregation = 'weighted-mean' | 'weighted-geometric-mean';

/**
 * Floor of component values in a geometric mean: a failed component of weight w caps the score at 0.01^w
 * (w = 0.2 → 0.40), a strong penalty that still leaves the other components visible in the score.
 */
export const GEOMETRIC_FLOOR = 0.01;

/**
 * The least share of a model's nominal weight that must rest on components with a value for a score to be published
 * (API.md: a score whose evidence is missing is null with a gap reason, never a perfect score). Below it the score
 * and grade are null and the record's gap reason is `insufficient_evidence`. 0.6: a score stands on most of its
 * model, and no single dropped component of the built models (the heaviest weighs 0.35) can silence one by itself,
 * while two dropped heavy components, or all market-priced ones, do. A model may ask for more (`minEvidence`).
 */
export const MIN_EVIDENCE = 0.6;

/** The gap reason of a score left null because less than `MIN_EVIDENCE` of its weight had a value. */
export const INSUFFICIENT_EVIDENCE = 'insufficient_evidence';

/** One component as published: `weight` is the effective weight after dropping null components (0 for those). */
export interface ScoreComponent {
  name: string;
  value: number | null;
  weight: number;
  inputs: Record<string, unknown>;
  /** Why a dropped component (value null, weight 0) has no value; absent on components with a value. */
  gap_reason?: GapReason;
}

/** A score as published (the `ScoreRecord` schema of `http/openapi.ts`, plus how it was aggregated). */
export interface ScoreRecord {
  score: number | null;
  grade: Grade | null;
  components: ScoreComponent[];
  methodology: string;
  /** ISO-8601 UTC: the instant the score describes. */
  timestamp: string;
  aggregation: Aggregation;
  /** The share of the model's nominal weight whose components had a value (4 decimals). */
  evidence: number;
}

/** A component as a model defines it: `weight` is the nominal weight (any positive number; they are normalised). */
export interface ComponentInput {
  readonly name: string;
  readonly value: number | null;
  readonly weight: number;
  readonly inputs: Record<string, unknown>;
  /** Why `value` is null (published on the dropped component); `no_data` when the model does not say. */
  readonly gapReason?: GapReason;
}

export interface CombineOptions {
  /** `<area>.<model>@<version>` (see `methodologyId`). */
  readonly methodology: string;
  /** Unix seconds: the instant the score describes. */
  readonly at: number;
  readonly aggregation?: Aggregation;
  /** The least share of nominal weight that must have a value; `MIN_EVIDENCE` unless the model says otherwise. */
  readonly minEvidence?: number;
}

/** Tolerance for component values computed in floating point just outside [0, 1]. */
const VALUE_TOLERANCE = 1e-9;

export function methodologyId(area: string, model: string, version: string): string {
  return `${area}.${model}@${version}`;
}

export function roundTo(x: number, decimals: number): number {
  const factor = 10 ** decimals;
  const rounded = Math.round(x * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

export function gradeOf(score: number | null): Grade | null {
  if (score === null) return null;
  for (const band of GRADE_THRESHOLDS) if (score >= band.min) return band.grade;
  return 'E';
}

function checkedValue(c: ComponentInput): number | null {
  if (c.value === null) return null;
  if (!Number.isFinite(c.value) || c.value < -VALUE_TOLERANCE || c.value > 1 + VALUE_TOLERANCE) {
    throw new RangeError(`score component ${c.name}: value ${c.value} is outside [0, 1]`);
  }
  return roundTo(clamp01(c.value), SCORE_DECIMALS);
}

/** Why a component has no value: the model's reason, else a reason word its inputs name, else `no_data`. */
function componentGap(c: ComponentInput): GapReason {
  if (c.gapReason) return c.gapReason;
  const named = c.inputs.gap_reason;
  return typeof named === 'string' && named in GAP_REASONS ? (named as GapReason) : 'no_data';
}

/**
 * Rounds shares that sum to 1 to `decimals` so that the rounded shares still sum to 1 (largest remainder): a
 * published weight reads 0.3, not 0.29999999999999993, and the weights a reader sees are the ones the score used.
 */
export function roundShares(shares: readonly number[], decimals: number): number[] {
  const unit = 10 ** decimals;
  const scaled = shares.map((s) => s * unit);
  const floors = scaled.map((x) => Math.floor(x + 1e-9));
  const total = shares.reduce((a, b) => a + b, 0);
  let missing = Math.round(total * unit) - floors.reduce((a, b) => a + b, 0);
  const order = scaled.map((x, i) => ({ i, rest: x - floors[i]! })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (missing <= 0) break;
    if (shares[i]! > 0) {
      floors[i]! += 1;
      missing -= 1;
    }
  }
  return floors.map((f) => roundTo(f / unit, decimals));
}

/**
 * Combines components into a published score. Null components are dropped and the remaining weights rescaled to
 * sum to 1; the published components carry the effective weights (null ones weight 0), rounded to 4 decimals so that
 * they still sum to 1, and values rounded to 4 decimals; the score is computed from exactly those numbers, so a
 * reader can recompute it. When less than `minEvidence` of the nominal weight has a value (all components null, or
 * none, included) the score and grade are null: `scoreGapReason` names it.
 */
export function combineScore(components: readonly ComponentInput[], options: CombineOptions): ScoreRecord {
  const aggregation = options.aggregation ?? 'weighted-mean';
  const minEvidence = options.minEvidence ?? MIN_EVIDENCE;
  const values = components.map((c) => {
    if (!(c.weight > 0) || !Number.isFinite(c.weight)) {
      throw new RangeError(`score component ${c.name}: weight ${c.weight} is not a positive number`);
    }
    return checkedValue(c);
  });
  let nominal = 0;
  let totalWeight = 0;
  components.forEach((c, i) => {
    nominal += c.weight;
    if (values[i] !== null) totalWeight += c.weight;
  });
  const evidence = nominal > 0 ? roundTo(totalWeight / nominal, SCORE_DECIMALS) : 0;
  const weights = roundShares(
    components.map((c, i) => (values[i] === null || totalWeight === 0 ? 0 : c.weight / totalWeight)),
    SCORE_DECIMALS,
  );
  const published: ScoreComponent[] = components.map((c, i) => ({
    name: c.name,
    value: values[i]!,
    weight: weights[i]!,
    inputs: c.inputs,
    ...(values[i] === null ? { gap_reason: componentGap(c) } : {}),
  }));
  let score: number | null = null;
  if (totalWeight > 0 && evidence >= minEvidence) {
    if (aggregation === 'weighted-mean') {
      score = 0;
      for (const c of published) if (c.value !== null) score += c.weight * c.value;
    } else {
      let logSum = 0;
      for (const c of published)
        if (c.value !== null) logSum += c.weight * Math.log(Math.max(c.value, GEOMETRIC_FLOOR));
      score = Math.exp(logSum);
    }
    score = roundTo(clamp01(score), SCORE_DECIMALS);
  }
  return {
    score,
    grade: gradeOf(score),
    components: published,
    methodology: options.methodology,
    timestamp: isoSeconds(options.at),
    aggregation,
    evidence,
  };
}

/**
 * The gap reason of a combined score: null when it has a score; `insufficient_evidence` when it had components but
 * too little of their weight had a value; else the area's own reason (no positions, no data…) for a record with nothing to
 * score.
 */
export function scoreGapReason(record: Pick<ScoreRecord, 'score' | 'components'>, otherwise: string): string | null {
  if (record.score !== null) return null;
  return record.components.length > 0 ? INSUFFICIENT_EVIDENCE : otherwise;
}

// Transforms: maps from a measured quantity to [0, 1]. Each model names its constants (and their reasons).

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

export function clamp01(x: number): number {
  return clamp(x, 0, 1);
}

/** x / (x + half) for x ≥ 0: 0 at 0, 0.5 at `half`, approaching 1; negative x gives 0. */
export function saturating(x: number, half: number): number {
  if (!(half > 0)) throw new RangeError(`saturating: half ${half} must be positive`);
  return x <= 0 ? 0 : x / (x + half);
}

/** Logistic curve: 0.5 at `midpoint`, rising with x; `scale` is the distance from 0.5 to ≈ 0.73. */
export function logistic(x: number, midpoint: number, scale: number): number {
  if (!(scale > 0)) throw new RangeError(`logistic: scale ${scale} must be positive`);
  return 1 / (1 + Math.exp(-(x - midpoint) / scale));
}

/** Exponential decay: 1 at 0, halved every `halfLife`; negative x gives 1. */
export function halfLifeDecay(x: number, halfLife: number): number {
  if (!(halfLife > 0)) throw new RangeError(`halfLifeDecay: half-life ${halfLife} must be positive`);
  return x <= 0 ? 1 : 2 ** (-x / halfLife);
}

/** Logarithmic position of x between `zeroAt` (→ 0) and `oneAt` (→ 1), clamped: for quantities spanning decades. */
export function logScale(x: number, zeroAt: number, oneAt: number): number {
  if (!(zeroAt > 0 && oneAt > zeroAt)) throw new RangeError('logScale: needs 0 < zeroAt < oneAt');
  if (!(x > zeroAt)) return 0;
  return clamp01(Math.log(x / zeroAt) / Math.log(oneAt / zeroAt));
}

/**
 * Piecewise-linear map through points (x ascending); constant beyond the first and last points.
 */
export function piecewiseLinear(points: readonly (readonly [number, number])[]): (x: number) => number {
  if (points.length === 0) throw new RangeError('piecewiseLinear: needs at least one point');
  for (let i = 1; i < points.length; i++) {
    if (!(points[i]![0] > points[i - 1]![0])) throw new RangeError('piecewiseLinear: x must be strictly ascending');
  }
  return (x: number) => {
    const first = points[0]!;
    const last = points[points.length - 1]!;
    if (x <= first[0]) return first[1];
    if (x >= last[0]) return last[1];
    for (let i = 1; i < points.length; i++) {
      const [x1, y1] = points[i]!;
      if (x <= x1) {
        const [x0, y0] = points[i - 1]!;
        return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
      }
    }
    return last[1];
  };
}
