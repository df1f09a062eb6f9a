import { type Kysely, sql } from 'kysely';
import type { Database, JobRunTable, JobStateTable } from './schema.js';

/** The runs of one job in one time bucket (see `JobRepository.runHistory`). */
export interface RunBucket {
  readonly job: string;
  /** Index of the bucket from the start of the window (0 = oldest). */
  readonly bucket: number;
  readonly runs: number;
  readonly failed: number;
  readonly running: number;
  /** Of the finished runs; null when none finished. */
  readonly max_duration_ms: number | null;
  readonly total_duration_ms: number | null;
}

/** `job_state.next_run_at` of a job made due by another one's run (see `JobRepository.trigger`). */
const TRIGGERED = 0;

/**
 * Job bookkeeping: leases (so that several workers on one database never run the same job at once), the
 * shared schedule (`job_state.next_run_at`) and the run history.
 */
export class JobRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Takes the lease of `job` for `owner` until `nowMs + ttlMs` when it is free, expired or already ours.
   * One atomic upsert: of two workers racing, exactly one row update wins.
   */
  async acquireLease(job: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const expires = nowMs + ttlMs;
    await this.db
      .insertInto('job_leases')
      .values({ job, owner, expires_at_ms: expires })
      .onConflict((oc) =>
        oc
          .column('job')
          .doUpdateSet({ owner, expires_at_ms: expires })
          .where((eb) => eb.or([eb('job_leases.expires_at_ms', '<', nowMs), eb('job_leases.owner', '=', owner)])),
      )
      .execute();
    const row = await this.db.selectFrom('job_leases').select(['owner']).where('job', '=', job).executeTakeFirst();
    return row?.owner === owner;
  }

  /** Extends a lease we hold; false when it was lost (expired and taken by another worker). */
  async renewLease(job: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const res = await this.db
      .updateTable('job_leases')
      .set({ expires_at_ms: nowMs + ttlMs })
      .where('job', '=', job)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async releaseLease(job: string, owner: string): Promise<void> {
    await this.db.deleteFrom('job_leases').where('job', '=', job).where('owner', '=', owner).execute();
  }

  async leases(): Promise<{ job: string; owner: string; expires_at_ms: number }[]> {
    return this.db.selectFrom('job_leases').selectAll().execute();
  }

  async state(job: string): Promise<JobStateTable | undefined> {
    return this.db.selectFrom('job_state').selectAll().where('job', '=', job).executeTakeFirst();
  }

  async states(): Promise<JobStateTable[]> {
    return this.db.selectFrom('job_state').selectAll().execute();
  }

  /**
   * Makes jobs due now, also while one of them runs: `next_run_at` 0 marks the trigger, which `startRun`
   * consumes and `finishRun` turns into "run again at once" when it came during the run.
   */
  async trigger(jobs: readonly string[], db: Kysely<Database> = this.db): Promise<void> {
    if (!jobs.length) return;
    await db.updateTable('job_state').set({ next_run_at: TRIGGERED }).where('job', 'in', jobs).execute();
  }

  async ensureState(job: string, nextRunAt: number): Promise<void> {
    await this.db
      .insertInto('job_state')
      .values({ job, next_run_at: nextRunAt, last_run_id: null, consecutive_failures: 0 })
      .onConflict((oc) => oc.column('job').doNothing())
      .execute();
  }

  async startRun(run: Pick<JobRunTable, 'id' | 'job' | 'owner' | 'started_at_ms'>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('job_runs')
        .values({ ...run, finished_at_ms: null, status: 'running', attempts: 0, error: null, summary: null })
        .execute();
      // This run serves a trigger made before it started.
      await trx
        .updateTable('job_state')
        .set({ next_run_at: Math.floor(run.started_at_ms / 1000) })
        .where('job', '=', run.job)
        .where('next_run_at', '=', TRIGGERED)
        .execute();
    });
  }

  async finishRun(
    run: Pick<JobRunTable, 'id' | 'job' | 'finished_at_ms' | 'status' | 'attempts' | 'error' | 'summary'>,
    nextRunAt: number,
    /** Jobs this run makes due (`trigger`), in the same transaction: those that run after it, when it succeeded. */
    triggers: readonly string[] = [],
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('job_runs')
        .set({
          finished_at_ms: run.finished_at_ms,
          status: run.status,
          attempts: run.attempts,
          error: run.error,
          summary: run.summary,
        })
        .where('id', '=', run.id)
        .execute();
      await trx
        .updateTable('job_state')
        .set((eb) => ({
          // Triggered while it ran: what the trigger announced came after this run read its inputs.
          next_run_at: eb
            .case()
            .when('next_run_at', '=', TRIGGERED)
            .then(Math.floor(run.finished_at_ms! / 1000))
            .else(nextRunAt)
            .end(),
          last_run_id: run.id,
          consecutive_failures: run.status === 'ok' ? 0 : eb('consecutive_failures', '+', 1),
        }))
        .where('job', '=', run.job)
        .execute();
      await this.trigger(triggers, trx);
    });
  }

  async run(id: string): Promise<JobRunTable | undefined> {
    return this.db.selectFrom('job_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async recentRuns(job: string, limit: number): Promise<JobRunTable[]> {
    return this.db
      .selectFrom('job_runs')
      .selectAll()
      .where('job', '=', job)
      .orderBy('started_at_ms', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * The runs of `jobs` started at or after `sinceMs`, per job and time bucket of `bucketMs` (bucket 0 starts at
   * `sinceMs`): how many ran, failed or are still running, and the longest and total duration of the finished ones.
   * Read along the (job, started_at_ms) index and grouped in the database (the same integer division on SQLite and
   * PostgreSQL), so a job run every few seconds costs one row per bucket; at most `limit` rows, the newest buckets
   * first.
   */
  async runHistory(jobs: readonly string[], sinceMs: number, bucketMs: number, limit: number): Promise<RunBucket[]> {
    if (jobs.length === 0) return [];
    if (!Number.isInteger(bucketMs) || bucketMs <= 0) throw new Error(`bucket of ${bucketMs} ms`);
    const since = Math.floor(sinceMs);
    // Literals, not parameters: PostgreSQL matches the grouped expression to the selected one by its text.
    const bucket = sql<number>`(started_at_ms - ${sql.lit(since)}) / ${sql.lit(bucketMs)}`;
    const duration = sql<number>`finished_at_ms - started_at_ms`;
    const rows = await this.db
      .selectFrom('job_runs')
      .select((eb) => [
        'job',
        bucket.as('bucket'),
        eb.fn.countAll<number>().as('runs'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'failed').then(1).else(0).end()).as('failed'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'running').then(1).else(0).end()).as('running'),
        eb.fn.max<number | null>(duration).as('max_duration_ms'),
        eb.fn.sum<number | null>(duration).as('total_duration_ms'),
      ])
      .where('job', 'in', [...jobs])
      .where('started_at_ms', '>=', since)
      .groupBy(['job', bucket])
      .orderBy(bucket, 'desc')
      .orderBy('job')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      job: r.job,
      bucket: Number(r.bucket),
      runs: Number(r.runs),
      failed: Number(r.failed ?? 0),
      running: Number(r.running ?? 0),
      max_duration_ms: r.max_duration_ms === null ? null : Number(r.max_duration_ms),
      total_duration_ms: r.total_duration_ms === null ? null : Number(r.total_duration_ms),
    }));
  }

  /** Latest finished successful run per job (for `/ready`). */
  async lastSuccess(job: string): Promise<JobRunTable | undefined> {
    return this.db
      .selectFrom('job_runs')
      .selectAll()
      .where('job', '=', job)
      .where('status', '=', 'ok')
      .orderBy('started_at_ms', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async pruneRuns(beforeMs: number): Promise<number> {
    const res = await this.db
      .deleteFrom('job_runs')
      .where('started_at_ms', '<', beforeMs)
      .where('status', '!=', 'running')
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
