import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { schemaMismatch } from '../schema-mismatch.js';
import {
  createGithubClient,
  type GithubClient,
  type GithubClientOptions,
  GithubError,
  GithubSchemaError,
} from './client.js';
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
 * What the development area reads from GitHub, as typed, validated lists. Every list is read through all its
 * pages (100 per page, following `Link: rel="next"`); every page is checked against its schema before use.
 * Times are Unix milliseconds in, GitHub's ISO strings out.
 */

export interface TimeWindow {
  /** Inclusive lower bound (Unix ms). */
  readonly sinceMs?: number;
  /** Inclusive upper bound (Unix ms). */
  readonly untilMs?: number;
}

const PER_PAGE = 100;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Checker<T extends TSchema> {
  readonly endpoint: string;
  readonly check: TypeCheck<T>;
}

function checker<T extends TSchema>(endpoint: string, schema: T): Checker<T> {
  return { endpoint, check: TypeCompiler.Compile(schema) };
}

function validate<T extends TSchema>(c: Checker<T>, data: unknown): Static<T> {
  if (c.check.Check(data)) return data;
  const { path, message } = schemaMismatch(c.check, data);
  throw new GithubSchemaError(c.endpoint, path, message);
}

const CHECK = {
  orgRepos: checker('GET /orgs/{org}/repos', Type.Array(GithubRepo)),
  repo: checker('GET /repos/{owner}/{repo}', GithubRepoDetail),
  commits: checker('GET /repos/{owner}/{repo}/commits', Type.Array(GithubCommit)),
  contributors: checker('GET /repos/{owner}/{repo}/contributors', Type.Array(GithubContributor)),
  issues: checker('GET /repos/{owner}/{repo}/issues', Type.Array(GithubIssue)),
  pulls: checker('GET /repos/{owner}/{repo}/pulls', Type.Array(GithubPull)),
  events: checker('GET /repos/{owner}/{repo}/events', Type.Array(GithubEvent)),
  branches: checker('GET /repos/{owner}/{repo}/branches', Type.Array(GithubBranch)),
  collaborators: checker('GET /repos/{owner}/{repo}/collaborators', Type.Array(GithubCollaborator)),
  rateLimit: checker('GET /rate_limit', GithubRateLimit),
};

/**
 * What the ETag cache keeps of each endpoint's answers: the fields of its schema (`Value.Clean` of a copy), by the
 * path's tail (a GitHub Enterprise base URL adds `/api/v3` before it). Every schema checks the fields the source
 * reads, so a kept answer validates and reads exactly as the whole one did (source.test.ts holds it).
 */
const KEPT: readonly [RegExp, TSchema][] = [
  [/\/orgs\/[^/]+\/repos$/, Type.Array(GithubRepo)],
  [/\/repos\/[^/]+\/[^/]+$/, GithubRepoDetail],
  [/\/repos\/[^/]+\/[^/]+\/commits$/, Type.Array(GithubCommit)],
  [/\/repos\/[^/]+\/[^/]+\/contributors$/, Type.Array(GithubContributor)],
  [/\/repos\/[^/]+\/[^/]+\/issues$/, Type.Array(GithubIssue)],
  [/\/repos\/[^/]+\/[^/]+\/pulls$/, Type.Array(GithubPull)],
  [/\/repos\/[^/]+\/[^/]+\/events$/, Type.Array(GithubEvent)],
  [/\/repos\/[^/]+\/[^/]+\/branches$/, Type.Array(GithubBranch)],
  [/\/repos\/[^/]+\/[^/]+\/collaborators$/, Type.Array(GithubCollaborator)],
];

/** The part of a GitHub answer the cache keeps: its schema's fields, or all of it for a path no schema covers. */
export function keptOfAnswer(pathname: string, data: unknown): unknown {
  const schema = KEPT.find(([pattern]) => pattern.test(pathname))?.[1];
  return schema === undefined ? data : Value.Clean(schema, structuredClone(data));
}

export class GithubSource {
  readonly client: GithubClient;

  constructor(options: GithubClientOptions = {}) {
    this.client = createGithubClient({ keep: keptOfAnswer, ...options });
  }

  get stats() {
    return this.client.stats;
  }

  /** Every page of a list endpoint, each validated; `stop(page)` true ends after that page. */
  private async list<T extends TSchema>(
    c: Checker<T>,
    route: string,
    params: Record<string, string | number>,
    stop?: (page: Static<T>) => boolean,
  ): Promise<Static<T>> {
    const { octokit } = this.client;
    const pages = await octokit.paginate(
      route as 'GET /repos/{owner}/{repo}/commits',
      { per_page: PER_PAGE, ...params } as never,
      (response, done) => {
        const page = validate(c, response.data);
        if (stop?.(page)) done();
        return page as never[];
      },
    );
    return pages as Static<T>;
  }

  /** An organisation's public repositories, forks and archived ones included (callers filter). */
  listOrgRepos(org: string): Promise<GithubRepo[]> {
    return this.list(CHECK.orgRepos, 'GET /orgs/{org}/repos', { org, type: 'public', sort: 'full_name' });
  }

  async getRepo(owner: string, repo: string): Promise<GithubRepoDetail> {
    const response = await this.client.octokit.request('GET /repos/{owner}/{repo}', { owner, repo });
    return validate(CHECK.repo, response.data);
  }

  /** Commits of the default branch (or `sha`: a branch or commit) with a committer date in the window, newest first. */
  listCommits(
    owner: string,
    repo: string,
    window: TimeWindow & { readonly sha?: string } = {},
  ): Promise<GithubCommit[]> {
    return this.list(CHECK.commits, 'GET /repos/{owner}/{repo}/commits', { owner, repo, ...commitParams(window) });
  }

  /**
   * The number of commits in the window without reading them: one commit per page, so the `rel="last"` page number
   * is the count (one request instead of count/100).
   */
  async countCommits(
    owner: string,
    repo: string,
    window: TimeWindow & { readonly sha?: string } = {},
  ): Promise<number> {
    let response: { data: unknown; headers: { link?: string } };
    try {
      response = await this.client.octokit.request('GET /repos/{owner}/{repo}/commits', {
        owner,
        repo,
        per_page: 1,
        ...commitParams(window),
      });
    } catch (err) {
      // An empty repository answers 409.
      if (err instanceof GithubError && err.status === 409) return 0;
      throw err;
    }
    const page = validate(CHECK.commits, response.data);
    const last = linkTarget(response.headers.link, 'last');
    if (!last) return page.length;
    const n = Number(new URL(last).searchParams.get('page'));
    if (!Number.isInteger(n) || n < 1)
      throw new GithubSchemaError(CHECK.commits.endpoint, 'Link', `bad last page ${last}`);
    return n;
  }

  /** Contributors with a GitHub account, by commits on the default branch (GitHub counts; bots included). */
  listContributors(owner: string, repo: string): Promise<GithubContributor[]> {
    return this.list(CHECK.contributors, 'GET /repos/{owner}/{repo}/contributors', { owner, repo });
  }

  /**
   * Issues and pull requests (those carry `pull_request`) of every state (or only `state`) updated at or after
   * `sinceMs` (all when absent), newest created first.
   */
  listIssues(
    owner: string,
    repo: string,
    window: Pick<TimeWindow, 'sinceMs'> & { readonly state?: 'open' | 'closed' | 'all' } = {},
  ): Promise<GithubIssue[]> {
    return this.list(CHECK.issues, 'GET /repos/{owner}/{repo}/issues', {
      owner,
      repo,
      state: window.state ?? 'all',
      ...(window.sinceMs === undefined ? {} : { since: iso(window.sinceMs) }),
    });
  }

  /**
   * Pull requests of every state updated at or after `sinceMs` (all when absent), most recently updated first.
   * The endpoint has no `since`: pages are read by update time and reading stops at the first older one.
   */
  async listPulls(owner: string, repo: string, window: Pick<TimeWindow, 'sinceMs'> = {}): Promise<GithubPull[]> {
    const since = window.sinceMs;
    const isRecent = (p: GithubPull) => since === undefined || Date.parse(p.updated_at) >= since;
    const pulls = await this.list(
      CHECK.pulls,
      'GET /repos/{owner}/{repo}/pulls',
      { owner, repo, state: 'all', sort: 'updated', direction: 'desc' },
      (page) => page.some((p) => !isRecent(p)),
    );
    return pulls.filter(isRecent);
  }

  /** The repository's public events: GitHub keeps the last 90 days, at most 300. Newest first. */
  listEvents(owner: string, repo: string): Promise<GithubEvent[]> {
    return this.list(CHECK.events, 'GET /repos/{owner}/{repo}/events', { owner, repo });
  }

  listBranches(owner: string, repo: string): Promise<GithubBranch[]> {
    return this.list(CHECK.branches, 'GET /repos/{owner}/{repo}/branches', { owner, repo });
  }

  /**
   * Collaborators, or `undefined` when the token may not see them (GitHub shows them only to tokens with push
   * access: a 403, or 404 for fine-grained tokens without access).
   */
  async listCollaborators(owner: string, repo: string): Promise<GithubCollaborator[] | undefined> {
    try {
      return await this.list(CHECK.collaborators, 'GET /repos/{owner}/{repo}/collaborators', { owner, repo });
    } catch (err) {
      if (err instanceof GithubError && (err.status === 403 || err.status === 404) && !err.retryable) return undefined;
      throw err;
    }
  }

  /** The token's windows (`GET /rate_limit` costs nothing). */
  async getRateLimit(): Promise<GithubRateLimit> {
    const response = await this.client.octokit.request('GET /rate_limit');
    return validate(CHECK.rateLimit, response.data);
  }
}

function commitParams(window: TimeWindow & { readonly sha?: string }): Record<string, string> {
  return {
    ...(window.sha === undefined ? {} : { sha: window.sha }),
    ...(window.sinceMs === undefined ? {} : { since: iso(window.sinceMs) }),
    ...(window.untilMs === undefined ? {} : { until: iso(window.untilMs) }),
  };
}

/** The URL of relation `rel` in a `Link` header. */
export function linkTarget(header: string | undefined, rel: string): string | undefined {
  for (const match of (header ?? '').matchAll(/<([^<>]+)>\s*;\s*rel="([^"]+)"/g)) {
    if (match[2] === rel) return match[1];
  }
  return undefined;
}
