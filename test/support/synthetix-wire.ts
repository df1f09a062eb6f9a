import { closedObject, conformance } from './wire-conformance.js';

/**
 * The Synthetix exchange's info API answers as Synthetix documents them
 * (developers.synthetix.io/developer-resources/api/rest-api/info/<action>), transcribed as closed JSON schemas for the
 * conformance of the sandbox's Synthetix stand-in (docs/standins.md, "The Synthetix source"): every field a page's
 * example and field table name, the ones the source reads required. `getFundingRateHistory`'s response could not be
 * read from the stored page: its schema is the source's reading (`{symbol, fundingRates: [{symbol, fundingRate,
 * fundingTime}]}`), to be confirmed against the live service.
 */

export const SYNTHETIX_SPEC = 'https://developers.synthetix.io/developer-resources/api/rest-api/info';
const Decimal = { type: 'string', pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$' };
const Millis = { type: 'integer', minimum: 0 };
const ok = (response: object) =>
  closedObject({ status: { const: 'ok' }, response: response as never, request_id: { type: 'string' } }, [
    'status',
    'response',
  ]);

const MarginTier = closedObject(
  {
    minPositionSize: Decimal,
    maxPositionSize: { anyOf: [Decimal, { type: 'null' }] },
    maxLeverage: { type: 'number' },
    initialMarginRequirement: Decimal,
    maintenanceMarginRequirement: Decimal,
  },
  ['minPositionSize', 'maxPositionSize', 'maxLeverage', 'initialMarginRequirement', 'maintenanceMarginRequirement'],
);
const Market = closedObject(
  {
    symbol: { type: 'string' },
    description: { type: 'string' },
    baseAsset: { type: 'string' },
    quoteAsset: { type: 'string' },
    isOpen: { type: 'boolean' },
    isCloseOnly: { type: 'boolean' },
    priceExponent: { type: 'integer' },
    quantityExponent: { type: 'integer' },
    priceIncrement: Decimal,
    minOrderSize: Decimal,
    orderSizeIncrement: Decimal,
    largePositionPenalty: Decimal,
    contractSize: { type: 'number' },
    maxMarketOrderSize: Decimal,
    maxLimitOrderSize: Decimal,
    minOrderPrice: Decimal,
    limitOrderPriceCapRatio: Decimal,
    limitOrderPriceFloorRatio: Decimal,
    marketOrderPriceCapRatio: Decimal,
    marketOrderPriceFloorRatio: Decimal,
    liquidationClearanceFee: Decimal,
    minNotionalValue: Decimal,
    maintenanceMarginTiers: { type: 'array', items: MarginTier },
  },
  ['symbol', 'description', 'baseAsset', 'quoteAsset', 'isOpen', 'isCloseOnly', 'contractSize'],
);
const MarketPrice = closedObject(
  {
    symbol: { type: 'string' },
    markPrice: Decimal,
    indexPrice: Decimal,
    lastPrice: Decimal,
    bestBid: Decimal,
    bestAsk: Decimal,
    volume24h: Decimal,
    quoteVolume24h: Decimal,
    fundingRate: Decimal,
    openInterest: Decimal,
    prevDayPrice: Decimal,
    timestamp: Millis,
  },
  [
    'symbol',
    'markPrice',
    'indexPrice',
    'lastPrice',
    'volume24h',
    'quoteVolume24h',
    'fundingRate',
    'openInterest',
    'timestamp',
  ],
);
const OpenInterest = closedObject(
  {
    symbol: { type: 'string' },
    openInterest: Decimal,
    longOpenInterest: Decimal,
    shortOpenInterest: Decimal,
    timestamp: Millis,
  },
  ['symbol', 'openInterest', 'longOpenInterest', 'shortOpenInterest', 'timestamp'],
);
const Candle = closedObject(
  {
    openTime: Millis,
    closeTime: Millis,
    openPrice: Decimal,
    highPrice: Decimal,
    lowPrice: Decimal,
    closePrice: Decimal,
    volume: Decimal,
    quoteVolume: Decimal,
    tradeCount: { type: 'integer', minimum: 0 },
  },
  ['openTime', 'closeTime', 'openPrice', 'highPrice', 'lowPrice', 'closePrice', 'volume', 'quoteVolume', 'tradeCount'],
);
const FundingRate = closedObject({ symbol: { type: 'string' }, fundingRate: Decimal, fundingTime: Millis }, [
  'fundingRate',
  'fundingTime',
]);

/** The response schemas by action, and the error envelope (`Error`). */
export const SYNTHETIX_RESPONSES = {
  getMarkets: ok({ type: 'array', items: Market }),
  getMarketPrices: ok({ type: 'object', additionalProperties: MarketPrice }),
  getOpenInterest: ok({ type: 'array', items: OpenInterest }),
  getCandles: ok(
    closedObject(
      { symbol: { type: 'string' }, interval: { type: 'string' }, candles: { type: 'array', items: Candle } },
      ['symbol', 'interval', 'candles'],
    ),
  ),
  getFundingRateHistory: ok(
    closedObject({ symbol: { type: 'string' }, fundingRates: { type: 'array', items: FundingRate } }, [
      'symbol',
      'fundingRates',
    ]),
  ),
  Error: closedObject(
    {
      status: { const: 'error' },
      error: closedObject({ message: { type: 'string' }, code: { type: ['string', 'number'] } }, ['message', 'code']),
      request_id: { type: 'string' },
      timestamp: { type: 'string' },
    },
    ['status', 'error'],
  ),
};

/** A validator of answers: `synthetixWire.errors(`${SYNTHETIX_SPEC}#/$defs/getMarkets`, body)`. */
export const synthetixWire = conformance({ [SYNTHETIX_SPEC]: { $defs: SYNTHETIX_RESPONSES } as never });
