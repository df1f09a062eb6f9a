import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * CoinGecko API v3 answers, the fields the tokenomics area reads (CoinGecko's OpenAPI description, as its official
 * TypeScript package `@coingecko/coingecko-typescript` 8.2 declares it: `resources/coins/coins.ts`
 * `CoinGetIDResponse`, `coins/market-chart.ts`, `coins/tickers.ts`, `exchanges/exchanges.ts`
 * `ExchangeGetIDResponse`, `global/global.ts`). Objects are open: CoinGecko adds fields between releases, and the
 * answers carry many the area does not read (links, descriptions, images).
 *
 * Where CoinGecko's live answers are looser than its package's types, the schema follows the answers: a coin without
 * a known supply has `total_supply: null` and `max_supply: null`, one without a valuation an empty
 * `fully_diluted_valuation: {}`, a ticker without a trust score `trust_score: null`, and a ticker's depth fields are
 * sent only with `depth=true`.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A map by currency (`usd`, `btc`, `eth`, …): the area reads `usd`, absent when CoinGecko has no figure. */
const ByCurrency = Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()]));

/** `GET /coins/{id}`: the coin and its `market_data` (with `localization=false&tickers=false&…`). */
export const CoingeckoCoin = Type.Object({
  id: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  last_updated: Nullable(Type.String()),
  market_data: Type.Object({
    current_price: ByCurrency,
    market_cap: ByCurrency,
    total_volume: ByCurrency,
    fully_diluted_valuation: ByCurrency,
    circulating_supply: Nullable(Type.Number()),
    total_supply: Nullable(Type.Number()),
    max_supply: Nullable(Type.Number()),
    last_updated: Nullable(Type.String()),
  }),
});
export type CoingeckoCoin = Static<typeof CoingeckoCoin>;

/** A `[unix ms, value]` point. */
const Point = Type.Tuple([Type.Number(), Nullable(Type.Number())]);

/** `GET /coins/{id}/market_chart?vs_currency=usd&days=N&interval=daily`. */
export const CoingeckoMarketChart = Type.Object({
  prices: Type.Array(Point),
  market_caps: Type.Array(Point),
  total_volumes: Type.Array(Point),
});
export type CoingeckoMarketChart = Static<typeof CoingeckoMarketChart>;

const Converted = Type.Object({
  usd: Type.Optional(Nullable(Type.Number())),
  btc: Type.Optional(Nullable(Type.Number())),
  eth: Type.Optional(Nullable(Type.Number())),
});

/** One ticker of `GET /coins/{id}/tickers` (`depth=true` adds `cost_to_move_up_usd` and `cost_to_move_down_usd`). */
export const CoingeckoTicker = Type.Object({
  base: Type.String(),
  target: Type.String(),
  market: Type.Object({
    name: Type.String(),
    identifier: Type.String(),
    has_trading_incentive: Type.Boolean(),
  }),
  last: Nullable(Type.Number()),
  volume: Nullable(Type.Number()),
  converted_last: Converted,
  converted_volume: Converted,
  trust_score: Nullable(Type.String()),
  bid_ask_spread_percentage: Nullable(Type.Number()),
  timestamp: Nullable(Type.String()),
  last_traded_at: Nullable(Type.String()),
  last_fetch_at: Nullable(Type.String()),
  is_anomaly: Type.Boolean(),
  is_stale: Type.Boolean(),
  cost_to_move_up_usd: Type.Optional(Nullable(Type.Number())),
  cost_to_move_down_usd: Type.Optional(Nullable(Type.Number())),
  coin_id: Type.String(),
  target_coin_id: Type.Optional(Type.String()),
});
export type CoingeckoTicker = Static<typeof CoingeckoTicker>;

/** A page of `GET /coins/{id}/tickers` (100 tickers at most). */
export const CoingeckoTickersPage = Type.Object({
  name: Type.String(),
  tickers: Type.Array(CoingeckoTicker),
});
export type CoingeckoTickersPage = Static<typeof CoingeckoTickersPage>;

/** `GET /exchanges/{id}`: whether the venue is centralized, its name and trust score (1–10). */
export const CoingeckoExchange = Type.Object({
  name: Type.String(),
  centralized: Type.Boolean(),
  trust_score: Nullable(Type.Number()),
  trust_score_rank: Nullable(Type.Number()),
  year_established: Nullable(Type.Number()),
  country: Nullable(Type.String()),
  url: Type.String(),
  has_trading_incentive: Nullable(Type.Boolean()),
  trade_volume_24h_btc: Nullable(Type.Number()),
});
export type CoingeckoExchange = Static<typeof CoingeckoExchange>;

/** `GET /global`: the whole market's capitalisation by currency and each large coin's share of it, in percent. */
export const CoingeckoGlobal = Type.Object({
  data: Type.Object({
    total_market_cap: ByCurrency,
    total_volume: ByCurrency,
    market_cap_percentage: Type.Record(Type.String(), Type.Number()),
    market_cap_change_percentage_24h_usd: Nullable(Type.Number()),
    updated_at: Type.Number(),
  }),
});
export type CoingeckoGlobal = Static<typeof CoingeckoGlobal>;

/**
 * CoinGecko's error bodies: `{"status": {"error_code": 429, "error_message": "You've exceeded the Rate Limit…"}}`
 * (rate limits, keys: 10002 missing key, 10005 plan restricted, 10010/10011 a key on the other plan's host) and
 * `{"error": "coin not found"}` (400/404).
 */
export const CoingeckoStatusError = Type.Object({
  status: Type.Object({ error_code: Type.Number(), error_message: Type.String() }),
});
export const CoingeckoPlainError = Type.Object({ error: Type.String() });
