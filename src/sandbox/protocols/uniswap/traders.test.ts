import { describe, expect, it } from 'vitest';
import { awakeShare, diurnalFactor } from './traders.js';

describe('schedules', () => {
  const g = 1_000_000;
  it.each([
    [g, g + 3600, 1],
    [g + 7 * 3600, g + 9 * 3600, 0.5],
    [g + 8 * 3600, g + 8 * 3600 + 5, 0],
    [g + 3 * 86400, g + 4 * 86400, 0],
    [g + 7 * 86400 + 3600, g + 7 * 86400 + 7200, 1],
    [g + 6 * 86400, g + 8 * 86400, 8 / 48],
  ])('a dormant pool is awake for a share of [%d, %d) of %d', (from, to, share) => {
    expect(awakeShare(g, from, to)).toBeCloseTo(share, 10);
  });

  it('peaks activity at 15:00 UTC', () => {
    expect(diurnalFactor(15)).toBeCloseTo(1.4, 10);
    expect(diurnalFactor(3)).toBeCloseTo(0.6, 10);
  });
});
