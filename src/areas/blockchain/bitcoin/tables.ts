import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the blockchain area's Bitcoin part: the ingested blocks (what the daily figures need of each), the
 * addresses each block's transactions touched (whether they spent from each or only paid it), blocks the node could not give (pruned), and mempool samples.
 * Satoshi sums are decimal strings; per-transaction fees and weights and the script-type counts are JSON.
 */
export type BitcoinTables = {
  btc_blocks: BtcBlockTable;
  btc_block_addresses: BtcBlockAddressTable;
  btc_missing_blocks: BtcMissingBlockTable;
  btc_mempool_samples: BtcMempoolSampleTable;
};

export interface BtcBlockTable {
  height: number;
  hash: string;
  prev_hash: string;
  time: number;
  tx_count: number;
  size: number;
  weight: number;
  total_fee_sat: string;
  difficulty: number;
  chainwork: string;
  /** Read only for a block that ended a UTC day or a batch when it was stored (null otherwise). */
  hashrate_144: number | null;
  hashrate_2016: number | null;
  /** JSON `[[fee_sat, weight], …]` of the non-coinbase transactions. */
  tx_fees: string;
  /** JSON `{ outputs: { type: n }, inputs: { type: n } }`. */
  type_mix: string;
  /** `getblockstats`, or `getblock` where the node does not offer it. */
  stats_from: string;
  /**
   * 1 when the block's address rows say which addresses its transactions spent (`spent`); null for a block stored
   * before migration 0015 (its day's `active_senders` is unknown).
   */
  address_roles: number | null;
}

export interface BtcBlockAddressTable {
  height: number;
  address: string;
  /**
   * 1 when the block's transactions spent an output of the address (it may also have been paid), 0 when they only
   * paid it; null on rows stored before migration 0015.
   */
  spent: number | null;
}

export interface BtcMissingBlockTable {
  height: number;
  hash: string;
  time: number;
  reason: string;
}

export interface BtcMempoolSampleTable {
  time: number;
  size: number;
  bytes: number;
  total_fee_sat: string | null;
}

export const BITCOIN_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0008_blockchain_bitcoin': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('btc_blocks')
        .addColumn('height', 'bigint', (c) => c.primaryKey())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('tx_count', 'bigint', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('weight', 'bigint', (c) => c.notNull())
        .addColumn('total_fee_sat', 'text', (c) => c.notNull())
        .addColumn('difficulty', 'double precision', (c) => c.notNull())
        .addColumn('chainwork', 'text', (c) => c.notNull())
        .addColumn('hashrate_144', 'double precision')
        .addColumn('hashrate_2016', 'double precision')
        .addColumn('tx_fees', 'text', (c) => c.notNull())
        .addColumn('type_mix', 'text', (c) => c.notNull())
        .addColumn('stats_from', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('btc_blocks_time').on('btc_blocks').column('time').execute();
      await db.schema
        .createTable('btc_block_addresses')
        .addColumn('height', 'bigint', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('btc_block_addresses_pk', ['height', 'address'])
        .execute();
      await db.schema
        .createTable('btc_missing_blocks')
        .addColumn('height', 'bigint', (c) => c.primaryKey())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('btc_mempool_samples')
        .addColumn('time', 'bigint', (c) => c.primaryKey())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('total_fee_sat', 'text')
        .execute();
    },
  },
  '0015_blockchain_bitcoin_addresses': {
    async up(db: Kysely<unknown>) {
      // Issue 26: `active_senders` counts the addresses of the outputs spent; rows stored before keep null.
      await db.schema.alterTable('btc_blocks').addColumn('address_roles', 'integer').execute();
      await db.schema.alterTable('btc_block_addresses').addColumn('spent', 'integer').execute();
    },
  },
};
