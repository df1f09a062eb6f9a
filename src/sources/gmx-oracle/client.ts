import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { backoffDelay, parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer } from '../schema-mismatch.js';
import { type GmxTicker, GmxTickersResponse, type GmxToken, GmxTokensResponse } from './schemas.js';

/**
 * The GMX oracle keeper's REST API (`GMX_ORACLE_URL`, default https://arbitrum-api.gmxinfra.io): `/prices/tickers`
 * (every token's current min and max price) and `/tokens` (decimals and the synthetic flag). GMX publishes no rate
 * limit for it; the client keeps one request in flight and honours a 429's `Retry-After`. 429, 5xx, 408, timeouts,
 * network errors and bodies that are not JSON (a proxy's error page) are retried with backoff and jitter
 * (core/retry.ts), then fail retryable; an answer that is JSON but not the published shape fails at once
 * (`GmxOracleSchemaError`), and so does any other 4xx.
 */

export const GMX_ORACLE_URL = 'https://arbitrum-api.gmxinfra.io';

export interface GmxOracleClientOptions {
  /** Default https://arbitrum-api.gmxinfra.io (no trailing slash). */
  readonly baseUrl?: string;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** Retries of one request before giving up, retryable (default 4). */
  readonly maxRetries?: number;
  /** First backoff step (default 500 ms), doubling up to 30 s. */
  readonly baseDelayMs?: number;
  /** Per request (default 20 s). */
  readonly timeoutMs?: number;
  readonly log?: EvmLogger;
}

export class GmxOracleError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
  ) {
    super(message, retryable);
    this.name = 'GmxOracleError';
  }
}

/** An answer that is JSON but not what GMX publishes: retrying cannot help. */
export class GmxOracleSchemaError extends GmxOracleError {
  constructor(
    readonly endpoint: string,
    readonly field: string,
    detail: string,
  ) {
    super(`GMX oracle ${endpoint}: invalid response at ${field || '/'}: ${detail}`, false);
    this.name = 'GmxOracleSchemaError';
  }
}

export interface GmxOracleStats {
  requests: number;
  retries: number;
  /** 429 answers. */
  limited: number;
  sleptMs: number;
}

class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

function check<T extends TSchema>(endpoint: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(schema, value, (path, message) => new GmxOracleSchemaError(endpoint, path, message));
}

export class GmxOracleClient {
  readonly stats: GmxOracleStats = { requests: 0, retries: 0, limited: 0, sleptMs: 0 };
  readonly baseUrl: string;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly slots = new Semaphore(1);

  constructor(private readonly options: GmxOracleClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? GMX_ORACLE_URL).replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Every token's current price (`GET /prices/tickers`); GMX's own SDK refuses an empty list, and so does this. */
  async tickers(): Promise<GmxTicker[]> {
    const path = '/prices/tickers';
    const tickers = check(path, GmxTickersResponse, await this.get(path));
    if (!tickers.length) throw new GmxOracleSchemaError(path, '', 'no tickers');
    return tickers;
  }

  /** Every supported token with its decimals and synthetic flag (`GET /tokens`). */
  async tokens(): Promise<GmxToken[]> {
    const path = '/tokens';
    return check(path, GmxTokensResponse, await this.get(path)).tokens;
  }

  private async get(path: string): Promise<unknown> {
    const maxRetries = this.options.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.slots.run(() => this.once(path));
      } catch (err) {
        if (!(err instanceof Transient)) throw err;
        if (attempt >= maxRetries) {
          throw new GmxOracleError(
            `GMX oracle ${path}: unavailable after ${attempt + 1} attempts: ${err.message}`,
            true,
          );
        }
        const delay =
          err.retryAfterMs ??
          backoffDelay(attempt, {
            baseMs: this.options.baseDelayMs ?? 500,
            maxMs: 30_000,
            random: this.options.random ?? Math.random,
          });
        this.stats.retries++;
        this.options.log?.[attempt < 2 ? 'debug' : 'warn'](
          { source: 'gmx_oracle', attempt: attempt + 1, delayMs: delay },
          `GMX oracle retry: ${err.message}`,
        );
        this.stats.sleptMs += delay;
        await (this.options.sleep ?? ((ms: number) => sleep(ms)))(delay);
      }
    }
  }

  private async once(path: string): Promise<unknown> {
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? 20_000);
    let res: Response;
    let text: string;
    this.stats.requests++;
    try {
      res = await this.fetchFn(`${this.baseUrl}${path}`, { headers: { accept: 'application/json' }, signal });
      text = await res.text();
    } catch (err) {
      if (signal.aborted) throw new Transient('timeout');
      throw new Transient(`network error: ${(err as Error).message}`);
    }
    if (res.status === 429) this.stats.limited++;
    if (res.status === 429 || res.status === 408 || res.status >= 500) {
      throw new Transient(`HTTP ${res.status}`, parseRetryAfter(res.headers.get('retry-after'), this.clock.nowMs()));
    }
    if (res.status !== 200) {
      throw new GmxOracleError(`GMX oracle ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`, false, res.status);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new Transient(`malformed answer (${text.length} bytes, not JSON)`);
    }
  }
}
