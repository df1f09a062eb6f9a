import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { developmentArea } from '../src/areas/development/index.js';
import { discoverRepos, ingestRepo } from '../src/areas/development/ingest.js';
import { REPOS_KEY } from '../src/areas/development/repo.js';
import { registry } from '../src/registry/index.js';
import { storeEtags } from '../src/runtime/sources.js';
import type { GithubStandin } from '../src/sandbox/standins/github/server.js';
import { GithubSource } from '../src/sources/github/index.js';
import { writeCheckpoint } from '../src/store/checkpoints.js';
import { PG_URL, type TestApp, testApp } from './helpers.js';
import { areaRunner, githubEnv } from './support/areas.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * The GitHub stand-in on `subjects` and its source opened as the runtime opens it (`startTestSources`): the test's
 * clock, the store's ETag table.
 */
const openStandin = (t: TestApp, subjects: readonly string[], options: { realSleep?: boolean } = {}) =>
  startTestSources({
    kinds: ['github'],
    clock: t.clock,
    seed: 11,
    githubSubjects: subjects,
    etags: storeEtags(t.store, t.clock),
    ...(options.realSleep ? { realSleep: true } : { maxRetries: 1 }),
  });

/**
 * End to end: GitHub stand-in → development.ingest → development.compute → API, on a few subjects. Commits of the
 * last week and month, contributors and the Gini coefficient are recomputed here from the stand-in's generated
 * ground truth (`world.history`), with none of the service's code; then a second ingest must be mostly 304s, and a
 * GitHub failure must leave the published data as it was.
 */

type Rec = Record<string, unknown>;
interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Rec & { as_of: string; methodology?: string; source: string };
}

const SUBJECTS = ['protocol:aave', 'protocol:uniswap', 'chain:ethereum'];
const DAY = 86_400;

/** Gini by its definition: Σᵢ Σⱼ |xᵢ − xⱼ| / (2 n² mean). */
function giniByDefinition(xs: number[]): number {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  let total = 0;
  for (const a of xs) for (const b of xs) total += Math.abs(a - b);
  return total / (2 * n * n * mean);
}

/** PostgreSQL too when a test database is configured: the jobs' checkpoints, publication and its comparison. */
const dialects = PG_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(dialects)('development end to end on the GitHub stand-in (%s)', (dialect) => {
  let t: TestApp;
  let opened: TestSources;
  let gh: GithubStandin;
  let run: (name: string) => Promise<string | undefined>;

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    t = await testApp({ dialect });
    opened = await openStandin(t, SUBJECTS);
    gh = opened.server('github');
    run = areaRunner(developmentArea, githubEnv(opened.sources.get('github')!), t.store, t.clock, () => t.sync()).run;
    await run('development.ingest');
    await run('development.compute');
    await t.sync();
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  it('serves one record per repository and day with the legacy fields, recomputed from the ground truth', async () => {
    const res = await get<Rec[]>('/data/development/aave');
    const org = gh.world.org('aave')!;
    const tracked = org.repos.filter((r) => !r.fork);
    expect(res.data).toHaveLength(7 * tracked.length);
    expect(res.data[0]!.partial).toBe(true);
    const asOf = Date.parse(res.meta.as_of) / 1000;
    expect(asOf).toBe(Math.floor(t.clock.nowMs() / 1000));
    for (const record of res.data) {
      const profile = gh.world.repo('aave', String(record.repository).split('/')[1]!)!;
      const at = Date.parse(String(record.timestamp)) / 1000;
      const truth = gh.world.history(profile, at * 1000);
      const commitsIn = (days: number) =>
        truth.commits.filter((c) => c.committerDateMs / 1000 > at - days * DAY && c.committerDateMs / 1000 <= at)
          .length;
      const contributions = truth.contributors.map((c) => c.contributions);
      expect(record).toMatchObject({
        url: `https://github.com/${profile.fullName}`,
        repos: tracked.length,
        num_commit_t: truth.commits.length,
        num_commit_w: commitsIn(7),
        num_commit_m: commitsIn(30),
        contributors: contributions.length,
        num_issues: truth.issues.filter((i) => !i.pull && i.closedAtMs === null).length,
        num_pulls: truth.issues.filter((i) => i.pull && i.closedAtMs === null).length,
        stars: truth.stars.length,
        forks: truth.forks.length,
        gap_reason: null,
      });
      expect(record.gini_coefficient as number).toBeCloseTo(giniByDefinition(contributions), 5);
      const top = Math.max(...contributions) / contributions.reduce((a, b) => a + b, 0);
      expect(record.top_contributor_weight as number).toBeCloseTo(100 * top, 1);
    }
    // Observed-only fields exist for today (observed now) and are null for days before ingestion began.
    const today = res.data.filter((r) => r.partial);
    expect(today.every((r) => typeof r.branches === 'number' && typeof r.collaborators === 'number')).toBe(true);
    expect(res.data.filter((r) => !r.partial).every((r) => r.branches === null)).toBe(true);
  });

  it('serves stats, score histories and the ranking with their methodology', async () => {
    const stats = await get<Rec>('/data/development/aave/stats');
    expect(stats.data).toMatchObject({
      protocol: 'aave',
      repositories: gh.world.org('aave')!.repos.filter((r) => !r.fork).length,
    });
    expect((stats.data.weekly as unknown[]).length).toBe(12);
    const score = await get<Rec[]>('/scores/development/protocols/aave');
    expect(score.data).toHaveLength(7);
    expect(score.data[0]).toMatchObject({
      protocol: 'aave',
      partial: true,
      methodology: 'development.activity@2.1.0',
      aggregation: 'weighted-mean',
    });
    expect(score.meta.methodology).toBe('development.activity@2.1.0');
    // One component per repository, weighted by its development events; each carries its own five components.
    const components = score.data[0]!.components as Rec[];
    const names = components.map((c) => c.name);
    expect(names).toEqual(
      [...(stats.data.repository_names as string[])].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
    );
    for (const c of components) {
      const own = (c.inputs as Rec).components as Rec[];
      expect(own.map((x) => x.name)).toEqual([
        'activity',
        'continuity',
        'developer_base',
        'contributor_concentration',
        'maintenance',
      ]);
    }
    const recomputed = components.reduce((s, c) => s + (c.weight as number) * (c.value as number), 0);
    expect(score.data[0]!.score).toBe(Math.round(recomputed * 1e4) / 1e4);
    const chain = await get<Rec[]>('/scores/development/blockchain/ethereum');
    expect(chain.data[0]).toMatchObject({ chain: 'ethereum', score: expect.any(Number) });
    const all = await get<Rec[]>('/scores/development');
    expect(all.data.map((r) => r.id).sort()).toEqual(['aave', 'ethereum', 'uniswap']);
    expect(all.data.map((r) => r.rank)).toEqual([1, 2, 3]);
    const scores = all.data.map((r) => r.score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    await get('/data/development/compound', 404);
  });

  it('a second ingest reuses ETags: most requests are answered 304, and all of a third', async () => {
    const pass = async () => {
      const before = { ...gh.stats };
      const summary = await run('development.ingest');
      const requests = gh.stats.requests - before.requests;
      return { share: (gh.stats.notModified - before.notModified) / requests, requests, summary };
    };
    // The second pass moves the commit and issue cursors from the first run's lookback to the newest facts (one
    // new URL each per repository); everything else is a 304.
    const second = await pass();
    expect(second.requests).toBeGreaterThan(20);
    expect(second.share, second.summary).toBeGreaterThan(0.75);
    const third = await pass();
    expect(third.share, third.summary).toBeGreaterThan(0.95);
  });

  it('a GitHub failure leaves the published data as it was; the next run recovers', async () => {
    /** The stored publication of the area (every document's payload, meta, as_of and version) and served ETags. */
    const publication = async () => {
      const rows = await t.store.db
        .selectFrom('datasets')
        .select(['path', 'payload', 'meta', 'as_of', 'computed_at', 'version'])
        .where('area', '=', 'development')
        .orderBy('path')
        .execute();
      const etags: Record<string, string> = {};
      for (const path of ['/data/development/aave', '/data/development/aave/stats', '/scores/development']) {
        const res = await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${t.token}` } });
        etags[path] = String(res.headers.etag);
      }
      return { rows, etags };
    };
    // A day later (the served bodies now say `stale`, before and after alike).
    t.clock.advance(DAY);
    const before = await publication();
    expect(before.rows.length).toBeGreaterThan(5);
    const published = JSON.parse(before.rows.find((r) => r.path === '/data/development/aave')!.payload) as Rec[];
    // More 5xx than the client retries, on one repository, then a secondary limit on another.
    gh.faults.inject(
      { fault: { kind: 'server-error', status: 502 }, pathIncludes: '/repos/aave/', times: 4 },
      { fault: { kind: 'secondary-limit', retryAfterSeconds: 30 }, pathIncludes: '/repos/Uniswap/' },
    );
    await expect(run('development.ingest')).rejects.toThrow(/failed/);
    expect(await run('development.compute')).toMatch(/^unchanged/);
    await t.sync();
    // The failed repositories hold the publication's as_of back, so the documents are byte for byte the same:
    // same payloads, meta and version in the store, same ETags served.
    expect(await publication()).toEqual(before);

    await run('development.ingest');
    await run('development.compute');
    await t.sync();
    const recovered = await get<Rec[]>('/data/development/aave');
    expect(Date.parse(recovered.meta.as_of) / 1000).toBe(Math.floor(t.clock.nowMs() / 1000));
    expect(recovered.data[0]!.date).not.toBe(published[0]!.date);
    expect((await publication()).etags['/data/development/aave']).not.toBe(before.etags['/data/development/aave']);

    // Three days on, the ETag entries of the cursors' old URLs (unused for 2 days) are deleted by the pass.
    t.clock.advance(3 * DAY);
    expect(await run('development.ingest')).toMatch(/ and [1-9]\d* ETag entries past retention deleted$/);
  });
});

describe('development publication during the first pass', () => {
  it('publishes a protocol once all its repositories are read, or once a whole pass has gone over them', async () => {
    const t = await testApp();
    const keys = ['protocol:aave', 'protocol:uniswap'];
    const subjects = registry.developmentSubjects().filter((s) => keys.includes(`${s.kind}:${s.id}`));
    const opened = await openStandin(t, keys);
    const gh = opened.server('github');
    try {
      const run = areaRunner(developmentArea, githubEnv(opened.sources.get('github')!), t.store, t.clock, () =>
        t.sync(),
      ).run;
      const status = async (url: string) =>
        (await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } })).statusCode;

      // A first pass midway: discovery done, aave's repositories read, one of uniswap's.
      const now = Math.floor(t.clock.nowMs() / 1000);
      const source = new GithubSource({ baseUrl: gh.url, token: 'test-token', clock: t.clock });
      const repos = await discoverRepos(source, subjects);
      const [aave, uniswap] = [repos['protocol:aave']!, repos['protocol:uniswap']!];
      expect(uniswap.length).toBeGreaterThan(1);
      await writeCheckpoint(t.store.db, REPOS_KEY, repos, now);
      for (const name of [...aave, uniswap[0]!]) await ingestRepo(source, t.store.db, name, now);
      expect(await run('development.compute')).toMatch(/^published/);
      await t.sync();
      expect(await status('/data/development/aave')).toBe(200);
      expect(await status('/data/development/uniswap')).toBe(404);
      const ranked = await t.app.inject({
        method: 'GET',
        url: '/scores/development',
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect((ranked.json() as Envelope<Rec[]>).data.map((r) => r.id)).toEqual(['aave']);

      // The pass goes over everything but one of uniswap's repositories keeps failing: uniswap is published with
      // the others.
      const failing = uniswap[uniswap.length - 1]!;
      gh.faults.inject({ fault: { kind: 'server-error', status: 502 }, pathIncludes: `/repos/${failing}`, times: 50 });
      await expect(run('development.ingest')).rejects.toThrow(/failed/);
      await run('development.compute');
      await t.sync();
      const records = await t.app.inject({
        method: 'GET',
        url: '/data/development/uniswap',
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect(records.statusCode).toBe(200);
      const names = new Set((records.json() as Envelope<Rec[]>).data.map((r) => r.repository));
      expect([...names].sort()).toEqual(uniswap.filter((n) => n !== failing));
    } finally {
      await opened.close();
      await t.close();
    }
  });
});

describe('development ingest when the service stops', () => {
  it("ends a rate-limit wait at once when the job's signal aborts", async () => {
    const t = await testApp();
    // The real sleep (no test sleep): a 10-minute secondary limit would hold a stopping service that long.
    const opened = await openStandin(t, ['protocol:aave'], { realSleep: true });
    const gh = opened.server('github');
    try {
      const run = areaRunner(developmentArea, githubEnv(opened.sources.get('github')!), t.store, t.clock).run;
      gh.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 600 } });
      const stop = new AbortController();
      const pass = run('development.ingest', stop.signal);
      const waiting = new Promise<void>((resolve) => {
        const check = () => (gh.stats.requests > 0 ? resolve() : setImmediate(check));
        check();
      });
      await waiting;
      stop.abort();
      await expect(pass).rejects.toThrow(/stopped/);
    } finally {
      await opened.close();
      await t.close();
    }
  });
});
