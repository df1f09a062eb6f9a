import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { backoffDelay, parseRetryAfter, Semaphore, type SleepFn, sleep as wait } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer } from '../schema-mismatch.js';
import { type RedditErrorBody, RedditToken } from './schemas.js';

/**
 * The Reddit transport: app-only OAuth and GET requests on the shared retry policy (core/retry.ts).
 * - The token comes from `POST {authUrl}/api/v1/access_token` (HTTP Basic with the app's client id and secret,
 *   `grant_type=client_credentials`); it is kept until shortly before `expires_in` and fetched anew then, or at once
 *   when the API answers 401 (revoked or expired early). Only one token request is in flight at a time.
 * - Every API request waits, before sending, while the window Reddit reported is used up (`X-Ratelimit-Remaining`
 *   0 until `X-Ratelimit-Reset` seconds have passed): Reddit bans clients that keep sending into a 429. A 429 blocks
 *   every request of the client until the reset it names (or `Retry-After`, or a backoff step).
 * - 5xx, 408, timeouts and network errors are retried with exponential backoff and jitter; a subreddit that is
 *   private (403), banned (404 `reason: banned`), quarantined or unknown fails at once with `RedditSubredditError`;
 *   anything else is a `RedditError` that is not retryable.
 * Secrets (client secret, access token) are sent only in the Authorization header, never logged.
 */

export const REDDIT_API_URL = 'https://oauth.reddit.com';
export const REDDIT_AUTH_URL = 'https://www.reddit.com';

export interface RedditClientOptions {
  /** Default `https://oauth.reddit.com` (the OAuth API host). */
  readonly apiUrl?: string;
  /** Default `https://www.reddit.com` (where tokens are issued). */
  readonly authUrl?: string;
  readonly clientId: string;
  /** Secret: sent in the token request's Basic credentials only. */
  readonly clientSecret: string;
  /** Reddit requires a descriptive one (`<platform>:<app id>:<version> (by /u/<user>)`) and throttles generic ones. */
  readonly userAgent?: string;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** Retries of 5xx, network errors and 429s on one request before giving up, retryable (default 5). */
  readonly maxRetries?: number;
  /** First backoff step (default 1 s), doubling up to `maxDelayMs` (default 60 s). */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** The longest rate-limit wait done inline (default 11 min: Reddit's window is 10); longer fails, retryable. */
  readonly maxRateLimitWaitMs?: number;
  /** Requests in flight at once (default 1: Reddit's limits are per client, and pages are read in order). */
  readonly maxConcurrency?: number;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
  /** A token is renewed this long before it expires (default 60 s). */
  readonly tokenMarginMs?: number;
  readonly log?: EvmLogger;
}

export const DEFAULT_REDDIT_USER_AGENT = 'server:protoscore:0.1 (community analytics; app-only OAuth)';

/** A Reddit failure; `status` is the HTTP status when there was an answer. */
export class RedditError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, retryable, options);
    this.name = 'RedditError';
  }
}

/** The app's credentials were refused (or a fresh token was refused at once): configuration, not retryable. */
export class RedditAuthError extends RedditError {
  constructor(message: string, status?: number) {
    super(message, false, status);
    this.name = 'RedditAuthError';
  }
}

/** Reddit asks to wait longer than the client waits inline. Retryable after `resetAtMs`. */
export class RedditRateLimitError extends RedditError {
  constructor(
    message: string,
    readonly resetAtMs: number,
  ) {
    super(message, true, 429);
    this.name = 'RedditRateLimitError';
  }
}

export type SubredditUnavailableReason = 'private' | 'banned' | 'quarantined' | 'not_found';

/**
 * A subreddit that cannot be read: `private` (403), `banned` (404 with `reason: banned`), `quarantined` (403 with
 * that reason: app-only clients cannot opt in) or `not_found` (404 otherwise). Not retryable; the area reports the
 * channel as unreadable.
 */
export class RedditSubredditError extends RedditError {
  constructor(
    readonly subreddit: string,
    readonly reason: SubredditUnavailableReason,
    status: number,
  ) {
    super(`Reddit r/${subreddit} cannot be read: ${reason.replace('_', ' ')} (HTTP ${status})`, false, status);
    this.name = 'RedditSubredditError';
  }
}

/** An answer that does not match its schema: retrying cannot help. Names the endpoint and the field. */
export class RedditSchemaError extends RedditError {
  constructor(
    readonly endpoint: string,
    /** JSON pointer of the offending field, e.g. `/data/children/3/data/created_utc`. */
    readonly field: string,
    detail: string,
  ) {
    super(`Reddit ${endpoint}: invalid response at ${field || '/'}: ${detail}`, false);
    this.name = 'RedditSchemaError';
  }
}

export interface RedditStats {
  /** API requests sent (retries included), token requests apart. */
  requests: number;
  tokenRequests: number;
  /** Tokens fetched again because the API answered 401 before their expiry. */
  tokenRefusals: number;
  retries: number;
  /** 429 answers received. */
  limited: number;
  /** Waits before sending because the window was used up or a 429 named a reset. */
  rateLimitWaits: number;
  /** Total milliseconds slept for rate limits and backoff. */
  sleptMs: number;
}

/** Margin after the reported reset before sending again: clocks differ a little. */
const RESET_MARGIN_MS = 1000;

/** `value` checked against `schema`, or a `RedditSchemaError` naming the deepest offending field. */
export function validate<T extends TSchema>(endpoint: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(schema, value, (path, message) => new RedditSchemaError(endpoint, path, message));
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

class Transient extends Error {}

export class RedditClient {
  readonly stats: RedditStats = {
    requests: 0,
    tokenRequests: 0,
    tokenRefusals: 0,
    retries: 0,
    limited: 0,
    rateLimitWaits: 0,
    sleptMs: 0,
  };
  private readonly apiUrl: string;
  private readonly authUrl: string;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly slots: Semaphore;
  private token: { value: string; expiresAtMs: number } | undefined;
  private tokenInFlight: Promise<string> | undefined;
  /** What the last answer said of the window; in-flight requests are counted against it. */
  private window: { remaining: number; resetAtMs: number } | undefined;
  private inFlight = 0;
  private blockedUntilMs = 0;

  constructor(private readonly options: RedditClientOptions) {
    this.apiUrl = (options.apiUrl ?? REDDIT_API_URL).replace(/\/+$/, '');
    this.authUrl = (options.authUrl ?? REDDIT_AUTH_URL).replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.fetchFn = options.fetch ?? fetch;
    this.slots = new Semaphore(options.maxConcurrency ?? 1);
  }

  /** A GET on the API host with the app's token; the parsed JSON body of a 200. */
  async get(path: string, query: Readonly<Record<string, string>> = {}): Promise<unknown> {
    const search = new URLSearchParams(query).toString();
    const url = `${this.apiUrl}${path}${search ? `?${search}` : ''}`;
    const what = `GET ${path}${search ? `?${search}` : ''}`;
    const maxRetries = this.options.maxRetries ?? 5;
    let failures = 0;
    let refused = false;
    for (;;) {
      const token = await this.accessToken();
      let answer: Answer;
      try {
        answer = await this.slots.run(async () => {
          await this.waitForWindow(what);
          this.inFlight++;
          this.stats.requests++;
          try {
            return await this.send(url, { authorization: `bearer ${token}` });
          } finally {
            this.inFlight--;
          }
        });
      } catch (err) {
        if (!(err instanceof Transient)) throw err;
        failures = await this.retryOrFail(failures, maxRetries, what, err.message, undefined);
        continue;
      }
      this.observe(answer.headers);
      const { status } = answer;
      if (status === 200) return parseJson(what, answer.text);
      if (status === 401) {
        // Expired early or revoked: one fresh token, then the credentials themselves are the problem.
        if (refused) throw new RedditAuthError(`Reddit ${what}: a fresh token was refused (HTTP 401)`, 401);
        refused = true;
        this.stats.tokenRefusals++;
        if (this.token?.value === token) this.token = undefined;
        continue;
      }
      if (status === 429) {
        this.stats.limited++;
        const waitMs = this.limitedWaitMs(answer.headers, failures);
        this.blockedUntilMs = Math.max(this.blockedUntilMs, this.clock.nowMs() + waitMs);
        if (++failures > maxRetries) {
          throw new RedditRateLimitError(
            `Reddit ${what}: still rate limited after ${failures} answers`,
            this.blockedUntilMs,
          );
        }
        this.stats.retries++;
        this.options.log?.warn({ source: 'reddit', waitMs }, 'Reddit rate limit (429)');
        continue;
      }
      const body = errorBody(answer.text);
      const subreddit = /^\/r\/([^/]+)/.exec(path)?.[1];
      if (subreddit && (status === 403 || status === 404)) {
        const reason: SubredditUnavailableReason =
          body.reason === 'banned'
            ? 'banned'
            : body.reason === 'quarantined'
              ? 'quarantined'
              : status === 403
                ? 'private'
                : 'not_found';
        throw new RedditSubredditError(decodeURIComponent(subreddit), reason, status);
      }
      if (status >= 500 || status === 408) {
        failures = await this.retryOrFail(failures, maxRetries, what, `HTTP ${status}`, answer.headers);
        continue;
      }
      throw new RedditError(
        `Reddit ${what}: HTTP ${status}: ${body.message ?? answer.text.slice(0, 200)}`,
        false,
        status,
      );
    }
  }

  /** The cached token, or a new one when there is none or it is about to expire. */
  private async accessToken(): Promise<string> {
    const margin = this.options.tokenMarginMs ?? 60_000;
    if (this.token && this.clock.nowMs() < this.token.expiresAtMs - margin) return this.token.value;
    this.tokenInFlight ??= this.fetchToken().finally(() => {
      this.tokenInFlight = undefined;
    });
    return this.tokenInFlight;
  }

  private async fetchToken(): Promise<string> {
    const url = `${this.authUrl}/api/v1/access_token`;
    const what = 'POST /api/v1/access_token';
    const maxRetries = this.options.maxRetries ?? 5;
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
    let failures = 0;
    for (;;) {
      let answer: Answer;
      try {
        this.stats.tokenRequests++;
        answer = await this.send(url, { authorization: `Basic ${basic}` }, 'grant_type=client_credentials');
      } catch (err) {
        if (!(err instanceof Transient)) throw err;
        failures = await this.retryOrFail(failures, maxRetries, what, err.message, undefined);
        continue;
      }
      if (answer.status === 200) {
        const body = parseJson(what, answer.text) as Record<string, unknown>;
        // Reddit answers some refusals with 200 and `{"error": "invalid_grant"}`.
        if (typeof body.error === 'string') throw new RedditAuthError(`Reddit ${what}: ${body.error}`, 200);
        const token = validate(what, RedditToken, body);
        if (token.token_type.toLowerCase() !== 'bearer') {
          throw new RedditSchemaError(what, '/token_type', `expected bearer, got ${token.token_type}`);
        }
        this.token = { value: token.access_token, expiresAtMs: this.clock.nowMs() + token.expires_in * 1000 };
        return token.access_token;
      }
      if (answer.status === 401 || answer.status === 403) {
        throw new RedditAuthError(
          `Reddit ${what}: the client id and secret were refused (HTTP ${answer.status})`,
          answer.status,
        );
      }
      if (answer.status === 429 || answer.status >= 500 || answer.status === 408) {
        if (answer.status === 429) this.stats.limited++;
        failures = await this.retryOrFail(failures, maxRetries, what, `HTTP ${answer.status}`, answer.headers);
        continue;
      }
      throw new RedditAuthError(`Reddit ${what}: HTTP ${answer.status}`, answer.status);
    }
  }

  /** Sleeps before retry `failures + 1`, or throws (retryable) when the retries are spent; the new count. */
  private async retryOrFail(
    failures: number,
    maxRetries: number,
    what: string,
    why: string,
    headers: Headers | undefined,
  ): Promise<number> {
    if (failures >= maxRetries) {
      throw new RedditError(`Reddit ${what} unavailable after ${failures + 1} attempts: ${why}`, true);
    }
    const delay =
      (headers && parseRetryAfter(headers.get('retry-after'), this.clock.nowMs())) ?? this.backoff(failures);
    this.stats.retries++;
    this.options.log?.[failures < 2 ? 'debug' : 'warn'](
      { source: 'reddit', attempt: failures + 1, delayMs: delay },
      `Reddit retry: ${why}`,
    );
    await this.sleep(delay);
    return failures + 1;
  }

  /**
   * A 429's wait: when the window is used up (`X-Ratelimit-Remaining` 0: another client of the same app spent it),
   * until its reset; otherwise (a burst limit) `Retry-After`, else a backoff step.
   */
  private limitedWaitMs(headers: Headers, failures: number): number {
    const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
    const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
    if (remaining < 1 && Number.isFinite(reset) && reset >= 0) return reset * 1000 + RESET_MARGIN_MS;
    return parseRetryAfter(headers.get('retry-after'), this.clock.nowMs()) ?? this.backoff(failures);
  }

  /** Waits while the window is used up or a 429 asked to wait; throws when that is longer than allowed inline. */
  private async waitForWindow(what: string): Promise<void> {
    const maxWait = this.options.maxRateLimitWaitMs ?? 660_000;
    for (;;) {
      const now = this.clock.nowMs();
      let until = this.blockedUntilMs;
      const w = this.window;
      if (w && w.remaining - this.inFlight < 1 && w.resetAtMs > now - RESET_MARGIN_MS) {
        until = Math.max(until, w.resetAtMs + RESET_MARGIN_MS);
      }
      const waitMs = until - now;
      if (waitMs <= 0) return;
      if (waitMs > maxWait) {
        throw new RedditRateLimitError(
          `Reddit rate limit: ${what} may not be sent before ${new Date(until).toISOString()}`,
          until,
        );
      }
      this.stats.rateLimitWaits++;
      this.options.log?.info({ source: 'reddit', waitMs }, 'Reddit rate limit: waiting before sending');
      await this.sleep(waitMs);
      if (this.window && this.window.resetAtMs <= this.clock.nowMs()) this.window = undefined;
    }
  }

  /** `X-Ratelimit-Remaining` (a float on Reddit) and `X-Ratelimit-Reset` (seconds from now). */
  private observe(headers: Headers): void {
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (headers.get('x-ratelimit-remaining') === null || headers.get('x-ratelimit-reset') === null) return;
    if (!Number.isFinite(remaining) || !Number.isFinite(reset)) return;
    this.window = { remaining: Math.floor(remaining), resetAtMs: this.clock.nowMs() + reset * 1000 };
  }

  private async send(url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    try {
      const res = await this.fetchFn(url, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          accept: 'application/json',
          'user-agent': this.options.userAgent ?? DEFAULT_REDDIT_USER_AGENT,
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body }),
        signal,
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      if (signal.aborted) throw new Transient('timeout');
      throw new Transient(`network error: ${(err as Error).message}`);
    }
  }

  private backoff(attempt: number): number {
    return backoffDelay(attempt, {
      baseMs: this.options.baseDelayMs ?? 1000,
      maxMs: this.options.maxDelayMs ?? 60_000,
      random: this.options.random ?? Math.random,
    });
  }

  private async sleep(ms: number): Promise<void> {
    this.stats.sleptMs += ms;
    await (this.options.sleep ?? ((t: number) => wait(t)))(ms);
  }
}

function parseJson(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RedditSchemaError(what, '', 'not JSON');
  }
}

function errorBody(text: string): RedditErrorBody {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') {
      const o = parsed as Record<string, unknown>;
      return {
        ...(typeof o.message === 'string' ? { message: o.message } : {}),
        ...(typeof o.reason === 'string' ? { reason: o.reason } : {}),
      };
    }
  } catch {}
  return {};
}
