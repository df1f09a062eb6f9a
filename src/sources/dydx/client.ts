import type { Static, TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.js';
import { parseRetryAfter, Semaphore, type SleepFn, sleep } from '../../core/retry.js';
import type { Clock } from '../../core/time.js';
import type { EvmLogger } from '../evm/types.js';
import { checkAnswer } from '../schema-mismatch.js';
import { fetchText, jsonOrTransient, retryTransient } from '../transient.js';
import {
  BankBalancesResponse,
  type Candle,
  type CandleResolution,
  CandlesResponse,
  HeightResponse,
  type HistoricalFunding,
  HistoricalFundingResponse,
  type PerpetualMarket,
  PerpetualMarketsResponse,
  type Trade,
  TradesResponse,
} from './schemas.js';

/**
 * The dYdX v4 client: the indexer's REST API (markets, candles, hourly funding, taker trades, height) and the chain
 * node's Cosmos REST bank balances. Retries 5xx, 429, timeouts, network errors and malformed bodies with backoff and
 * jitter (core/retry.ts) under a concurrency limit; other 4xx and schema mismatches fail at once (`DydxError`, not
 * retryable).
 *
 * The indexer's 429 carries `Retry-After` in milliseconds (comlink's rate limiter sends `msBeforeNext`) beside
 * `RateLimit-Reset` (Unix milliseconds): the wait is read from those when `RateLimit-Limit` says comlink answered,
 * as standard seconds otherwise (a proxy in front), at most a minute.
 *
 * Paging: trades and funding come newest first, bounded by `createdBeforeOrAt(Height)` / `effectiveBeforeOrAt`;
 * `tradesBetween` and `fundingBetween` walk back page by page until the span's start, never skipping an item at a
 * page boundary (several fills share a block: the next page starts at the last page's oldest height and drops the
 * ids already seen).
 */

/** The indexer's most items per page (comlink's `API_LIMIT_V4`). */
export const DYDX_PAGE_LIMIT = 1000;
export const DYDX_INDEXER_URL = 'https://indexer.dydx.trade';

export interface DydxClientOptions {
  readonly indexerUrl: string;
  /** The chain node's Cosmos REST base (TVL); undefined: balances cannot be read. */
  readonly nodeRestUrl?: string | undefined;
  readonly fetch?: typeof fetch;
  readonly sleep?: SleepFn;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly log?: EvmLogger;
  /** Default 5. */
  readonly maxRetries?: number;
  /** Default 4. */
  readonly maxConcurrency?: number;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
  /** Items per page of trades and funding (default 1000, the indexer's most). */
  readonly pageLimit?: number;
}

export class DydxError extends ServiceError {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
  ) {
    super(message, retryable);
    this.name = 'DydxError';
  }
}

function check<T extends TSchema>(what: string, schema: T, value: unknown): Static<T> {
  return checkAnswer(
    schema,
    value,
    (path, message) => new DydxError(`dydx ${what}: unexpected answer at ${path || '/'}: ${message}`, false),
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The wait a 429 or 503 asks for, in milliseconds (see the class comment), at most a minute. */
export function dydxRetryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const retryAfter = headers.get('retry-after');
  let ms: number | undefined;
  if (headers.has('ratelimit-limit')) {
    const reset = Number(headers.get('ratelimit-reset'));
    if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) ms = Number(retryAfter);
    else if (Number.isFinite(reset) && reset > nowMs) ms = reset - nowMs;
  } else {
    ms = parseRetryAfter(retryAfter, nowMs);
  }
  return ms === undefined ? undefined : Math.min(60_000, ms);
}

export class DydxClient {
  private readonly limiter: Semaphore;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: SleepFn;
  private readonly random: () => number;
  private readonly pageLimit: number;

  constructor(private readonly options: DydxClientOptions) {
    this.limiter = new Semaphore(options.maxConcurrency ?? 4);
    this.fetchFn = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.random = options.random ?? Math.random;
    this.pageLimit = Math.min(DYDX_PAGE_LIMIT, options.pageLimit ?? DYDX_PAGE_LIMIT);
  }

  /** Whether balances (TVL) can be read: a node REST URL is configured. */
  get readsBalances(): boolean {
    return this.options.nodeRestUrl !== undefined;
  }

  /** Every perpetual market the indexer lists, by ticker. */
  async perpetualMarkets(): Promise<Record<string, PerpetualMarket>> {
    const path = '/v4/perpetualMarkets';
    return check(path, PerpetualMarketsResponse, await this.get(this.options.indexerUrl, path)).markets;
  }

  /** The chain's height and its block time. */
  async height(): Promise<{ height: number; timeMs: number }> {
    const r = check('/v4/height', HeightResponse, await this.get(this.options.indexerUrl, '/v4/height'));
    return { height: Number(r.height), timeMs: Date.parse(r.time) };
  }

  /** One page of candles, newest first (`fromISO` inclusive, `toISO` exclusive). */
  async candles(
    ticker: string,
    resolution: CandleResolution,
    page: { fromMs?: number; toMs?: number; limit?: number } = {},
  ): Promise<Candle[]> {
    const q = new URLSearchParams({ resolution });
    if (page.limit !== undefined) q.set('limit', String(page.limit));
    if (page.fromMs !== undefined) q.set('fromISO', iso(page.fromMs));
    if (page.toMs !== undefined) q.set('toISO', iso(page.toMs));
    const path = `/v4/candles/perpetualMarkets/${encodeURIComponent(ticker)}?${q}`;
    return check(path, CandlesResponse, await this.get(this.options.indexerUrl, path)).candles;
  }

  /** One page of hourly funding rates, newest first. */
  async historicalFunding(
    ticker: string,
    page: { effectiveBeforeOrAtMs?: number; limit?: number } = {},
  ): Promise<HistoricalFunding[]> {
    const q = new URLSearchParams({ limit: String(page.limit ?? this.pageLimit) });
    if (page.effectiveBeforeOrAtMs !== undefined) q.set('effectiveBeforeOrAt', iso(page.effectiveBeforeOrAtMs));
    const path = `/v4/historicalFunding/${encodeURIComponent(ticker)}?${q}`;
    return check(path, HistoricalFundingResponse, await this.get(this.options.indexerUrl, path)).historicalFunding;
  }

  /** One page of taker fills, newest first. */
  async trades(
    ticker: string,
    page: { createdBeforeOrAtMs?: number; createdBeforeOrAtHeight?: number; limit?: number } = {},
  ): Promise<Trade[]> {
    const q = new URLSearchParams({ limit: String(page.limit ?? this.pageLimit) });
    if (page.createdBeforeOrAtMs !== undefined) q.set('createdBeforeOrAt', iso(page.createdBeforeOrAtMs));
    if (page.createdBeforeOrAtHeight !== undefined)
      q.set('createdBeforeOrAtHeight', String(page.createdBeforeOrAtHeight));
    const path = `/v4/trades/perpetualMarket/${encodeURIComponent(ticker)}?${q}`;
    return check(path, TradesResponse, await this.get(this.options.indexerUrl, path)).trades;
  }

  /** Every taker fill of `fromMs ≤ createdAt < toMs`, newest first, paging back by height. */
  async tradesBetween(ticker: string, fromMs: number, toMs: number): Promise<Trade[]> {
    const out: Trade[] = [];
    const seen = new Set<string>();
    let page = await this.trades(ticker, { createdBeforeOrAtMs: toMs - 1 });
    for (;;) {
      let fresh = 0;
      let reachedStart = false;
      for (const t of page) {
        if (seen.has(t.id)) continue;
        seen.add(t.id);
        fresh++;
        const at = Date.parse(t.createdAt);
        if (at < fromMs) {
          reachedStart = true;
          continue;
        }
        if (at < toMs) out.push(t);
      }
      if (reachedStart || page.length < this.pageLimit) return out;
      if (fresh === 0) {
        throw new DydxError(`dydx trades of ${ticker}: more than ${this.pageLimit} fills at one height`, false);
      }
      page = await this.trades(ticker, { createdBeforeOrAtHeight: Number(page.at(-1)!.createdAtHeight) });
    }
  }

  /** Every hourly funding rate of `fromMs ≤ effectiveAt ≤ toMs`, newest first. */
  async fundingBetween(ticker: string, fromMs: number, toMs: number): Promise<HistoricalFunding[]> {
    const out: HistoricalFunding[] = [];
    let bound = toMs;
    for (;;) {
      const page = await this.historicalFunding(ticker, { effectiveBeforeOrAtMs: bound });
      for (const f of page) if (Date.parse(f.effectiveAt) >= fromMs) out.push(f);
      const oldest = page.at(-1);
      if (!oldest || page.length < this.pageLimit || Date.parse(oldest.effectiveAt) < fromMs) return out;
      bound = Date.parse(oldest.effectiveAt) - 1;
    }
  }

  /**
   * An account's balance of `denom` in integer units, at a height (the node's `x-cosmos-block-height`) or the
   * latest; 0 when it holds none.
   */
  async balance(address: string, denom: string, height?: number): Promise<bigint> {
    if (this.options.nodeRestUrl === undefined)
      throw new DydxError('dydx: DYDX_NODE_REST_URL is not configured', false);
    const path = `/cosmos/bank/v1beta1/balances/${encodeURIComponent(address)}`;
    const headers: Record<string, string> = height === undefined ? {} : { 'x-cosmos-block-height': String(height) };
    const r = check(path, BankBalancesResponse, await this.get(this.options.nodeRestUrl, path, headers));
    return BigInt(r.balances.find((b) => b.denom === denom)?.amount ?? '0');
  }

  private get(base: string, path: string, headers: Record<string, string> = {}): Promise<unknown> {
    return retryTransient(
      path,
      () => this.limiter.run(() => this.once(base, path, headers)),
      {
        source: 'dydx',
        maxRetries: this.options.maxRetries ?? 5,
        random: this.random,
        sleep: this.sleep,
        log: this.options.log,
      },
      (reason, attempts) => new DydxError(`dydx ${path}: unavailable after ${attempts} attempts: ${reason}`, true),
    );
  }

  private async once(base: string, path: string, headers: Record<string, string>): Promise<unknown> {
    const { res, text } = await fetchText(
      this.fetchFn,
      `${base}${path}`,
      { headers: { accept: 'application/json', ...headers } },
      this.options.timeoutMs ?? 30_000,
      (h) => dydxRetryAfterMs(h, this.options.clock?.nowMs() ?? Date.now()),
    );
    if (res.status !== 200) {
      throw new DydxError(`dydx ${path}: HTTP ${res.status}: ${errorMessage(text)}`, false, res.status);
    }
    return jsonOrTransient(text);
  }
}

/** The indexer's `{errors: [{msg}]}`, or the node's `{code, message}`, or the start of the body. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { errors?: { msg?: unknown }[]; message?: unknown };
    if (Array.isArray(body.errors)) return body.errors.map((e) => String(e.msg)).join('; ');
    if (body.message !== undefined) return String(body.message);
  } catch {}
  return text.slice(0, 200);
}
