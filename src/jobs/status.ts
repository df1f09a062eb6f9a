import type { Config } from '../config/index.js';
import { AREA_IDS, type AreaId } from '../core/areas.js';
import { type Clock, isoSeconds, nowSeconds } from '../core/time.js';
import { DatasetRepository } from '../store/datasets.js';
import type { Store } from '../store/db.js';
import { JobRepository } from '../store/jobs.js';
import { FRESHNESS_METHOD, freshnessHistory, historyWindow, jobHistory } from './status-history.js';
import type { JobInfo } from './types.js';

/** Rows of bucketed run history read for one report, at most (a safety bound: 72 buckets of 250 jobs). */
const HISTORY_ROWS = 18_000;
/** Newest publications read per computation: 6 hours of one every 5 seconds. */
const PUBLICATIONS_READ = 4320;

/** The area of a job named `<area>.<what>`, when the prefix is an area. */
function areaOfJob(name: string): AreaId | null {
  const prefix = name.split('.')[0] ?? '';
  return (AREA_IDS as readonly string[]).includes(prefix) ? (prefix as AreaId) : null;
}

const iso = (s: number | null | undefined) => (s === null || s === undefined ? null : isoSeconds(s));
const isoMs = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : isoSeconds(ms / 1000));

/** Keys of instants: `now`, `as_of`, `since`, `until` and any `*_at`, `*_as_of`, `*_since`, `*_until`. */
const INSTANT_KEY = /(^|_)(now|at|as_of|since|until)$/;

/**
 * Extra fields of the report (the sandbox world's status) with every instant given as Unix seconds written as ISO,
 * as the rest of the report: `/status` has one form of time (docs/vocabulary.md).
 */
export function isoInstants(value: unknown, key = ''): unknown {
  if (typeof value === 'number' && INSTANT_KEY.test(key) && Number.isFinite(value)) return isoSeconds(value);
  if (Array.isArray(value)) return value.map((v) => isoInstants(v));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isoInstants(v, k)]));
  }
  return value;
}

/**
 * The `/status` report: each job's last run and next run, each computation's freshness, and their history over
 * the last hours (run durations per job, freshness per computation) from the store.
 */
export async function statusReport(
  store: Store,
  jobs: readonly JobInfo[],
  clock: Clock,
  extra: Record<string, unknown> = {},
) {
  const repo = new JobRepository(store.db);
  const now = nowSeconds(clock);
  const nowMs = clock.nowMs();
  const window = historyWindow(now);
  const datasetRepo = new DatasetRepository(store.db);
  const [states, leases, datasets] = await Promise.all([repo.states(), repo.leases(), datasetRepo.summary()]);
  const jobNames = [...new Set([...jobs.map((j) => j.name), ...states.map((s) => s.job)])];
  const [runBuckets, publications] = await Promise.all([
    repo.runHistory(jobNames, window.since * 1000, window.bucketSeconds * 1000, HISTORY_ROWS),
    datasetRepo.publicationHistory(
      datasets.map((d) => d.computation),
      window.since,
      window.bucketSeconds,
      PUBLICATIONS_READ,
    ),
  ]);
  const stateOf = new Map(states.map((s) => [s.job, s]));
  const leaseOf = new Map(leases.filter((l) => l.expires_at_ms > nowMs).map((l) => [l.job, l]));
  // Jobs this process does not schedule but another one does (the workers behind a `serve` replica) are in the store.
  const scheduledHere = new Set(jobs.map((j) => j.name));
  const elsewhere = states
    .filter((s) => !scheduledHere.has(s.job))
    .map((s) => ({ name: s.job, area: areaOfJob(s.job), description: null, everySeconds: null }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const known: { name: string; area?: AreaId | null; description: string | null; everySeconds: number | null }[] = [
    ...jobs,
    ...elsewhere,
  ];
  const jobRows = await Promise.all(
    known.map(async (job) => {
      const state = stateOf.get(job.name);
      const last = state?.last_run_id ? await repo.run(state.last_run_id) : undefined;
      return {
        name: job.name,
        area: job.area ?? null,
        description: job.description,
        every_seconds: job.everySeconds,
        scheduled_here: scheduledHere.has(job.name),
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
      fresh_for_seconds: d.min_fresh_for,
    })),
    history: {
      since: isoSeconds(window.since),
      until: isoSeconds(window.until),
      bucket_seconds: window.bucketSeconds,
      truncated: runBuckets.length >= HISTORY_ROWS || publications.truncated,
      jobs: jobHistory(
        runBuckets,
        window,
        known.map((j) => j.name),
      ),
      freshness: {
        method: FRESHNESS_METHOD,
        computations: freshnessHistory(
          publications.before,
          publications.buckets,
          window,
          datasets.map((d) => d.computation),
        ),
      },
    },
    ...(isoInstants(extra) as Record<string, unknown>),
  };
}

/** Computations seen published, per store. */
const PUBLISHED = new WeakMap<Store, Set<string>>();

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
  const scheduled = jobs ? new Set(jobs.map((j) => j.name)) : undefined;
  const expected = areas
    .filter((a) => !config.disabledAreas.has(a.id))
    .flatMap((a) => a.computations)
    .filter((c) => !scheduled || scheduled.has(c));
  // A computation that has published stays published (pruning keeps each one's newest record): once seen, it is
  // not asked again, so a load balancer polling /ready costs one indexed lookup per computation still awaited.
  const published = PUBLISHED.get(store) ?? new Set<string>();
  PUBLISHED.set(store, published);
  const repo = new DatasetRepository(store.db);
  const unseen = expected.filter((c) => !published.has(c));
  const found = await Promise.all(unseen.map(async (c) => (await repo.latestPublication(c)) !== undefined));
  unseen.forEach((c, i) => {
    if (found[i]) published.add(c);
  });
  const waiting = expected.filter((c) => !published.has(c));
  return { ready: waiting.length === 0, waiting };
}

export type StatusReport = Awaited<ReturnType<typeof statusReport>>;
