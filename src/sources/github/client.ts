import { Octokit } from '@octokit/rest';
import { ServiceError } from '../../core/errors.js';
import { backoffDelay, parseRetryAfter, Semaphore, type SleepFn, sleep as wait } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { EtagCache, type EtagStore } from './etag.js';

/**
 * The GitHub transport: an `@octokit/rest` client whose every request (pagination included) goes through one
 * hook that
 * - waits, before sending, while the rate-limit window of the request's resource is known to be exhausted (until
 *   `x-ratelimit-reset`) or a secondary limit asked to wait (`retry-after`): no request is sent that GitHub would
 *   refuse, which is what keeps a token from being blocked;
 * - sends `If-None-Match` for URLs it has an ETag for, and answers a 304 (free on GitHub) from the cache;
 * - retries 5xx, timeouts and network errors with exponential backoff and jitter, and secondary limits after
 *   `retry-after` (or a minute, doubling, when GitHub names no delay, as its documentation asks);
 * - turns everything else into a `GithubError` (4xx: not retryable).
 */

export const GITHUB_API_URL = 'https://api.github.com';

export interface GithubClientOptions {
  /** Default `https://api.github.com`; the sandbox passes its stand-in's URL. */
  readonly baseUrl?: string;
  /** A token (classic or fine-grained); anonymous without (60 requests an hour). */
  readonly token?: string;
  /** Persistence of the ETag cache (default: memory only). */
  readonly etagStore?: EtagStore;
  /** ETag entries kept in memory (default 5000). */
  readonly etagMemoryEntries?: number;
  /**
   * What a 200 answer's body is reduced to, by the URL's path, before it is returned and cached: the fields its
   * reader uses (default: the whole body). A 304 is answered with the same, so both read alike. A page of 100 commits is ~360 kB of JSON as GitHub sends it,
   * mostly URLs and signatures no reader looks at; kept whole, a thousand cached pages held 117 MB in the database
   * and more in memory.
   */
  readonly keep?: (pathname: string, data: unknown) => unknown;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
  /** Retries of 5xx, network errors and secondary limits before giving up (retryable) (default 5). */
  readonly maxRetries?: number;
  /** First backoff step (default 1 s), doubling per attempt up to `maxDelayMs` (default 60 s). */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /**
   * The longest rate-limit wait done inline (default 15 min); a longer one fails the call (retryable) without
   * sending anything, and the next call waits or fails the same way until the window resets.
   */
  readonly maxRateLimitWaitMs?: number;
  /** Requests in flight at once (default 2: GitHub asks integrators to avoid concurrency). */
  readonly maxConcurrency?: number;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  readonly log?: EvmLogger;
}

/** A GitHub failure: `status` is the HTTP status when there was an answer. */
export class GithubError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, retryable, options);
    this.name = 'GithubError';
  }
}

/** The rate limit forbids sending for longer than the source waits inline. Retryable after `resetAtMs`. */
export class GithubRateLimitError extends GithubError {
  constructor(
    message: string,
    readonly resetAtMs: number,
  ) {
    super(message, true, 403);
    this.name = 'GithubRateLimitError';
  }
}

/** A response that does not match its schema: retrying cannot help. Names the endpoint and the field. */
export class GithubSchemaError extends GithubError {
  constructor(
    readonly endpoint: string,
    /** JSON pointer of the offending field, e.g. `/3/commit/author/date`. */
    readonly field: string,
    detail: string,
  ) {
    super(`GitHub ${endpoint}: invalid response at ${field || '/'}: ${detail}`, false);
    this.name = 'GithubSchemaError';
  }
}

export interface GithubStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** 304 answers served from the ETag cache. */
  notModified: number;
  retries: number;
  /** Waits before sending because the window was exhausted or a secondary limit was running. */
  rateLimitWaits: number;
  /** Secondary-limit answers received. */
  secondaryLimits: number;
  /** Primary-limit answers received (the window was used up by someone else sharing the token). */
  primaryLimits: number;
  /** Total milliseconds slept for rate limits and backoff. */
  sleptMs: number;
}

interface Window {
  remaining: number;
  resetMs: number;
}

/** Margin after `x-ratelimit-reset` before sending again: clocks of client and GitHub differ a little. */
const RESET_MARGIN_MS = 1000;
/** GitHub's advice when a secondary limit names no delay: wait at least a minute, then back off exponentially. */
const SECONDARY_DEFAULT_MS = 60_000;
/** Primary-limit refusals in a row on one call before giving up (the window should have reset after the first). */
const MAX_PRIMARY_REFUSALS = 3;

/** Rate-limit knowledge from response headers, shared by every request of a client. */
class RateGate {
  private readonly windows = new Map<string, Window>();
  private readonly inFlight = new Map<string, number>();
  private blockedUntilMs = 0;

  /** Milliseconds to wait before a request to `resource` may be sent, and until when. */
  waitFor(resource: string, nowMs: number): { waitMs: number; untilMs: number } {
    let until = this.blockedUntilMs;
    const w = this.windows.get(resource);
    if (w && w.remaining <= 0 && w.resetMs > nowMs - RESET_MARGIN_MS)
      until = Math.max(until, w.resetMs + RESET_MARGIN_MS);
    return { waitMs: Math.max(0, until - nowMs), untilMs: until };
  }

  sent(resource: string): void {
    const w = this.windows.get(resource);
    if (w) w.remaining--;
    this.inFlight.set(resource, (this.inFlight.get(resource) ?? 0) + 1);
  }

  done(resource: string): void {
    this.inFlight.set(resource, Math.max(0, (this.inFlight.get(resource) ?? 1) - 1));
  }

  /** Takes the window from the headers; requests still in flight are counted against it. */
  observe(headers: Record<string, string | number | undefined> | undefined, requested: string): void {
    if (!headers) return;
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (!Number.isFinite(remaining) || !Number.isFinite(reset)) return;
    const resource = typeof headers['x-ratelimit-resource'] === 'string' ? headers['x-ratelimit-resource'] : requested;
    const others = this.inFlight.get(resource) ?? 0;
    this.windows.set(resource, { remaining: remaining - others, resetMs: reset * 1000 });
  }

  block(untilMs: number): void {
    this.blockedUntilMs = Math.max(this.blockedUntilMs, untilMs);
  }
}

/** The rate-limit resource a URL counts against; `undefined` for `/rate_limit`, which is free. */
function resourceOf(url: string): string | undefined {
  const path = new URL(url).pathname;
  if (path.endsWith('/rate_limit')) return undefined;
  if (path.includes('/search/')) return 'search';
  return 'core';
}

interface OctokitResponseLike {
  status: number;
  url: string;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}

interface RequestErrorLike {
  status?: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

export interface GithubClient {
  readonly octokit: Octokit;
  readonly stats: GithubStats;
}

export function createGithubClient(options: GithubClientOptions = {}): GithubClient {
  const clock = options.clock ?? systemClock;
  const sleepFn = options.sleep ?? ((ms: number) => wait(ms));
  const random = options.random ?? Math.random;
  const maxRetries = options.maxRetries ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 15 * 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const log = options.log;
  const etags = new EtagCache(options.etagStore, options.etagMemoryEntries);
  const gate = new RateGate();
  const slots = new Semaphore(options.maxConcurrency ?? 2);
  const stats: GithubStats = {
    requests: 0,
    notModified: 0,
    retries: 0,
    rateLimitWaits: 0,
    secondaryLimits: 0,
    primaryLimits: 0,
    sleptMs: 0,
  };
  const sleep = async (ms: number) => {
    stats.sleptMs += ms;
    await sleepFn(ms);
  };
  const backoff = (attempt: number) => backoffDelay(attempt, { baseMs: baseDelayMs, maxMs: maxDelayMs, random });

  const octokit = new Octokit({
    baseUrl: (options.baseUrl ?? GITHUB_API_URL).replace(/\/+$/, ''),
    ...(options.token ? { auth: options.token } : {}),
    userAgent: options.userAgent ?? 'protoscore',
    // Octokit logs deprecations with `warn`; everything this client decides is logged by the hook.
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => log?.warn({ source: 'github' }, message),
      // Octokit reports every non-2xx answer here, 304s from the ETag cache and retried 5xx included: the hook
      // decides what is an error and logs it, so these are debug lines.
      error: (message: string) => log?.debug({ source: 'github' }, message),
    },
  });

  octokit.hook.wrap('request', async (request, endpointOptions) => {
    const parsed = octokit.request.endpoint.parse(endpointOptions);
    const method = parsed.method;
    const url = parsed.url;
    const what = `${method} ${new URL(url).pathname}${new URL(url).search}`;
    const resource = resourceOf(url);
    const cacheKey = `${method} ${url}`;
    const cached = method === 'GET' ? await etags.get(cacheKey) : undefined;
    let failures = 0;
    let secondaryStreak = 0;
    let primaryRefusals = 0;

    for (;;) {
      const outcome: { response: OctokitResponseLike } | { error: RequestErrorLike } = await slots.run(async () => {
        // Inside the slot: a request waiting here has not been counted yet, so the gate sees every sent one.
        if (resource) {
          for (;;) {
            const { waitMs, untilMs } = gate.waitFor(resource, clock.nowMs());
            if (waitMs <= 0) break;
            if (waitMs > maxRateLimitWaitMs) {
              throw new GithubRateLimitError(
                `GitHub rate limit: ${what} may not be sent before ${new Date(untilMs).toISOString()}`,
                untilMs,
              );
            }
            stats.rateLimitWaits++;
            log?.info({ source: 'github', resource, waitMs }, 'GitHub rate limit: waiting before sending');
            await sleep(waitMs);
          }
          gate.sent(resource);
        }
        stats.requests++;
        try {
          // The hook chain binds the options object, so the request is adjusted in place.
          if (cached) endpointOptions.headers['if-none-match'] = cached.etag;
          endpointOptions.request = { ...endpointOptions.request, signal: AbortSignal.timeout(timeoutMs) };
          const response = (await request(endpointOptions)) as unknown as OctokitResponseLike;
          if (resource) gate.done(resource);
          gate.observe(response.headers, resource ?? 'core');
          return { response };
        } catch (err) {
          if (resource) gate.done(resource);
          const error = err as RequestErrorLike;
          gate.observe(error.response?.headers, resource ?? 'core');
          return { error };
        }
      });

      if ('response' in outcome) {
        const response = options.keep
          ? { ...outcome.response, data: options.keep(new URL(url).pathname, outcome.response.data) }
          : outcome.response;
        const etag = response.headers.etag;
        if (method === 'GET' && typeof etag === 'string') {
          const link = typeof response.headers.link === 'string' ? response.headers.link : undefined;
          await etags.set(cacheKey, { etag, data: response.data, ...(link ? { link } : {}) });
        }
        return response as never;
      }

      const { error } = outcome;
      const status = error.status;
      const headers = error.response?.headers ?? {};
      if (status === 304 && cached) {
        stats.notModified++;
        await etags.revalidated(cacheKey);
        return {
          status: 200,
          url,
          headers: { ...headers, etag: cached.etag, ...(cached.link ? { link: cached.link } : {}) },
          data: cached.data,
        } as never;
      }
      const retryAfterMs = parseRetryAfter(
        headers['retry-after'] === undefined ? null : String(headers['retry-after']),
        clock.nowMs(),
      );
      if (status === 403 || status === 429) {
        if (String(headers['x-ratelimit-remaining']) === '0') {
          // The window is used up (by someone else on this token, or a reset we were not told of): the gate now
          // knows the reset and waits for it on the next turn.
          stats.primaryLimits++;
          if (retryAfterMs !== undefined) gate.block(clock.nowMs() + retryAfterMs);
          if (++primaryRefusals > MAX_PRIMARY_REFUSALS) {
            throw new GithubError(`GitHub ${what}: rate limit still exhausted after its reset`, true, status);
          }
          continue;
        }
        const message = typeof error.message === 'string' ? error.message : '';
        if (retryAfterMs !== undefined || /secondary rate limit|abuse/i.test(message)) {
          stats.secondaryLimits++;
          const waitMs = retryAfterMs ?? SECONDARY_DEFAULT_MS * 2 ** secondaryStreak;
          secondaryStreak++;
          if (++failures > maxRetries) {
            throw new GithubRateLimitError(`GitHub ${what}: secondary rate limit persists`, clock.nowMs() + waitMs);
          }
          // Every request of this client waits, not only this one: GitHub counts them all.
          gate.block(clock.nowMs() + waitMs);
          log?.warn({ source: 'github', waitMs }, 'GitHub secondary rate limit');
          stats.retries++;
          continue;
        }
      }
      const transient = status === undefined || status >= 500 || status === 408;
      if (!transient) {
        throw new GithubError(`GitHub ${what}: HTTP ${status}: ${error.message}`, false, status, { cause: error });
      }
      if (failures >= maxRetries) {
        throw new GithubError(
          `GitHub ${what} unavailable after ${failures + 1} attempts: ${error.message}`,
          true,
          status,
          { cause: error },
        );
      }
      const delay = retryAfterMs ?? backoff(failures);
      failures++;
      stats.retries++;
      log?.[failures <= 2 ? 'debug' : 'warn'](
        { source: 'github', attempt: failures, delayMs: delay, status },
        `GitHub retry: ${error.message}`,
      );
      await sleep(delay);
    }
  });

  return { octokit, stats };
}
