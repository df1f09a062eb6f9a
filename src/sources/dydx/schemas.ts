/**
 * Schemas of the dYdX v4 answers the source reads: the indexer's (comlink, `public/swagger.json` of
 * dydxprotocol/v4-chain) and the chain node's Cosmos REST bank balances. Only the fields used are required; the
 * objects stay open (the indexer adds fields over releases). Decimals are strings and stay strings until a figure is
 * computed from them; a field missing or malformed fails at the boundary, naming it.
 */
import { type Static, Type } from '@sinclair/typebox';

const Decimal = Type.String({ pattern: '^-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?$' });
const Uint = Type.String({ pattern: '^\\d+$' });
/**
 * An instant as comlink writes it (`2026-11-19T23:59:59.999Z`): a calendar date and a time of day, with its zone. A
 * string that only starts like one (`2026-13-45T99:…`) would parse to no instant, and a fill at no instant would fall
 * silently out of every hour: it fails here instead.
 */
const Iso = Type.String({
  pattern:
    '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$',
});

export const PERPETUAL_MARKET_STATUSES = [
  'ACTIVE',
  'PAUSED',
  'CANCEL_ONLY',
  'POST_ONLY',
  'INITIALIZING',
  'FINAL_SETTLEMENT',
] as const;

export const PerpetualMarket = Type.Object({
  clobPairId: Uint,
  ticker: Type.String({ minLength: 1 }),
  status: Type.Union(PERPETUAL_MARKET_STATUSES.map((s) => Type.Literal(s))),
  oraclePrice: Decimal,
  priceChange24H: Decimal,
  volume24H: Decimal,
  trades24H: Type.Integer({ minimum: 0 }),
  nextFundingRate: Decimal,
  openInterest: Decimal,
  atomicResolution: Type.Integer(),
  tickSize: Decimal,
  stepSize: Decimal,
  marketType: Type.Optional(Type.String()),
  openInterestLowerCap: Type.Optional(Decimal),
  openInterestUpperCap: Type.Optional(Decimal),
  initialMarginFraction: Decimal,
  maintenanceMarginFraction: Decimal,
});
export type PerpetualMarket = Static<typeof PerpetualMarket>;

export const PerpetualMarketsResponse = Type.Object({ markets: Type.Record(Type.String(), PerpetualMarket) });

export const CANDLE_RESOLUTIONS = ['1MIN', '5MINS', '15MINS', '30MINS', '1HOUR', '4HOURS', '1DAY'] as const;
export type CandleResolution = (typeof CANDLE_RESOLUTIONS)[number];

export const Candle = Type.Object({
  startedAt: Iso,
  ticker: Type.String(),
  resolution: Type.Union(CANDLE_RESOLUTIONS.map((r) => Type.Literal(r))),
  low: Decimal,
  high: Decimal,
  open: Decimal,
  close: Decimal,
  baseTokenVolume: Decimal,
  usdVolume: Decimal,
  trades: Type.Integer({ minimum: 0 }),
  startingOpenInterest: Decimal,
});
export type Candle = Static<typeof Candle>;
export const CandlesResponse = Type.Object({ candles: Type.Array(Candle) });

export const HistoricalFunding = Type.Object({
  ticker: Type.String(),
  rate: Decimal,
  price: Decimal,
  effectiveAt: Iso,
  effectiveAtHeight: Uint,
});
export type HistoricalFunding = Static<typeof HistoricalFunding>;
export const HistoricalFundingResponse = Type.Object({ historicalFunding: Type.Array(HistoricalFunding) });

export const Trade = Type.Object({
  id: Type.String({ minLength: 1 }),
  side: Type.Union([Type.Literal('BUY'), Type.Literal('SELL')]),
  size: Decimal,
  price: Decimal,
  type: Type.String(),
  createdAt: Iso,
  createdAtHeight: Uint,
});
export type Trade = Static<typeof Trade>;
export const TradesResponse = Type.Object({ trades: Type.Array(Trade) });

export const HeightResponse = Type.Object({ height: Uint, time: Iso });

export const BankBalancesResponse = Type.Object({
  balances: Type.Array(Type.Object({ denom: Type.String(), amount: Uint })),
});
