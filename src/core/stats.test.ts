import { describe, expect, it } from 'vitest';
import {
  coefficientOfVariation,
  hhi,
  longestRun,
  mean,
  meanMedianP95,
  median,
  quantile,
  shares,
  stdDev,
  sum,
  topShare,
  weightedMedian,
} from './stats.js';

describe('stats', () => {
  it.each([
    [[], 0, null, null],
    [[5], 5, 5, 5],
    [[1, 2, 3, 4], 10, 2.5, 2.5],
    [[3, 1, 2], 6, 2, 2],
    [[1, 1, 1, 100], 103, 25.75, 1],
  ])('sum, mean, median of %j', (xs, s, m, md) => {
    expect(sum(xs)).toBe(s);
    expect(mean(xs)).toBe(m);
    expect(median(xs)).toBe(md);
  });

  it.each([
    [[1, 2, 3, 4, 5], 0, 1],
    [[1, 2, 3, 4, 5], 1, 5],
    [[1, 2, 3, 4, 5], 0.25, 2],
    [[1, 2, 3, 4], 0.9, 3.7],
  ])('quantile(%j, %s) = %s', (xs, q, v) => {
    expect(quantile(xs, q)).toBeCloseTo(v, 12);
  });

  it.each([
    [[1, 2, 3], [1, 1, 1], 2],
    [[1, 2, 3, 4], [1, 1, 1, 1], 2.5],
    [[1, 2, 3], [1, 1, 10], 3],
    [[10, 1], [3, 1], 10],
    [[1, 2], [0, 5], 2],
    [[5], [0], null],
    [[], [], null],
  ])('weightedMedian(%j, %j) = %s', (values, weights, v) => {
    expect(weightedMedian(values, weights)).toBe(v);
  });

  it('stdDev and coefficient of variation', () => {
    expect(stdDev([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2);
    expect(coefficientOfVariation([2, 4, 4, 4, 5, 5, 7, 9])).toBe(0.4);
    expect(coefficientOfVariation([0, 0])).toBeNull();
    expect(coefficientOfVariation([])).toBeNull();
    // All of the total in one of n values: CV = √(n − 1).
    expect(coefficientOfVariation([7, 0, 0, 0, 0, 0, 0])).toBeCloseTo(Math.sqrt(6), 12);
    expect(coefficientOfVariation([3, 3, 3])).toBe(0);
  });

  it.each([
    [[1], 1, 1],
    [[1, 1], 0.5, 0.5],
    [[1, 1, 1, 1], 0.25, 0.25],
    [[9, 1], 0.82, 0.9],
    [[0, 0], null, null],
  ])('hhi and topShare of %j', (xs, h, top) => {
    const value = hhi(xs);
    if (h === null) expect(value).toBeNull();
    else expect(value).toBeCloseTo(h, 12);
    expect(topShare(xs)).toBe(top);
  });

  it('shares', () => {
    expect(shares([1, 3])).toEqual([0.25, 0.75]);
    expect(shares([])).toBeNull();
  });

  it.each([
    [[true, false, false, true, false], false, 2],
    [[true, true, true], false, 0],
    [[false, false, false], false, 3],
    [[], false, 0],
  ])('longestRun(%j, %s) = %s', (xs, value, n) => {
    expect(longestRun(xs, value)).toBe(n);
  });

  it('meanMedianP95 rounds each of the three to the decimals asked, and is null for no value', () => {
    expect(meanMedianP95([], 1)).toBeNull();
    expect(meanMedianP95([60, 60, 3600, 120], 1)).toEqual({ mean: 960, median: 90, p95: 3078 });
    expect(meanMedianP95([1, 2, 2], 3)).toEqual({ mean: 1.667, median: 2, p95: 2 });
  });
});
