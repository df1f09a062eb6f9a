import { HOUR } from '../../../core/time.js';
import type { FaultRates } from '../base/faults.js';
import { streamRng } from '../base/generate.js';
import type { RateLimitConfig, RateWindow } from '../base/ratelimit.js';
import {
  HttpError,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinOptions,
  type StandinRequest,
  type StandinResponse,
  startStandin,
} from '../base/server.js';
import { DYDX_MARKETS, type PerpMarketSpec } from '../perps/markets.js';
import { type ReferencePrices, smoothNoise } from '../perps/prices.js';
import { heightAt, PerpVenueSimulation, type SimFill, timeOfHeight } from '../perps/sim.js';
import {
  CANDLE_RESOLUTIONS,
  type CandleResolution,
  DYDX_INSURANCE_FUND,
  DYDX_SUBACCOUNTS_MODULE,
  DYDX_USDC_DENOM,
  renderCandle,
  renderFunding,
  renderMarket,
  renderTrade,
} from './render.js';

/**
 * The dYdX v4 stand-in: the part of the indexer's REST API (comlink) that `sources/dydx` reads, in its wire format
 * (dydxprotocol/v4-chain 84d4664, `indexer/services/comlink`: `public/swagger.json`, the controllers and
 * `request-transformer.ts`), and the chain node's Cosmos REST bank balances, on one loopback server:
 * - `GET /v4/perpetualMarkets` (`?ticker=`, `?limit=`): `{markets: {[ticker]: PerpetualMarketResponseObject}}`;
 * - `GET /v4/candles/perpetualMarkets/{ticker}?resolution=` (`limit`, `fromISO` inclusive, `toISO` exclusive):
 *   `{candles}` newest first, the current period's candle included;
 * - `GET /v4/historicalFunding/{ticker}` (`limit`, `effectiveBeforeOrAt`, `effectiveBeforeOrAtHeight`): hourly
 *   rates (the protocol's 8-hour rate over 8), newest first;
 * - `GET /v4/trades/perpetualMarket/{ticker}` (`limit`, `createdBeforeOrAt`, `createdBeforeOrAtHeight`): taker
 *   fills, by height descending (ties by event id descending);
 * - `GET /v4/height`; `GET /cosmos/bank/v1beta1/balances/{address}` (header `x-cosmos-block-height` for a past
 *   height): the subaccounts module's and the insurance fund's USDC.
 * `limit` is 1 to 1000 (`API_LIMIT_V4`), 1000 when absent. Bad parameters answer 400 in express-validator 6's
 * shape (`{errors: [{value, msg, param, location}]}`), an unknown ticker too (it fails the ticker check); 429, 5xx
 * and not-found answer `{errors: [{msg}]}`. Rate limits as the indexer's: 100 requests per 10 s per address, the
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (Unix milliseconds) headers, and on a 429
 * `Retry-After` in milliseconds (comlink's `rate-limit.ts` sends `msBeforeNext`). See docs/standins.md.
 */

/** comlink's `API_LIMIT_V4`: the most and the default of `limit`. */
export const DYDX_API_LIMIT = 1000;
/** comlink's default GET limit: 100 points per 10 seconds per address. */
export const DYDX_RATE_LIMIT: RateLimitConfig = { limit: 100, anonymousLimit: 100, windowSeconds: 10 };
/** Fault rates in the sandbox: a rare 5xx and, more rarely, a short 429. */
export const SANDBOX_DYDX_FAULTS: FaultRates = {
  serverError: 0.005,
  secondaryLimit: 0.001,
  secondaryRetryAfterSeconds: 2,
};

export interface DydxStandinOptions extends Omit<StandinOptions, 'rateLimit'> {
  /** The reference prices the venue trades at (the world's, or a seeded path without a world). */
  readonly prices: ReferencePrices;
  readonly markets?: readonly PerpMarketSpec[];
  readonly rateLimit?: Partial<RateLimitConfig>;
}

export interface DydxStandin extends Standin {
  /** The venue: its fills, open interest, funding and oracle per market and hour (tests' ground truth). */
  readonly sim: PerpVenueSimulation;
  /** The USDC (6 decimals, integer units) a module account holds at an instant. */
  balanceAt(address: string, ms: number): bigint;
}

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'x-powered-by': 'Express' };

const errors = (msg: string) => ({ errors: [{ msg }] });

function limitHeaders(w: RateWindow): Record<string, string> {
  return {
    'ratelimit-limit': String(w.limit),
    'ratelimit-remaining': String(w.remaining),
    'ratelimit-reset': String(w.resetSeconds * 1000),
  };
}

const dialect: StandinDialect = {
  defaultResource: 'get',
  commonHeaders: HEADERS,
  errorBody: (_status, message) => errors(message),
  identify: () => undefined,
  rateLimitHeaders: limitHeaders,
  primaryLimited: (w, nowMs) => ({
    status: 429,
    body: errors('Too many requests'),
    headers: { ...limitHeaders(w), 'retry-after': String(Math.max(0, w.resetSeconds * 1000 - nowMs)) },
  }),
  secondaryLimited: (retryAfterSeconds, w) => ({
    status: 429,
    body: errors('Too many requests'),
    headers: { ...(w ? limitHeaders(w) : {}), 'retry-after': String(retryAfterSeconds * 1000) },
  }),
};

/** A 400 as express-validator 6 words it. */
function invalid(value: unknown, msg: string, param: string, location: 'query' | 'params'): never {
  throw new ValidationError({ errors: [{ ...(value === undefined ? {} : { value }), msg, param, location }] });
}

class ValidationError extends Error {
  constructor(readonly body: unknown) {
    super('validation');
  }
}

function limitOf(req: StandinRequest): number {
  const raw = req.query.get('limit');
  const msg = `limit must be a positive integer that is not greater than max: ${DYDX_API_LIMIT}`;
  if (raw === null) return DYDX_API_LIMIT;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n <= 0 || n > DYDX_API_LIMIT) invalid(raw, msg, 'limit', 'query');
  return n;
}

function isoParam(req: StandinRequest, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(ms)) invalid(raw, 'Invalid value', name, 'query');
  return ms;
}

function heightParam(req: StandinRequest, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0)
    invalid(raw, `${name} must be a non-negative integer`, name, 'query');
  return n;
}

export async function startDydxStandin(options: DydxStandinOptions): Promise<DydxStandin> {
  const sim = new PerpVenueSimulation({
    seed: options.seed,
    venue: 'dydx',
    markets: options.markets ?? DYDX_MARKETS,
    prices: options.prices,
  });
  const tickerOf = (value: string | null, location: 'query' | 'params', param = 'ticker') => {
    const market = value === null ? undefined : sim.market(value);
    if (!market) invalid(value ?? undefined, 'ticker must be a valid ticker (BTC-USD, etc)', param, location);
    return market;
  };
  const balanceAt = (address: string, ms: number): bigint => {
    const hour = Math.floor(ms / 1000 / HOUR) * HOUR;
    const usd =
      address === DYDX_SUBACCOUNTS_MODULE
        ? 250e6 * Math.exp(0.1 * smoothNoise(options.seed, 'dydx/subaccounts', hour, 48))
        : address === DYDX_INSURANCE_FUND
          ? 12e6 * Math.exp(0.02 * smoothNoise(options.seed, 'dydx/insurance', hour, 96))
          : 0;
    // Cents within the hour, so that two heights of one hour need not hold the same balance.
    const wiggle = streamRng(options.seed, 'dydx/balance', address, Math.floor(ms / 60_000)).int(100);
    return usd === 0 ? 0n : BigInt(Math.round(usd)) * 1_000_000n + BigInt(wiggle) * 10_000n;
  };

  const guarded = (handler: (req: StandinRequest) => StandinResponse) => (req: StandinRequest) => {
    try {
      return handler(req);
    } catch (err) {
      if (err instanceof ValidationError) return json(err.body, {}, 400);
      throw err;
    }
  };

  const route = (path: string, handler: (req: StandinRequest) => StandinResponse): RouteDef => ({
    method: 'GET',
    path,
    resource: 'get',
    handler: guarded(handler),
  });

  const routes: RouteDef[] = [
    route('/v4/height', (req) => {
      const height = heightAt(req.nowMs);
      return json({ height: String(height), time: new Date(timeOfHeight(height)).toISOString() });
    }),
    route('/v4/perpetualMarkets', (req) => {
      const limit = limitOf(req);
      const only = req.query.has('ticker') ? tickerOf(req.query.get('ticker'), 'query') : undefined;
      const last = sim.lastHour(req.nowMs);
      const markets: Record<string, unknown> = {};
      if (last !== undefined) {
        for (const m of only ? [only] : sim.markets.slice(0, limit)) {
          markets[m.id] = renderMarket(sim, m, sim.hour(m.id, last)!, sim.hour(m.id, last - 24 * HOUR));
        }
      }
      return json({ markets });
    }),
    route('/v4/candles/perpetualMarkets/:ticker', (req) => {
      const m = tickerOf(req.params.ticker!, 'params');
      const resolution = req.query.get('resolution');
      if (resolution === null || !(resolution in CANDLE_RESOLUTIONS)) {
        invalid(
          resolution ?? undefined,
          `resolution must be a valid Candle Resolution, one of ${Object.keys(CANDLE_RESOLUTIONS).join(',')}`,
          'resolution',
          'query',
        );
      }
      const limit = limitOf(req);
      const from = isoParam(req, 'fromISO');
      const to = isoParam(req, 'toISO');
      const last = sim.lastHour(req.nowMs);
      const first = sim.firstHour();
      const candles: unknown[] = [];
      if (last !== undefined && first !== undefined) {
        const span = CANDLE_RESOLUTIONS[resolution as CandleResolution] * 1000;
        const endMs = (last + HOUR) * 1000;
        let start = Math.floor((Math.min(endMs, to ?? endMs) - 1) / span) * span;
        if (to !== undefined && start >= to) start -= span;
        const lowest = Math.max(Math.floor((first * 1000) / span) * span, from ?? 0);
        for (; start >= lowest && candles.length < limit; start -= span) {
          candles.push(renderCandle(sim, m, resolution as CandleResolution, start, endMs));
        }
      }
      return json({ candles });
    }),
    route('/v4/historicalFunding/:ticker', (req) => {
      const m = tickerOf(req.params.ticker!, 'params');
      const limit = limitOf(req);
      const beforeMs = isoParam(req, 'effectiveBeforeOrAt');
      const beforeHeight = heightParam(req, 'effectiveBeforeOrAtHeight');
      const last = sim.lastHour(req.nowMs);
      const first = sim.firstHour();
      const out: unknown[] = [];
      if (last !== undefined && first !== undefined) {
        let bound = (last + HOUR) * 1000;
        if (beforeMs !== undefined) bound = Math.min(bound, beforeMs);
        if (beforeHeight !== undefined) bound = Math.min(bound, timeOfHeight(beforeHeight));
        // The rate of hour h takes effect at h + 1 h: the newest at or before the bound.
        for (let h = Math.floor(bound / 1000 / HOUR) * HOUR - HOUR; h >= first && out.length < limit; h -= HOUR) {
          const hour = sim.hour(m.id, h);
          if (hour) out.push(renderFunding(hour));
        }
      }
      return json({ historicalFunding: out });
    }),
    route('/v4/trades/perpetualMarket/:ticker', (req) => {
      const m = tickerOf(req.params.ticker!, 'params');
      const limit = limitOf(req);
      const beforeMs = isoParam(req, 'createdBeforeOrAt');
      const beforeHeight = heightParam(req, 'createdBeforeOrAtHeight');
      if (req.query.has('page')) {
        // Offset paging orders every fill of the market by event id ascending: the stand-in serves the cursors only.
        throw new HttpError(400, 'page is not served by the sandbox stand-in: page with createdBeforeOrAt(Height)');
      }
      const last = sim.lastHour(req.nowMs);
      const first = sim.firstHour();
      const trades: SimFill[] = [];
      if (last !== undefined && first !== undefined) {
        const keep = (f: SimFill) =>
          (beforeMs === undefined || f.timeMs <= beforeMs) && (beforeHeight === undefined || f.height <= beforeHeight);
        let bound = (last + HOUR) * 1000 - 1;
        if (beforeMs !== undefined) bound = Math.min(bound, beforeMs);
        if (beforeHeight !== undefined) bound = Math.min(bound, timeOfHeight(beforeHeight) + 999);
        for (let h = Math.floor(bound / 1000 / HOUR) * HOUR; h >= first && trades.length < limit; h -= HOUR) {
          const fills = sim.hour(m.id, h)?.fills ?? [];
          for (let i = fills.length - 1; i >= 0 && trades.length < limit; i--)
            if (keep(fills[i]!)) trades.push(fills[i]!);
        }
      }
      trades.sort((a, b) => b.height - a.height || (a.id < b.id ? 1 : -1));
      return json({ trades: trades.map(renderTrade) });
    }),
    route('/cosmos/bank/v1beta1/balances/:address', (req) => {
      const address = req.params.address!;
      const current = heightAt(req.nowMs);
      const header = req.headers['x-cosmos-block-height'];
      const height = typeof header === 'string' && header !== '' ? Number(header) : current;
      if (!/^dydx1[02-9ac-hj-np-z]{38}$/.test(address)) {
        return json({ code: 3, message: `invalid address: decoding bech32 failed: ${address}`, details: [] }, {}, 400);
      }
      if (!Number.isInteger(height) || height < 1 || height > current) {
        return json(
          { code: 3, message: `invalid height ${String(header)}: current height ${current}`, details: [] },
          {},
          400,
        );
      }
      const amount = balanceAt(address, timeOfHeight(height));
      const balances = amount === 0n ? [] : [{ denom: DYDX_USDC_DENOM, amount: amount.toString() }];
      return json(
        { balances, pagination: { next_key: null, total: String(balances.length) } },
        { 'grpc-metadata-x-cosmos-block-height': String(height) },
      );
    }),
  ];

  const standin = await startStandin(
    { name: 'dydx', routes, dialect },
    { ...options, rateLimit: { ...DYDX_RATE_LIMIT, ...options.rateLimit } },
  );
  return { ...standin, sim, balanceAt, close: () => standin.close() };
}
