import { describe, expect, it } from 'vitest';
import {
  clamp,
  combineScore,
  GEOMETRIC_FLOOR,
  gradeOf,
  halfLifeDecay,
  INSUFFICIENT_EVIDENCE,
  logistic,
  logScale,
  MIN_EVIDENCE,
  methodologyId,
  piecewiseLinear,
  roundShares,
  roundTo,
  saturating,
  scoreGapReason,
} from './score.js';

const at = 1_795_190_400;
const opts = { methodology: 'test.model@1.0.0', at };

describe('score engine', () => {
  it('weighted mean of components with their effective weights', () => {
    const r = combineScore(
      [
        { name: 'a', value: 1, weight: 3, inputs: { x: 1 } },
        { name: 'b', value: 0.5, weight: 1, inputs: {} },
      ],
      opts,
    );
    expect(r.score).toBe(0.875);
    expect(r.grade).toBe('A');
    expect(r.components.map((c) => c.weight)).toEqual([0.75, 0.25]);
    expect(r.components[0]!.inputs).toEqual({ x: 1 });
    expect(r.methodology).toBe('test.model@1.0.0');
    expect(r.timestamp).toBe('2026-11-20T16:00:00Z');
    expect(r.aggregation).toBe('weighted-mean');
  });

  it('drops a null component and rescales the others', () => {
    const r = combineScore(
      [
        { name: 'a', value: 0.6, weight: 0.5, inputs: {} },
        { name: 'b', value: null, weight: 0.3, inputs: { why: 'not applicable' }, gapReason: 'not_applicable' },
        { name: 'c', value: 0.2, weight: 0.2, inputs: {} },
      ],
      opts,
    );
    // (0.5 × 0.6 + 0.2 × 0.2) / 0.7
    expect(r.score).toBe(roundTo(0.34 / 0.7, 4));
    expect(r.components[1]).toEqual({
      name: 'b',
      value: null,
      weight: 0,
      inputs: { why: 'not applicable' },
      gap_reason: 'not_applicable',
    });
    expect(r.components[0]!.weight + r.components[2]!.weight).toBeCloseTo(1, 12);
  });

  it('all components null (or none) ⇒ null score and grade', () => {
    for (const components of [[], [{ name: 'a', value: null, weight: 1, inputs: {} }]]) {
      const r = combineScore(components, opts);
      expect(r.score).toBeNull();
      expect(r.grade).toBeNull();
    }
  });

  it('rounds the score to 4 decimals, computed from the published (rounded) component values', () => {
    const r = combineScore([{ name: 'a', value: 1 / 3, weight: 1, inputs: {} }], opts);
    expect(r.components[0]!.value).toBe(0.3333);
    expect(r.score).toBe(0.3333);
  });

  it('weighted geometric mean with a floor', () => {
    const r = combineScore(
      [
        { name: 'a', value: 0.25, weight: 0.5, inputs: {} },
        { name: 'b', value: 1, weight: 0.5, inputs: {} },
      ],
      { ...opts, aggregation: 'weighted-geometric-mean' },
    );
    expect(r.score).toBe(0.5);
    const floored = combineScore(
      [
        { name: 'a', value: 0, weight: 0.5, inputs: {} },
        { name: 'b', value: 1, weight: 0.5, inputs: {} },
      ],
      { ...opts, aggregation: 'weighted-geometric-mean' },
    );
    expect(floored.score).toBe(roundTo(Math.sqrt(GEOMETRIC_FLOOR), 4));
    expect(floored.components[0]!.value).toBe(0);
  });

  it('rejects values outside [0, 1] and non-positive weights', () => {
    expect(() => combineScore([{ name: 'a', value: 1.2, weight: 1, inputs: {} }], opts)).toThrow(/outside/);
    expect(() => combineScore([{ name: 'a', value: Number.NaN, weight: 1, inputs: {} }], opts)).toThrow(RangeError);
    expect(() => combineScore([{ name: 'a', value: 0.5, weight: 0, inputs: {} }], opts)).toThrow(/weight/);
    // Rounding noise just outside the range is accepted and clamped.
    expect(combineScore([{ name: 'a', value: 1 + 1e-12, weight: 1, inputs: {} }], opts).score).toBe(1);
  });

  it.each([
    [1, 'A'],
    [0.8, 'A'],
    [0.7999, 'B'],
    [0.6, 'B'],
    [0.4, 'C'],
    [0.2, 'D'],
    [0.1999, 'E'],
    [0, 'E'],
    [null, null],
  ])('gradeOf(%s) = %s', (score, grade) => {
    expect(gradeOf(score)).toBe(grade);
  });

  it('methodologyId', () => {
    expect(methodologyId('dex', 'volume-continuity', '1.0.0')).toBe('dex.volume-continuity@1.0.0');
  });
});

describe('transforms', () => {
  it.each([
    [-1, 0, 1, 0],
    [0.5, 0, 1, 0.5],
    [2, 0, 1, 1],
  ])('clamp(%s, %s, %s) = %s', (x, lo, hi, v) => {
    expect(clamp(x, lo, hi)).toBe(v);
  });

  it.each([
    [0, 10, 0],
    [10, 10, 0.5],
    [30, 10, 0.75],
    [-5, 10, 0],
  ])('saturating(%s, half %s) = %s', (x, half, v) => {
    expect(saturating(x, half)).toBe(v);
  });

  it.each([
    [0, 24, 1],
    [24, 24, 0.5],
    [72, 24, 0.125],
    [-3, 24, 1],
  ])('halfLifeDecay(%s, %s) = %s', (x, h, v) => {
    expect(halfLifeDecay(x, h)).toBe(v);
  });

  it.each([
    [1, 0],
    [0.5, 0],
    [100, 0.5],
    [10_000, 1],
    [1e6, 1],
  ])('logScale(%s, 1, 10000) = %s', (x, v) => {
    expect(logScale(x, 1, 10_000)).toBeCloseTo(v, 12);
  });

  it('logistic is 0.5 at its midpoint and rises', () => {
    expect(logistic(5, 5, 2)).toBe(0.5);
    expect(logistic(7, 5, 2)).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    expect(logistic(100, 5, 2)).toBeGreaterThan(0.999);
  });

  it('piecewiseLinear interpolates and is flat outside', () => {
    const f = piecewiseLinear([
      [12, 1],
      [72, 0],
    ]);
    expect(f(0)).toBe(1);
    expect(f(12)).toBe(1);
    expect(f(42)).toBe(0.5);
    expect(f(72)).toBe(0);
    expect(f(1000)).toBe(0);
    const g = piecewiseLinear([
      [0, 0],
      [1, 1],
      [3, 0],
    ]);
    expect(g(2)).toBe(0.5);
    expect(() =>
      piecewiseLinear([
        [1, 0],
        [1, 1],
      ]),
    ).toThrow(RangeError);
  });
});

describe('evidence and rounded weights (issue 13)', () => {
  const opts = { methodology: 'x.y@1.0.0', at: 1_700_000_000 };
  it('publishes no score when less than MIN_EVIDENCE of the nominal weight has a value', () => {
    const r = combineScore(
      [
        { name: 'priced', value: null, weight: 0.5, inputs: {} },
        { name: 'other', value: 1, weight: 0.5, inputs: {} },
      ],
      opts,
    );
    expect(r.score).toBeNull();
    expect(r.grade).toBeNull();
    expect(r.evidence).toBe(0.5);
    expect(scoreGapReason(r, 'no_data')).toBe(INSUFFICIENT_EVIDENCE);
    expect(scoreGapReason(combineScore([], opts), 'no_data')).toBe('no_data');
  });
  it('publishes a score at or above MIN_EVIDENCE, and a model may ask for more', () => {
    const comps = [
      { name: 'a', value: null, weight: 0.4, inputs: {} },
      { name: 'b', value: 1, weight: 0.6, inputs: {} },
    ];
    expect(combineScore(comps, opts).score).toBe(1);
    expect(combineScore(comps, opts).evidence).toBe(MIN_EVIDENCE);
    expect(combineScore(comps, { ...opts, minEvidence: 0.8 }).score).toBeNull();
  });
  it('publishes weights without float noise, summing to 1, and the score from exactly those weights', () => {
    const r = combineScore(
      [
        { name: 'a', value: 0.9, weight: 0.1, inputs: {} },
        { name: 'b', value: 0.3, weight: 0.2, inputs: {} },
        { name: 'c', value: 0.7, weight: 0.3, inputs: {} },
        { name: 'd', value: null, weight: 0.1, inputs: {} },
        { name: 'e', value: 0.5, weight: 0.3, inputs: {} },
      ],
      opts,
    );
    const weights = r.components.map((c) => c.weight);
    for (const w of weights) expect(String(w)).toMatch(/^(0|1|0\.\d{1,4})$/);
    expect(Math.round(weights.reduce((a, b) => a + b, 0) * 1e4)).toBe(1e4);
    const recomputed = r.components.reduce((s, c) => s + (c.value ?? 0) * c.weight, 0);
    expect(r.score).toBe(Math.round(recomputed * 1e4) / 1e4);
    expect(roundShares([1 / 3, 1 / 3, 1 / 3], 4)).toEqual([0.3334, 0.3333, 0.3333]);
  });
  it('a dropped component names why: the model, else its inputs, else no_data', () => {
    const r = combineScore(
      [
        { name: 'a', value: null, weight: 0.1, inputs: {}, gapReason: 'no_positions' },
        { name: 'b', value: null, weight: 0.1, inputs: { gap_reason: 'no_price' } },
        { name: 'c', value: null, weight: 0.1, inputs: { gap_reason: 'made up' } },
        { name: 'd', value: 0.5, weight: 0.7, inputs: {} },
      ],
      opts,
    );
    expect(r.components.map((c) => c.gap_reason)).toEqual(['no_positions', 'no_price', 'no_data', undefined]);
  });
});
