import { describe, expect, it } from 'vitest';
import { isoSeconds, parseDuration, startOfUtcDay, utcDate } from './time.js';

describe('time', () => {
  it.each([
    [0, '1970-01-01T00:00:00Z'],
    [1_795_190_400, '2026-11-20T16:00:00Z'],
    [1_795_190_400.999, '2026-11-20T16:00:00Z'],
  ])('isoSeconds(%s) = %s', (t, iso) => {
    expect(isoSeconds(t)).toBe(iso);
  });

  it('utcDate and startOfUtcDay agree', () => {
    const t = 1_795_190_400;
    expect(utcDate(t)).toBe('2026-11-20');
    expect(isoSeconds(startOfUtcDay(t))).toBe('2026-11-20T00:00:00Z');
    expect(isoSeconds(startOfUtcDay(t) - 1)).toBe('2026-11-19T23:59:59Z');
  });

  it.each([
    ['30d', 30 * 86400],
    ['12h', 43200],
    ['45m', 2700],
    ['90s', 90],
    ['2w', 14 * 86400],
    ['0d', undefined],
    ['d', undefined],
    ['10y', undefined],
    ['-1d', undefined],
  ])('parseDuration(%s) = %s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });
});
