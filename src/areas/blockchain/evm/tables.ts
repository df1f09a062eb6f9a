import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the blockchain area's EVM chains (Ethereum, the OP and Nitro layer 2s): one row per ingested block with
 * the block's counted facts (`stats`, JSON: exact wei amounts as decimal strings), the distinct senders of each UTC
 * day and the distinct addresses (senders and recipients) of each UTC day (each with the first block it was seen in,
 * so a reorg rollback removes exactly the addresses only the rolled-back blocks had), and the network samples the
 * ingest job takes (tags, transaction pool, fee history, beacon state).
 * The Bitcoin part of the area keeps its own tables (`0008_blockchain_bitcoin`).
 */
export type BlockchainTables = {
  blockchain_blocks: BlockchainBlockTable;
  blockchain_senders: BlockchainSenderTable;
  blockchain_addresses: BlockchainSenderTable;
  blockchain_samples: BlockchainSampleTable;
};

export interface BlockchainBlockTable {
  chain: string;
  number: number;
  hash: string;
  parent_hash: string;
  /** Unix seconds. */
  timestamp: number;
  /** UTC day of `timestamp`, YYYY-MM-DD. */
  day: string;
  /** `BlockFact` without the header fields, JSON. */
  stats: string;
  /**
   * 1 when the block's addresses (senders and recipients) are in `blockchain_addresses`; null for a block stored
   * before migration 0015, whose recipients were never recorded (its day's `active_addresses` is unknown).
   */
  addresses_counted: number | null;
}

/** `blockchain_senders` (senders) and `blockchain_addresses` (senders, targets and created contracts). */
export interface BlockchainSenderTable {
  chain: string;
  day: string;
  /** Lowercase address. */
  address: string;
  /**
   * The first block of the day in which the address sent a counted transaction (in `blockchain_addresses`: sent,
   * was the target of, or was created by one).
   */
  first_block: number;
}

export interface BlockchainSampleTable {
  chain: string;
  /** Unix seconds of the sample (the job's clock). */
  taken_at: number;
  day: string;
  /** `NetworkSample`, JSON. */
  data: string;
}

export const BLOCKCHAIN_MIGRATIONS: Record<string, Migration> = {
  '0007_blockchain': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('blockchain_blocks')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('number', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('parent_hash', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('stats', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('blockchain_blocks_pk', ['chain', 'number'])
        .execute();
      await db.schema
        .createIndex('blockchain_blocks_day')
        .on('blockchain_blocks')
        .columns(['chain', 'day', 'number'])
        .execute();
      await db.schema
        .createTable('blockchain_senders')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('first_block', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('blockchain_senders_pk', ['chain', 'day', 'address'])
        .execute();
      await db.schema
        .createIndex('blockchain_senders_block')
        .on('blockchain_senders')
        .columns(['chain', 'first_block'])
        .execute();
      await db.schema
        .createTable('blockchain_samples')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('taken_at', 'bigint', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('blockchain_samples_pk', ['chain', 'taken_at'])
        .execute();
    },
  },
  '0015_blockchain_evm_addresses': {
    async up(db: Kysely<unknown>) {
      // Issue 26: `active_addresses` counts senders and recipients; `active_senders` keeps `blockchain_senders`.
      await db.schema.alterTable('blockchain_blocks').addColumn('addresses_counted', 'integer').execute();
      await db.schema
        .createTable('blockchain_addresses')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('first_block', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('blockchain_addresses_pk', ['chain', 'day', 'address'])
        .execute();
      await db.schema
        .createIndex('blockchain_addresses_block')
        .on('blockchain_addresses')
        .columns(['chain', 'first_block'])
        .execute();
    },
  },
};
