import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * The Synthetix exchange's info API (`POST https://papi.synthetix.io/v1/info`, `{"params": {"action": …}}`), as
 * Synthetix documents it at developers.synthetix.io/developer-resources/api/rest-api/info/<action>: the success
 * envelope `{status: "ok", response, request_id}` and the error envelope `{status: "error", error: {message, code},
 * request_id, timestamp}`. Numbers that carry amounts or prices are decimal strings; times are Unix milliseconds.
 * Fields the documentation adds later are accepted and ignored.
 */

/** A decimal string (`"45025.37500000"`, `"-0.0000125"`). */
export const Decimal = Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$' });

export const SynthetixError = Type.Object({
  status: Type.Literal('error'),
  error: Type.Object({ message: Type.String(), code: Type.Union([Type.String(), Type.Number()]) }),
  request_id: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.String()),
});
export type SynthetixError = Static<typeof SynthetixError>;

/** The success envelope around an action's `response`. */
export const ok = <T extends TSchema>(response: T) =>
  Type.Object({ status: Type.Literal('ok'), response, request_id: Type.Optional(Type.String()) });

/** `getMarkets`: one market's configuration (the fields the service reads; the margin tiers and limits pass). */
export const SynthetixMarket = Type.Object({
  symbol: Type.String(),
  description: Type.String(),
  baseAsset: Type.String(),
  quoteAsset: Type.String(),
  isOpen: Type.Boolean(),
  isCloseOnly: Type.Boolean(),
  contractSize: Type.Number(),
  minNotionalValue: Type.Optional(Decimal),
});
export type SynthetixMarket = Static<typeof SynthetixMarket>;

/** `getMarketPrices`: a map by symbol of current prices and rolling 24-hour figures. */
export const SynthetixMarketPrice = Type.Object({
  symbol: Type.String(),
  markPrice: Decimal,
  indexPrice: Decimal,
  lastPrice: Decimal,
  bestBid: Type.Optional(Decimal),
  bestAsk: Type.Optional(Decimal),
  volume24h: Decimal,
  quoteVolume24h: Decimal,
  fundingRate: Decimal,
  openInterest: Decimal,
  prevDayPrice: Type.Optional(Decimal),
  timestamp: Type.Number(),
});
export type SynthetixMarketPrice = Static<typeof SynthetixMarketPrice>;

/**
 * `getOpenInterest`: per market, in base-asset units. `openInterest` is the total of both sides: every example of
 * the documentation has `openInterest = longOpenInterest + shortOpenInterest` (1250.50 = 750.25 + 500.25), so on
 * this order book, where every long faces a short, one side is `openInterest / 2` (docs/standins.md, "Synthetix").
 */
export const SynthetixOpenInterest = Type.Object({
  symbol: Type.String(),
  openInterest: Decimal,
  longOpenInterest: Decimal,
  shortOpenInterest: Decimal,
  timestamp: Type.Number(),
});
export type SynthetixOpenInterest = Static<typeof SynthetixOpenInterest>;

/**
 * `getFundingRateHistory`: the funding rates applied within [startTime, endTime], no more than 30 days back, at
 * most 2160 per answer. The documentation's request side is explicit; its response example could not be read from
 * the stored pages, so the shape below follows the sibling `getCandles` answer (`{symbol, <list>}`): see
 * docs/standins.md, "Synthetix", for what to check against the live service.
 */
export const SynthetixFundingRate = Type.Object({
  symbol: Type.Optional(Type.String()),
  fundingRate: Decimal,
  fundingTime: Type.Number(),
});
export type SynthetixFundingRate = Static<typeof SynthetixFundingRate>;
export const SynthetixFundingHistory = Type.Object({
  symbol: Type.String(),
  fundingRates: Type.Array(SynthetixFundingRate),
});

/** `getCandles`: OHLCV candles of one market and interval. */
export const SynthetixCandle = Type.Object({
  openTime: Type.Number(),
  closeTime: Type.Number(),
  openPrice: Decimal,
  highPrice: Decimal,
  lowPrice: Decimal,
  closePrice: Decimal,
  volume: Decimal,
  quoteVolume: Decimal,
  tradeCount: Type.Integer({ minimum: 0 }),
});
export type SynthetixCandle = Static<typeof SynthetixCandle>;
export const SynthetixCandles = Type.Object({
  symbol: Type.String(),
  interval: Type.String(),
  candles: Type.Array(SynthetixCandle),
});

export const MarketsResponse = ok(Type.Array(SynthetixMarket));
export const MarketPricesResponse = ok(Type.Record(Type.String(), SynthetixMarketPrice));
export const OpenInterestResponse = ok(Type.Array(SynthetixOpenInterest));
export const FundingHistoryResponse = ok(SynthetixFundingHistory);
export const CandlesResponse = ok(SynthetixCandles);

export const CANDLE_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M'] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];
