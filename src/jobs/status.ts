import type { Config } from '../config/index.js';
import type { AreaId } from '../core/areas.js';
import { type Clock, isoSeconds, nowSeconds } from '../core/time.js';
import { DatasetRepository } from '../store/datasets.js';
import type { Store } from '../store/db.js';
import { JobRepository } from '../store/jobs.js';
import type { JobInfo } from './types.js';

const iso = (s: number | null | undefined) => (s === null || s === undefined ? null : isoSeconds(s));
const isoMs = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : isoSeconds(ms / 1000));

/** The `/status` report: each job's last run and next run, each computation's freshness. */
export async function statusReport(
  store: Store,
  jobs: readonly JobInfo[],
  clock: Clock,
  extra: Record<string, unknown> = {},
) {
  const repo = new JobRepository(store.db);
  const now = nowSeconds(clock);
  const nowMs = clock.nowMs();
  const [states, leases, datasets] = await Promise.all([
    repo.states(),
    repo.leases(),
    new DatasetRepository(store.db).summary(),
  ]);
  const stateOf = new Map(states.map((s) => [s.job, s]));
  const leaseOf = new Map(leases.filter((l) => l.expires_at_ms > nowMs).map((l) => [l.job, l]));
  const jobRows = await Promise.all(
    jobs.map(async (job) => {
      const state = stateOf.get(job.name);
      const last = state?.last_run_id ? await repo.run(state.last_run_id) : undefined;
      return {
        name: job.name,
        area: job.area ?? null,
        description: job.description,
        every_seconds: job.everySeconds,
        running: leaseOf.has(job.name),
        next_run_at: iso(state?.next_run_at),
        consecutive_failures: Number(state?.consecutive_failures ?? 0),
        last_run: last
          ? {
              started_at: isoMs(last.started_at_ms),
              finished_at: isoMs(last.finished_at_ms),
              result: last.status,
              duration_ms:
                last.finished_at_ms === null ? null : Number(last.finished_at_ms) - Number(last.started_at_ms),
              attempts: Number(last.attempts),
              error: last.error,
              summary: last.summary,
            }
          : null,
      };
    }),
  );
  return {
    now: isoSeconds(now),
    store: store.dialect,
    jobs: jobRows,
    datasets: datasets.map((d) => ({
      computation: d.computation,
      area: d.area,
      version: d.version,
      published_at: iso(d.published_at),
      documents: d.documents,
      as_of: iso(d.newest_as_of),
      oldest_as_of: iso(d.oldest_as_of),
      staleness_seconds: d.newest_as_of === null ? null : Math.max(0, now - d.newest_as_of),
      stale: d.min_fresh_until === null ? null : now > d.min_fresh_until,
    })),
    ...extra,
  };
}

/**
 * Ready when every enabled area's computations have published at least once. With `jobs`, only computations this
 * process schedules count: an area without sources here (no lending market on the configured chains, no feeds)
 * has no job and never publishes, and must not hold readiness back forever.
 */
export async function readyState(
  store: Store,
  config: Config,
  jobs: readonly { name: string }[] | undefined,
  areas: readonly { id: AreaId; computations: readonly string[] }[],
) {
  const published = new Set((await new DatasetRepository(store.db).summary()).map((d) => d.computation));
  const scheduled = jobs ? new Set(jobs.map((j) => j.name)) : undefined;
  const waiting = areas
    .filter((a) => !config.disabledAreas.has(a.id))
    .flatMap((a) => a.computations)
    .filter((c) => !scheduled || scheduled.has(c))
    .filter((c) => !published.has(c));
  return { ready: waiting.length === 0, waiting };
}
