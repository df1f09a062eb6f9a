import { Value } from '@sinclair/typebox/value';
import { ServiceError } from '../../core/errors.js';
import { backoffDelay, parseRetryAfter, Semaphore, type SleepFn, sleep as wait } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { DiscordErrorBody, DiscordRateLimitBody } from './schemas.js';

/**
 * The Discord transport (API v10, as a bot: `Authorization: Bot <token>`). Every request goes through one loop
 * that
 * - waits, before sending, while the request's bucket is known to be empty (Discord's per-route buckets: a route
 *   and its major parameter — channel, guild — learn their bucket from `X-RateLimit-Bucket`, and the bucket's
 *   `Remaining` and `Reset-After` say when it refills), while a global limit is running, and while this client
 *   has sent `globalPerSecond` requests in the last second (Discord's global limit, 50 a second for a bot);
 * - on a 429 takes the wait from the body's `retry_after` (seconds, a float; the `Retry-After` header is rounded),
 *   blocks the whole client when `global` is true (or `X-RateLimit-Global`), else the bucket, and sends again;
 * - retries 5xx and network failures with the shared backoff (core/retry.ts);
 * - turns 401 into `DiscordAuthError`, 403 into `DiscordAccessError` (50001 Missing Access, 50013 Missing
 *   Permissions), 404 into `DiscordNotFoundError` (10003 Unknown Channel, 10004 Unknown Guild): not retryable.
 * The token goes into the Authorization header only: never into a log line or an error message.
 */

export const DISCORD_API_URL = 'https://discord.com/api/v10';

export interface DiscordClientOptions {
  /** Default `https://discord.com/api/v10`; the sandbox passes its stand-in's URL. */
  readonly baseUrl?: string;
  /** The bot's token (secret). */
  readonly token: string;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
  /** Retries of 5xx and network errors (default 5), and of 429s on one request (default 8). */
  readonly maxRetries?: number;
  readonly max429Retries?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Requests a second this client allows itself (default 50: Discord's global limit for a bot). */
  readonly globalPerSecond?: number;
  /** Requests in flight at once (default 4). */
  readonly maxConcurrency?: number;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
  readonly log?: EvmLogger;
}

/** A Discord failure: `status` is the HTTP status when there was an answer, `code` Discord's JSON error code. */
export class DiscordError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
    readonly code?: number,
    options?: { cause?: unknown },
  ) {
    super(message, retryable, options);
    this.name = 'DiscordError';
  }
}

/** 401: the token is wrong or revoked. */
export class DiscordAuthError extends DiscordError {
  constructor(what: string, code?: number) {
    super(`Discord ${what}: 401 Unauthorized (the bot token is invalid)`, false, 401, code);
    this.name = 'DiscordAuthError';
  }
}

/** 403: the bot may not read this (50001 Missing Access: not a member or no View Channel; 50013 Missing Permissions). */
export class DiscordAccessError extends DiscordError {
  constructor(what: string, message: string, code?: number) {
    super(`Discord ${what}: 403 ${message}${code === undefined ? '' : ` (${code})`}`, false, 403, code);
    this.name = 'DiscordAccessError';
  }
}

/** 404: no such channel (10003), guild (10004) or message (10008) — or not visible to the bot. */
export class DiscordNotFoundError extends DiscordError {
  constructor(what: string, message: string, code?: number) {
    super(`Discord ${what}: 404 ${message}${code === undefined ? '' : ` (${code})`}`, false, 404, code);
    this.name = 'DiscordNotFoundError';
  }
}

/** A response that does not match its schema: retrying cannot help. Names the route and the field. */
export class DiscordSchemaError extends DiscordError {
  constructor(
    readonly route: string,
    readonly field: string,
    detail: string,
  ) {
    super(`Discord ${route}: invalid response at ${field || '/'}: ${detail}`, false);
    this.name = 'DiscordSchemaError';
  }
}

export const DISCORD_ERROR_CODES = {
  UNKNOWN_CHANNEL: 10003,
  UNKNOWN_GUILD: 10004,
  UNKNOWN_MESSAGE: 10008,
  MISSING_ACCESS: 50001,
  MISSING_PERMISSIONS: 50013,
} as const;

export interface DiscordStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  retries: number;
  /** 429 answers received: on a bucket, and on the global limit. */
  bucketLimited: number;
  globalLimited: number;
  /** Waits before sending: an empty bucket, a running global block, or this client's own rate. */
  rateLimitWaits: number;
  /** Total milliseconds slept for rate limits and backoff. */
  sleptMs: number;
}

interface BucketState {
  remaining: number;
  resetAtMs: number;
  /** Until when a 429 on the bucket holds it back (its `retry_after`), apart from what remains of the window. */
  blockedUntilMs?: number;
}

/** Rate-limit knowledge from response headers, shared by every request of a client. */
class Buckets {
  /** `route template` → the bucket hash Discord named for it. */
  private readonly hashOf = new Map<string, string>();
  private readonly states = new Map<string, BucketState>();
  private globalUntilMs = 0;
  private readonly sentAt: number[] = [];

  constructor(private readonly perSecond: number) {}

  key(route: string, major: string): string {
    return `${this.hashOf.get(route) ?? route}:${major}`;
  }

  /** Milliseconds to wait before this request may go. */
  waitFor(route: string, major: string, nowMs: number): number {
    let until = this.globalUntilMs;
    const state = this.states.get(this.key(route, major));
    if (state && state.remaining <= 0 && state.resetAtMs > nowMs) until = Math.max(until, state.resetAtMs);
    if (state?.blockedUntilMs !== undefined) until = Math.max(until, state.blockedUntilMs);
    while (this.sentAt.length && this.sentAt[0]! <= nowMs - 1000) this.sentAt.shift();
    if (this.sentAt.length >= this.perSecond) until = Math.max(until, this.sentAt[0]! + 1000);
    return Math.max(0, until - nowMs);
  }

  sent(route: string, major: string, nowMs: number): void {
    this.sentAt.push(nowMs);
    const state = this.states.get(this.key(route, major));
    if (state) state.remaining--;
  }

  observe(route: string, major: string, headers: Headers, nowMs: number): void {
    const bucket = headers.get('x-ratelimit-bucket');
    if (bucket) this.hashOf.set(route, bucket);
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const resetAfter = Number(headers.get('x-ratelimit-reset-after'));
    if (headers.get('x-ratelimit-remaining') === null || !Number.isFinite(remaining) || !Number.isFinite(resetAfter))
      return;
    const key = this.key(route, major);
    const blockedUntilMs = this.states.get(key)?.blockedUntilMs;
    this.states.set(key, {
      remaining,
      resetAtMs: nowMs + Math.ceil(resetAfter * 1000),
      ...(blockedUntilMs !== undefined && blockedUntilMs > nowMs ? { blockedUntilMs } : {}),
    });
  }

  /**
   * A 429 on a bucket: its requests wait `retry_after`, and no longer unless the bucket's own headers say it is
   * empty (a 429 on a shared resource, Discord's `X-RateLimit-Scope: shared`, can come with requests remaining:
   * the bucket is then free again after `retry_after`, not at its reset). Without headers, the bucket is empty.
   */
  blockBucket(route: string, major: string, untilMs: number): void {
    const key = this.key(route, major);
    const state = this.states.get(key);
    this.states.set(key, {
      remaining: state?.remaining ?? 0,
      resetAtMs: state?.resetAtMs ?? untilMs,
      blockedUntilMs: Math.max(untilMs, state?.blockedUntilMs ?? 0),
    });
  }

  blockGlobal(untilMs: number): void {
    this.globalUntilMs = Math.max(this.globalUntilMs, untilMs);
  }
}

export interface DiscordRequest {
  /** The route template, e.g. `GET /channels/{channel.id}/messages`: it names the bucket and appears in errors. */
  readonly route: string;
  /** The path with its parameters filled in, e.g. `/channels/123/messages`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** The major parameter (channel or guild id) that splits the route's bucket; '' for none. */
  readonly major?: string;
}

export interface DiscordClient {
  readonly stats: DiscordStats;
  /** The parsed JSON body of a 2xx answer (unchecked: the source validates it). */
  get(request: DiscordRequest): Promise<unknown>;
}

export function createDiscordClient(options: DiscordClientOptions): DiscordClient {
  const baseUrl = (options.baseUrl ?? DISCORD_API_URL).replace(/\/+$/, '');
  const clock = options.clock ?? systemClock;
  const sleepFn = options.sleep ?? ((ms: number) => wait(ms));
  const random = options.random ?? Math.random;
  const maxRetries = options.maxRetries ?? 5;
  const max429Retries = options.max429Retries ?? 8;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const log = options.log;
  const buckets = new Buckets(options.globalPerSecond ?? 50);
  const slots = new Semaphore(options.maxConcurrency ?? 4);
  const authorization = `Bot ${options.token}`;
  const stats: DiscordStats = {
    requests: 0,
    retries: 0,
    bucketLimited: 0,
    globalLimited: 0,
    rateLimitWaits: 0,
    sleptMs: 0,
  };
  const sleep = async (ms: number) => {
    stats.sleptMs += ms;
    await sleepFn(ms);
  };

  async function get(request: DiscordRequest): Promise<unknown> {
    const major = request.major ?? '';
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const qs = query.toString();
    const url = `${baseUrl}${request.path}${qs ? `?${qs}` : ''}`;
    const what = request.route;
    let failures = 0;
    let limited = 0;
    for (;;) {
      const outcome: { response: Response; text: string } | { error: Error } = await slots.run(async () => {
        for (;;) {
          const waitMs = buckets.waitFor(request.route, major, clock.nowMs());
          if (waitMs <= 0) break;
          stats.rateLimitWaits++;
          await sleep(waitMs);
        }
        buckets.sent(request.route, major, clock.nowMs());
        stats.requests++;
        try {
          const response = await fetch(url, {
            headers: { authorization, accept: 'application/json', 'user-agent': 'DiscordBot (protoscore, 1)' },
            signal: AbortSignal.timeout(timeoutMs),
          });
          const text = await response.text();
          buckets.observe(request.route, major, response.headers, clock.nowMs());
          return { response, text };
        } catch (err) {
          return { error: err as Error };
        }
      });

      if ('error' in outcome) {
        if (failures >= maxRetries) {
          throw new DiscordError(
            `Discord ${what} unavailable after ${failures + 1} attempts: ${outcome.error.message}`,
            true,
            undefined,
            undefined,
            {
              cause: outcome.error,
            },
          );
        }
        await backoff(failures++, undefined, outcome.error.message);
        continue;
      }
      const { response, text } = outcome;
      const status = response.status;
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (status >= 200 && status < 300) {
        if (body === undefined) throw new DiscordSchemaError(what, '', 'the body is not JSON');
        return body;
      }
      const errorBody = Value.Check(DiscordErrorBody, body) ? body : undefined;
      if (status === 429) {
        const rate = Value.Check(DiscordRateLimitBody, body) ? body : undefined;
        const global = rate?.global === true || response.headers.get('x-ratelimit-global') === 'true';
        const waitMs =
          rate !== undefined
            ? Math.ceil(rate.retry_after * 1000)
            : (parseRetryAfter(response.headers.get('retry-after'), clock.nowMs()) ?? 1000);
        if (global) {
          stats.globalLimited++;
          buckets.blockGlobal(clock.nowMs() + waitMs);
        } else {
          stats.bucketLimited++;
          buckets.blockBucket(request.route, major, clock.nowMs() + waitMs);
        }
        if (++limited > max429Retries) {
          throw new DiscordError(`Discord ${what}: still rate limited after ${limited} answers of 429`, true, 429);
        }
        log?.[limited <= 1 ? 'debug' : 'warn'](
          { source: 'discord', route: what, waitMs, global },
          'Discord rate limit (429): waiting retry_after',
        );
        stats.retries++;
        continue;
      }
      if (status === 401) throw new DiscordAuthError(what, errorBody?.code);
      if (status === 403) throw new DiscordAccessError(what, errorBody?.message ?? 'Forbidden', errorBody?.code);
      if (status === 404) throw new DiscordNotFoundError(what, errorBody?.message ?? 'Not Found', errorBody?.code);
      const transient = status >= 500 || status === 408;
      if (!transient) {
        throw new DiscordError(
          `Discord ${what}: HTTP ${status}: ${errorBody?.message ?? text.slice(0, 200)}`,
          false,
          status,
          errorBody?.code,
        );
      }
      if (failures >= maxRetries) {
        throw new DiscordError(
          `Discord ${what} unavailable after ${failures + 1} attempts: HTTP ${status}`,
          true,
          status,
        );
      }
      await backoff(failures++, parseRetryAfter(response.headers.get('retry-after'), clock.nowMs()), `HTTP ${status}`);
    }
  }

  async function backoff(attempt: number, retryAfterMs: number | undefined, reason: string): Promise<void> {
    const delay = retryAfterMs ?? backoffDelay(attempt, { baseMs: baseDelayMs, maxMs: maxDelayMs, random });
    stats.retries++;
    log?.[attempt < 2 ? 'debug' : 'warn'](
      { source: 'discord', attempt: attempt + 1, delayMs: delay },
      `Discord retry: ${reason}`,
    );
    await sleep(delay);
  }

  return { stats, get };
}
