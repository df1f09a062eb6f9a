import { isoSeconds } from '../core/time.js';
import type { PublicationBaseline, PublicationBucket } from '../store/datasets.js';
import type { RunBucket } from '../store/jobs.js';

/** How far back `/status` looks, and the width of one bucket of its charts. */
export const HISTORY_WINDOW_SECONDS = 6 * 3600;
export const HISTORY_BUCKET_SECONDS = 300;

/** How the freshness history is derived (shown on the page and in the JSON). */
export const FRESHNESS_METHOD =
  "From the publication history: at the end of each bucket, the age of the newest data published by then (the newest publication's as_of); the last point is now.";

/** The window of the history: whole buckets ending with the one that holds `now`. */
export function historyWindow(
  now: number,
  windowSeconds = HISTORY_WINDOW_SECONDS,
  bucketSeconds = HISTORY_BUCKET_SECONDS,
) {
  const count = Math.max(1, Math.ceil(windowSeconds / bucketSeconds));
  const since = Math.floor(now / bucketSeconds) * bucketSeconds - (count - 1) * bucketSeconds;
  return { since, until: now, bucketSeconds, count };
}

export type HistoryWindow = ReturnType<typeof historyWindow>;

export interface JobHistoryBucket {
  /** Start of the bucket, ISO. */
  readonly start: string;
  readonly runs: number;
  readonly failed: number;
  readonly running: number;
  readonly max_duration_ms: number | null;
  readonly mean_duration_ms: number | null;
}

/** Per job, its non-empty buckets, oldest first. */
export function jobHistory(
  rows: readonly RunBucket[],
  window: HistoryWindow,
  jobs: readonly string[],
): { job: string; buckets: JobHistoryBucket[] }[] {
  const byJob = new Map<string, RunBucket[]>(jobs.map((j) => [j, []]));
  for (const row of rows) {
    if (row.bucket < 0 || row.bucket >= window.count) continue;
    const list = byJob.get(row.job) ?? [];
    byJob.set(row.job, list);
    list.push(row);
  }
  return [...byJob].map(([job, list]) => ({
    job,
    buckets: list
      .sort((a, b) => a.bucket - b.bucket)
      .map((r) => {
        const finished = r.runs - r.running;
        return {
          start: isoSeconds(window.since + r.bucket * window.bucketSeconds),
          runs: r.runs,
          failed: r.failed,
          running: r.running,
          max_duration_ms: r.max_duration_ms,
          mean_duration_ms:
            r.total_duration_ms === null || finished <= 0 ? null : Math.round(r.total_duration_ms / finished),
        };
      }),
  }));
}

export interface FreshnessPoint {
  /** End of the bucket (now for the last one), ISO. */
  readonly at: string;
  /** Age of the newest published data at that instant; null before the first publication. */
  readonly staleness_seconds: number | null;
  readonly publications: number;
}

/** Per computation, one point per bucket of the window (see FRESHNESS_METHOD). */
export function freshnessHistory(
  before: readonly PublicationBaseline[],
  buckets: readonly PublicationBucket[],
  window: HistoryWindow,
  computations: readonly string[],
): { computation: string; points: FreshnessPoint[] }[] {
  const names = [
    ...new Set([...computations, ...before.map((b) => b.computation), ...buckets.map((b) => b.computation)]),
  ];
  const baseline = new Map(before.map((b) => [b.computation, b.as_of]));
  const inWindow = new Map<string, Map<number, PublicationBucket>>();
  for (const b of buckets) {
    if (b.bucket < 0 || b.bucket >= window.count) continue;
    const m = inWindow.get(b.computation) ?? new Map<number, PublicationBucket>();
    inWindow.set(b.computation, m);
    m.set(b.bucket, b);
  }
  return names.map((computation) => {
    let newest = baseline.get(computation);
    const mine = inWindow.get(computation);
    const points: FreshnessPoint[] = [];
    for (let k = 0; k < window.count; k++) {
      const at = Math.min(window.since + (k + 1) * window.bucketSeconds, window.until);
      const b = mine?.get(k);
      if (b) newest = newest === undefined ? b.as_of : Math.max(newest, b.as_of);
      points.push({
        at: isoSeconds(at),
        staleness_seconds: newest === undefined ? null : Math.max(0, at - newest),
        publications: b?.publications ?? 0,
      });
    }
    return { computation, points };
  });
}
