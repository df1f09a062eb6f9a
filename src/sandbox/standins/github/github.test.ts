import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.js';
import { DAY_MS } from '../base/generate.js';
import { parseLinkHeader } from '../base/paginate.js';
import { REPO_CHARACTERS, type RepoHistory } from './records.js';
import { startGithubStandin } from './server.js';
import { GithubWorld } from './world.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const subjects = registry.developmentSubjects();

const world = new GithubWorld({ seed: 3, subjects });
const byCharacter = (c: string) => world.repos.filter((r) => r.character === c && !r.fork);

describe('GitHub world', () => {
  it('holds every organisation and repository the registry names, and every character', () => {
    for (const s of subjects) {
      for (const org of s.orgs) expect(world.org(org)?.repos.some((r) => r.tracked)).toBe(true);
      for (const full of s.repos) {
        const [owner, name] = full.split('/') as [string, string];
        expect(world.repo(owner, name)?.tracked).toBe(true);
      }
    }
    // Logins are case-insensitive, as on GitHub; the spelling is the registry's.
    expect(world.org('UNISWAP')?.login).toBe('Uniswap');
    for (const c of REPO_CHARACTERS) expect(byCharacter(c).length).toBeGreaterThan(0);
  });

  it('gives each character its shape', () => {
    const share = (h: RepoHistory, pick: (login: string, type: string) => boolean) =>
      h.commits.filter((c) => c.author && pick(c.author.login, c.author.type)).length / h.commits.length;
    for (const p of byCharacter('abandoned')) {
      const h = world.history(p, NOW);
      expect(h.commits.every((c) => c.committerDateMs < p.abandonedAtMs!)).toBe(true);
    }
    for (const p of byCharacter('one-person')) {
      const h = world.history(p, NOW);
      expect(h.contributors[0]!.contributions / h.commits.length).toBeGreaterThan(0.8);
    }
    for (const p of byCharacter('bot-heavy')) {
      expect(share(world.history(p, NOW), (_l, type) => type === 'Bot')).toBeGreaterThan(0.5);
    }
    for (const p of byCharacter('declining')) {
      // Slowing down since the decline started, but not stopped.
      const h = world.history(p, NOW);
      const perDay = (from: number, to: number) =>
        h.commits.filter((c) => c.committerDateMs >= from && c.committerDateMs < to).length / ((to - from) / DAY_MS);
      const before = perDay(p.createdAtMs, p.decliningFromMs!);
      expect(perDay(NOW - 365 * DAY_MS, NOW)).toBeLessThan(0.6 * before);
      expect(perDay(NOW - 365 * DAY_MS, NOW)).toBeGreaterThan(0.05 * before);
    }
    const recent = (h: RepoHistory) => h.commits.filter((c) => c.committerDateMs > NOW - 90 * DAY_MS).length;
    const busy = byCharacter('busy').map((p) => recent(world.history(p, NOW)));
    const oneMan = byCharacter('one-person').map((p) => recent(world.history(p, NOW)));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(busy)).toBeGreaterThan(2 * mean(oneMan));
  });

  it('only adds history as the clock advances, and does not depend on what was asked before', () => {
    const p = byCharacter('busy')[0]!;
    const early = NOW - 40 * DAY_MS;
    const fresh = new GithubWorld({ seed: 3, subjects });
    const a = fresh.history(p, early);
    const b = fresh.history(p, NOW);
    const c = new GithubWorld({ seed: 3, subjects }).history(p, NOW);
    expect(c).toEqual(b);
    expect(b.commits.slice(0, a.commits.length)).toEqual(a.commits);
    expect(b.commits.length).toBeGreaterThan(a.commits.length);
    expect(b.stars.slice(0, a.stars.length)).toEqual(a.stars);
    let closedLater = 0;
    for (const before of a.issues) {
      const after = b.issues[before.number - 1]!;
      expect([after.number, after.title, after.author, after.createdAtMs]).toEqual([
        before.number,
        before.title,
        before.author,
        before.createdAtMs,
      ]);
      if (before.closedAtMs !== null) expect(after.closedAtMs).toBe(before.closedAtMs);
      else if (after.closedAtMs !== null) closedLater++;
      expect(after.comments).toBeGreaterThanOrEqual(before.comments);
    }
    expect(closedLater).toBeGreaterThan(0);
    // A repository that does not exist yet is not there.
    expect(fresh.history(p, p.createdAtMs - 1).exists).toBe(false);
  });
});

/** A GET on a fresh connection: the determinism test restarts a stand-in on the same port. */
function rawGet(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { authorization: 'token t' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GitHub stand-in', () => {
  const PATHS = [
    '/orgs/aave/repos?per_page=2',
    '/repos/ethereum/go-ethereum',
    '/repos/ethereum/go-ethereum/commits?since=2026-02-01T00:00:00Z&per_page=5&page=2',
    '/repos/ethereum/go-ethereum/contributors',
    '/repos/ethereum/go-ethereum/issues?state=all&per_page=3',
    '/repos/ethereum/go-ethereum/pulls?state=closed&per_page=3',
    '/repos/ethereum/go-ethereum/events?per_page=4',
    '/repos/ethereum/go-ethereum/branches',
    '/repos/ethereum/go-ethereum/collaborators',
  ];

  const capture = async (seed: number, port?: number) => {
    const standin = await startGithubStandin({ seed, clock: { nowMs: () => NOW }, ...(port ? { port } : {}) });
    const out: string[] = [];
    for (const path of PATHS) {
      const res = await rawGet(standin.url + path);
      expect(res.status, path).toBe(200);
      const headers = ['etag', 'link', 'date', 'x-ratelimit-reset'].map((h) => `${h}: ${res.headers[h]}`);
      out.push(`${path}\n${headers.join('\n')}\n${res.body}`);
    }
    await standin.close();
    return { out, port: standin.port };
  };

  it('answers the same bytes for the same seed and clock, other bytes for another seed', async () => {
    // The port is part of the bytes (Link headers, URLs, hence ETags), so all three run on the first one's port;
    // should another process take it in between, start over on a new one.
    for (let attempt = 1; ; attempt++) {
      try {
        const a = await capture(9);
        const b = await capture(9, a.port);
        expect(b.out).toEqual(a.out);
        const c = await capture(10, a.port);
        expect(c.out).not.toEqual(a.out);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt >= 3) throw error;
      }
    }
  });

  it("serves the world in GitHub's shapes, with figures that match the ground truth", async () => {
    const standin = await startGithubStandin({ seed: 3, clock: { nowMs: () => NOW } });
    try {
      const get = async (path: string) => {
        const res = await fetch(standin.url + path, { headers: { authorization: 'token t' } });
        return { res, body: (await res.json()) as Record<string, unknown> & unknown[] };
      };
      const p = world.repo('ethereum', 'go-ethereum')!;
      const truth = world.history(p, NOW);
      const repo = (await get('/repos/Ethereum/go-ethereum')).body;
      expect(repo).toMatchObject({
        full_name: 'ethereum/go-ethereum',
        stargazers_count: truth.stars.length,
        forks_count: truth.forks.length,
        open_issues_count: truth.issues.filter((i) => i.closedAtMs === null).length,
        subscribers_count: truth.subscribers,
        default_branch: p.defaultBranch,
        fork: false,
      });
      const { res, body } = await get('/repos/ethereum/go-ethereum/commits?per_page=1');
      expect(body[0]).toMatchObject({ sha: truth.commits.at(-1)!.sha, parents: [{ sha: truth.commits.at(-2)!.sha }] });
      const last = parseLinkHeader(res.headers.get('link')).last!;
      expect(Number(new URL(last).searchParams.get('page'))).toBe(truth.commits.length);
      const contributors = (await get('/repos/ethereum/go-ethereum/contributors?per_page=100')).body as {
        login: string;
        contributions: number;
      }[];
      expect(contributors.map((c) => [c.login, c.contributions])).toEqual(
        truth.contributors.slice(0, 100).map((c) => [c.actor.login, c.contributions]),
      );
      const events = (await get('/repos/ethereum/go-ethereum/events?per_page=100&page=4')).body;
      expect(events).toEqual([]);
      expect((await get('/orgs/nope-org/repos')).res.status).toBe(404);
      expect((await get('/repos/ethereum/go-ethereum/commits?sha=zzz')).res.status).toBe(422);
      const anonymous = await fetch(`${standin.url}/repos/ethereum/go-ethereum/collaborators`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('x-ratelimit-limit')).toBe('60');
    } finally {
      await standin.close();
    }
  });
});
