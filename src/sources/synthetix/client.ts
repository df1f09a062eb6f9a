import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import { type Clock, systemClock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer, matches } from '../schema-mismatch.js';
import { emptyStats, fetchText, retryTransient, Transient, type TransientStats } from '../transient.js';
import {
  type CandleInterval,
  CandlesResponse,
  FundingHistoryResponse,
  MarketPricesResponse,
  MarketsResponse,
  OpenInterestResponse,
  type SynthetixCandle,
  SynthetixError,
  type SynthetixFundingRate,
  type SynthetixMarket,
  type SynthetixMarketPrice,
  type SynthetixOpenInterest,
} from './schemas.js';

/**
 * The Synthetix exchange's public info API: `POST {SYNTHETIX_API_URL}/v1/info` with `{"params": {"action", …}}`
 * (developers.synthetix.io/developer-resources/api/rest-api/info). Synthetix's current perpetuals venue is an
 * off-chain order book settling on Ethereum (launched 2025); the info actions need no authentication.
 *
 * - Success is `{status: "ok", response}`; failure `{status: "error", error: {message, code}}`, on a 4xx or 5xx (or,
 *   defensively, on a 200). A 429 (with `Retry-After` when sent), 5xx, 408, timeouts, network errors, non-JSON
 *   bodies and an `INTERNAL_ERROR` code are retried with backoff and jitter (core/retry.ts), then fail retryable;
 *   any other error envelope fails at once (`SynthetixApiError`), and so does a body that is not the documented shape.
 * - `getFundingRateHistory` answers no more than 30 days back and at most 2160 rates per request: the client refuses
 *   an older start (`SynthetixRangeError`) and pages on by time until the window is read.
 * - One request in flight. Synthetix's rate-limit page describes token buckets answering `429 Too Many Requests` and
 *   documents no `Retry-After`: a 429 that carries one (seconds or an HTTP date) blocks the client that long, one
 *   without it backs off with jitter (test/derivatives-synthetix-faults.test.ts measures both).
 */

export const SYNTHETIX_API_URL = 'https://papi.synthetix.io';
/** How far back `getFundingRateHistory` answers. */
export const FUNDING_HISTORY_MAX_AGE_MS = 30 * 86_400_000;
/** The most rates one `getFundingRateHistory` answer holds. */
export const FUNDING_HISTORY_LIMIT = 2160;
/** The most candles one `getCandles` answer holds. */
export const CANDLES_LIMIT = 1000;

export interface SynthetixClientOptions {
  readonly baseUrl: string;
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

export class SynthetixApiError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message, retryable);
    this.name = 'SynthetixApiError';
  }
}

/** An answer that is JSON but not the documented shape: retrying cannot help. */
export class SynthetixSchemaError extends SynthetixApiError {
  constructor(action: string, field: string, detail: string) {
    super(`Synthetix ${action}: invalid response at ${field || '/'}: ${detail}`, false);
    this.name = 'SynthetixSchemaError';
  }
}

/** A funding history window the API does not answer (older than 30 days, or empty). */
export class SynthetixRangeError extends SynthetixApiError {
  constructor(message: string) {
    super(message, false);
    this.name = 'SynthetixRangeError';
  }
}

export type SynthetixStats = TransientStats;

function check<T extends TSchema>(action: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(schema, value, (path, message) => new SynthetixSchemaError(action, path, message));
}

export class SynthetixClient {
  readonly stats: SynthetixStats = emptyStats();
  readonly baseUrl: string;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly slots = new Semaphore(1);

  constructor(private readonly options: SynthetixClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Every market's configuration (`getMarkets`). */
  async markets(): Promise<SynthetixMarket[]> {
    return check('getMarkets', MarketsResponse, await this.info({ action: 'getMarkets' })).response;
  }

  /** Current prices, 24-hour figures, funding rate and open interest of every market, by symbol (`getMarketPrices`). */
  async marketPrices(): Promise<Record<string, SynthetixMarketPrice>> {
    return check('getMarketPrices', MarketPricesResponse, await this.info({ action: 'getMarketPrices' })).response;
  }

  /** Every market's open interest in base units, both sides and their total (`getOpenInterest`). */
  async openInterest(): Promise<SynthetixOpenInterest[]> {
    return check('getOpenInterest', OpenInterestResponse, await this.info({ action: 'getOpenInterest' })).response;
  }

  /**
   * The funding rates of `symbol` applied in [startMs, endMs], oldest first, paged by time (2160 a request). The
   * start may be at most 30 days before now (the API's limit): an older one is refused before sending.
   */
  async fundingRateHistory(symbol: string, startMs: number, endMs: number): Promise<SynthetixFundingRate[]> {
    const oldest = this.clock.nowMs() - FUNDING_HISTORY_MAX_AGE_MS;
    if (startMs < oldest) {
      throw new SynthetixRangeError(
        `Synthetix getFundingRateHistory answers 30 days back at most: ${new Date(startMs).toISOString()} is older`,
      );
    }
    if (endMs <= startMs) throw new SynthetixRangeError('Synthetix getFundingRateHistory: empty window');
    const out = new Map<number, SynthetixFundingRate>();
    for (let from = startMs; from < endMs; ) {
      const params = {
        action: 'getFundingRateHistory',
        symbol,
        startTime: from,
        endTime: endMs,
        limit: FUNDING_HISTORY_LIMIT,
      };
      const page = check('getFundingRateHistory', FundingHistoryResponse, await this.info(params)).response
        .fundingRates;
      for (const r of page) if (r.fundingTime >= startMs && r.fundingTime <= endMs) out.set(r.fundingTime, r);
      if (page.length < FUNDING_HISTORY_LIMIT) break;
      const last = Math.max(...page.map((r) => r.fundingTime));
      if (last < from) break;
      from = last + 1;
    }
    return [...out.values()].sort((a, b) => a.fundingTime - b.fundingTime);
  }

  /** The candles of `symbol` opening in [startMs, endMs), oldest first, paged by time (1000 a request). */
  async candles(symbol: string, interval: CandleInterval, startMs: number, endMs: number): Promise<SynthetixCandle[]> {
    const out = new Map<number, SynthetixCandle>();
    for (let from = startMs; from < endMs; ) {
      const params = { action: 'getCandles', symbol, interval, startTime: from, endTime: endMs, limit: CANDLES_LIMIT };
      const page = check('getCandles', CandlesResponse, await this.info(params)).response.candles;
      for (const c of page) if (c.openTime >= startMs && c.openTime < endMs) out.set(c.openTime, c);
      if (page.length < CANDLES_LIMIT) break;
      const last = Math.max(...page.map((c) => c.openTime));
      if (last < from) break;
      from = last + 1;
    }
    return [...out.values()].sort((a, b) => a.openTime - b.openTime);
  }

  /** One info action, retried on transient failures; the parsed success envelope. */
  private info(params: Readonly<Record<string, unknown>> & { action: string }): Promise<unknown> {
    return retryTransient(
      params.action,
      () => this.slots.run(() => this.once(params)),
      {
        source: 'synthetix',
        maxRetries: this.options.maxRetries ?? 4,
        baseMs: this.options.baseDelayMs,
        random: this.options.random,
        sleep: this.options.sleep ?? ((ms: number) => sleep(ms)),
        log: this.options.log,
        stats: this.stats,
      },
      (reason, attempts) =>
        new SynthetixApiError(`Synthetix ${params.action}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  private async once(params: Readonly<Record<string, unknown>> & { action: string }): Promise<unknown> {
    const { res, text } = await fetchText(
      this.fetchFn,
      `${this.baseUrl}/v1/info`,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ params }),
      },
      this.options.timeoutMs ?? 20_000,
      (headers) => parseRetryAfter(headers.get('retry-after'), this.clock.nowMs()),
      this.stats,
    );
    const what = `Synthetix ${params.action}`;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body === undefined) {
      if (res.status === 200) throw new Transient(`malformed answer (${text.length} bytes, not JSON)`);
      throw new SynthetixApiError(`${what}: HTTP ${res.status}: ${text.slice(0, 200)}`, false, res.status);
    }
    if (matches(SynthetixError, body)) {
      const { message, code } = body.error;
      if (String(code) === 'INTERNAL_ERROR') throw new Transient(`${code}: ${message}`);
      throw new SynthetixApiError(`${what}: ${code}: ${message}`, false, res.status, String(code));
    }
    if (res.status !== 200) {
      throw new SynthetixApiError(`${what}: HTTP ${res.status}: ${text.slice(0, 200)}`, false, res.status);
    }
    return body;
  }
}
