import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the stablecoin area: the decoded logs of each protocol's contracts (the Vat's notes, Spot, Dog,
 * Clippers, TroveManager, Stability Pool, PriceFeed and the stablecoin's transfers) and state snapshots read with
 * multicall. Event fields and snapshots are JSON text whose big integers are decimal strings suffixed `n`
 * (`"1000000000000000000n"`, repo.ts), so that every amount comes back as the exact bigint it was.
 */
export type StablecoinTables = {
  stable_events: StableEventTable;
  stable_snapshots: StableSnapshotTable;
};

export interface StableEventTable {
  chain: string;
  protocol: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  address: string;
  /** `vat_note` or `event`, then the decoded kind (`frob`, `transfer`…). */
  source: string;
  kind: string;
  timestamp: number;
  /** The decoded fields, JSON. */
  fields: string;
}

export interface StableSnapshotTable {
  chain: string;
  protocol: string;
  block_number: number;
  timestamp: number;
  /** The snapshot (facts.ts `StableSnapshot`), JSON. */
  state: string;
}

/** `0009_stablecoin`: the stablecoin area's facts. */
export const STABLECOIN_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0009_stablecoin': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('stable_events')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('fields', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('stable_events_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('stable_events_protocol_kind')
        .on('stable_events')
        .columns(['chain', 'protocol', 'kind', 'block_number'])
        .execute();
      await db.schema
        .createTable('stable_snapshots')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('stable_snapshots_pk', ['chain', 'protocol', 'block_number'])
        .execute();
    },
  },
};
