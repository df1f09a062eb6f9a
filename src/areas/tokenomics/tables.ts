import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the tokenomics area (migration `0021_tokenomics`; the store's portability rules: token amounts as
 * decimal strings of the raw integer, addresses lowercase hex, times integer Unix seconds). Code sees them through
 * `db.withTables<TokenomicsTables>()`.
 *
 * The holder set is a ledger kept incrementally: `tok_balances` holds every address's balance at the block of
 * `tok_ledgers` (the ingest's checkpoint), updated by each range's `Transfer`s in the range's transaction, so a new
 * range costs its own transfers, never the token's history. `tok_transfers` keeps the recent transfers (the
 * retention of `TRANSFER_RETENTION_SECONDS`): what the 24-hour figures count, and what turns the ledger back to a
 * past day's end block (balance there = balance now − what moved after).
 */

/** One ERC-20 `Transfer` of a tracked token (recent ones: the retention prunes older rows). */
export interface TokTransferTable {
  chain: string;
  token: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  from_address: string;
  to_address: string;
  /** Raw units, decimal string. */
  value: string;
  timestamp: number;
}

/** An address's balance at the ledger's block, replayed from every `Transfer` since the token's deployment. */
export interface TokBalanceTable {
  chain: string;
  token: string;
  address: string;
  /** Raw units, decimal string; never "0" (an emptied address leaves the table). Negative only if a replay is wrong. */
  balance: string;
}

/** The ledger of a token: the block its balances are at, and up to where its transfers were pruned. */
export interface TokLedgerTable {
  chain: string;
  token: string;
  /** First block of the replay (the token's deployment block, or 0). */
  start_block: number;
  /** Last block whose transfers are in `tok_balances`. */
  block_number: number;
  /** Transfers at or below this block were pruned from `tok_transfers` (0: none). */
  pruned_through: number;
  /** Number of transfers applied since the start (all time, not only the retained ones). */
  transfers: number;
  /** Minted less burnt (transfers from and to the zero address) since the start, raw units: Σ of the balances. */
  supply: string;
}

/**
 * The token's state read at a block (the ingested head every `SNAPSHOT_EVERY`, and each past UTC day's last block):
 * `totalSupply()`, `balanceOf` of a sample of the ledger's addresses against the ledger at that block, and the views
 * of every labelled contract (vesting, distributor, treasury).
 */
export interface TokSnapshotTable {
  chain: string;
  token: string;
  block_number: number;
  timestamp: number;
  /** `totalSupply()` at the block, raw units. */
  total_supply: string;
  /** Σ of the ledger's balances at the block (mints − burns to the zero address), raw units. */
  replayed_supply: string;
  /** JSON: `[{address, ledger, onchain}]` of the sampled addresses. */
  sample: string;
  /** JSON: the labelled contracts' readings (`ContractReading[]` of facts.ts). */
  contracts: string;
}

/**
 * A market-data reading (migration `0022_tokenomics_market`): what one run of `tokenomics.market` fetched from the
 * CoinGecko source, at its fetch time. `kind` `coin`: a tracked token's `/coins/{id}`, daily `market_chart` and
 * tickers (`CoinReading` of market-days.ts); `chart`: a reference coin's daily chart (`ethereum`, `bitcoin`);
 * `global`: `/global`'s total market cap (`coin_id` `global`). Kept `MARKET_RETENTION_SECONDS` (8 days).
 */
export interface TokMarketReadingTable {
  kind: string;
  coin_id: string;
  /** Unix seconds: when the run fetched it (every row of a run has the run's time). */
  fetched_at: number;
  /** JSON of the reading. */
  payload: string;
}

/** An exchange's `/exchanges/{id}` flag, refreshed at most daily (`EXCHANGE_REFRESH_SECONDS`). */
export interface TokMarketExchangeTable {
  exchange_id: string;
  name: string;
  /** 1: centralized (CEX), 0: not (DEX). */
  centralized: number;
  fetched_at: number;
}

export type TokenomicsTables = {
  tok_transfers: TokTransferTable;
  tok_balances: TokBalanceTable;
  tok_ledgers: TokLedgerTable;
  tok_snapshots: TokSnapshotTable;
  tok_market_readings: TokMarketReadingTable;
  tok_market_exchanges: TokMarketExchangeTable;
};

export const TOKENOMICS_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0021_tokenomics': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tok_transfers')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('from_address', 'text', (c) => c.notNull())
        .addColumn('to_address', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('tok_transfers_pk', ['chain', 'token', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('tok_transfers_time')
        .on('tok_transfers')
        .columns(['chain', 'token', 'timestamp'])
        .execute();
      await db.schema
        .createTable('tok_balances')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('balance', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tok_balances_pk', ['chain', 'token', 'address'])
        .execute();
      await db.schema
        .createTable('tok_ledgers')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('start_block', 'bigint', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('pruned_through', 'bigint', (c) => c.notNull())
        .addColumn('transfers', 'bigint', (c) => c.notNull())
        .addColumn('supply', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tok_ledgers_pk', ['chain', 'token'])
        .execute();
      await db.schema
        .createTable('tok_snapshots')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('total_supply', 'text', (c) => c.notNull())
        .addColumn('replayed_supply', 'text', (c) => c.notNull())
        .addColumn('sample', 'text', (c) => c.notNull())
        .addColumn('contracts', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tok_snapshots_pk', ['chain', 'token', 'block_number'])
        .execute();
    },
  },
  '0022_tokenomics_market': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tok_market_readings')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('coin_id', 'text', (c) => c.notNull())
        .addColumn('fetched_at', 'bigint', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tok_market_readings_pk', ['kind', 'coin_id', 'fetched_at'])
        .execute();
      await db.schema.createIndex('tok_market_readings_time').on('tok_market_readings').column('fetched_at').execute();
      await db.schema
        .createTable('tok_market_exchanges')
        .addColumn('exchange_id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('centralized', 'integer', (c) => c.notNull())
        .addColumn('fetched_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
};
