import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../sandbox/standins/base/generate.js';
import { json, type Standin, startStandin } from '../../sandbox/standins/base/server.js';
import { type GithubStandin, githubDialect, startGithubStandin } from '../../sandbox/standins/github/server.js';
import { GithubError, GithubRateLimitError, GithubSchemaError } from './client.js';
import type { CachedResponse, EtagStore } from './etag.js';
import { GithubSource } from './source.js';

const START = Date.parse('2026-03-01T12:00:00Z');

/** One clock for the stand-in and the source; the source's sleep moves it, and records what it waited. */
function testClock() {
  const clock = {
    t: START,
    sleeps: [] as number[],
    nowMs: () => clock.t,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

let standin: Standin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

async function setup(options: Partial<Parameters<typeof startGithubStandin>[0]> = {}) {
  const clock = testClock();
  const gh: GithubStandin = await startGithubStandin({ seed: 5, clock, ...options });
  standin = gh;
  const source = (extra: Partial<ConstructorParameters<typeof GithubSource>[0]> = {}) =>
    new GithubSource({ baseUrl: gh.url, token: 'sandbox', clock, sleep: clock.sleep, random: () => 0.5, ...extra });
  const repo = gh.world.repo('ethereum', 'go-ethereum')!;
  return { clock, gh, source, repo, truth: () => gh.world.history(repo, clock.t) };
}

/** A window wholly in the past: its content cannot change while tests move the clock. */
const PAST = { sinceMs: START - 400 * DAY_MS, untilMs: START - 30 * DAY_MS };

describe('GitHub source against the stand-in', () => {
  it('reads every page of a window, matching the ground truth', async () => {
    const { gh, source, truth } = await setup();
    const src = source();
    const commits = await src.listCommits('ethereum', 'go-ethereum', PAST);
    const expected = truth()
      .commits.filter((c) => c.committerDateMs >= PAST.sinceMs && c.committerDateMs <= PAST.untilMs)
      .reverse();
    expect(expected.length).toBeGreaterThan(200);
    expect(commits.map((c) => c.sha)).toEqual(expected.map((c) => c.sha));
    expect(gh.stats.requests).toBe(Math.ceil(expected.length / 100));
    expect(await src.countCommits('ethereum', 'go-ethereum', PAST)).toBe(expected.length);
    expect(await src.countCommits('ethereum', 'go-ethereum')).toBe(truth().commits.length);

    const since = START - 60 * DAY_MS;
    const issues = await src.listIssues('ethereum', 'go-ethereum', { sinceMs: since });
    const updated = truth().issues.filter((i) => i.updatedAtMs >= since);
    expect(issues.map((i) => i.number).sort((a, b) => a - b)).toEqual(updated.map((i) => i.number));
    expect(issues.filter((i) => i.pull_request).length).toBe(updated.filter((i) => i.pull).length);

    // Pull requests have no `since`: reading by update time stops at the first page reaching older ones.
    const before = gh.stats.requests;
    const pulls = await src.listPulls('ethereum', 'go-ethereum', { sinceMs: since });
    expect(pulls.map((p) => p.number).sort((a, b) => a - b)).toEqual(
      updated.filter((i) => i.pull).map((i) => i.number),
    );
    const allPulls = truth().issues.filter((i) => i.pull).length;
    expect(gh.stats.requests - before).toBeLessThan(Math.ceil(allPulls / 100));

    const repos = await src.listOrgRepos('aave');
    expect(repos.map((r) => r.full_name).sort()).toEqual(
      gh.world
        .org('aave')!
        .repos.map((r) => r.fullName)
        .sort(),
    );
    const contributors = await src.listContributors('ethereum', 'go-ethereum');
    expect(contributors.reduce((n, c) => n + c.contributions, 0)).toBe(
      truth().commits.filter((c) => c.author !== null).length,
    );
    expect((await src.listBranches('ethereum', 'go-ethereum')).length).toBe(truth().branches.length);
    expect((await src.listEvents('ethereum', 'go-ethereum')).length).toBe(
      gh.world.events(gh.world.repo('ethereum', 'go-ethereum')!, START).length,
    );
    expect((await src.listCollaborators('ethereum', 'go-ethereum'))?.length).toBe(truth().collaborators.length);
    expect(gh.stats.violations).toBe(0);
  });

  it('revalidates with ETags on a second run: every page is a 304, and 304s cost no quota', async () => {
    const { gh, source } = await setup();
    const src = source();
    const first = await src.listCommits('ethereum', 'go-ethereum', PAST);
    const repo = await src.getRepo('ethereum', 'go-ethereum');
    const sent = gh.stats.requests;
    const usedBefore = (await src.getRateLimit()).resources.core.used;

    expect(await src.listCommits('ethereum', 'go-ethereum', PAST)).toEqual(first);
    expect(await src.getRepo('ethereum', 'go-ethereum')).toEqual(repo);
    const pages = Math.ceil(first.length / 100) + 1;
    expect(src.stats.notModified).toBe(pages);
    expect(gh.stats.notModified).toBe(pages);
    expect(gh.log.slice(sent + 1).every((r) => r.conditional && r.status === 304 && !r.counted)).toBe(true);
    expect((await src.getRateLimit()).resources.core.used).toBe(usedBefore);
  });

  it('keeps its ETags in a pluggable store: a new process revalidates from the first request', async () => {
    const { gh, source } = await setup();
    const saved = new Map<string, CachedResponse>();
    const store: EtagStore = {
      get: async (key) => saved.get(key),
      set: async (key, value) => {
        saved.set(key, JSON.parse(JSON.stringify(value)) as CachedResponse);
      },
    };
    const branches = await source({ etagStore: store }).listBranches('ethereum', 'go-ethereum');
    expect(saved.size).toBeGreaterThan(0);
    const restarted = source({ etagStore: store });
    expect(await restarted.listBranches('ethereum', 'go-ethereum')).toEqual(branches);
    expect(restarted.stats.notModified).toBe(saved.size);
    expect(gh.stats.notModified).toBe(saved.size);
  });

  it('keeps of each answer only the fields its schema reads: smaller in the cache, read the same as the whole', async () => {
    const { source } = await setup();
    const whole = source({ keep: (_path, data) => data });
    const saved = new Map<string, CachedResponse>();
    const store: EtagStore = {
      get: async (key) => saved.get(key),
      set: async (key, value) => {
        saved.set(key, JSON.parse(JSON.stringify(value)) as CachedResponse);
      },
    };
    const kept = source({ etagStore: store });
    const project = <T>(xs: T) => JSON.parse(JSON.stringify(xs)) as T;
    const wholeCommits = await whole.listCommits('ethereum', 'go-ethereum', PAST);
    const keptCommits = await kept.listCommits('ethereum', 'go-ethereum', PAST);
    // What a reader reads (the schema's fields) is the same; the rest is gone.
    const read = (c: (typeof wholeCommits)[number]) => [
      c.sha,
      c.commit.author?.date,
      c.commit.committer?.date,
      c.commit.message,
      c.commit.comment_count,
      c.author && 'login' in c.author ? [c.author.login, c.author.id, c.author.type] : c.author,
      c.committer && 'login' in c.committer ? c.committer.login : c.committer,
      c.parents.map((p) => p.sha),
    ];
    expect(keptCommits.map(read)).toEqual(wholeCommits.map(read));
    expect(Object.keys(wholeCommits[0]!)).toContain('html_url');
    expect(Object.keys(keptCommits[0]!).sort()).toEqual(['author', 'commit', 'committer', 'parents', 'sha']);
    const wholeBytes = JSON.stringify(wholeCommits).length;
    const keptBytes = [...saved.values()].reduce((n, v) => n + JSON.stringify(v.data).length, 0);
    expect(keptBytes).toBeLessThan(wholeBytes / 2);
    // A 304 answers what a 200 answered.
    expect(project(await kept.listCommits('ethereum', 'go-ethereum', PAST))).toEqual(project(keptCommits));
    expect(kept.stats.notModified).toBe(Math.ceil(keptCommits.length / 100));
    const repo = await kept.getRepo('ethereum', 'go-ethereum');
    expect(await kept.getRepo('ethereum', 'go-ethereum')).toEqual(repo);
    expect(repo.full_name).toBe('ethereum/go-ethereum');
  });

  it('waits for the reset when the window is used up, and sends nothing meanwhile', async () => {
    const { gh, source, clock, truth } = await setup({ rateLimit: { limit: 2, windowSeconds: 600 } });
    const src = source();
    const commits = await src.listCommits('ethereum', 'go-ethereum', PAST);
    const pages = Math.ceil(commits.length / 100);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(commits.length).toBe(
      truth().commits.filter((c) => c.committerDateMs >= PAST.sinceMs && c.committerDateMs <= PAST.untilMs).length,
    );
    // Two requests per window: a wait before the 3rd, 5th… page, each up to the reset plus the margin.
    expect(src.stats.rateLimitWaits).toBe(Math.ceil(pages / 2) - 1);
    for (const wait of clock.sleeps) expect(wait).toBe(600_000 + 1000);
    expect(gh.stats.violations).toBe(0);
    expect(gh.stats.byStatus[403]).toBeUndefined();
    expect(gh.stats.requests).toBe(pages);
  });

  it('fails without sending when the wait would be longer than it may block', async () => {
    const { gh, source } = await setup({ rateLimit: { limit: 1, windowSeconds: 3600 } });
    const src = source({ maxRateLimitWaitMs: 60_000 });
    await src.getRepo('ethereum', 'go-ethereum');
    const err = await src.getRepo('ethereum', 'go-ethereum').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GithubRateLimitError);
    expect((err as GithubRateLimitError).retryable).toBe(true);
    expect(gh.stats.requests).toBe(1);
  });

  it('waits out a primary limit it did not know of (a token shared with another client)', async () => {
    const { gh, source, clock } = await setup({ rateLimit: { limit: 1, windowSeconds: 120 } });
    await source().getRepo('ethereum', 'go-ethereum');
    const other = source();
    const repo = await other.getRepo('ethereum', 'go-ethereum');
    expect(repo.full_name).toBe('ethereum/go-ethereum');
    expect(other.stats.primaryLimits).toBe(1);
    expect(clock.sleeps).toEqual([121_000]);
    // The one refused request was unavoidable: the second client could not know.
    expect(gh.stats.violations).toBe(1);
  });

  it('honours a secondary limit: waits retry-after before sending again', async () => {
    const { gh, source, clock } = await setup();
    gh.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 45 }, pathIncludes: '/branches' });
    const src = source();
    const branches = await src.listBranches('ethereum', 'go-ethereum');
    expect(branches.length).toBeGreaterThan(0);
    expect(src.stats.secondaryLimits).toBe(1);
    expect(clock.sleeps).toEqual([45_000]);
    expect(gh.stats.violations).toBe(0);
  });

  it('retries 5xx with exponential backoff, then gives up with a retryable error', async () => {
    const { gh, source, clock } = await setup();
    gh.faults.inject({ fault: { kind: 'server-error', status: 502 }, times: 3 });
    const src = source({ baseDelayMs: 1000 });
    expect((await src.getRepo('ethereum', 'go-ethereum')).name).toBe('go-ethereum');
    expect(src.stats.retries).toBe(3);
    // Equal jitter with random() = 0.5: three quarters of 1 s, 2 s, 4 s.
    expect(clock.sleeps).toEqual([750, 1500, 3000]);

    gh.faults.inject({ fault: { kind: 'server-error', status: 500 }, times: 10 });
    const err = await source({ maxRetries: 2 })
      .getRepo('ethereum', 'go-ethereum')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GithubError);
    expect((err as GithubError).retryable).toBe(true);
    expect((err as GithubError).status).toBe(500);
  });

  it('reports 4xx as not retryable', async () => {
    const { source } = await setup();
    const err = await source()
      .getRepo('ethereum', 'no-such-repo')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GithubError);
    expect((err as GithubError).status).toBe(404);
    expect((err as GithubError).retryable).toBe(false);
    const bad = await source({ token: undefined })
      .listCollaborators('ethereum', 'go-ethereum')
      .catch((e: unknown) => e);
    expect((bad as GithubError).status).toBe(401);
  });

  it('rejects a payload that does not match the schema, naming the field', async () => {
    const clock = testClock();
    const commit = {
      sha: 'a'.repeat(40),
      commit: {
        author: { name: 'x', email: 'x@y', date: 1700000000 },
        committer: null,
        message: 'm',
        comment_count: 0,
      },
      author: null,
      committer: null,
      parents: [],
    };
    standin = await startStandin(
      {
        name: 'broken-github',
        dialect: githubDialect(undefined),
        routes: [
          { method: 'GET', path: '/repos/:owner/:repo/commits', resource: 'core', handler: () => json([commit]) },
        ],
      },
      { seed: 1, clock },
    );
    const src = new GithubSource({ baseUrl: standin.url, token: 't', clock, sleep: clock.sleep });
    const err = await src.listCommits('a', 'b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GithubSchemaError);
    expect((err as GithubSchemaError).field).toBe('/0/commit/author/date');
    expect((err as GithubSchemaError).retryable).toBe(false);
    expect((err as Error).message).toContain('GET /repos/{owner}/{repo}/commits');
  });
});
