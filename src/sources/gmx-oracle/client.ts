import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer } from '../schema-mismatch.js';
import { emptyStats, fetchText, jsonOrTransient, retryTransient, type TransientStats } from '../transient.js';
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

export type GmxOracleStats = TransientStats;

function check<T extends TSchema>(endpoint: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(schema, value, (path, message) => new GmxOracleSchemaError(endpoint, path, message));
}

export class GmxOracleClient {
  readonly stats: GmxOracleStats = emptyStats();
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

  private get(path: string): Promise<unknown> {
    return retryTransient(
      path,
      () => this.slots.run(() => this.once(path)),
      {
        source: 'gmx_oracle',
        maxRetries: this.options.maxRetries ?? 4,
        baseMs: this.options.baseDelayMs,
        random: this.options.random,
        sleep: this.options.sleep ?? ((ms: number) => sleep(ms)),
        log: this.options.log,
        stats: this.stats,
      },
      (reason, attempts) =>
        new GmxOracleError(`GMX oracle ${path}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  private async once(path: string): Promise<unknown> {
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.baseUrl}${path}`,
      { headers: { accept: 'application/json' } },
      this.options.timeoutMs ?? 20_000,
      (headers) => parseRetryAfter(headers.get('retry-after'), this.clock.nowMs()),
      this.stats,
    );
    if (res.status !== 200) {
      throw new GmxOracleError(`GMX oracle ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`, false, res.status);
    }
    return jsonOrTransient(text);
  }
}
