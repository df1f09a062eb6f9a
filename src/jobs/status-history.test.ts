import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../core/time.js';
import { freshnessHistory, historyWindow, jobHistory } from './status-history.js';

const NOW = 1_795_000_123; // not on a bucket boundary

describe('historyWindow', () => {
  it('is whole buckets ending with the one that holds now', () => {
    const w = historyWindow(NOW, 3600, 600);
    expect(w.count).toBe(6);
    expect(w.since % 600).toBe(0);
    expect(w.since + 5 * 600).toBeLessThanOrEqual(NOW);
    expect(w.since + 6 * 600).toBeGreaterThan(NOW);
    expect(w.until).toBe(NOW);
  });
});

describe('jobHistory', () => {
  const w = historyWindow(NOW, 3600, 600);
  it('lists every job, its buckets oldest first, with the mean of the finished runs', () => {
    const rows = [
      { job: 'a', bucket: 4, runs: 3, failed: 1, running: 1, max_duration_ms: 300, total_duration_ms: 400 },
      { job: 'a', bucket: 1, runs: 1, failed: 0, running: 0, max_duration_ms: 50, total_duration_ms: 50 },
      { job: 'b', bucket: 2, runs: 1, failed: 0, running: 1, max_duration_ms: null, total_duration_ms: null },
      { job: 'a', bucket: 9, runs: 1, failed: 0, running: 0, max_duration_ms: 1, total_duration_ms: 1 }, // outside
    ];
    expect(jobHistory(rows, w, ['a', 'idle'])).toEqual([
      {
        job: 'a',
        buckets: [
          {
            start: isoSeconds(w.since + 600),
            runs: 1,
            failed: 0,
            running: 0,
            max_duration_ms: 50,
            mean_duration_ms: 50,
          },
          {
            start: isoSeconds(w.since + 2400),
            runs: 3,
            failed: 1,
            running: 1,
            max_duration_ms: 300,
            mean_duration_ms: 200,
          },
        ],
      },
      { job: 'idle', buckets: [] },
      {
        job: 'b',
        buckets: [
          {
            start: isoSeconds(w.since + 1200),
            runs: 1,
            failed: 0,
            running: 1,
            max_duration_ms: null,
            mean_duration_ms: null,
          },
        ],
      },
    ]);
  });
});

describe('freshnessHistory', () => {
  const w = historyWindow(NOW, 3600, 600);
  it('gives at the end of each bucket the age of the newest data published by then; the last point is now', () => {
    const [a, b, c] = freshnessHistory(
      [{ computation: 'a', as_of: w.since - 100 }],
      [
        { computation: 'a', bucket: 2, publications: 4, as_of: w.since + 1500 },
        { computation: 'a', bucket: 3, publications: 1, as_of: w.since + 1400 }, // older data republished
        { computation: 'b', bucket: 5, publications: 1, as_of: w.since + 3000 },
      ],
      w,
      ['a', 'b', 'c'],
    );
    expect(a!.points.map((p) => p.staleness_seconds)).toEqual([700, 1300, 300, 900, 1500, NOW - (w.since + 1500)]);
    expect(a!.points.map((p) => p.publications)).toEqual([0, 0, 4, 1, 0, 0]);
    expect(a!.points.at(-1)!.at).toBe(isoSeconds(NOW));
    expect(b!.points.map((p) => p.staleness_seconds)).toEqual([null, null, null, null, null, NOW - (w.since + 3000)]);
    expect(c).toEqual({ computation: 'c', points: expect.any(Array) });
    expect(c!.points.every((p) => p.staleness_seconds === null)).toBe(true);
  });
});
