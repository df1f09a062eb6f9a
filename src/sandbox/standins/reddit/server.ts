import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../../core/time.js';
import { registry, type SocialSubject } from '../../../registry/index.js';
import { subredditFor } from '../../../sources/reddit/subreddits.js';
import type { FaultRates } from '../base/faults.js';
import { dayOf, hexDigits, streamRng } from '../base/generate.js';
import { intParam } from '../base/paginate.js';
import type { RateLimitConfig, RateWindow } from '../base/ratelimit.js';
import {
  HttpError,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinOptions,
  type StandinRequest,
  startStandin,
} from '../base/server.js';
import { renderAbout, renderComment, renderPost } from './render.js';
import { LISTING_CAP, RedditWorld } from './world.js';

/**
 * The Reddit stand-in: the part of Reddit's API that `sources/reddit` uses, in Reddit's wire format, on two loopback
 * servers as Reddit splits them: the token endpoint (`POST /api/v1/access_token`, www.reddit.com's role: HTTP Basic
 * with the app's client id and secret, `grant_type=client_credentials`, bearer tokens of `expires_in` 86400 s) and
 * the OAuth API (oauth.reddit.com's role: `/r/{sub}/about`, `/r/{sub}/new`, `/r/{sub}/comments` as `Listing`s of
 * `t3`/`t1` things, newest first, `limit` ≤ 100 (default 25), the `after` cursor, at most 1,000 items reachable).
 * Rate limits as Reddit's: 1,000 requests per 10-minute window per app (100 a minute on average), reported in
 * `X-Ratelimit-Used`, `X-Ratelimit-Remaining` (a float) and `X-Ratelimit-Reset` (seconds until the window resets),
 * 429 once used up. Private, banned and quarantined subreddits answer as Reddit does (403 `reason: private`, 404
 * `reason: banned`, 403 `reason: quarantined`); the sandbox has none among the tracked ones, tests name some
 * (`unavailable`). See docs/standins.md.
 */

export const SANDBOX_REDDIT_CLIENT_ID = 'sandbox-reddit-app';
export const SANDBOX_REDDIT_CLIENT_SECRET = 'sandbox-reddit-secret';

/** Reddit's limits for an OAuth app: 100 queries a minute, averaged over 10 minutes. */
export const REDDIT_RATE_LIMIT: RateLimitConfig = { limit: 1000, anonymousLimit: 0, windowSeconds: 600 };

/** Fault rates in the sandbox: a rare 5xx (Reddit has them often enough) and very rarely a short 429. */
export const SANDBOX_REDDIT_FAULTS: FaultRates = {
  serverError: 0.01,
  secondaryLimit: 0.0005,
  secondaryRetryAfterSeconds: 10,
};

export type UnavailableReason = 'private' | 'banned' | 'quarantined';

export interface RedditStandinOptions extends Omit<StandinOptions, 'rateLimit'> {
  /** Tracked subjects (default `registry.socialSubjects('reddit')`). */
  readonly subjects?: readonly SocialSubject[];
  /** The subreddit of a social id (default the source's mapping, without overrides). */
  readonly subredditOf?: (socialId: string) => string;
  /** UTC day index of the scenario's first day (default: `days` before the clock's start). */
  readonly epochDay?: number;
  /** The scenario's length (default 8, `SANDBOX_DAYS`'s default). */
  readonly days?: number;
  readonly scale?: number;
  /** App credentials accepted: client id → secret (default the sandbox's pair). */
  readonly credentials?: Readonly<Record<string, string>>;
  /** `expires_in` of the tokens issued (default 86400, Reddit's). */
  readonly tokenLifetimeSeconds?: number;
  /** Subreddits that cannot be read, by name (tests): any name, tracked or not. */
  readonly unavailable?: Readonly<Record<string, UnavailableReason>>;
  /** Items a listing reaches (default 1000, Reddit's cap). */
  readonly listingCap?: number;
  readonly rateLimit?: Partial<RateLimitConfig>;
}

export interface RedditStandin extends Standin {
  /** The token endpoint's server (the value of `REDDIT_AUTH_URL`). */
  readonly auth: Standin;
  readonly authUrl: string;
  readonly world: RedditWorld;
  /** Tokens issued so far. */
  readonly tokensIssued: () => number;
  /** Invalidates every token issued (the next API request answers 401). */
  revokeTokens(): void;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=UTF-8', 'x-content-type-options': 'nosniff' };

function redditError(status: number, message: string, reason?: string): unknown {
  return { ...(reason ? { reason } : {}), message, error: status };
}

function limitHeaders(w: RateWindow, nowMs: number): Record<string, string> {
  return {
    'x-ratelimit-used': String(w.used),
    'x-ratelimit-remaining': w.remaining.toFixed(1),
    'x-ratelimit-reset': String(Math.max(0, w.resetSeconds - Math.floor(nowMs / 1000))),
  };
}

function apiDialect(clock: Clock, tokens: Map<string, { clientId: string; expiresAtMs: number }>): StandinDialect {
  const unauthorized = () =>
    new HttpError(401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="reddit", error="invalid_token"' });
  return {
    defaultResource: 'api',
    commonHeaders: JSON_HEADERS,
    errorBody: (status, message) => redditError(status, message),
    identify: (headers: IncomingHttpHeaders) => {
      const m = /^bearer\s+(\S+)$/i.exec((headers.authorization ?? '').trim());
      const token = m ? tokens.get(m[1]!) : undefined;
      if (!token || token.expiresAtMs <= clock.nowMs()) throw unauthorized();
      // Reddit counts per app (client id), not per token.
      return token.clientId;
    },
    rateLimitHeaders: (w) => limitHeaders(w, clock.nowMs()),
    primaryLimited: (w, nowMs) => ({
      status: 429,
      body: redditError(429, 'Too Many Requests'),
      headers: limitHeaders(w, nowMs),
    }),
    secondaryLimited: (retryAfterSeconds, w) => ({
      status: 429,
      body: redditError(429, 'Too Many Requests'),
      headers: { 'retry-after': String(retryAfterSeconds), ...(w ? limitHeaders(w, clock.nowMs()) : {}) },
    }),
  };
}

function authDialect(credentials: Readonly<Record<string, string>>): StandinDialect {
  return {
    defaultResource: 'auth',
    commonHeaders: JSON_HEADERS,
    errorBody: (status, message) => redditError(status, message),
    identify: (headers: IncomingHttpHeaders) => {
      const value = headers.authorization;
      if (value === undefined) return undefined;
      const m = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(value.trim());
      const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      const id = decoded.slice(0, colon);
      if (colon < 0 || !Object.hasOwn(credentials, id) || credentials[id] !== decoded.slice(colon + 1)) {
        throw new HttpError(401, 'Unauthorized');
      }
      return id;
    },
    rateLimitHeaders: () => ({}),
    primaryLimited: () => ({ status: 429, body: redditError(429, 'Too Many Requests') }),
    secondaryLimited: (retryAfterSeconds) => ({
      status: 429,
      body: redditError(429, 'Too Many Requests'),
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  };
}

export async function startRedditStandin(options: RedditStandinOptions): Promise<RedditStandin> {
  const { clock, seed } = options;
  const days = options.days ?? 8;
  const world = new RedditWorld({
    seed,
    subjects: options.subjects ?? registry.socialSubjects('reddit'),
    subredditOf: options.subredditOf ?? ((id) => subredditFor(id)),
    epochDay: options.epochDay ?? dayOf(clock.nowMs()) - days,
    days,
    ...(options.scale === undefined ? {} : { scale: options.scale }),
  });
  const credentials = options.credentials ?? { [SANDBOX_REDDIT_CLIENT_ID]: SANDBOX_REDDIT_CLIENT_SECRET };
  const lifetime = options.tokenLifetimeSeconds ?? 86_400;
  const tokens = new Map<string, { clientId: string; expiresAtMs: number }>();
  let issued = 0;
  const unavailable = new Map(Object.entries(options.unavailable ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const cap = options.listingCap ?? LISTING_CAP;

  const authRoutes: RouteDef[] = [
    {
      method: 'POST',
      path: '/api/v1/access_token',
      resource: null,
      handler: (req) => {
        if (!req.authenticated) throw new HttpError(401, 'Unauthorized');
        const client = Buffer.from(/^basic\s+(\S+)$/i.exec(String(req.headers.authorization))![1]!, 'base64')
          .toString('utf8')
          .split(':')[0]!;
        // Reddit answers an unknown grant with 200 and an `error` field.
        if (new URLSearchParams(req.body).get('grant_type') !== 'client_credentials') {
          return json({ error: 'unsupported_grant_type' });
        }
        const token = `${issued + 1}-${hexDigits(streamRng(seed, 'reddit', 'token', issued), 30)}`;
        issued++;
        tokens.set(token, { clientId: client, expiresAtMs: req.nowMs + lifetime * 1000 });
        return json({ access_token: token, token_type: 'bearer', expires_in: lifetime, scope: '*' });
      },
    },
  ];

  /** The subreddit a request names, or the answer Reddit gives for one that cannot be read. */
  const subredditOf = (req: StandinRequest) => {
    const name = req.params.sub!;
    const reason = unavailable.get(name.toLowerCase());
    if (reason === 'banned') return json(redditError(404, 'Not Found', 'banned'), {}, 404);
    if (reason) return json(redditError(403, 'Forbidden', reason), {}, 403);
    const profile = world.subreddit(name);
    if (!profile) return json(redditError(404, 'Not Found'), {}, 404);
    return profile;
  };
  const listing = (kind: 't3' | 't1') => (req: StandinRequest) => {
    const profile = subredditOf(req);
    if ('status' in profile) return profile;
    const limit = Math.min(100, intParam(req.query, 'limit', 25));
    const all = world.listing(profile, kind, req.nowMs, cap);
    const after = req.query.get('after');
    let start = 0;
    if (after !== null && after !== '') {
      const m = /^t[13]_([0-9a-z]+)$/.exec(after);
      const key = m ? Number.parseInt(m[1]!, 36) : Number.NaN;
      // The first reachable item older than the cursor; a cursor beyond the cap gives an empty page.
      start = Number.isNaN(key) ? 0 : all.findIndex((t) => Number.parseInt(t.id, 36) < key);
      if (start < 0) start = all.length;
    }
    const page = all.slice(start, start + limit);
    const more = start + limit < all.length;
    const render = kind === 't3' ? renderPost : renderComment;
    return json({
      kind: 'Listing',
      data: {
        after: more ? page.at(-1)!.name : null,
        dist: page.length,
        modhash: '',
        geo_filter: '',
        children: page.map((t) => render(profile, t)),
        before: null,
      },
    });
  };
  const apiRoutes: RouteDef[] = [
    {
      method: 'GET',
      path: '/r/:sub/about',
      resource: 'api',
      handler: (req) => {
        const profile = subredditOf(req);
        return 'status' in profile ? profile : json(renderAbout(profile));
      },
    },
    { method: 'GET', path: '/r/:sub/new', resource: 'api', handler: listing('t3') },
    { method: 'GET', path: '/r/:sub/comments', resource: 'api', handler: listing('t1') },
  ];

  const { rateLimit, faults, ...rest } = options;
  const auth = await startStandin(
    { name: 'reddit-auth', routes: authRoutes, dialect: authDialect(credentials) },
    { ...rest, port: 0 },
  );
  let api: Standin;
  try {
    api = await startStandin(
      { name: 'reddit', routes: apiRoutes, dialect: apiDialect(clock, tokens) },
      { ...rest, rateLimit: { ...REDDIT_RATE_LIMIT, ...rateLimit }, ...(faults ? { faults } : {}) },
    );
  } catch (err) {
    await auth.close();
    throw err;
  }
  return {
    url: api.url,
    port: api.port,
    stats: api.stats,
    log: api.log,
    faults: api.faults,
    limiter: api.limiter,
    auth,
    authUrl: auth.url,
    world,
    tokensIssued: () => issued,
    revokeTokens: () => tokens.clear(),
    close: async () => {
      await Promise.all([api.close(), auth.close()]);
    },
  };
}
