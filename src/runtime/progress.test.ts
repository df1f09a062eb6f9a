import { describe, expect, it } from 'vitest';
import { FirstStartProgress, formatEta } from './progress.js';

describe('FirstStartProgress', () => {
  it('goes through the three phases with fractions and an estimate from the phase rate', () => {
    const p = new FirstStartProgress(0);
    expect(p.view(0)).toEqual({ phase: 'simulating history', step: 1, fraction: 0, etaSeconds: undefined });
    p.simulation(2 * 86_400, 8 * 86_400, 10_000);
    // A quarter in 10 s: 30 s left.
    expect(p.view(10_000)).toEqual({ phase: 'simulating history', step: 1, fraction: 0.25, etaSeconds: 30 });
    // All simulated, but not yet caught up (the last blocks): still simulating, nothing left to estimate.
    p.simulation(8 * 86_400, 8 * 86_400, 40_000);
    expect(p.view(40_000)).toMatchObject({ phase: 'simulating history', fraction: 1, etaSeconds: 0 });
    p.jobs(['dex.ingest', 'oracles.ingest', 'prices.hourly', 'maintenance.prune'], 40_000);
    p.historyDone(41_000);
    expect(p.view(41_000)).toEqual({ phase: 'ingesting', step: 2, fraction: 0, etaSeconds: undefined });
    p.jobFinished('dex.ingest', false, 45_000);
    expect(p.view(45_000).fraction).toBe(0);
    p.jobFinished('dex.ingest', true, 46_000);
    p.jobFinished('dex.ingest', true, 47_000);
    expect(p.view(49_000)).toEqual({ phase: 'ingesting', step: 2, fraction: 0.25, etaSeconds: 24 });
    p.jobFinished('unrelated.compute', true, 49_000);
    expect(p.view(49_000).fraction).toBe(0.25);
    for (const job of ['oracles.ingest', 'prices.hourly', 'maintenance.prune']) p.jobFinished(job, true, 51_000);
    expect(p.view(51_000)).toEqual({ phase: 'first computations', step: 3, fraction: 0, etaSeconds: undefined });
    p.readiness(4, 4, 51_000);
    p.readiness(3, 4, 53_000);
    expect(p.view(53_000)).toEqual({ phase: 'first computations', step: 3, fraction: 0.25, etaSeconds: 6 });
    expect(p.done).toBe(false);
    p.readiness(0, 4, 60_000);
    expect(p.done).toBe(true);
    expect(p.view(60_000)).toEqual({ phase: 'done', step: 4, fraction: 1, etaSeconds: 0 });
  });

  it('skips ingestion once computations publish, and finishes at readiness from any phase', () => {
    const p = new FirstStartProgress(0);
    p.historyDone(1000);
    p.jobs(['dex.ingest', 'github.ingest'], 1000);
    p.jobFinished('dex.ingest', true, 2000);
    p.readiness(1, 2, 3000);
    expect(p.view(3000)).toMatchObject({ phase: 'first computations', fraction: 0.5 });

    const ready = new FirstStartProgress(0);
    ready.readiness(0, 5, 10);
    expect(ready.view(10).phase).toBe('done');
  });

  it('a world without history to simulate and no ingest jobs moves straight on', () => {
    const p = new FirstStartProgress(0);
    p.jobs([], 0);
    p.historyDone(0);
    expect(p.view(0).phase).toBe('first computations');
  });
});

describe('formatEta', () => {
  it.each([
    [undefined, '?'],
    [Number.NaN, '?'],
    [0, '0 s'],
    [42.4, '42 s'],
    [65, '1 min 05 s'],
    [3 * 3600 + 7 * 60, '3 h 07 min'],
  ])('%s → %s', (s, text) => expect(formatEta(s)).toBe(text));
});
