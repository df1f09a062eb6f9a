import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describedResponse,
  eventPayloadRef,
  GITHUB_DESCRIPTION_VERSION,
  githubDescription,
  githubPackageVersion,
  githubRef,
  githubValidator as validator,
} from '../../../../test/support/github-description.js';
import { type GithubStandin, startGithubStandin } from './server.js';

/**
 * The stand-in's answers against GitHub's own REST description: `@octokit/openapi` (pinned in package.json;
 * `generated/api.github.com.json`, OpenAPI 3.0.3), for every operation `src/sources/github` sends, with the
 * parameters it sends. Every object of every answer must match its schema with no undeclared field (see
 * test/support/wire-conformance.ts); every response header the description lists must be there, except `Link`,
 * which GitHub sends only when there is more than one page (checked when present).
 */

const NOW = Date.parse('2026-03-01T12:00:00Z');

/** The operations of `src/sources/github/source.ts`, as it sends them. */
const OPERATIONS = {
  rateLimit: '/rate_limit',
  orgRepos: '/orgs/{org}/repos',
  repo: '/repos/{owner}/{repo}',
  commits: '/repos/{owner}/{repo}/commits',
  contributors: '/repos/{owner}/{repo}/contributors',
  issues: '/repos/{owner}/{repo}/issues',
  pulls: '/repos/{owner}/{repo}/pulls',
  events: '/repos/{owner}/{repo}/events',
  branches: '/repos/{owner}/{repo}/branches',
  collaborators: '/repos/{owner}/{repo}/collaborators',
} as const;

/** An event, with its payload validated by the branch its `type` names (`eventPayloadRef`). */
function eventErrors(event: unknown): string[] {
  const { payload, type } = event as { payload: unknown; type: string };
  const payloadRef = eventPayloadRef.get(type);
  if (!payloadRef) return [`event type ${type} is not described`];
  return [
    ...validator.errors(githubRef('#/components/schemas/event'), { ...(event as object), payload: {} }),
    ...validator.errors(githubRef(payloadRef), payload).map((e) => `${type} payload${e}`),
  ];
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

describe("GitHub stand-in against GitHub's REST description", () => {
  let standin: GithubStandin;
  const answers = new Map<string, Answer[]>();

  const get = async (path: string): Promise<Answer> => {
    const res = await fetch(standin.url + path, { headers: { authorization: 'token conformance' } });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  /** Every page of a list, following `Link: rel="next"`, at most `maxPages`. */
  const pages = async (path: string, maxPages: number): Promise<Answer[]> => {
    const out: Answer[] = [];
    let next: string | undefined = path;
    while (next !== undefined && out.length < maxPages) {
      const answer = await get(next);
      out.push(answer);
      const link = /<([^>]+)>;\s*rel="next"/.exec(answer.headers.get('link') ?? '');
      next = link ? new URL(link[1]!).pathname + new URL(link[1]!).search : undefined;
    }
    return out;
  };

  beforeAll(async () => {
    standin = await startGithubStandin({ seed: 5, clock: { nowMs: () => NOW } });
    const add = (operation: keyof typeof OPERATIONS, list: Answer[]) =>
      answers.set(operation, [...(answers.get(operation) ?? []), ...list]);
    add('rateLimit', [await get('/rate_limit')]);
    const tracked = standin.world.repos.filter((r) => r.tracked && r.createdAtMs < NOW);
    // One repository of each character, the archived ones and forks among them (listed by their organisation).
    const sample = [...new Map(tracked.map((r) => [r.character, r])).values()];
    const archived = tracked.find((r) => r.archivedAtMs !== null && r.archivedAtMs < NOW);
    if (archived) sample.push(archived);
    for (const org of new Set(sample.map((r) => r.owner))) {
      add('orgRepos', await pages(`/orgs/${org}/repos?per_page=100&type=public&sort=full_name`, 2));
    }
    for (const r of sample) {
      const base = `/repos/${r.fullName}`;
      add('repo', [await get(base)]);
      add('commits', await pages(`${base}/commits?per_page=100`, 2));
      add('commits', [await get(`${base}/commits?per_page=1&since=2026-01-01T00:00:00Z`)]);
      add('contributors', await pages(`${base}/contributors?per_page=100`, 2));
      add('issues', await pages(`${base}/issues?per_page=100&state=all&since=2025-06-01T00:00:00Z`, 3));
      add('pulls', await pages(`${base}/pulls?per_page=100&state=all&sort=updated&direction=desc`, 2));
      add('events', await pages(`${base}/events?per_page=100`, 3));
      add('branches', await pages(`${base}/branches?per_page=100`, 2));
      add('collaborators', await pages(`${base}/collaborators?per_page=100`, 1));
    }
  });
  afterAll(() => standin?.close());

  it(`pins the description (@octokit/openapi ${GITHUB_DESCRIPTION_VERSION})`, () => {
    expect(githubDescription.info.version).toBe(GITHUB_DESCRIPTION_VERSION);
    expect(githubPackageVersion).toBe(GITHUB_DESCRIPTION_VERSION);
  });

  it.each(Object.entries(OPERATIONS))(
    '%s (GET %s): every answer matches its schema and headers',
    (operation, template) => {
      const { ref, headers } = describedResponse(template);
      const got = answers.get(operation) ?? [];
      expect(got.length, 'answers sampled').toBeGreaterThan(0);
      const problems: string[] = [];
      let items = 0;
      for (const answer of got) {
        expect(answer.status).toBe(200);
        for (const h of headers) {
          const value = answer.headers.get(h.name);
          if (value === null) {
            if (h.name !== 'link') problems.push(`header ${h.name} missing`);
          } else if (h.type === 'integer' && !/^\d+$/.test(value)) problems.push(`header ${h.name}: ${value}`);
        }
        for (const item of Array.isArray(answer.body) ? answer.body : [answer.body]) {
          items++;
          problems.push(...(operation === 'events' ? eventErrors(item) : validator.errors(githubRef(ref), item)));
        }
      }
      expect(items).toBeGreaterThan(0);
      // The same deviation repeats in every item: report each once.
      expect([...new Set(problems)].slice(0, 400)).toEqual([]);
    },
  );

  it('samples the variants the description distinguishes', () => {
    // biome-ignore lint/suspicious/noExplicitAny: fields of sampled JSON answers
    const items = (operation: string) => (answers.get(operation) ?? []).flatMap((a) => a.body as any[]);
    // A commit whose e-mail belongs to no account (`author: null`), and a pull request from a fork.
    expect(items('commits').some((c) => c.author === null)).toBe(true);
    expect(items('pulls').some((p) => p.head.repo.fork)).toBe(true);
    expect(items('issues').some((i) => 'pull_request' in i)).toBe(true);
    expect(items('orgRepos').some((r) => r.archived)).toBe(true);
  });

  it('samples every kind of event the stand-in sends', () => {
    const types = new Set(
      (answers.get('events') ?? []).flatMap((a) => (a.body as { type: string }[]).map((e) => e.type)),
    );
    expect([...types].sort()).toEqual([
      'ForkEvent',
      'IssueCommentEvent',
      'IssuesEvent',
      'PullRequestEvent',
      'PushEvent',
      'WatchEvent',
    ]);
  });
});
