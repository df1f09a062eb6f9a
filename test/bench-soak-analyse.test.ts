import { describe, expect, it } from 'vitest';
import { fitLine, percentile } from '../bench/soak/analyse.js';

/** A deterministic scatter in [-1, 1] (no randomness in tests). */
const wiggle = (i: number) => [0.9, -0.7, 0.2, -1, 0.6, -0.3, 1, -0.5][i % 8]!;

describe('bench:soak analysis', () => {
  it('recovers a known slope and calls a steady climb not flat', () => {
    // 2 hours sampled each minute: 100 MiB + 50 MiB per hour, scatter ±1 MiB.
    const points = Array.from({ length: 121 }, (_, i) => ({ x: i / 60, y: 100 + 50 * (i / 60) + wiggle(i) }));
    const f = fitLine(points);
    expect(f.slopePerHour).toBeCloseTo(50, 0);
    expect(f.predictedChange).toBeCloseTo(100, -1);
    expect(f.flat).toBe(false);
    expect(f.first).toBeCloseTo(100.9, 6);
    expect(f.n).toBe(121);
  });

  it('calls a noisy level series flat, and a tiny drift under its noise flat too', () => {
    const level = Array.from({ length: 121 }, (_, i) => ({ x: i / 60, y: 40 + 5 * wiggle(i) }));
    expect(fitLine(level).flat).toBe(true);
    const drift = Array.from({ length: 121 }, (_, i) => ({ x: i / 60, y: 40 + 0.5 * (i / 60) + 5 * wiggle(i) }));
    expect(fitLine(drift).flat).toBe(true);
  });

  it('uses the floor for a series that barely moves', () => {
    // 0.1 → 0.3 % CPU, no scatter: a real slope, but below a 1 % floor.
    const points = Array.from({ length: 10 }, (_, i) => ({ x: i, y: 0.1 + 0.02 * i }));
    expect(fitLine(points).flat).toBe(false);
    expect(fitLine(points, 1).flat).toBe(true);
  });

  it('gives no verdict on too few points and skips non-finite ones', () => {
    expect(fitLine([]).flat).toBeNull();
    expect(fitLine([{ x: 0, y: 1 }]).slopePerHour).toBeNull();
    expect(
      fitLine([
        { x: 0, y: 1 },
        { x: 1, y: 2 },
        { x: 2, y: Number.NaN },
      ]).flat,
    ).toBeNull();
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([], 0.99)).toBeNull();
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(xs, 0.5)).toBe(50);
    expect(percentile(xs, 0.99)).toBe(99);
    expect(percentile(xs, 1)).toBe(100);
  });
});
