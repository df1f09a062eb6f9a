import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, TestClock, testStore } from '../../../test/helpers.js';
import { nowSeconds } from '../../core/time.js';
import { registry } from '../../registry/index.js';
import { type GithubStandin, startGithubStandin } from '../../sandbox/standins/github/server.js';
import { GithubSource } from '../../sources/github/index.js';
import type { Dialect, Store } from '../../store/db.js';
import type { Database } from '../../store/schema.js';
import { computeDevelopment } from './compute.js';
import type { RepoFacts } from './facts.js';
import { discoverRepos, ingestRepo, LOOKBACK_SECONDS, RETAIN_SECONDS, retentionHorizon } from './ingest.js';
import { DbEtagStore, DevelopmentRepository, ETAG_TOUCH_SECONDS } from './repo.js';
import type { DevelopmentTables } from './tables.js';

/**
 * The development tables on each dialect: ingestion from the GitHub stand-in writes facts that read back as the
 * stand-in's ground truth, re-runs change nothing, the ETag store round-trips and expires, and retention deletes
 * only what no document reads.
 */

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const DAY = 86_400;
const AAVE = registry.developmentSubjects().filter((s) => s.kind === 'protocol' && s.id === 'aave');
const TABLES = ['dev_repos', 'dev_repo_days', 'dev_commits', 'dev_issues', 'dev_events', 'github_etags'] as const;

describe.each(dialects)('development facts on %s', (dialect) => {
  let store: Store;
  let db: Kysely<Database & DevelopmentTables>;
  let cleanup: () => Promise<void>;
  let gh: GithubStandin;
  let clock: TestClock;

  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
    db = store.db.withTables<DevelopmentTables>();
    clock = new TestClock(Date.UTC(2026, 4, 10, 12, 0, 0));
    gh = await startGithubStandin({ seed: 3, clock, subjects: AAVE });
  });
  afterEach(async () => {
    await gh.close();
    await cleanup();
  });

  /** A source as the job builds it: its ETag cache in the database (a new one is a restarted service). */
  const source = () =>
    new GithubSource({
      baseUrl: gh.url,
      token: 'test-token',
      clock,
      sleep: async (ms) => clock.advance(ms / 1000),
      random: () => 0.5,
      etagStore: new DbEtagStore(store.db, () => nowSeconds(clock)),
    });
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const table of TABLES) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      out[table] = Number(row.n);
    }
    return out;
  };
  const ingestAll = async (src: GithubSource, names: readonly string[]) => {
    const results = [];
    for (const name of names) results.push(await ingestRepo(src, store.db, name, nowSeconds(clock)));
    return results;
  };
  /** The stand-in's tracked repositories of aave (public, not forks), as discovery names them. */
  const tracked = () =>
    gh.world
      .org('aave')!
      .repos.filter((r) => !r.fork)
      .map((r) => r.fullName)
      .sort();
  const truthOf = (name: string) => gh.world.history(gh.world.repo('aave', name.split('/')[1]!)!, clock.ms);
  const s = (ms: number) => Math.floor(ms / 1000);

  /** The stored facts of a repository against the stand-in's ground truth at the clock's instant. */
  function expectTruth(f: RepoFacts) {
    const truth = truthOf(f.repo);
    expect(f.snapshotAt).toBe(nowSeconds(clock));
    expect(f.commitsTotal).toBe(truth.commits.length);
    expect(f.stars).toBe(truth.stars.length);
    expect(f.forks).toBe(truth.forks.length);
    expect(f.contributors.map((c) => [c.login, c.contributions])).toEqual(
      truth.contributors.map((c) => [c.actor.login, c.contributions]),
    );
    const commits = truth.commits.filter((c) => s(c.committerDateMs) >= f.commitsFrom);
    expect(f.commits.map((c) => c.sha).sort()).toEqual(commits.map((c) => c.sha).sort());
    expect(f.commits.map((c) => c.committerDate)).toEqual(
      commits.map((c) => s(c.committerDateMs)).sort((a, b) => a - b),
    );
    // Every issue open at or after issues_from is stored, with its latest state.
    const open = truth.issues.filter((i) => i.closedAtMs === null || s(i.closedAtMs) >= f.issuesFrom);
    const stored = new Map(f.issues.map((i) => [i.number, i]));
    for (const i of open) {
      expect(stored.get(i.number), `${f.repo}#${i.number}`).toMatchObject({
        pull: i.pull,
        createdAt: s(i.createdAtMs),
        closedAt: i.closedAtMs === null ? null : s(i.closedAtMs),
        mergedAt: i.mergedAtMs === null ? null : s(i.mergedAtMs),
      });
    }
    const events = gh.world.events(gh.world.repo('aave', f.repo.split('/')[1]!)!, clock.ms);
    expect(f.events.length).toBeGreaterThanOrEqual(events.filter((e) => s(e.atMs) >= f.eventsFrom).length);
    // Every number is a number on both dialects (bigint columns).
    for (const [k, v] of Object.entries(f))
      if (k.endsWith('At') || k.endsWith('From')) expect(typeof v, k).toBe('number');
    for (const c of f.commits) expect(typeof c.committerDate).toBe('number');
    for (const i of f.issues) expect(typeof i.number).toBe('number');
    for (const d of f.days) expect([typeof d.day, typeof d.branches]).toEqual(['number', 'number']);
  }

  it('writes facts that read back as the ground truth, and re-runs change nothing', async () => {
    const src = source();
    const repos = await discoverRepos(src, AAVE);
    expect(repos).toEqual({ 'protocol:aave': tracked() });
    expect(tracked()).toHaveLength(4);
    const names = repos['protocol:aave']!;
    const first = await ingestAll(src, names);
    expect(first.every((r) => r.pruned === 0)).toBe(true);
    const repo = new DevelopmentRepository(store.db);
    const facts = await repo.facts(names);
    expect([...facts.keys()].sort()).toEqual(names);
    for (const f of facts.values()) {
      expect(f.commitsFrom).toBe(nowSeconds(clock) - LOOKBACK_SECONDS);
      expectTruth(f);
    }
    expect(Math.max(...[...facts.values()].map((f) => f.commits.length))).toBeGreaterThan(50);
    const afterFirst = await counts();
    expect(afterFirst).toMatchObject({ dev_repos: 4, dev_repo_days: 4 });
    expect(afterFirst.dev_events).toBeGreaterThan(0);

    // The same instant again: the cursors' own facts are read again (`since` is inclusive) and ignored.
    await ingestAll(src, names);
    expect(await counts()).toMatchObject({ ...afterFirst, github_etags: expect.any(Number) });
    expect(await repo.facts(names)).toEqual(facts);
    // A restarted service (an empty memory cache) is answered 304 from the stored ETags: nothing is re-read.
    const before = { ...gh.stats };
    await ingestAll(source(), names);
    expect(gh.stats.requests - before.requests).toBeGreaterThan(20);
    expect(gh.stats.notModified - before.notModified).toBe(gh.stats.requests - before.requests);
    expect(await repo.facts(names)).toEqual(facts);

    // Two hours on: new facts are added, the day's observation replaced, and everything still matches.
    clock.advance(2 * 3600);
    await ingestAll(src, names);
    const later = await repo.facts(names);
    for (const f of later.values()) expectTruth(f);
    expect((await counts()).dev_repo_days).toBe(4);
  });

  it('stores ETags: upserts, revalidation refreshes in-use entries, expiry deletes the others', async () => {
    const etags = new DbEtagStore(store.db, () => nowSeconds(clock));
    const t0 = nowSeconds(clock);
    expect(await etags.get('GET /a')).toBeUndefined();
    await etags.set('GET /a', { etag: '"1"', data: { x: 1 } });
    await etags.set('GET /b', { etag: '"2"', data: [1, 2], link: '<http://x/b?page=2>; rel="next"' });
    await etags.set('GET /a', { etag: '"3"', data: ['new'] });
    expect(await etags.get('GET /a')).toEqual({ etag: '"3"', data: ['new'] });
    expect(await etags.get('GET /b')).toEqual({
      etag: '"2"',
      data: [1, 2],
      link: '<http://x/b?page=2>; rel="next"',
    });
    const updatedAt = async (key: string) =>
      Number(
        (await db.selectFrom('github_etags').select('updated_at').where('key', '=', key).executeTakeFirstOrThrow())
          .updated_at,
      );

    // A 304 refreshes the entry's time, at most every ETAG_TOUCH_SECONDS.
    clock.advance(3600);
    await etags.touch('GET /a');
    expect(await updatedAt('GET /a')).toBe(t0);
    clock.advance(ETAG_TOUCH_SECONDS);
    await etags.touch('GET /a');
    expect(await updatedAt('GET /a')).toBe(nowSeconds(clock));
    await etags.touch('GET /missing');
    expect(await etags.prune(t0 + 1)).toBe(1);
    expect(await etags.get('GET /b')).toBeUndefined();
    expect(await etags.get('GET /a')).toMatchObject({ etag: '"3"' });
    expect(await etags.prune(t0 + 1)).toBe(0);

    // Through the client: a 304 touches the entry it was answered from.
    const [owner, name] = tracked()[0]!.split('/') as [string, string];
    await source().getRepo(owner, name);
    clock.advance(ETAG_TOUCH_SECONDS + 1);
    const before = gh.stats.notModified;
    await source().getRepo(owner, name);
    expect(gh.stats.notModified).toBe(before + 1);
    const rows = await db
      .selectFrom('github_etags')
      .selectAll()
      .where('key', 'like', `%/repos/${owner}/${name}`)
      .execute();
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.updated_at)).toBe(nowSeconds(clock));
  });

  it('deletes facts past the retention horizon, moves coverage up to it, and the documents do not change', async () => {
    const names = tracked();
    await ingestAll(source(), names);
    const firstFrom = nowSeconds(clock) - LOOKBACK_SECONDS;
    // Ten days later the horizon is the UTC day 110 days back: ten days of facts fall out.
    clock.advance(10 * DAY);
    const src = source();
    const results = await ingestAll(src, names);
    const now = nowSeconds(clock);
    const horizon = retentionHorizon(now);
    expect(horizon).toBe(Math.floor((now - RETAIN_SECONDS) / DAY) * DAY);
    expect(horizon).toBeGreaterThan(firstFrom);
    expect(results.reduce((a, r) => a + r.pruned, 0)).toBeGreaterThan(0);

    const oldest = await db
      .selectFrom('dev_commits')
      .select((eb) => eb.fn.min('committer_date').as('m'))
      .executeTakeFirstOrThrow();
    expect(Number(oldest.m)).toBeGreaterThanOrEqual(horizon);
    const oldEvents = await db.selectFrom('dev_events').select('id').where('created_at', '<', horizon).execute();
    expect(oldEvents).toEqual([]);
    const closedBefore = await db.selectFrom('dev_issues').select('number').where('closed_at', '<', horizon).execute();
    expect(closedBefore).toEqual([]);
    expect(await db.selectFrom('dev_repo_days').select('day').where('day', '<', horizon).execute()).toEqual([]);

    const facts = await new DevelopmentRepository(store.db).facts(names);
    for (const f of facts.values()) {
      expect(f.commitsFrom).toBe(horizon);
      expect(f.issuesFrom).toBe(horizon);
      expect(f.eventsFrom).toBeGreaterThanOrEqual(horizon);
      // What is kept is complete from the horizon on.
      expectTruth(f);
    }

    // The documents computed from the retained facts equal those from every commit and issue since long before.
    const retained = [...facts.values()];
    const complete = retained.map((f): RepoFacts => {
      const truth = truthOf(f.repo);
      const byNumber = new Map(f.issues.map((i) => [i.number, i]));
      return {
        ...f,
        commitsFrom: f.commitsFrom - 300 * DAY,
        issuesFrom: f.issuesFrom - 300 * DAY,
        commits: truth.commits
          .filter((c) => s(c.committerDateMs) >= f.commitsFrom - 300 * DAY)
          .map((c) => ({
            sha: c.sha,
            authorKey: c.author?.login ?? `email:${c.authorEmail.toLowerCase()}`,
            authorLogin: c.author?.login ?? null,
            bot: c.author?.type === 'Bot',
            committerDate: s(c.committerDateMs),
            timeFrom: null,
            commentCount: c.commentCount,
            missing: [],
          }))
          .sort((a, b) => a.committerDate - b.committerDate || (a.sha < b.sha ? -1 : 1)),
        issues: truth.issues.map(
          (i) =>
            byNumber.get(i.number) ?? {
              number: i.number,
              pull: i.pull,
              authorLogin: i.author.login,
              bot: i.author.type === 'Bot',
              member: i.member,
              createdAt: s(i.createdAtMs),
              closedAt: i.closedAtMs === null ? null : s(i.closedAtMs),
              mergedAt: i.mergedAtMs === null ? null : s(i.mergedAtMs),
            },
        ),
      };
    });
    expect(complete.reduce((a, f) => a + f.commits.length, 0)).toBeGreaterThan(
      retained.reduce((a, f) => a + f.commits.length, 0),
    );
    const documents = (repos: RepoFacts[]) =>
      JSON.stringify(
        computeDevelopment({ asOf: now, subjects: [{ kind: 'protocol', id: 'aave', name: 'Aave', repos }] }),
        (_k, v) => (v instanceof Map ? [...v.entries()] : v),
      );
    expect(documents(retained)).toBe(documents(complete));
  });
});
