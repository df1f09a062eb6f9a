import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the derivatives area's GMX part (migration `0018_derivatives_gmx`; the store's portability rules: big
 * integers as decimal text, times as integer Unix seconds, JSON as text). Code sees them through
 * `db.withTables<GmxTables>()`.
 */

/** A GMX market (market token) and its tokens, from `MarketCreated` or the DataStore's `MARKET_LIST`. */
export interface GmxMarketTable {
  chain: string;
  /** Lowercase DataStore address: the venue the market belongs to. */
  data_store: string;
  /** Lowercase market token address. */
  market: string;
  index_token: string;
  long_token: string;
  short_token: string;
  /** Block of its `MarketCreated`, or null when it was read from the DataStore's list. */
  created_block: number | null;
}

/**
 * One decoded EventEmitter event the part reads (events.ts `GMX_EVENT_NAMES`), keyed by its place on the chain: the
 * typed event (`GmxEvent`) as JSON with big integers as decimal strings.
 */
export interface GmxEventTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  timestamp: number;
  /** Lowercase EventEmitter address. */
  emitter: string;
  name: string;
  /** Lowercase market token the event is about ('' for none). */
  market: string;
  /** JSON of the typed event. */
  data: string;
}

/** The venue's state read from the DataStore at one block (multicall): JSON of `GmxStateSnapshot` (facts.ts). */
export interface GmxSnapshotTable {
  chain: string;
  data_store: string;
  block_number: number;
  timestamp: number;
  state: string;
}

/** Decimals of the tokens the markets name (ERC-20 `decimals()`); synthetic index tokens have no contract. */
export interface GmxTokenTable {
  chain: string;
  address: string;
  symbol: string;
  decimals: number;
}

export type GmxTables = {
  gmx_markets: GmxMarketTable;
  gmx_events: GmxEventTable;
  gmx_snapshots: GmxSnapshotTable;
  gmx_tokens: GmxTokenTable;
};

export const GMX_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0018_derivatives_gmx': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('gmx_markets')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('data_store', 'text', (c) => c.notNull())
        .addColumn('market', 'text', (c) => c.notNull())
        .addColumn('index_token', 'text', (c) => c.notNull())
        .addColumn('long_token', 'text', (c) => c.notNull())
        .addColumn('short_token', 'text', (c) => c.notNull())
        .addColumn('created_block', 'bigint')
        .addPrimaryKeyConstraint('gmx_markets_pk', ['chain', 'market'])
        .execute();
      await db.schema
        .createTable('gmx_events')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('emitter', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('market', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('gmx_events_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('gmx_events_name_time')
        .on('gmx_events')
        .columns(['chain', 'emitter', 'name', 'timestamp'])
        .execute();
      await db.schema
        .createTable('gmx_snapshots')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('data_store', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('gmx_snapshots_pk', ['chain', 'data_store', 'block_number'])
        .execute();
      await db.schema
        .createIndex('gmx_snapshots_time')
        .on('gmx_snapshots')
        .columns(['chain', 'data_store', 'timestamp'])
        .execute();
      await db.schema
        .createTable('gmx_tokens')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('decimals', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('gmx_tokens_pk', ['chain', 'address'])
        .execute();
    },
  },
};
