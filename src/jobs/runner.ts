import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isRetryable } from '../core/errors.js';
import { backoffDelay, sleep } from '../core/retry.js';
import type { Clock } from '../core/time.js';
import type { Metrics } from '../metrics/metrics.js';
import { runWithStop } from '../sources/http.js';
import type { Store } from '../store/db.js';
import { JobRepository } from '../store/jobs.js';
import type { JobContext, JobDef } from './types.js';

export interface RunnerOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly jobs: readonly JobDef[];
  readonly metrics?: Metrics;
  readonly notifyPublished?: () => Promise<void>;
  /** Called when a run ends, after it is recorded (the first start's progress). */
  readonly onRunFinished?: (job: string, status: 'ok' | 'failed', seconds: number) => void;
  /** How often the runner looks for due jobs. */
  readonly tickMs?: number;
  /** Lease time to live; renewed every third of it while a job runs. */
  readonly leaseMs?: number;
  /** Identity in leases and runs (default `host:pid:random`). */
  readonly owner?: string;
}

export type RunOutcome =
  | { readonly status: 'ok' | 'failed'; readonly runId: string; readonly summary?: string; readonly error?: string }
  | { readonly status: 'busy' };

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 1000;
/** No wait between two attempts of a run is longer than this. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Runs named jobs on their schedules. The schedule (`next_run_at`) and a lease per job live in the store, so any
 * number of runners on one database share the work and never run the same job at the same time.
 */
export class JobRunner {
  readonly owner: string;
  private readonly repo: JobRepository;
  private readonly byName: ReadonlyMap<string, JobDef>;
  private readonly stopping = new AbortController();
  private readonly active = new Set<Promise<unknown>>();
  private loop: Promise<void> | undefined;

  constructor(private readonly options: RunnerOptions) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.repo = new JobRepository(options.store.db);
    this.byName = new Map(options.jobs.map((j) => [j.name, j]));
    for (const j of options.jobs) {
      for (const upstream of j.runAfter ?? []) {
        // An upstream this process does not run (a disabled area) triggers nothing here.
        if (!this.byName.has(upstream)) continue;
        this.triggers.set(upstream, [...(this.triggers.get(upstream) ?? []), j.name]);
      }
    }
  }

  /** Jobs made due by each job's successful runs (the inverse of `runAfter`). */
  private readonly triggers = new Map<string, string[]>();

  get jobs(): readonly JobDef[] {
    return this.options.jobs;
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 30_000;
  }

  /** Starts the scheduling loop (a worker's main loop). */
  async start(): Promise<void> {
    const now = Math.floor(this.options.clock.nowMs() / 1000);
    for (const job of this.options.jobs) await this.repo.ensureState(job.name, now);
    this.loop = this.schedule();
  }

  private async schedule(): Promise<void> {
    const tick = this.options.tickMs ?? 1000;
    while (!this.stopping.signal.aborted) {
      const now = Math.floor(this.options.clock.nowMs() / 1000);
      try {
        const states = await this.repo.states();
        const due = new Set(states.filter((s) => s.next_run_at <= now).map((s) => s.job));
        for (const job of this.options.jobs) {
          if (!due.has(job.name) || this.isActive(job.name)) continue;
          const p = this.runOnce(job.name, { scheduled: true }).catch((err: unknown) => {
            this.options.log.error({ err, job: job.name }, 'job runner error');
          });
          this.track(p);
        }
      } catch (err) {
        this.options.log.warn({ err: (err as Error).message }, 'job schedule check failed');
      }
      await sleep(tick, this.stopping.signal);
    }
  }

  private readonly running = new Set<string>();

  private isActive(name: string): boolean {
    return this.running.has(name);
  }

  private track(p: Promise<unknown>): void {
    this.active.add(p);
    void p.finally(() => this.active.delete(p));
  }

  /**
   * Runs one job now under its lease. `scheduled` runs re-check the shared schedule after taking the lease, so
   * a job another worker has just run is not run again. Returns `busy` when another runner holds the lease.
   */
  async runOnce(name: string, opts: { scheduled?: boolean } = {}): Promise<RunOutcome> {
    const job = this.byName.get(name);
    if (!job) throw new Error(`unknown job ${name}; known: ${[...this.byName.keys()].join(', ')}`);
    // The lease is re-entrant for its owner, so this runner must itself refuse a second concurrent run.
    if (this.running.has(name)) return { status: 'busy' };
    this.running.add(name);
    try {
      return await this.leased(job, opts);
    } finally {
      this.running.delete(name);
    }
  }

  private async leased(job: JobDef, opts: { scheduled?: boolean }): Promise<RunOutcome> {
    const { clock, log } = this.options;
    const name = job.name;
    if (!(await this.repo.acquireLease(name, this.owner, clock.nowMs(), this.leaseMs))) return { status: 'busy' };
    const lost = new AbortController();
    const signal = AbortSignal.any([lost.signal, this.stopping.signal]);
    const renew = setInterval(
      () => {
        this.repo.renewLease(name, this.owner, clock.nowMs(), this.leaseMs).then(
          (held) => {
            if (!held) {
              log.error({ job: name }, 'job lease lost; aborting the run');
              lost.abort();
            }
          },
          (err: unknown) => log.warn({ err: (err as Error).message, job: name }, 'lease renewal failed'),
        );
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    try {
      await this.repo.ensureState(name, Math.floor(clock.nowMs() / 1000));
      if (opts.scheduled) {
        const state = await this.repo.state(name);
        if (state && state.next_run_at > Math.floor(clock.nowMs() / 1000)) return { status: 'busy' };
      }
      return await this.execute(job, signal);
    } finally {
      clearInterval(renew);
      await this.repo.releaseLease(name, this.owner).catch(() => undefined);
    }
  }

  private async execute(job: JobDef, signal: AbortSignal): Promise<RunOutcome> {
    const { clock, log, store, metrics } = this.options;
    const runId = randomUUID();
    const startedMs = clock.nowMs();
    await this.repo.startRun({ id: runId, job: job.name, owner: this.owner, started_at_ms: startedMs });
    const maxAttempts = job.maxAttempts ?? DEFAULT_ATTEMPTS;
    const backoff = job.backoffMs ?? DEFAULT_BACKOFF_MS;
    let attempt = 0;
    let summary: string | undefined;
    let error: string | undefined;
    let more = false;
    const jobLog = log.child({ job: job.name, run_id: runId });
    while (attempt < maxAttempts) {
      attempt++;
      const ctx: JobContext = {
        store,
        clock,
        log: jobLog,
        signal,
        attempt,
        notifyPublished: this.options.notifyPublished ?? (async () => undefined),
        moreToDo: () => {
          more = true;
        },
      };
      try {
        summary = (await runWithStop(ctx.signal, () => job.run(ctx))) ?? undefined;
        error = undefined;
        break;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        const retry = isRetryable(err) && attempt < maxAttempts && !signal.aborted;
        jobLog.warn({ attempt, err: error, retry }, 'job attempt failed');
        if (!retry) break;
        await sleep(backoffDelay(attempt - 1, { baseMs: backoff, maxMs: MAX_BACKOFF_MS }), signal);
        // Stopped or lease lost while waiting: record the failure rather than start another attempt.
        if (signal.aborted) break;
      }
    }
    const finishedMs = clock.nowMs();
    const status = error === undefined ? 'ok' : 'failed';
    const nextRunAt = Math.floor(finishedMs / 1000) + (status === 'ok' && more ? 0 : job.everySeconds);
    await this.repo.finishRun(
      {
        id: runId,
        job: job.name,
        finished_at_ms: finishedMs,
        status,
        attempts: attempt,
        error: error ?? null,
        summary: summary ?? null,
      },
      nextRunAt,
      status === 'ok' ? (this.triggers.get(job.name) ?? []) : [],
    );
    const seconds = (finishedMs - startedMs) / 1000;
    metrics?.observeJobRun(job.name, status, seconds);
    jobLog.info({ status, attempts: attempt, seconds, summary, err: error }, 'job finished');
    this.options.onRunFinished?.(job.name, status, seconds);
    return { status, runId, ...(summary ? { summary } : {}), ...(error ? { error } : {}) };
  }

  /** Stops scheduling, aborts running jobs at their next safe point and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    await Promise.allSettled([...this.active]);
  }
}
