import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../src/core/time.js';
import { JobRunner } from '../src/jobs/runner.js';
import type { JobDef } from '../src/jobs/types.js';
import type { Store } from '../src/store/db.js';
import { JobRepository } from '../src/store/jobs.js';
import { openServiceStore, PG_URL, testStore } from './helpers.js';

/**
 * The proof that the leases work across processes: two runners, each with its own connection pool (as two worker
 * processes would have), on one PostgreSQL schema.
 */

const log = pino({ level: 'silent' });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Same key as in src/store/store.test.ts: PostgreSQL test files that migrate schemas take turns (see below). */
const PG_TEST_LOCK = 7_310_512_001;

if (!PG_URL) it.skip('PostgreSQL job lease tests skipped: set TEST_DATABASE_URL or DATABASE_URL to run them', () => {});

describe.skipIf(!PG_URL)('job leases on PostgreSQL with two workers', () => {
  let lock: pg.Client;
  let first: ReturnType<typeof testStore>;
  let second: Store;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    // Test files that create PostgreSQL schemas take turns: it keeps their load on a 2-core machine apart. (It was
    // first a guard against Kysely's Migrator failing when another schema vanished mid-introspection; the store now
    // introspects only its own schema, see src/store/introspector.ts.)
    lock = new pg.Client({ connectionString: PG_URL });
    await lock.connect();
    await lock.query('select pg_advisory_lock($1)', [PG_TEST_LOCK]);

    first = testStore('postgres');
    await first.store.migrate();
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(first.store.db);
    const schema = rows[0]!.schema;
    expect(schema).toMatch(/^t_/);
    second = openServiceStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 4 });
  });

  afterAll(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await second?.close();
    await first?.cleanup();
    await lock?.end();
  });

  beforeEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    for (const table of ['job_leases', 'job_runs', 'job_state'] as const)
      await first.store.db.deleteFrom(table).execute();
  });

  function runner(store: Store, owner: string, jobs: JobDef[], options: { clock?: Clock; leaseMs?: number } = {}) {
    const r = new JobRunner({
      store,
      clock: options.clock ?? { nowMs: () => Date.now() },
      log,
      jobs,
      owner,
      tickMs: 20,
      leaseMs: options.leaseMs ?? 2000,
    });
    runners.push(r);
    return r;
  }

  it('two runners never run the same job at the same time, and both take turns', async () => {
    interface Interval {
      owner: string;
      start: number;
      end: number;
      leaseOwner: string | undefined;
    }
    const intervals: Interval[] = [];
    // The same definition in both workers; `owner` only labels what the test records.
    const define = (owner: string): JobDef => ({
      name: 'race.job',
      description: 'records its interval',
      everySeconds: 0,
      maxAttempts: 1,
      async run(ctx) {
        const start = performance.now();
        const lease = await ctx.store.db
          .selectFrom('job_leases')
          .select('owner')
          .where('job', '=', 'race.job')
          .executeTakeFirst();
        await delay(30 + Math.floor(Math.random() * 50));
        intervals.push({ owner, start, end: performance.now(), leaseOwner: lease?.owner });
        return `run by ${owner}`;
      },
    });
    const a = runner(first.store, 'worker-a', [define('worker-a')]);
    const b = runner(second, 'worker-b', [define('worker-b')]);
    await Promise.all([a.start(), b.start()]);
    // Many runs, shared between the workers (about 30 in 2.5 s on a quiet machine; waited for, not timed).
    const owners = () => new Set(intervals.map((i) => i.owner));
    try {
      await delay(2500);
      await vi.waitFor(
        () => {
          expect(intervals.length).toBeGreaterThanOrEqual(10);
          expect(owners()).toEqual(new Set(['worker-a', 'worker-b']));
        },
        { timeout: 20_000, interval: 100 },
      );
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }

    // Every run held the lease, and no two runs overlapped.
    for (const i of intervals) expect(i.leaseOwner).toBe(i.owner);
    const sorted = [...intervals].sort((x, y) => x.start - y.start);
    for (let k = 1; k < sorted.length; k++) {
      const prev = sorted[k - 1]!;
      const cur = sorted[k]!;
      if (cur.start < prev.end) {
        throw new Error(`overlap: ${prev.owner} ran until ${prev.end}, ${cur.owner} started at ${cur.start}`);
      }
    }

    // The shared run history agrees: every run finished ok, none overlaps another.
    const runs = await first.store.db.selectFrom('job_runs').selectAll().orderBy('started_at_ms').execute();
    expect(runs).toHaveLength(intervals.length);
    expect(new Set(runs.map((r) => r.status))).toEqual(new Set(['ok']));
    expect(new Set(runs.map((r) => r.owner))).toEqual(new Set(['worker-a', 'worker-b']));
    for (let k = 1; k < runs.length; k++) {
      expect(runs[k]!.started_at_ms).toBeGreaterThanOrEqual(runs[k - 1]!.finished_at_ms!);
    }
    expect(await new JobRepository(first.store.db).leases()).toEqual([]);
  });

  it("a dead worker's lease blocks others only until it expires", async () => {
    const jobs = new JobRepository(first.store.db);
    // Held far ahead while the test checks that it blocks (so a slow machine cannot let it expire first), then set
    // to expire shortly.
    await first.store.db
      .insertInto('job_leases')
      .values({ job: 'orphan.job', owner: 'dead-worker', expires_at_ms: Date.now() + 60_000 })
      .execute();
    const starts: number[] = [];
    const def: JobDef = {
      name: 'orphan.job',
      description: 'runs once the dead lease expired',
      everySeconds: 3600,
      async run() {
        starts.push(Date.now());
        return 'recovered';
      },
    };
    const alive = runner(second, 'worker-b', [def]);
    expect(await alive.runOnce('orphan.job')).toEqual({ status: 'busy' });
    const expiresAt = Date.now() + 300;
    await first.store.db
      .updateTable('job_leases')
      .set({ expires_at_ms: expiresAt })
      .where('job', '=', 'orphan.job')
      .execute();
    await alive.start();
    await vi.waitFor(() => expect(starts).toHaveLength(1), { timeout: 3000, interval: 10 });
    expect(starts[0]!).toBeGreaterThan(expiresAt);
    await vi.waitFor(async () => expect(await jobs.leases()).toEqual([]));
    const [run] = await jobs.recentRuns('orphan.job', 10);
    expect(run).toMatchObject({ owner: 'worker-b', status: 'ok', summary: 'recovered' });
  });

  it('a worker whose lease lapsed is taken over and aborted at its next renewal', async () => {
    const jobs = new JobRepository(first.store.db);
    // Worker A's clock can be made to lag: its renewals then no longer keep the lease alive (as when a paused or
    // starved process renews too late).
    let lagMs = 0;
    const laggingClock: Clock = { nowMs: () => Date.now() - lagMs };
    const events: string[] = [];
    let aAborted: number | undefined;
    let bStarted: number | undefined;
    const slow: JobDef = {
      name: 'takeover.job',
      description: 'waits until aborted',
      everySeconds: 0,
      maxAttempts: 1,
      run: (ctx) =>
        new Promise((resolve) => {
          events.push('a:start');
          const t = setTimeout(() => resolve('never aborted'), 5000);
          ctx.signal.addEventListener(
            'abort',
            () => {
              aAborted = Date.now();
              clearTimeout(t);
              events.push('a:aborted');
              resolve('aborted');
            },
            { once: true },
          );
        }),
    };
    const quick: JobDef = {
      ...slow,
      async run() {
        bStarted = Date.now();
        events.push('b:run');
        return 'took over';
      },
    };
    const a = runner(first.store, 'worker-a', [slow], { clock: laggingClock, leaseMs: 600 }); // renews every 200 ms
    const b = runner(second, 'worker-b', [quick], { leaseMs: 600 });
    const aRun = a.runOnce('takeover.job');
    await vi.waitFor(() => expect(events).toEqual(['a:start']), { timeout: 3000, interval: 5 });
    // While A renews in time, B is refused.
    expect(await b.runOnce('takeover.job')).toEqual({ status: 'busy' });
    await delay(800); // longer than the lease: only A's renewals keep it
    expect(await b.runOnce('takeover.job')).toEqual({ status: 'busy' });

    lagMs = 60_000;
    await vi.waitFor(async () => expect((await jobs.leases())[0]!.expires_at_ms).toBeLessThan(Date.now() - 10_000), {
      timeout: 3000,
      interval: 10,
    });
    const takeover = Date.now();
    expect(await b.runOnce('takeover.job')).toMatchObject({ status: 'ok', summary: 'took over' });
    expect(await aRun).toMatchObject({ status: 'ok', summary: 'aborted' });
    expect([...events].sort()).toEqual(['a:aborted', 'a:start', 'b:run']);
    // A was aborted because B took the lease over, and noticed within about one renewal period.
    expect(aAborted!).toBeGreaterThanOrEqual(takeover);
    expect(aAborted! - bStarted!).toBeLessThan(1000);
    expect(await jobs.leases()).toEqual([]);
    const owners = (await jobs.recentRuns('takeover.job', 10)).map((r) => r.owner).sort();
    expect(owners).toEqual(['worker-a', 'worker-b']);
  });
});
