import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the derivatives area's Synthetix part (migration `0020_derivatives_synthetix`; the store's portability
 * rules: decimals as the API's decimal strings, times as integer Unix seconds). Code sees them through
 * `db.withTables<SynthetixTables>()`. Every row names its venue by the registry's protocol id.
 */

/** A market of the exchange (`getMarkets`), with when this service first and last saw it listed. */
export interface SynthetixMarketTable {
  protocol: string;
  /** The exchange's symbol (`BTC-USDT`). */
  symbol: string;
  base_asset: string;
  quote_asset: string;
  /** 1 or 0 (`isOpen`, `isCloseOnly` as last read). */
  is_open: number;
  is_close_only: number;
  first_seen: number;
  last_seen: number;
}

/**
 * The newest state read of a market in one UTC day (`getMarketPrices` and `getOpenInterest`): one row per market and
 * day, replaced by each newer read, so that a past day keeps its last observation and the running day its newest.
 * The API keeps no history of these figures; a day this service did not watch has none.
 */
export interface SynthetixObservationTable {
  protocol: string;
  symbol: string;
  /** The UTC day's first second. */
  day: number;
  /** The API's timestamp of the figures, Unix seconds. */
  time: number;
  mark_price: string;
  index_price: string;
  /** `getOpenInterest`'s sides, base units (each side of the book, not added). */
  long_open_interest: string;
  short_open_interest: string;
  /** `getMarketPrices`' current `fundingRate` (1-hour rate). */
  funding_rate: string;
}

/** One hourly candle (`getCandles`, interval `1h`). The running hour's candle is replaced when read again. */
export interface SynthetixCandleTable {
  protocol: string;
  symbol: string;
  /** Unix seconds. */
  open_time: number;
  close_price: string;
  /** Base units traded. */
  volume: string;
  /** USD (quote units) traded: Σ size × price, each fill once. */
  quote_volume: string;
  trade_count: number;
}

/** One settled funding rate (`getFundingRateHistory`). */
export interface SynthetixFundingTable {
  protocol: string;
  symbol: string;
  /** `fundingTime`, Unix seconds. */
  funding_time: number;
  /** The 1-hour rate as the API spells it (positive: longs pay shorts). */
  rate: string;
}

export type SynthetixTables = {
  synthetix_markets: SynthetixMarketTable;
  synthetix_observations: SynthetixObservationTable;
  synthetix_candles: SynthetixCandleTable;
  synthetix_funding: SynthetixFundingTable;
};

export const SYNTHETIX_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0020_derivatives_synthetix': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('synthetix_markets')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('base_asset', 'text', (c) => c.notNull())
        .addColumn('quote_asset', 'text', (c) => c.notNull())
        .addColumn('is_open', 'integer', (c) => c.notNull())
        .addColumn('is_close_only', 'integer', (c) => c.notNull())
        .addColumn('first_seen', 'bigint', (c) => c.notNull())
        .addColumn('last_seen', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('synthetix_markets_pk', ['protocol', 'symbol'])
        .execute();
      await db.schema
        .createTable('synthetix_observations')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('day', 'bigint', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('mark_price', 'text', (c) => c.notNull())
        .addColumn('index_price', 'text', (c) => c.notNull())
        .addColumn('long_open_interest', 'text', (c) => c.notNull())
        .addColumn('short_open_interest', 'text', (c) => c.notNull())
        .addColumn('funding_rate', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('synthetix_observations_pk', ['protocol', 'symbol', 'day'])
        .execute();
      await db.schema
        .createTable('synthetix_candles')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('open_time', 'bigint', (c) => c.notNull())
        .addColumn('close_price', 'text', (c) => c.notNull())
        .addColumn('volume', 'text', (c) => c.notNull())
        .addColumn('quote_volume', 'text', (c) => c.notNull())
        .addColumn('trade_count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('synthetix_candles_pk', ['protocol', 'symbol', 'open_time'])
        .execute();
      await db.schema
        .createTable('synthetix_funding')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('funding_time', 'bigint', (c) => c.notNull())
        .addColumn('rate', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('synthetix_funding_pk', ['protocol', 'symbol', 'funding_time'])
        .execute();
    },
  },
};
