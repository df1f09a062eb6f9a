import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the lending area (migration `0005_lending`; the store's portability rules: big integers as decimal
 * text, times as integer Unix seconds, JSON as text). Code sees them through `db.withTables<LendingTables>()`.
 */
export interface LendingEventTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  timestamp: number;
  /** Lowercase address of the market's main contract (Aave Pool, Morpho singleton). */
  pool: string;
  kind: string;
  /** Morpho market id, '' for Aave. */
  market_id: string;
  asset: string;
  account: string;
  actor: string;
  amount: string;
  collateral_asset: string;
  collateral_amount: string;
  /** JSON extras (Morpho CreateMarket: the market params), or null. */
  data: string | null;
}

export interface LendingSnapshotTable {
  chain: string;
  pool: string;
  block_number: number;
  timestamp: number;
  /** JSON of `MarketSnapshot` (facts.ts). */
  snapshot: string;
}

export type LendingTables = {
  lending_events: LendingEventTable;
  lending_snapshots: LendingSnapshotTable;
};

export const LENDING_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0005_lending': {
    async up(db: Kysely<unknown>) {
      // One row per decoded market event (a log), keyed by its position on the chain.
      await db.schema
        .createTable('lending_events')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('market_id', 'text', (c) => c.notNull())
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('amount', 'text', (c) => c.notNull())
        .addColumn('collateral_asset', 'text', (c) => c.notNull())
        .addColumn('collateral_amount', 'text', (c) => c.notNull())
        .addColumn('data', 'text')
        .addPrimaryKeyConstraint('lending_events_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('lending_events_pool_kind_time')
        .on('lending_events')
        .columns(['chain', 'pool', 'kind', 'timestamp'])
        .execute();
      // A market's state read at one block (multicall), as JSON.
      await db.schema
        .createTable('lending_snapshots')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('snapshot', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lending_snapshots_pk', ['chain', 'pool', 'block_number'])
        .execute();
      await db.schema
        .createIndex('lending_snapshots_time')
        .on('lending_snapshots')
        .columns(['chain', 'pool', 'timestamp'])
        .execute();
    },
  },
};
