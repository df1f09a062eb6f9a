import type { Kysely, Migration } from 'kysely';

/**
 * The liquid staking area's own facts: each token's exchange rate (`stEthPerToken()`, 1e18 scale, decimal string)
 * at the blocks the computation describes (pool snapshots, pool states at the history instants, lending snapshots).
 * A block whose state the node could not serve is stored with a null rate: its figures are gaps, not guesses, and
 * the node is not asked again.
 */
export interface LstExchangeRateTable {
  chain: string;
  /** Lowercase token address. */
  token: string;
  block_number: number;
  rate: string | null;
  /** Unix seconds of the read (re-read while the block is within the chain's finality depth). */
  read_at: number;
}

export type LiquidStakingTables = {
  lst_exchange_rates: LstExchangeRateTable;
};

export const LIQUID_STAKING_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0006_liquid_staking': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('lst_exchange_rates')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('rate', 'text')
        .addColumn('read_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('lst_exchange_rates_pk', ['chain', 'token', 'block_number'])
        .execute();
    },
  },
};
