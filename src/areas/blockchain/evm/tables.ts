import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the blockchain area's EVM chains (Ethereum, the OP and Nitro layer 2s): one row per ingested block with
 * the block's counted facts (`stats`, JSON: exact wei amounts as decimal strings), the distinct senders of each UTC
 * day (with the first block they were seen in, so a reorg rollback removes exactly the senders only the rolled-back
 * blocks had), and the network samples the ingest job takes (tags, transaction pool, fee history, beacon state).
 * The Bitcoin part of the area keeps its own tables (`0008_blockchain_bitcoin`).
 */
export type BlockchainTables = {
  blockchain_blocks: BlockchainBlockTable;
  blockchain_senders: BlockchainSenderTable;
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
}

export interface BlockchainSenderTable {
  chain: string;
  day: string;
  /** Lowercase sender address. */
  address: string;
  /** The first block of the day in which the address sent a counted transaction. */
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
};
