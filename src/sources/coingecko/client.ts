import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer, matches } from '../schema-mismatch.js';
import {
  emptyStats,
  fetchText,
  jsonOrTransient,
  retryTransient,
  Transient,
  type TransientStats,
} from '../transient.js';
import {
  CoingeckoCoin,
  CoingeckoExchange,
  CoingeckoGlobal,
  CoingeckoMarketChart,
  CoingeckoPlainError,
  CoingeckoStatusError,
  type CoingeckoTicker,
  CoingeckoTickersPage,
} from './schemas.js';

/**
 * CoinGecko's API v3 (`/coins/{id}`, `/coins/{id}/market_chart`, `/coins/{id}/tickers`, `/exchanges/{id}`,
 * `/global`), one client per process shared by every area that reads it.
 *
 * - Keys: a demo plan's key goes in `x-cg-demo-api-key` to https://api.coingecko.com/api/v3, a pro plan's in
 *   `x-cg-pro-api-key` to https://pro-api.coingecko.com/api/v3 (CoinGecko refuses a key on the other host, 10010 and
 *   10011); without a key, keyless public access. The key is sent in a header only: never in a URL, a log line or an
 *   error message.
 * - Pace: CoinGecko counts calls per minute (demo 30, the smallest paid plan 500, keyless a few per IP): the client
 *   spaces its requests by the plan's interval, one at a time, so that a well-behaved process is never refused.
 * - Retries (core/retry.ts through `retryTransient`): a 429 after its `Retry-After`, or, when it names none (CoinGecko
 *   documents none; a CDN's plain-text `Throttled` has none either), after the rest of the minute the limit counts;
 *   5xx (an HTML 503 page from the CDN included), 408, timeouts, network errors and a 200 whose body is not JSON
 *   with backoff and jitter; then `CoingeckoError`, retryable. Another 4xx fails at once (`CoingeckoError` with
 *   CoinGecko's `error_code` when the body has one: 10002 missing key, 10005 plan restricted, 10010/10011 a key on
 *   the wrong host), and so does JSON of another shape (`CoingeckoSchemaError`, naming the field).
 */

export const COINGECKO_DEMO_URL = 'https://api.coingecko.com/api/v3';
export const COINGECKO_PRO_URL = 'https://pro-api.coingecko.com/api/v3';
/** Tickers per page of `/coins/{id}/tickers` (CoinGecko's fixed page size). */
export const COINGECKO_TICKERS_PER_PAGE = 100;

export type CoingeckoPlanName = 'demo' | 'pro';

/** The least time between two requests, by plan (and keyless): CoinGecko's published per-minute limits. */
export const COINGECKO_INTERVAL_MS = { keyless: 6_000, demo: 2_000, pro: 120 } as const;
/** The wait after a 429 that names none: CoinGecko's limits count calls per minute. */
export const COINGECKO_LIMIT_WAIT_MS = 60_000;

export interface CoingeckoClientOptions {
  /** Default the plan's host. */
  readonly baseUrl?: string;
  /** Secret: sent in the plan's header, never logged. */
  readonly apiKey?: string | undefined;
  /** Default `demo`. */
  readonly plan?: CoingeckoPlanName;
  readonly clock?: Clock;
  readonly sleep?: SleepFn;
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** Retries of one request before giving up, retryable (default 5). */
  readonly maxRetries?: number;
  /** First backoff step (default 1 s), doubling up to 30 s. */
  readonly baseDelayMs?: number;
  /** Least time between two requests (default the plan's, `COINGECKO_INTERVAL_MS`). */
  readonly minIntervalMs?: number;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
  /** Most pages of tickers read for one coin (default 20: 2,000 tickers). */
  readonly maxTickerPages?: number;
  readonly log?: EvmLogger;
}

export class CoingeckoError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
    /** CoinGecko's own `error_code` (10002, 10005, 10010, 10011, 429), when the body carried one. */
    readonly errorCode?: number,
  ) {
    super(message, retryable);
    this.name = 'CoingeckoError';
  }
}

/** An answer that is JSON but not what CoinGecko publishes: retrying cannot help. */
export class CoingeckoSchemaError extends CoingeckoError {
  constructor(
    readonly endpoint: string,
    readonly field: string,
    detail: string,
  ) {
    super(`CoinGecko ${endpoint}: invalid response at ${field || '/'}: ${detail}`, false);
    this.name = 'CoingeckoSchemaError';
  }
}

export type CoingeckoStats = TransientStats;

function check<T extends TSchema>(endpoint: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(schema, value, (path, message) => new CoingeckoSchemaError(endpoint, path, message));
}

/** What an error body says: CoinGecko's `status.error_message` or `error`, else the start of the text. */
export function coingeckoErrorOf(text: string): { message: string; code?: number } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { message: text.replace(/\s+/g, ' ').trim().slice(0, 200) || '(empty body)' };
  }
  if (matches(CoingeckoStatusError, body)) return { message: body.status.error_message, code: body.status.error_code };
  if (matches(CoingeckoPlainError, body)) return { message: body.error };
  // Seen on some 401s: `{"error": {"status": {...}}}`.
  const nested = (body as { error?: unknown } | null)?.error;
  if (matches(CoingeckoStatusError, nested)) {
    return { message: nested.status.error_message, code: nested.status.error_code };
  }
  return { message: text.slice(0, 200) };
}

export class CoingeckoClient {
  readonly stats: CoingeckoStats = emptyStats();
  readonly baseUrl: string;
  readonly plan: CoingeckoPlanName;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly sleepFn: SleepFn;
  private readonly slots = new Semaphore(1);
  private readonly intervalMs: number;
  /** The request headers, the key among them: a private field, so that logging or serialising the client shows neither. */
  readonly #headers: Record<string, string>;
  private readonly options: Omit<CoingeckoClientOptions, 'apiKey'>;
  private nextAtMs = 0;

  constructor(options: CoingeckoClientOptions = {}) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.plan = options.plan ?? 'demo';
    this.baseUrl = (options.baseUrl ?? (this.plan === 'pro' ? COINGECKO_PRO_URL : COINGECKO_DEMO_URL)).replace(
      /\/+$/,
      '',
    );
    this.clock = options.clock ?? systemClock;
    this.fetchFn = options.fetch ?? fetch;
    this.sleepFn = options.sleep ?? ((ms: number) => sleep(ms));
    this.intervalMs =
      options.minIntervalMs ?? (options.apiKey ? COINGECKO_INTERVAL_MS[this.plan] : COINGECKO_INTERVAL_MS.keyless);
    this.#headers = { accept: 'application/json' };
    if (apiKey) this.#headers[this.plan === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key'] = apiKey;
  }

  /** `GET /coins/{id}`: the coin's market data (price, market cap, volume, supplies, FDV), without the rest. */
  async coin(id: string): Promise<CoingeckoCoin> {
    const q = new URLSearchParams({
      localization: 'false',
      tickers: 'false',
      market_data: 'true',
      community_data: 'false',
      developer_data: 'false',
      sparkline: 'false',
    });
    const path = `/coins/${encodeId(id)}`;
    return check(path, CoingeckoCoin, await this.get(`${path}?${q}`, path));
  }

  /** `GET /coins/{id}/market_chart?vs_currency=usd&days=N&interval=daily`: daily points, oldest first. */
  async marketChart(id: string, days: number): Promise<CoingeckoMarketChart> {
    if (!Number.isInteger(days) || days < 1) throw new RangeError(`market_chart days must be a positive integer`);
    const q = new URLSearchParams({ vs_currency: 'usd', days: String(days), interval: 'daily' });
    const path = `/coins/${encodeId(id)}/market_chart`;
    return check(path, CoingeckoMarketChart, await this.get(`${path}?${q}`, path));
  }

  /** One page (from 1) of `GET /coins/{id}/tickers` with the ±2 % depth, without exchange logos. */
  async tickersPage(id: string, page: number): Promise<CoingeckoTicker[]> {
    const q = new URLSearchParams({ include_exchange_logo: 'false', depth: 'true', page: String(page) });
    const path = `/coins/${encodeId(id)}/tickers`;
    return check(path, CoingeckoTickersPage, await this.get(`${path}?${q}`, path)).tickers;
  }

  /**
   * Every ticker of a coin: pages until one has fewer than 100 (CoinGecko's page size), at most `maxTickerPages`
   * (more fails: a coin is not read half).
   */
  async tickers(id: string): Promise<CoingeckoTicker[]> {
    const out: CoingeckoTicker[] = [];
    const most = this.options.maxTickerPages ?? 20;
    for (let page = 1; page <= most; page++) {
      const items = await this.tickersPage(id, page);
      out.push(...items);
      if (items.length < COINGECKO_TICKERS_PER_PAGE) return out;
    }
    throw new CoingeckoError(`CoinGecko /coins/${id}/tickers: more than ${most} pages of tickers`, false);
  }

  /** `GET /exchanges/{id}`: the venue (centralized or not, name, trust score). */
  async exchange(id: string): Promise<CoingeckoExchange> {
    const path = `/exchanges/${encodeId(id)}`;
    return check(path, CoingeckoExchange, await this.get(path, path));
  }

  /** `GET /global`: the whole market's capitalisation and each large coin's share of it. */
  async global(): Promise<CoingeckoGlobal> {
    return check('/global', CoingeckoGlobal, await this.get('/global', '/global'));
  }

  private get(pathAndQuery: string, what: string): Promise<unknown> {
    return retryTransient(
      what,
      () => this.slots.run(() => this.once(pathAndQuery, what)),
      {
        source: 'coingecko',
        maxRetries: this.options.maxRetries ?? 5,
        baseMs: this.options.baseDelayMs ?? 1000,
        random: this.options.random,
        sleep: this.sleepFn,
        log: this.options.log,
        stats: this.stats,
      },
      (reason, attempts) =>
        new CoingeckoError(`CoinGecko ${what}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  private async once(pathAndQuery: string, what: string): Promise<unknown> {
    const waitMs = this.nextAtMs - this.clock.nowMs();
    if (waitMs > 0) {
      this.stats.sleptMs += waitMs;
      await this.sleepFn(waitMs);
    }
    this.nextAtMs = Math.max(this.clock.nowMs(), this.nextAtMs) + this.intervalMs;
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.baseUrl}${pathAndQuery}`,
      { headers: this.#headers },
      this.options.timeoutMs ?? 30_000,
      (headers) => parseRetryAfter(headers.get('retry-after'), this.clock.nowMs()),
      this.stats,
      [429],
    );
    if (res.status === 429) {
      const { message } = coingeckoErrorOf(text);
      const asked = parseRetryAfter(res.headers.get('retry-after'), this.clock.nowMs());
      const waitFor = asked ?? COINGECKO_LIMIT_WAIT_MS;
      // Every request of this client waits, not only this one: CoinGecko counts them all.
      this.nextAtMs = Math.max(this.nextAtMs, this.clock.nowMs() + waitFor);
      throw new Transient(`HTTP 429: ${message}`, waitFor);
    }
    if (res.status !== 200) {
      const { message, code } = coingeckoErrorOf(text);
      throw new CoingeckoError(
        `CoinGecko ${what}: HTTP ${res.status}${code !== undefined ? ` (error ${code})` : ''}: ${message}`,
        false,
        res.status,
        code,
      );
    }
    return jsonOrTransient(text);
  }
}

/** A coin or exchange id as one path segment (CoinGecko's ids are lowercase words with `-` and `_`). */
function encodeId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) throw new RangeError(`not a CoinGecko id: ${JSON.stringify(id)}`);
  return id;
}
