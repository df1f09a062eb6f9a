/**
 * Six hours of job runs and publications written through the repositories, as a worker would have left them: the
 * history `/status` reads. Deterministic for a given `nowMs`.
 */
import { DatasetRepository } from '../../src/store/datasets.js';
import type { Store } from '../../src/store/db.js';
import { JobRepository } from '../../src/store/jobs.js';
import { EXAMPLES } from '../examples.js';

/** The document the seeded `dex.compute` publishes each time (a real path of the table, served with a token). */
export const SEEDED_POOL = EXAMPLES.find((e) => e.def.id === 'dex.pool-analytics')!;

/** The error of the failing job's runs: markup that must reach the page as text. */
export const SEEDED_ERROR = 'RPC <b>timeout</b> after 3 attempts & "429 Too Many Requests" <script>alert(1)</script>';

interface SeededJob {
  readonly name: string;
  readonly everyMinutes: number;
  /** Duration of the k-th run (ms). */
  readonly duration: (k: number) => number;
  /** Whether the k-th run (0 = oldest) fails, given how many runs there are. */
  readonly fails?: (k: number, total: number) => boolean;
}

export const SEEDED_JOBS: readonly SeededJob[] = [
  { name: 'dex.ingest', everyMinutes: 5, duration: (k) => 180 + ((k * 137) % 700) },
  { name: 'dex.compute', everyMinutes: 10, duration: (k) => 900 + ((k * 389) % 2300) },
  {
    name: 'lending.ingest',
    everyMinutes: 10,
    duration: (k) => 400 + ((k * 211) % 900),
    fails: (k, total) => k >= total - 3 || k % 11 === 5,
  },
  { name: 'oracles.ingest', everyMinutes: 15, duration: (k) => 60 + ((k * 53) % 140) },
  { name: 'prices.hourly', everyMinutes: 60, duration: (k) => 5000 + ((k * 997) % 9000) },
];

const HOURS = 6;

/** Writes the history ending at `nowMs`; one run of `dex.ingest` is still going (it holds its lease). */
export async function seedStatusHistory(store: Store, nowMs: number): Promise<void> {
  const jobs = new JobRepository(store.db);
  const datasets = new DatasetRepository(store.db);
  const start = nowMs - HOURS * 3600_000;
  let id = 0;
  for (const job of SEEDED_JOBS) {
    await jobs.ensureState(job.name, 0);
    const every = job.everyMinutes * 60_000;
    const total = Math.floor((nowMs - start) / every);
    for (let k = 0; k < total; k++) {
      const started = start + k * every + 7_000;
      const runId = `seed-${++id}`;
      const failed = job.fails?.(k, total) ?? false;
      await jobs.startRun({ id: runId, job: job.name, owner: 'seed-worker', started_at_ms: started });
      await jobs.finishRun(
        {
          id: runId,
          job: job.name,
          finished_at_ms: started + job.duration(k),
          status: failed ? 'failed' : 'ok',
          attempts: failed ? 3 : 1,
          error: failed ? SEEDED_ERROR : null,
          summary: failed ? null : `${job.name}: ${k * 3 + 1} items`,
        },
        Math.floor((started + every) / 1000),
      );
    }
  }
  await jobs.acquireLease('dex.ingest', 'seed-worker', nowMs, 60_000);
  await jobs.startRun({ id: `seed-${++id}`, job: 'dex.ingest', owner: 'seed-worker', started_at_ms: nowMs - 4000 });

  const hourly = Array.from({ length: 24 }, (_, i) => ({ hour: i, volume_usd: 1000 + i * 17.5, trades: i % 13 }));
  const publish = (computation: string, area: string, atMs: number, lagSeconds: number, freshFor: number) => {
    const at = Math.floor(atMs / 1000);
    const path = computation === 'dex.compute' ? SEEDED_POOL.documentPath : `/seeded/${computation}`;
    return datasets.publish({
      computation,
      area,
      computedAt: at,
      documents: [
        {
          path,
          data: { pool_address: SEEDED_POOL.values.pool_address, hourly },
          asOf: at - lagSeconds,
          source: 'seed',
          freshFor,
        },
      ],
    });
  };
  // dex: every 10 minutes, a minute behind; oracles: stopped two hours ago (stale); lending: from three hours ago.
  for (let t = start - 600_000; t <= nowMs - 60_000; t += 600_000) await publish('dex.compute', 'dex', t, 60, 3600);
  for (let t = start; t <= nowMs - 2 * 3600_000; t += 900_000) await publish('oracles.compute', 'oracles', t, 30, 1800);
  for (let t = nowMs - 3 * 3600_000; t <= nowMs - 120_000; t += 1800_000) {
    await publish('lending.compute', 'lending', t, 300, 7200);
  }
}
