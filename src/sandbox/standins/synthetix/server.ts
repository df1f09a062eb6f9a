import { HOUR } from '../../../core/time.js';
import type { FaultRates } from '../base/faults.js';
import { hexDigits, streamRng } from '../base/generate.js';
import type { RateLimitConfig, RateWindow } from '../base/ratelimit.js';
import {
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinOptions,
  type StandinResponse,
  startStandin,
} from '../base/server.js';
import { decimalString } from '../perps/decimal.js';
import { type PerpMarketSpec, SYNTHETIX_MARKETS } from '../perps/markets.js';
import type { ReferencePrices } from '../perps/prices.js';
import { PerpVenueSimulation } from '../perps/sim.js';

/**
 * The stand-in of Synthetix's perpetuals exchange's info API (`POST /v1/info`, `{params: {action, …}}`, public, no
 * authentication), as developers.synthetix.io documents it (REST API → Info, read 2026-11): `getMarkets`,
 * `getMarketPrices`, `getOpenInterest`, `getCandles` and `getFundingRateHistory`, each answered in the success
 * envelope `{status: "ok", response, request_id}` or the error envelope `{status: "error", error: {code, message},
 * request_id, timestamp}` (RFC 3339, the API notation page's REST form). Numbers are strings, times Unix
 * milliseconds. Open interest as the exchange documents it: `openInterest` is the total of `longOpenInterest` and
 * `shortOpenInterest` (its example: 1250.50 = 750.25 + 500.25), so on this order book, where every contract has a
 * long and a short side, it counts each contract twice; one side is `longOpenInterest` (= `shortOpenInterest`).
 * Funding history: `symbol`, `startTime` and `endTime` required, neither more than 30 days in the past, `limit`
 * capped at 2160; hourly points (the 1-hour rate). Its answer's shape is not shown on the page read: the stand-in
 * answers `{symbol, fundingRates: [{symbol, fundingRate, fundingTime}]}`, oldest first (docs/standins.md).
 * Rate limit: 600 requests a minute per address (the REST API page), 429 with `Retry-After` in seconds.
 */

export const SYNTHETIX_RATE_LIMIT: RateLimitConfig = { limit: 600, anonymousLimit: 600, windowSeconds: 60 };
export const SANDBOX_SYNTHETIX_FAULTS: FaultRates = {
  serverError: 0.005,
  secondaryLimit: 0.001,
  secondaryRetryAfterSeconds: 2,
};
/** The history `getFundingRateHistory` reaches back. */
export const FUNDING_HISTORY_DAYS = 30;
export const FUNDING_HISTORY_LIMIT = 2160;

const INTERVALS: Readonly<Record<string, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
  '1w': 604_800_000,
  '1M': 2_592_000_000,
};

export interface SynthetixStandinOptions extends Omit<StandinOptions, 'rateLimit'> {
  readonly prices: ReferencePrices;
  readonly markets?: readonly PerpMarketSpec[];
  readonly rateLimit?: Partial<RateLimitConfig>;
}

export interface SynthetixStandin extends Standin {
  /** The venue: fills, open interest (one side), funding and oracle per market and hour (tests' ground truth). */
  readonly sim: PerpVenueSimulation;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startSynthetixStandin(options: SynthetixStandinOptions): Promise<SynthetixStandin> {
  const sim = new PerpVenueSimulation({
    seed: options.seed,
    venue: 'synthetix',
    markets: options.markets ?? SYNTHETIX_MARKETS,
    prices: options.prices,
  });
  const ids = streamRng(options.seed, 'synthetix', 'request-ids');
  const requestId = () => hexDigits(ids, 16);
  const errorEnvelope = (code: string, message: string, nowMs: number) => ({
    status: 'error',
    error: { code, message },
    request_id: requestId(),
    timestamp: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  });
  const limitHeaders = (w: RateWindow): Record<string, string> => ({
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(w.resetSeconds),
  });
  const dialect: StandinDialect = {
    defaultResource: 'info',
    commonHeaders: { 'content-type': 'application/json' },
    errorBody: (status, message) =>
      errorEnvelope(
        status >= 500 ? 'INTERNAL_ERROR' : status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST',
        message,
        options.clock.nowMs(),
      ),
    identify: () => undefined,
    rateLimitHeaders: limitHeaders,
    primaryLimited: (w, nowMs) => ({
      status: 429,
      body: errorEnvelope('RATE_LIMIT_EXCEEDED', 'Too many requests', nowMs),
      headers: { ...limitHeaders(w), 'retry-after': String(Math.max(1, w.resetSeconds - Math.floor(nowMs / 1000))) },
    }),
    secondaryLimited: (retryAfterSeconds, w) => ({
      status: 429,
      body: errorEnvelope('RATE_LIMIT_EXCEEDED', 'Too many requests', options.clock.nowMs()),
      headers: { ...(w ? limitHeaders(w) : {}), 'retry-after': String(retryAfterSeconds) },
    }),
  };

  const marketOf = (symbol: unknown): PerpMarketSpec => {
    const m = typeof symbol === 'string' ? sim.market(symbol.toUpperCase()) : undefined;
    if (!m) throw new ApiError(400, 'INVALID_SYMBOL', `invalid symbol: ${String(symbol)}`);
    return m;
  };
  const int = (value: unknown, name: string): number | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw new ApiError(400, 'INVALID_PARAMS', `${name} must be an integer`);
    return value;
  };
  const oneSide = (m: PerpMarketSpec, nowMs: number) => {
    const last = sim.lastHour(nowMs);
    return last === undefined ? undefined : sim.hour(m.id, last);
  };

  const actions: Record<string, (p: Record<string, unknown>, nowMs: number) => unknown> = {
    getMarkets: () =>
      sim.markets.map((m) => ({
        symbol: m.id,
        description: m.base,
        baseAsset: m.base,
        quoteAsset: 'USDT',
        isOpen: true,
        isCloseOnly: false,
        priceExponent: m.tickDecimals,
        quantityExponent: m.stepDecimals,
        priceIncrement: decimalString(1, m.tickDecimals),
        minOrderSize: decimalString(1, m.stepDecimals),
        orderSizeIncrement: decimalString(1, m.stepDecimals),
        contractSize: 1,
        minNotionalValue: '10',
      })),
    getMarketPrices: (_p, nowMs) => {
      const out: Record<string, unknown> = {};
      for (const m of sim.markets) {
        const h = oneSide(m, nowMs);
        if (!h) continue;
        const end = (h.hour + HOUR) * 1000;
        const day = sim.aggregate(m.id, end - 24 * HOUR * 1000, end, nowMs);
        const price = decimalString(h.oracleCloseTicks, m.tickDecimals);
        const last = h.fills.at(-1);
        out[m.id] = {
          symbol: m.id,
          markPrice: price,
          indexPrice: price,
          lastPrice: last?.price ?? price,
          bestBid: decimalString(h.oracleCloseTicks - 1, m.tickDecimals),
          bestAsk: decimalString(h.oracleCloseTicks + 1, m.tickDecimals),
          volume24h: decimalString(day.baseSteps, m.stepDecimals),
          quoteVolume24h: decimalString(day.notionalUnits, m.stepDecimals + m.tickDecimals),
          fundingRate: h.funding.rate,
          openInterest: decimalString(2 * h.openInterestEndSteps, m.stepDecimals),
          prevDayPrice: decimalString(
            sim.hour(m.id, h.hour - 24 * HOUR)?.oracleCloseTicks ?? h.oracleOpenTicks,
            m.tickDecimals,
          ),
          timestamp: end,
        };
      }
      return out;
    },
    getOpenInterest: (_p, nowMs) =>
      sim.markets.flatMap((m) => {
        const h = oneSide(m, nowMs);
        if (!h) return [];
        const side = decimalString(h.openInterestEndSteps, m.stepDecimals);
        return [
          {
            symbol: m.id,
            openInterest: decimalString(2 * h.openInterestEndSteps, m.stepDecimals),
            longOpenInterest: side,
            shortOpenInterest: side,
            timestamp: (h.hour + HOUR) * 1000,
          },
        ];
      }),
    getCandles: (p, nowMs) => {
      const m = marketOf(p.symbol);
      const interval = p.interval;
      if (typeof interval !== 'string' || !(interval in INTERVALS)) {
        throw new ApiError(400, 'INVALID_PARAMS', `interval must be one of ${Object.keys(INTERVALS).join(', ')}`);
      }
      const span = INTERVALS[interval]!;
      const endTime = int(p.endTime, 'endTime') ?? nowMs;
      const startTime = int(p.startTime, 'startTime') ?? endTime - 86_400_000;
      const requested = int(p.limit, 'limit') ?? 500;
      const limit = requested <= 0 ? Number.POSITIVE_INFINITY : Math.min(1000, requested);
      const last = sim.lastHour(nowMs);
      const first = sim.firstHour();
      const candles: unknown[] = [];
      if (last !== undefined && first !== undefined) {
        const dataEnd = (last + HOUR) * 1000;
        const from = Math.max(Math.floor(startTime / span) * span, Math.floor((first * 1000) / span) * span);
        for (let open = from; open < Math.min(endTime, dataEnd) && candles.length < limit; open += span) {
          const a = sim.aggregate(m.id, open, open + span, nowMs);
          const at = sim.oracleTicksAt(m.id, Math.max(open, first * 1000)) ?? 0;
          const px = (ticks: number | undefined) => decimalString(ticks ?? at, m.tickDecimals);
          candles.push({
            openTime: open,
            closeTime: open + span,
            openPrice: px(a.openTicks),
            highPrice: px(a.highTicks),
            lowPrice: px(a.lowTicks),
            closePrice: px(a.closeTicks),
            volume: decimalString(a.baseSteps, m.stepDecimals),
            quoteVolume: decimalString(a.notionalUnits, m.stepDecimals + m.tickDecimals),
            tradeCount: a.trades,
          });
        }
      }
      return { symbol: m.id, interval, candles };
    },
    getFundingRateHistory: (p, nowMs) => {
      const m = marketOf(p.symbol);
      const startTime = int(p.startTime, 'startTime');
      const endTime = int(p.endTime, 'endTime');
      const oldest = nowMs - FUNDING_HISTORY_DAYS * 86_400_000;
      if (!startTime || !endTime) throw new ApiError(400, 'INVALID_PARAMS', 'startTime and endTime are required');
      if (startTime < oldest || endTime < oldest) {
        throw new ApiError(
          400,
          'INVALID_PARAMS',
          `startTime and endTime cannot be more than ${FUNDING_HISTORY_DAYS} days in the past`,
        );
      }
      if (startTime >= endTime) throw new ApiError(400, 'INVALID_PARAMS', 'startTime must be before endTime');
      const requested = int(p.limit, 'limit') ?? 0;
      const limit = requested <= 0 || requested > FUNDING_HISTORY_LIMIT ? FUNDING_HISTORY_LIMIT : requested;
      const fundingRates: unknown[] = [];
      const last = sim.lastHour(nowMs);
      if (last !== undefined) {
        // The rate of hour h takes effect at its end: the points of startTime ≤ h + 1 h ≤ endTime.
        for (
          let h = Math.ceil(startTime / 1000 / HOUR) * HOUR - HOUR;
          h <= last && fundingRates.length < limit;
          h += HOUR
        ) {
          const hour = sim.hour(m.id, h);
          if (!hour || hour.funding.effectiveAtMs > endTime) continue;
          fundingRates.push({ symbol: m.id, fundingRate: hour.funding.rate, fundingTime: hour.funding.effectiveAtMs });
        }
      }
      return { symbol: m.id, fundingRates };
    },
  };

  const info: RouteDef = {
    method: 'POST',
    path: '/v1/info',
    resource: 'info',
    handler: (req): StandinResponse => {
      try {
        let body: { params?: Record<string, unknown> };
        try {
          body = JSON.parse(req.body) as typeof body;
        } catch {
          throw new ApiError(400, 'INVALID_REQUEST', 'request body must be JSON');
        }
        const params = body?.params;
        const action = params && typeof params === 'object' ? params.action : undefined;
        const run = typeof action === 'string' ? actions[action] : undefined;
        if (!params || !run) throw new ApiError(400, 'INVALID_REQUEST', `unknown action: ${String(action)}`);
        return json({ status: 'ok', response: run(params, req.nowMs), request_id: requestId() });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return json(errorEnvelope(err.code, err.message, req.nowMs), {}, err.status);
      }
    },
  };

  const standin = await startStandin(
    { name: 'synthetix', routes: [info], dialect },
    { ...options, rateLimit: { ...SYNTHETIX_RATE_LIMIT, ...options.rateLimit } },
  );
  return { ...standin, sim, close: () => standin.close() };
}
