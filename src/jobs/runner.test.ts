import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TestClock, testStore } from '../../test/helpers.js';
import { ServiceError } from '../core/errors.js';
import type { Store } from '../store/db.js';
import { JobRepository } from '../store/jobs.js';
import { JobRunner, type RunnerOptions } from './runner.js';
import type { JobContext, JobDef } from './types.js';

const log = pino({ level: 'silent' });

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the signal aborts, or after `ms` (a safety net so a broken runner fails the test, not hangs). */
function aborted(signal: AbortSignal, ms = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const t = setTimeout(() => resolve(false), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve(true);
      },
      { once: true },
    );
  });
}

function job(name: string, run: (ctx: JobContext) => Promise<string | undefined>, extra: Partial<JobDef> = {}): JobDef {
  return { name, description: `test job ${name}`, everySeconds: 60, run, ...extra };
}

describe('JobRunner', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let clock: TestClock;
  let repo: JobRepository;
  const runners: JobRunner[] = [];

  beforeEach(async () => {
    ({ store, cleanup } = testStore('sqlite'));
    await store.migrate();
    clock = new TestClock();
    repo = new JobRepository(store.db);
  });

  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await cleanup();
  });

  function runner(jobs: JobDef[], options: Partial<RunnerOptions> = {}): JobRunner {
    const r = new JobRunner({ store, clock, log, jobs, owner: 'me', ...options });
    runners.push(r);
    return r;
  }

  describe('runOnce', () => {
    it('runs a job, records the run and schedules the next one everySeconds after the finish', async () => {
      const startMs = clock.nowMs();
      const calls: JobContext[] = [];
      const r = runner([
        job(
          'a.work',
          async (ctx) => {
            calls.push(ctx);
            clock.ms += 5_250; // the run takes 5.25 s
            return 'did 3 things';
          },
          { everySeconds: 120 },
        ),
      ]);
      const outcome = await r.runOnce('a.work');
      expect(outcome).toMatchObject({ status: 'ok', summary: 'did 3 things' });
      expect(outcome).not.toHaveProperty('error');
      expect(calls).toHaveLength(1);
      expect(calls[0]!.attempt).toBe(1);
      expect(calls[0]!.store).toBe(store);
      expect(calls[0]!.signal.aborted).toBe(false);

      const runId = outcome.status === 'busy' ? '' : outcome.runId;
      expect(await repo.run(runId)).toEqual({
        id: runId,
        job: 'a.work',
        owner: 'me',
        started_at_ms: startMs,
        finished_at_ms: startMs + 5_250,
        status: 'ok',
        attempts: 1,
        error: null,
        summary: 'did 3 things',
      });
      expect(await repo.state('a.work')).toEqual({
        job: 'a.work',
        next_run_at: Math.floor((startMs + 5_250) / 1000) + 120,
        last_run_id: runId,
        consecutive_failures: 0,
      });
      // The lease is released after the run.
      expect(await repo.leases()).toEqual([]);
    });

    it('a job returning nothing records no summary', async () => {
      const r = runner([job('a.quiet', async () => undefined)]);
      const outcome = await r.runOnce('a.quiet');
      expect(outcome).toEqual({ status: 'ok', runId: expect.any(String) });
      expect((await repo.recentRuns('a.quiet', 1))[0]!.summary).toBeNull();
    });

    it('retries retryable errors up to maxAttempts with exponential backoff', async () => {
      const at: number[] = [];
      const r = runner([
        job(
          'a.flaky',
          async (ctx) => {
            at.push(performance.now());
            if (ctx.attempt < 3) throw new ServiceError(`timeout ${ctx.attempt}`, true);
            return `ok on attempt ${ctx.attempt}`;
          },
          { maxAttempts: 3, backoffMs: 20 },
        ),
      ]);
      const outcome = await r.runOnce('a.flaky');
      expect(outcome).toMatchObject({ status: 'ok', summary: 'ok on attempt 3' });
      expect(at).toHaveLength(3);
      // Backoff base × 2^(attempt-1) × [0.5, 1.5): at least 10 ms, then at least 20 ms (1 ms timer slack).
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(9);
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(19);
      const run = (await repo.recentRuns('a.flaky', 1))[0]!;
      expect(run).toMatchObject({ status: 'ok', attempts: 3, error: null });
    });

    it('gives up after maxAttempts (default 3) and records the last error', async () => {
      let calls = 0;
      const r = runner([
        job(
          'a.down',
          async () => {
            calls++;
            throw new Error(`connection refused #${calls}`);
          },
          { backoffMs: 1 },
        ),
      ]);
      const outcome = await r.runOnce('a.down');
      expect(outcome).toMatchObject({ status: 'failed', error: 'connection refused #3' });
      expect(calls).toBe(3);
      expect((await repo.recentRuns('a.down', 1))[0]).toMatchObject({
        status: 'failed',
        attempts: 3,
        error: 'connection refused #3',
      });
    });

    it('does not retry a ServiceError with retryable=false', async () => {
      let calls = 0;
      const r = runner([
        job(
          'a.bad',
          async () => {
            calls++;
            throw new ServiceError('bad config', false);
          },
          { maxAttempts: 5, backoffMs: 1 },
        ),
      ]);
      expect(await r.runOnce('a.bad')).toMatchObject({ status: 'failed', error: 'bad config' });
      expect(calls).toBe(1);
      expect((await repo.recentRuns('a.bad', 1))[0]).toMatchObject({ status: 'failed', attempts: 1 });
    });

    it('records a throwing run as failed and counts consecutive failures until a success', async () => {
      let fail = true;
      const r = runner([
        job(
          'a.maybe',
          async () => {
            if (fail) throw new Error('boom');
            return 'fine';
          },
          { maxAttempts: 1, everySeconds: 30 },
        ),
      ]);
      const first = await r.runOnce('a.maybe');
      expect(first).toMatchObject({ status: 'failed', error: 'boom' });
      expect(first).not.toHaveProperty('summary');
      const run = (await repo.recentRuns('a.maybe', 1))[0]!;
      expect(run).toMatchObject({ status: 'failed', error: 'boom', summary: null, attempts: 1 });
      expect(run.finished_at_ms).toBe(clock.nowMs());
      expect(await repo.state('a.maybe')).toMatchObject({
        consecutive_failures: 1,
        last_run_id: run.id,
        // A failed run is rescheduled like a successful one.
        next_run_at: Math.floor(clock.nowMs() / 1000) + 30,
      });

      clock.advance(1);
      await r.runOnce('a.maybe');
      expect((await repo.state('a.maybe'))!.consecutive_failures).toBe(2);

      fail = false;
      clock.advance(1);
      expect(await r.runOnce('a.maybe')).toMatchObject({ status: 'ok', summary: 'fine' });
      expect((await repo.state('a.maybe'))!.consecutive_failures).toBe(0);
      expect(await repo.leases()).toEqual([]);
    });

    it('records non-Error throws by their string form', async () => {
      const r = runner([
        job(
          'a.odd',
          async () => {
            throw 'plain string';
          },
          { maxAttempts: 1 },
        ),
      ]);
      expect(await r.runOnce('a.odd')).toMatchObject({ status: 'failed', error: 'plain string' });
    });

    it('throws on an unknown job name, listing the known ones', async () => {
      const r = runner([job('a.one', async () => 'x'), job('a.two', async () => 'y')]);
      await expect(r.runOnce('a.three')).rejects.toThrow('unknown job a.three; known: a.one, a.two');
      expect(await repo.leases()).toEqual([]);
    });

    it("returns 'busy' while another owner holds the lease, and runs once it expired", async () => {
      let calls = 0;
      const r = runner([
        job('a.shared', async () => {
          calls++;
          return 'ran';
        }),
      ]);
      expect(await repo.acquireLease('a.shared', 'someone-else', clock.nowMs(), 60_000)).toBe(true);
      expect(await r.runOnce('a.shared')).toEqual({ status: 'busy' });
      expect(calls).toBe(0);
      expect(await repo.recentRuns('a.shared', 10)).toEqual([]);
      // The other owner's lease is untouched.
      expect(await repo.leases()).toEqual([
        { job: 'a.shared', owner: 'someone-else', expires_at_ms: clock.nowMs() + 60_000 },
      ]);

      clock.advance(61); // the other owner died: its lease expires
      expect(await r.runOnce('a.shared')).toMatchObject({ status: 'ok', summary: 'ran' });
      expect(calls).toBe(1);
      expect(await repo.leases()).toEqual([]);
    });

    it("a scheduled run of a job that is not due returns 'busy' without running it", async () => {
      let calls = 0;
      const r = runner([
        job('a.sched', async () => {
          calls++;
          return 'ran';
        }),
      ]);
      expect(await r.runOnce('a.sched', { scheduled: true })).toMatchObject({ status: 'ok' });
      expect(await r.runOnce('a.sched', { scheduled: true })).toEqual({ status: 'busy' });
      expect(calls).toBe(1);
      expect(await repo.leases()).toEqual([]);
      // An explicit (unscheduled) run ignores the schedule.
      expect(await r.runOnce('a.sched')).toMatchObject({ status: 'ok' });
      expect(calls).toBe(2);
    });

    it('aborts the signal of a run whose lease was lost', async () => {
      let seenAbort: boolean | undefined;
      const r = runner(
        [
          job('a.long', async (ctx) => {
            seenAbort = await aborted(ctx.signal);
            return 'stopped';
          }),
        ],
        { leaseMs: 150 }, // renewed every 50 ms
      );
      const outcome = r.runOnce('a.long');
      await vi.waitFor(async () => expect((await repo.leases())[0]?.owner).toBe('me'));
      // Another worker took the lease over (as after an expiry): the next renewal fails.
      await store.db.updateTable('job_leases').set({ owner: 'thief' }).where('job', '=', 'a.long').execute();
      expect(await outcome).toMatchObject({ status: 'ok', summary: 'stopped' });
      expect(seenAbort).toBe(true);
      // The runner does not release a lease it no longer holds.
      expect((await repo.leases())[0]?.owner).toBe('thief');
    });
  });

  describe('scheduling loop', () => {
    it('runs a due job and not again before next_run_at', async () => {
      const runs: number[] = [];
      const r = runner(
        [
          job(
            'a.tick',
            async (ctx) => {
              runs.push(ctx.clock.nowMs());
              return 'tick';
            },
            { everySeconds: 60 },
          ),
        ],
        { tickMs: 5 },
      );
      await r.start();
      await vi.waitFor(() => expect(runs).toHaveLength(1), { timeout: 2000, interval: 5 });
      await vi.waitFor(async () => expect(await repo.leases()).toEqual([]));
      const state = await repo.state('a.tick');
      expect(state!.next_run_at).toBe(Math.floor(clock.nowMs() / 1000) + 60);

      await delay(60); // a dozen ticks
      expect(runs).toHaveLength(1);

      clock.advance(59);
      await delay(40);
      expect(runs).toHaveLength(1);

      clock.advance(1);
      await vi.waitFor(() => expect(runs).toHaveLength(2), { timeout: 2000, interval: 5 });
      expect(runs[1]! - runs[0]!).toBe(60_000);
      await r.stop();
      const history = await repo.recentRuns('a.tick', 10);
      expect(history.map((h) => h.status)).toEqual(['ok', 'ok']);
    });

    it('runs a job again at once when its run says it has more to do, and on schedule when it has not', async () => {
      let left = 3;
      const r = runner([
        job(
          'a.backlog',
          async (ctx) => {
            left--;
            if (left > 0) ctx.moreToDo?.();
            return `${left} left`;
          },
          { everySeconds: 60 },
        ),
      ]);
      await r.runOnce('a.backlog');
      expect((await repo.state('a.backlog'))!.next_run_at).toBe(Math.floor(clock.nowMs() / 1000));
      await r.runOnce('a.backlog');
      await r.runOnce('a.backlog');
      expect(left).toBe(0);
      expect((await repo.state('a.backlog'))!.next_run_at).toBe(Math.floor(clock.nowMs() / 1000) + 60);
    });

    it('a failed run with more to do waits for its schedule (no retry storm)', async () => {
      const r = runner([
        job(
          'a.bad',
          async (ctx) => {
            ctx.moreToDo?.();
            throw new ServiceError('no', false);
          },
          { everySeconds: 60 },
        ),
      ]);
      await r.runOnce('a.bad');
      expect((await repo.state('a.bad'))!.next_run_at).toBe(Math.floor(clock.nowMs() / 1000) + 60);
    });

    it('makes a job due when a job it runs after succeeds, also while it is running', async () => {
      let computeRuns = 0;
      let releaseCompute: () => void = () => undefined;
      const computing = new Promise<void>((resolve) => {
        releaseCompute = resolve;
      });
      let holdCompute = false;
      const r = runner([
        job('a.ingest', async () => 'read', { everySeconds: 600 }),
        job('a.fail', async () => {
          throw new ServiceError('down', false);
        }),
        job(
          'a.compute',
          async () => {
            computeRuns++;
            if (holdCompute) await computing;
            return 'computed';
          },
          { everySeconds: 600, runAfter: ['a.ingest', 'a.fail', 'other.disabled'] },
        ),
      ]);
      const now = () => Math.floor(clock.nowMs() / 1000);
      await r.runOnce('a.compute');
      expect((await repo.state('a.compute'))!.next_run_at).toBe(now() + 600);
      // A failed upstream run triggers nothing.
      await r.runOnce('a.fail');
      expect((await repo.state('a.compute'))!.next_run_at).toBe(now() + 600);
      await r.runOnce('a.ingest');
      expect((await repo.state('a.compute'))!.next_run_at).toBeLessThanOrEqual(now());
      // The triggered run consumes the trigger; an ingest finishing during it makes the next one due at once.
      holdCompute = true;
      const running = r.runOnce('a.compute', { scheduled: true });
      await vi.waitFor(() => expect(computeRuns).toBe(2));
      expect((await repo.state('a.compute'))!.next_run_at).toBe(now());
      await r.runOnce('a.ingest');
      releaseCompute();
      expect(await running).toMatchObject({ status: 'ok' });
      expect((await repo.state('a.compute'))!.next_run_at).toBe(now());
      // That run ends without a new trigger: back on its schedule.
      holdCompute = false;
      await r.runOnce('a.compute', { scheduled: true });
      expect(computeRuns).toBe(3);
      expect((await repo.state('a.compute'))!.next_run_at).toBe(now() + 600);
    });

    it('keeps scheduling after a failing run, and runs jobs independently', async () => {
      let failing = 0;
      let fine = 0;
      const r = runner(
        [
          job(
            'a.failing',
            async () => {
              failing++;
              throw new Error('nope');
            },
            { maxAttempts: 1, everySeconds: 10 },
          ),
          job(
            'a.fine',
            async () => {
              fine++;
              return 'ok';
            },
            { everySeconds: 10 },
          ),
        ],
        { tickMs: 5 },
      );
      await r.start();
      await vi.waitFor(() => expect([failing, fine]).toEqual([1, 1]), { timeout: 2000, interval: 5 });
      await vi.waitFor(async () => expect((await repo.state('a.failing'))!.consecutive_failures).toBe(1));
      clock.advance(10);
      await vi.waitFor(() => expect([failing, fine]).toEqual([2, 2]), { timeout: 2000, interval: 5 });
      await vi.waitFor(async () => expect((await repo.state('a.failing'))!.consecutive_failures).toBe(2));
      expect((await repo.state('a.fine'))!.consecutive_failures).toBe(0);
    });

    it('stop() aborts the signal of running jobs and waits for them to finish', async () => {
      const events: string[] = [];
      const r = runner(
        [
          job('a.slow', async (ctx) => {
            events.push('started');
            const wasAborted = await aborted(ctx.signal);
            events.push(wasAborted ? 'aborted' : 'timed out');
            await delay(50); // cleanup after the abort
            events.push('finished');
            return 'stopped cleanly';
          }),
        ],
        { tickMs: 5 },
      );
      await r.start();
      await vi.waitFor(() => expect(events).toEqual(['started']), { timeout: 2000, interval: 5 });
      await r.stop();
      expect(events).toEqual(['started', 'aborted', 'finished']);
      // The run was recorded and the lease released before stop() resolved.
      const run = (await repo.recentRuns('a.slow', 1))[0]!;
      expect(run).toMatchObject({ status: 'ok', summary: 'stopped cleanly', attempts: 1 });
      expect(await repo.leases()).toEqual([]);
      // Stopped: nothing runs any more, even when due.
      clock.advance(3600);
      await delay(30);
      expect(events).toHaveLength(3);
    });

    it("two runners on one store share a job's schedule", async () => {
      let calls = 0;
      const def = job(
        'a.once',
        async () => {
          calls++;
          await delay(20);
          return 'x';
        },
        { everySeconds: 60 },
      );
      const a = runner([def], { owner: 'A', tickMs: 5 });
      const b = runner([def], { owner: 'B', tickMs: 5 });
      await a.start();
      await b.start();
      await vi.waitFor(() => expect(calls).toBe(1), { timeout: 2000, interval: 5 });
      await delay(80);
      expect(calls).toBe(1);
      expect(await repo.recentRuns('a.once', 10)).toHaveLength(1);
    });
  });
});
