import type { IncomingHttpHeaders } from 'node:http';
import { type DevelopmentSubject, registry } from '../../../registry/index.js';
import type { FaultRates } from '../base/faults.js';
import { paginate } from '../base/paginate.js';
import type { RateWindow } from '../base/ratelimit.js';
import {
  HttpError,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinOptions,
  type StandinRequest,
  type StandinService,
  startStandin,
} from '../base/server.js';
import { EVENTS_MAX, type IssueRecord, type RepoHistory } from './records.js';
import {
  renderBranch,
  renderCollaborator,
  renderCommit,
  renderContributor,
  renderEvent,
  renderIssue,
  renderPull,
  renderRepo,
} from './render.js';
import { GithubWorld } from './world.js';

/**
 * The GitHub stand-in: the part of GitHub's REST API (v3, API version 2022-11-28) that `sources/github` uses,
 * serving the generated `GithubWorld` in GitHub's wire format: page-number pagination with `Link` headers
 * (30 per page by default, at most 100), weak ETags and 304s that cost no quota, `x-ratelimit-*` headers per token
 * (5000 requests an hour; 60 for anonymous clients), 403 with `retry-after` for secondary limits, and GitHub's
 * error bodies. See docs/standins.md.
 */

const DOCS = 'https://docs.github.com/rest';
const PAGE = { defaultPerPage: 30, maxPerPage: 100 } as const;

/**
 * Fault rates of the sandbox's stand-in (`protoscore start`): a rare 5xx and, now and then, a secondary limit —
 * about one per first pass (~2000 requests), with a short `retry-after` so that the demo's first pass takes a couple
 * of minutes, not ten (at 0.5 % and 60 s, every minute of waiting bought ~200 requests).
 */
export const SANDBOX_GITHUB_FAULTS: FaultRates = {
  serverError: 0.01,
  secondaryLimit: 0.0005,
  secondaryRetryAfterSeconds: 15,
};

/** GitHub's `x-ratelimit-*` headers of a window. */
function limitHeaders(w: RateWindow): Record<string, string> {
  return {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(w.resetSeconds),
    'x-ratelimit-used': String(w.used),
    'x-ratelimit-resource': w.resource,
  };
}

export function githubDialect(tokens: ReadonlySet<string> | undefined): StandinDialect {
  return {
    defaultResource: 'core',
    commonHeaders: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'private, max-age=60, s-maxage=60',
      vary: 'Accept, Authorization, Cookie, X-GitHub-OTP',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-api-version-selected': '2022-11-28',
      'access-control-expose-headers':
        'ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, ' +
        'X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, X-Accepted-OAuth-Scopes, ' +
        'X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset',
      server: 'github.com',
    },
    errorBody: (status, message) => ({ message, documentation_url: DOCS, status: String(status) }),
    identify: (headers: IncomingHttpHeaders) => {
      const value = headers.authorization;
      if (value === undefined) return undefined;
      const m = /^(?:token|bearer)\s+(\S+)$/i.exec(value.trim());
      if (!m || (tokens && !tokens.has(m[1]!))) throw new HttpError(401, 'Bad credentials');
      return m[1]!;
    },
    rateLimitHeaders: limitHeaders,
    primaryLimited: (w: RateWindow) => ({
      status: 403,
      body: {
        message:
          'API rate limit exceeded for this token. If you reach out to GitHub Support for help, please include the ' +
          'request ID.',
        documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`,
        status: '403',
      },
      headers: { ...limitHeaders(w), 'x-ratelimit-remaining': '0' },
    }),
    secondaryLimited: (retryAfterSeconds: number, w: RateWindow | undefined) => ({
      status: 403,
      body: {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach ' +
          'out to GitHub Support for help, please include the request ID.',
        documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`,
        status: '403',
      },
      headers: {
        'retry-after': String(retryAfterSeconds),
        ...(w ? limitHeaders(w) : {}),
      },
    }),
  };
}

/** An ISO 8601 time parameter in milliseconds; `undefined` when absent; 422 when malformed (as GitHub). */
function timeParam(req: StandinRequest, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  const value = Date.parse(raw);
  if (Number.isNaN(value) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) throw new HttpError(422, `Invalid value for ${name}`);
  return value;
}

function direction(req: StandinRequest, fallback: 'asc' | 'desc'): 1 | -1 {
  const d = req.query.get('direction');
  return (d === 'asc' || d === 'desc' ? d : fallback) === 'asc' ? 1 : -1;
}

export function githubRoutes(world: GithubWorld): RouteDef[] {
  const repoAt = (req: StandinRequest): RepoHistory => {
    const profile = world.repo(req.params.owner!, req.params.repo!);
    const history = profile && world.history(profile, req.nowMs);
    if (!history?.exists) throw new HttpError(404, 'Not Found');
    return history;
  };
  const paged = <T>(req: StandinRequest, items: readonly T[], render: (item: T) => unknown, maxItems?: number) => {
    const page = paginate(req, items, maxItems === undefined ? PAGE : { ...PAGE, maxItems });
    return json(page.items.map(render), page.headers);
  };
  const stateFilter = (req: StandinRequest) => {
    const state = req.query.get('state') ?? 'open';
    if (!['open', 'closed', 'all'].includes(state)) throw new HttpError(422, `Invalid value for state: ${state}`);
    return (i: IssueRecord) => state === 'all' || (state === 'open') === (i.closedAtMs === null);
  };

  return [
    {
      method: 'GET',
      path: '/rate_limit',
      // Asking costs nothing (GitHub's rule).
      resource: null,
      handler: (req) => {
        const windowOf = (resource: string) => {
          const w = req.rateWindow(resource);
          return { limit: w.limit, used: w.used, remaining: w.remaining, reset: w.resetSeconds };
        };
        const core = windowOf('core');
        // Uncounted, but with the core window's headers, as GitHub answers it.
        return json(
          { resources: { core, search: windowOf('search'), graphql: windowOf('graphql') }, rate: core },
          limitHeaders(req.rateWindow('core')),
        );
      },
    },
    {
      method: 'GET',
      path: '/orgs/:org/repos',
      resource: 'core',
      handler: (req) => {
        const org = world.org(req.params.org!);
        if (!org) throw new HttpError(404, 'Not Found');
        const type = req.query.get('type') ?? 'all';
        const sort = req.query.get('sort') ?? 'created';
        const histories = org.repos
          .map((r) => world.history(r, req.nowMs))
          .filter((h) => h.exists && (type === 'forks' ? h.profile.fork : type === 'sources' ? !h.profile.fork : true));
        const key = (h: RepoHistory): number | string =>
          sort === 'full_name'
            ? h.profile.fullName.toLowerCase()
            : sort === 'pushed'
              ? h.pushedAtMs
              : sort === 'updated'
                ? Math.max(h.pushedAtMs, h.stars.at(-1)?.atMs ?? 0, h.forks.at(-1)?.atMs ?? 0)
                : h.profile.createdAtMs;
        const dir = direction(req, sort === 'full_name' ? 'asc' : 'desc');
        histories.sort((a, b) => {
          const ka = key(a);
          const kb = key(b);
          return (ka < kb ? -1 : ka > kb ? 1 : a.profile.id - b.profile.id) * dir;
        });
        return paged(req, histories, (h) => renderRepo(req.baseUrl, h, false));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo',
      resource: 'core',
      handler: (req) => json(renderRepo(req.baseUrl, repoAt(req), true)),
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/commits',
      resource: 'core',
      handler: (req) => {
        const h = repoAt(req);
        const since = timeParam(req, 'since');
        const until = timeParam(req, 'until');
        const ref = req.query.get('sha');
        // A branch name lists the default branch's history (the world has one line of history); a commit sha (or
        // a prefix of at least 7 digits) lists the history up to that commit.
        let end = h.commits.length;
        if (ref !== null && !h.branches.some((b) => b.name === ref)) {
          const index = /^[0-9a-f]{7,40}$/.test(ref) ? h.commits.findIndex((c) => c.sha.startsWith(ref)) : -1;
          if (index < 0) throw new HttpError(422, `No commit found for SHA: ${ref}`);
          end = index + 1;
        }
        const selected = h.commits
          .slice(0, end)
          .filter(
            (c) =>
              (since === undefined || c.committerDateMs >= since) &&
              (until === undefined || c.committerDateMs <= until),
          )
          .reverse();
        return paged(req, selected, (c) => renderCommit(req.baseUrl, h.profile, c));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/contributors',
      resource: 'core',
      handler: (req) => {
        const h = repoAt(req);
        const anon = ['1', 'true'].includes(req.query.get('anon') ?? '');
        const rows: { contributions: number; render: () => unknown }[] = h.contributors.map((c) => ({
          contributions: c.contributions,
          render: () => renderContributor(req.baseUrl, c),
        }));
        if (anon) {
          const anonymous = new Map<string, { name: string; email: string; contributions: number }>();
          for (const c of h.commits) {
            if (c.author) continue;
            const entry = anonymous.get(c.authorEmail) ?? {
              name: c.authorName,
              email: c.authorEmail,
              contributions: 0,
            };
            entry.contributions++;
            anonymous.set(c.authorEmail, entry);
          }
          for (const a of anonymous.values()) {
            rows.push({ contributions: a.contributions, render: () => ({ ...a, type: 'Anonymous' }) });
          }
          rows.sort((a, b) => b.contributions - a.contributions);
        }
        return paged(req, rows, (r) => r.render());
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/issues',
      resource: 'core',
      handler: (req) => {
        const h = repoAt(req);
        const since = timeParam(req, 'since');
        const state = stateFilter(req);
        const sort = req.query.get('sort') ?? 'created';
        const key =
          sort === 'updated'
            ? (i: IssueRecord) => i.updatedAtMs
            : sort === 'comments'
              ? (i: IssueRecord) => i.comments
              : (i: IssueRecord) => i.createdAtMs;
        const dir = direction(req, 'desc');
        const selected = h.issues
          .filter((i) => state(i) && (since === undefined || i.updatedAtMs >= since))
          .sort((a, b) => (key(a) - key(b) || a.number - b.number) * dir);
        return paged(req, selected, (i) => renderIssue(req.baseUrl, h.profile, i));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/pulls',
      resource: 'core',
      handler: (req) => {
        const h = repoAt(req);
        const state = stateFilter(req);
        const sort = req.query.get('sort') ?? 'created';
        const key =
          sort === 'updated'
            ? (i: IssueRecord) => i.updatedAtMs
            : sort === 'popularity'
              ? (i: IssueRecord) => i.comments
              : (i: IssueRecord) => i.createdAtMs;
        const dir = direction(req, sort === 'created' ? 'desc' : 'asc');
        const selected = h.issues
          .filter((i) => i.pull && state(i))
          .sort((a, b) => (key(a) - key(b) || a.number - b.number) * dir);
        const repo = renderRepo(req.baseUrl, h, false);
        return paged(req, selected, (i) => renderPull(req.baseUrl, h, i, repo));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/events',
      resource: 'core',
      handler: (req) => {
        const h = repoAt(req);
        const repo = renderRepo(req.baseUrl, h, false);
        const events = world.events(h.profile, req.nowMs);
        return paged(req, events, (e) => renderEvent(req.baseUrl, h, e, repo), EVENTS_MAX);
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/branches',
      resource: 'core',
      handler: (req) => {
        const h = repoAt(req);
        const only = req.query.get('protected');
        const selected =
          only === 'true' || only === 'false'
            ? h.branches.filter((b) => b.protected === (only === 'true'))
            : h.branches;
        return paged(req, selected, (b) => renderBranch(req.baseUrl, h.profile, b));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/collaborators',
      resource: 'core',
      handler: (req) => {
        // GitHub shows collaborators to tokens with push access only; the sandbox treats every token as having it.
        if (!req.authenticated) throw new HttpError(401, 'Requires authentication');
        const h = repoAt(req);
        return paged(req, h.collaborators, (c) => renderCollaborator(req.baseUrl, c));
      },
    },
  ];
}

export interface GithubStandinOptions extends Omit<StandinOptions, 'seed'> {
  readonly seed: number;
  /** Default: the registry's development subjects. */
  readonly subjects?: readonly DevelopmentSubject[];
  /** Tokens accepted (others get 401 Bad credentials); default: any token. */
  readonly tokens?: readonly string[];
}

export interface GithubStandin extends Standin {
  readonly world: GithubWorld;
}

export function githubService(world: GithubWorld, tokens?: readonly string[]): StandinService {
  return { name: 'github', routes: githubRoutes(world), dialect: githubDialect(tokens ? new Set(tokens) : undefined) };
}

/** Starts the GitHub stand-in on loopback. */
export async function startGithubStandin(options: GithubStandinOptions): Promise<GithubStandin> {
  const world = new GithubWorld({ seed: options.seed, subjects: options.subjects ?? registry.developmentSubjects() });
  const standin = await startStandin(githubService(world, options.tokens), options);
  return Object.assign(standin, { world });
}
