/**
 * The progress of a first start, as a person at a terminal sees it: three phases in order (the sandbox world
 * simulating its history, the first ingestion, the first computations), each with a fraction done and an estimate
 * of the time left. Pure: every input carries the time it happened at, so the same events give the same view.
 *
 * - simulating history: simulated seconds done of the history's total (the world's catch-up);
 * - ingesting: the ingest jobs (every scheduled job that is not a computation) that have finished once;
 * - first computations: the computations `/ready` waits for that have published (the same list `/ready` gives).
 * The time left extrapolates the phase's average rate since it began (no estimate before any progress).
 */

export const PHASES = ['simulating history', 'ingesting', 'first computations'] as const;
export type Phase = (typeof PHASES)[number];

export interface ProgressView {
  /** The current phase, or `done` once the service is ready. */
  readonly phase: Phase | 'done';
  /** 1-based position of the phase among PHASES (PHASES.length + 1 when done). */
  readonly step: number;
  /** Done of the current phase, 0…1. */
  readonly fraction: number;
  /** Estimated seconds left in the current phase; undefined until there is a rate to extrapolate. */
  readonly etaSeconds: number | undefined;
}

export class FirstStartProgress {
  private phaseIndex = 0;
  /** When each phase began. */
  private readonly began = new Map<number, number>();
  private simulated = { done: 0, total: 0 };
  private caughtUp = false;
  private ingestJobs: ReadonlySet<string> | undefined;
  private readonly ingested = new Set<string>();
  private computations: number | undefined;
  private waiting: number | undefined;

  constructor(startedMs: number) {
    this.began.set(0, startedMs);
  }

  /** The world's catch-up, in simulated seconds. */
  simulation(doneSeconds: number, totalSeconds: number, nowMs: number): void {
    this.simulated = { done: Math.max(0, doneSeconds), total: Math.max(0, totalSeconds) };
    this.advance(nowMs);
  }

  /** The world has caught up with the clock (or there is no world to simulate). */
  historyDone(nowMs: number): void {
    this.caughtUp = true;
    this.advance(nowMs);
  }

  /** The job side's schedule: which jobs ingest, how many computations readiness waits for. */
  jobs(ingestJobs: readonly string[], nowMs: number): void {
    this.ingestJobs = new Set(ingestJobs);
    this.advance(nowMs);
  }

  /** A job run ended (only successful runs of ingest jobs count). */
  jobFinished(name: string, ok: boolean, nowMs: number): void {
    if (ok && this.ingestJobs?.has(name)) this.ingested.add(name);
    this.advance(nowMs);
  }

  /** What `/ready` says: the computations still waiting for their first publication, of how many. */
  readiness(waiting: number, of: number, nowMs: number): void {
    this.waiting = waiting;
    this.computations = of;
    this.advance(nowMs);
  }

  get done(): boolean {
    return this.phaseIndex >= PHASES.length;
  }

  view(nowMs: number): ProgressView {
    if (this.done) return { phase: 'done', step: PHASES.length + 1, fraction: 1, etaSeconds: 0 };
    const fraction = this.fractionOf(this.phaseIndex);
    return {
      phase: PHASES[this.phaseIndex]!,
      step: this.phaseIndex + 1,
      fraction,
      etaSeconds: this.eta(fraction, nowMs),
    };
  }

  private fractionOf(index: number): number {
    switch (index) {
      case 0:
        if (this.caughtUp) return 1;
        return this.simulated.total > 0 ? clamp01(this.simulated.done / this.simulated.total) : 0;
      case 1:
        if (!this.ingestJobs) return 0;
        if (this.ingestJobs.size === 0) return 1;
        return this.ingested.size / this.ingestJobs.size;
      default:
        if (this.waiting === undefined || this.computations === undefined) return 0;
        if (this.computations === 0) return 1;
        return clamp01(1 - this.waiting / this.computations);
    }
  }

  /** Moves on past every phase that is complete, recording when the next one began. */
  private advance(nowMs: number): void {
    // Readiness ends the whole first start, whatever the earlier phases report.
    if (this.waiting === 0) {
      this.phaseIndex = PHASES.length;
      return;
    }
    while (this.phaseIndex < PHASES.length && this.complete(this.phaseIndex)) {
      this.phaseIndex++;
      if (this.phaseIndex < PHASES.length) this.began.set(this.phaseIndex, nowMs);
    }
  }

  private complete(index: number): boolean {
    // Ingestion counts as done once computations publish: an ingest job that keeps failing must not hold the bar.
    if (index === 1 && this.waiting !== undefined && this.computations && this.waiting < this.computations) return true;
    return (index !== 0 || this.caughtUp) && this.fractionOf(index) >= 1;
  }

  private eta(fraction: number, nowMs: number): number | undefined {
    if (fraction >= 1) return 0;
    // The phase's average rate since it began, extrapolated to the rest of it.
    const elapsed = nowMs - this.began.get(this.phaseIndex)!;
    if (elapsed <= 0 || fraction <= 0) return undefined;
    return Math.round((elapsed * (1 - fraction)) / fraction / 1000);
  }
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** `1 min 05 s`, `42 s`, `?` (no estimate yet). */
export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
