import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the derivatives area's dYdX part (migration `0019_derivatives_dydx`; the store's portability rules:
 * decimals as the indexer's strings, times as integer Unix seconds, big integers as decimal text). Code sees them
 * through `db.withTables<DydxTables>()`. Keyed by `protocol` (the registry's id of the venue).
 */

/** A perpetual market as the indexer lists it at `observed_at`: the newest answer of `/v4/perpetualMarkets`. */
export interface DydxMarketTable {
  protocol: string;
  ticker: string;
  clob_pair_id: string;
  status: string;
  oracle_price: string;
  /** One side, base units (the indexer's `openInterest`). */
  open_interest: string;
  /** USD; null or '0' when the market's liquidity tier has no cap. */
  open_interest_upper_cap: string | null;
  next_funding_rate: string;
  /** When this state was read (Unix seconds); rewritten only when the state changed. */
  observed_at: number;
  /** When the market was first listed to us. */
  first_seen: number;
}

/** A daily candle (`1DAY`) of a market: the running day's is rewritten at each hourly read. */
export interface DydxCandleTable {
  protocol: string;
  ticker: string;
  /** The day's start, Unix seconds. */
  started_at: number;
  usd_volume: string;
  base_volume: string;
  trades: number;
  open: string;
  close: string;
  starting_open_interest: string;
  /** When it was read. */
  read_at: number;
}

/** One hourly funding rate (`/v4/historicalFunding`): already a 1-hour rate, positive: longs pay shorts. */
export interface DydxFundingTable {
  protocol: string;
  ticker: string;
  effective_at: number;
  effective_at_height: number;
  rate: string;
  /** The oracle price at `effective_at`. */
  price: string;
}

/** One closed hour of a market's taker fills (`/v4/trades`), summed: the skew's and liquidations' inputs. */
export interface DydxTradeHourTable {
  protocol: string;
  ticker: string;
  /** The hour's start, Unix seconds. */
  hour: number;
  fills: number;
  /** Σ size × price of taker buys and sells, USD. */
  buy_usd: number;
  sell_usd: number;
  /** Fills of type LIQUIDATED: their count and Σ size × price. */
  liquidation_count: number;
  liquidation_usd: number;
}

/** A module account's USDC (integer units, 6 decimals) at a height (the bank module over Cosmos REST). */
export interface DydxBalanceTable {
  protocol: string;
  /** `subaccounts` (all traders' collateral) or `insurance_fund`. */
  account: string;
  /** The instant the height stands for (a funding tick's time), Unix seconds. */
  time: number;
  height: number;
  amount: string;
}

export type DydxTables = {
  dydx_markets: DydxMarketTable;
  dydx_candles: DydxCandleTable;
  dydx_funding: DydxFundingTable;
  dydx_trade_hours: DydxTradeHourTable;
  dydx_balances: DydxBalanceTable;
};

export const DYDX_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0019_derivatives_dydx': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('dydx_markets')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('ticker', 'text', (c) => c.notNull())
        .addColumn('clob_pair_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('oracle_price', 'text', (c) => c.notNull())
        .addColumn('open_interest', 'text', (c) => c.notNull())
        .addColumn('open_interest_upper_cap', 'text')
        .addColumn('next_funding_rate', 'text', (c) => c.notNull())
        .addColumn('observed_at', 'bigint', (c) => c.notNull())
        .addColumn('first_seen', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dydx_markets_pk', ['protocol', 'ticker'])
        .execute();
      await db.schema
        .createTable('dydx_candles')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('ticker', 'text', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('usd_volume', 'text', (c) => c.notNull())
        .addColumn('base_volume', 'text', (c) => c.notNull())
        .addColumn('trades', 'bigint', (c) => c.notNull())
        .addColumn('open', 'text', (c) => c.notNull())
        .addColumn('close', 'text', (c) => c.notNull())
        .addColumn('starting_open_interest', 'text', (c) => c.notNull())
        .addColumn('read_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dydx_candles_pk', ['protocol', 'ticker', 'started_at'])
        .execute();
      await db.schema
        .createTable('dydx_funding')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('ticker', 'text', (c) => c.notNull())
        .addColumn('effective_at', 'bigint', (c) => c.notNull())
        .addColumn('effective_at_height', 'bigint', (c) => c.notNull())
        .addColumn('rate', 'text', (c) => c.notNull())
        .addColumn('price', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('dydx_funding_pk', ['protocol', 'ticker', 'effective_at'])
        .execute();
      await db.schema
        .createTable('dydx_trade_hours')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('ticker', 'text', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('fills', 'bigint', (c) => c.notNull())
        .addColumn('buy_usd', 'double precision', (c) => c.notNull())
        .addColumn('sell_usd', 'double precision', (c) => c.notNull())
        .addColumn('liquidation_count', 'bigint', (c) => c.notNull())
        .addColumn('liquidation_usd', 'double precision', (c) => c.notNull())
        .addPrimaryKeyConstraint('dydx_trade_hours_pk', ['protocol', 'ticker', 'hour'])
        .execute();
      await db.schema
        .createTable('dydx_balances')
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('height', 'bigint', (c) => c.notNull())
        .addColumn('amount', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('dydx_balances_pk', ['protocol', 'account', 'time'])
        .execute();
    },
  },
};
