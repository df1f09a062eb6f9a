import type { Kysely, Migration } from 'kysely';

/** A price feed round: one `AnswerUpdated` log. `answer` and `round_id` are decimal strings (int256, uint256). */
export interface OracleRoundTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  /** The feed as configured (its proxy), lowercase. */
  feed: string;
  /** The contract that emitted the log, lowercase. */
  aggregator: string;
  round_id: string;
  answer: string;
  /** The log's `updatedAt` (Unix seconds). */
  updated_at: number;
}

export type OracleTables = {
  oracle_rounds: OracleRoundTable;
};

export const ORACLE_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0003_oracles': {
    async up(db: Kysely<unknown>) {
      // One row per AnswerUpdated log of a price feed's aggregator (a round).
      await db.schema
        .createTable('oracle_rounds')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('feed', 'text', (c) => c.notNull())
        .addColumn('aggregator', 'text', (c) => c.notNull())
        .addColumn('round_id', 'text', (c) => c.notNull())
        .addColumn('answer', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('oracle_rounds_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('oracle_rounds_feed_time')
        .on('oracle_rounds')
        .columns(['chain', 'feed', 'updated_at'])
        .execute();
    },
  },
};
