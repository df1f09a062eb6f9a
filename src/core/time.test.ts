import { describe, expect, it } from 'vitest';
import {
  dailyHistoryInstants,
  inDayWindow,
  isoSeconds,
  parseDuration,
  startOfUtcDay,
  utcDate,
  utcDayWindow,
} from './time.js';

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

describe('utcDayWindow', () => {
  it('[day start, next day start): the midnight second is the new day’s, the last second the old one’s', () => {
    const midnight = Date.UTC(2026, 10, 20) / 1000;
    const yesterday = utcDayWindow(midnight - 1);
    const today = utcDayWindow(midnight + 3600);
    expect(yesterday).toEqual({ from: midnight - 86_400, to: midnight - 1 });
    expect(inDayWindow(midnight, yesterday)).toBe(false);
    expect(inDayWindow(midnight, today)).toBe(true);
    expect(inDayWindow(midnight - 1, yesterday)).toBe(true);
    expect(inDayWindow(midnight + 3601, today)).toBe(false);
    // Every instant of a 7-day history falls in exactly one record's window.
    const windows = dailyHistoryInstants(midnight + 3600).map(utcDayWindow);
    for (let t = midnight - 6 * 86_400; t <= midnight + 3600; t += 1800) {
      expect(windows.filter((w) => inDayWindow(t, w))).toHaveLength(1);
    }
  });
});
