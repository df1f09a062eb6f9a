import { type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describedResponse,
  eventPayloadRef,
  githubRef,
  githubSchema,
  githubValidator,
} from '../../../test/support/github-description.js';
import { openApi30ToJsonSchema, openApi30Variants } from '../../../test/support/wire-conformance.js';
import { type GithubStandin, startGithubStandin } from '../../sandbox/standins/github/server.js';
import {
  GithubBranch,
  GithubCollaborator,
  GithubCommit,
  GithubContributor,
  GithubEvent,
  GithubIssue,
  GithubPull,
  GithubRateLimit,
  GithubRepo,
  GithubRepoDetail,
} from './schemas.js';

/**
 * The source's schemas accept every answer GitHub's REST description (`@octokit/openapi`, pinned) allows. From
 * conforming answers (the stand-in's, which `conformance.test.ts` holds to the description), every variant the
 * description also allows — an optional field left out, a nullable one null, a union member replaced by the empty
 * object another branch accepts — must pass the source's schema of that operation: a reader that demands more than
 * the description promises fails on answers GitHub may send, without retry.
 */

const NOW = Date.parse('2026-03-01T12:00:00Z');

const READS: readonly { operation: string; template: string; schema: TSchema; path: (repo: string) => string }[] = [
  {
    operation: 'orgRepos',
    template: '/orgs/{org}/repos',
    schema: GithubRepo,
    path: (r) => `/orgs/${r.split('/')[0]}/repos`,
  },
  { operation: 'repo', template: '/repos/{owner}/{repo}', schema: GithubRepoDetail, path: (r) => `/repos/${r}` },
  {
    operation: 'commits',
    template: '/repos/{owner}/{repo}/commits',
    schema: GithubCommit,
    path: (r) => `/repos/${r}/commits`,
  },
  {
    operation: 'contributors',
    template: '/repos/{owner}/{repo}/contributors',
    schema: GithubContributor,
    path: (r) => `/repos/${r}/contributors`,
  },
  {
    operation: 'issues',
    template: '/repos/{owner}/{repo}/issues',
    schema: GithubIssue,
    path: (r) => `/repos/${r}/issues?state=all`,
  },
  {
    operation: 'pulls',
    template: '/repos/{owner}/{repo}/pulls',
    schema: GithubPull,
    path: (r) => `/repos/${r}/pulls?state=all`,
  },
  {
    operation: 'events',
    template: '/repos/{owner}/{repo}/events',
    schema: GithubEvent,
    path: (r) => `/repos/${r}/events`,
  },
  {
    operation: 'branches',
    template: '/repos/{owner}/{repo}/branches',
    schema: GithubBranch,
    path: (r) => `/repos/${r}/branches`,
  },
  {
    operation: 'collaborators',
    template: '/repos/{owner}/{repo}/collaborators',
    schema: GithubCollaborator,
    path: (r) => `/repos/${r}/collaborators`,
  },
  { operation: 'rateLimit', template: '/rate_limit', schema: GithubRateLimit, path: () => '/rate_limit' },
];

// biome-ignore lint/suspicious/noExplicitAny: plain JSON schemas
type Json = any;
const inlineBranches = new WeakMap<object, object>();

function branchMatches(branch: Json, value: unknown): boolean {
  if (branch.$ref) return githubValidator.errors(githubRef(branch.$ref), value).length === 0;
  let converted = inlineBranches.get(branch);
  if (!converted) {
    converted = openApi30ToJsonSchema(branch, 'https://api.github.com/openapi') as object;
    inlineBranches.set(branch, converted);
  }
  return githubValidator.errors(converted, value).length === 0;
}

/** The description's schema of one item of `template`'s answer; an event's payload by the branch its type names. */
function itemSchema(template: string, item: Json): Json {
  const schema = githubSchema(describedResponse(template).ref);
  if (template !== '/repos/{owner}/{repo}/events') return schema;
  return { ...schema, properties: { ...schema.properties, payload: { $ref: eventPayloadRef.get(item.type) } } };
}

describe("GitHub source's schemas against GitHub's REST description", () => {
  let standin: GithubStandin;
  const samples = new Map<string, unknown[]>();

  beforeAll(async () => {
    standin = await startGithubStandin({ seed: 5, clock: { nowMs: () => NOW } });
    // One repository of each character (forks in their organisation's listing, archived ones among them).
    const tracked = standin.world.repos.filter((r) => r.tracked && r.createdAtMs < NOW);
    const repos = [...new Map(tracked.map((r) => [r.character, r.fullName])).values()];
    for (const read of READS) {
      const items: unknown[] = [];
      for (const repo of read.operation === 'rateLimit' ? repos.slice(0, 1) : repos) {
        const res = await fetch(`${standin.url}${read.path(repo)}`, { headers: { authorization: 'token t' } });
        expect(res.status, read.path(repo)).toBe(200);
        const body = await res.json();
        items.push(...(Array.isArray(body) ? body.slice(0, 30) : [body]));
      }
      samples.set(read.operation, items);
    }
  });
  afterAll(() => standin?.close());

  it.each(READS.map((r) => [r.operation, r] as const))('%s: every variant the description allows passes', (_, read) => {
    const check = TypeCompiler.Compile(read.schema);
    const items = samples.get(read.operation)!;
    expect(items.length).toBeGreaterThan(0);
    const refused = new Set<string>();
    let variants = 0;
    for (const item of items) {
      expect(check.Check(item), 'the conforming answer itself').toBe(true);
      const resolve = (ref: string) => githubSchema(ref);
      for (const v of openApi30Variants(item, itemSchema(read.template, item), resolve, branchMatches)) {
        variants++;
        if (!check.Check(v.value)) refused.add(`${v.path}: ${v.change}`);
      }
    }
    // A branch (`short-branch`) has no optional or nullable field.
    if (read.operation !== 'branches') expect(variants).toBeGreaterThan(0);
    expect([...refused].sort()).toEqual([]);
  });

  it('still refuses what the description does not allow', () => {
    const check = TypeCompiler.Compile(Type.Array(GithubRepoDetail));
    const repo = samples.get('repo')![0] as Record<string, unknown>;
    // `full-repository` requires its figures: a repository without its stars is not GitHub's answer.
    const { stargazers_count: _stars, ...withoutStars } = repo;
    expect(check.Check([withoutStars])).toBe(false);
    expect(check.Check([{ ...repo, archived: null }])).toBe(false);
  });
});
