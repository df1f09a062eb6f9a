import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { developmentMigration } from '../areas/development/migration.js';
import { lendingMigration } from '../areas/lending/migration.js';

/**
 * The one migration set of both dialects. Types are kept portable: `bigint` becomes INTEGER on SQLite and
 * int8 on PostgreSQL (read back as numbers, see db.ts); `text` everywhere else.
 */
const migrations: Record<string, Migration> = {
  '0001_foundation': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .addColumn('rate_limit', 'bigint', (c) => c.notNull())
        .addColumn('rate_window_seconds', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('datasets')
        .addColumn('path', 'text', (c) => c.primaryKey())
        .addColumn('area', 'text', (c) => c.notNull())
        .addColumn('computation', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('meta', 'text', (c) => c.notNull())
        .addColumn('as_of', 'bigint', (c) => c.notNull())
        .addColumn('computed_at', 'bigint', (c) => c.notNull())
        .addColumn('fresh_for', 'bigint', (c) => c.notNull())
        .addColumn('version', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('datasets_computation').on('datasets').column('computation').execute();

      await db.schema
        .createTable('publications')
        .addColumn('version', 'bigint', (c) => c.primaryKey())
        .addColumn('computation', 'text', (c) => c.notNull())
        .addColumn('area', 'text', (c) => c.notNull())
        .addColumn('published_at', 'bigint', (c) => c.notNull())
        .addColumn('documents', 'bigint', (c) => c.notNull())
        .addColumn('as_of', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('publications_computation')
        .on('publications')
        .columns(['computation', 'version'])
        .execute();

      await db.schema
        .createTable('counters')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('job_state')
        .addColumn('job', 'text', (c) => c.primaryKey())
        .addColumn('next_run_at', 'bigint', (c) => c.notNull())
        .addColumn('last_run_id', 'text')
        .addColumn('consecutive_failures', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('job_runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('job', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('started_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('finished_at_ms', 'bigint')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'bigint', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('summary', 'text')
        .execute();
      await db.schema.createIndex('job_runs_job_started').on('job_runs').columns(['job', 'started_at_ms']).execute();

      await db.schema
        .createTable('job_leases')
        .addColumn('job', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('checkpoints')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await sql`insert into counters (name, value) values ('datasets', 0), ('tokens', 0)`.execute(db);
    },
  },
  '0002_evm_dex': {
    async up(db: Kysely<unknown>) {
      // Blocks an ingest pass touched: hashes detect reorgs (parent-hash mismatch), timestamps are cached here.
      await db.schema
        .createTable('evm_blocks')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('number', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('parent_hash', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('evm_blocks_pk', ['chain', 'number'])
        .execute();
      await db.schema
        .createTable('evm_tokens')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('decimals', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('evm_tokens_pk', ['chain', 'address'])
        .execute();
      await db.schema
        .createTable('dex_pools')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('design', 'text', (c) => c.notNull())
        .addColumn('factory', 'text', (c) => c.notNull())
        .addColumn('token0', 'text', (c) => c.notNull())
        .addColumn('token1', 'text', (c) => c.notNull())
        .addColumn('fee', 'bigint', (c) => c.notNull())
        .addColumn('tick_spacing', 'bigint')
        .addColumn('created_block', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_pools_pk', ['chain', 'address'])
        .execute();
      await db.schema
        .createTable('dex_swaps')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('trader', 'text', (c) => c.notNull())
        .addColumn('amount0', 'text', (c) => c.notNull())
        .addColumn('amount1', 'text', (c) => c.notNull())
        .addColumn('sqrt_price_x96', 'text')
        .addColumn('liquidity', 'text')
        .addColumn('tick', 'bigint')
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_swaps_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('dex_swaps_pool_time')
        .on('dex_swaps')
        .columns(['chain', 'pool', 'timestamp'])
        .execute();
      await db.schema
        .createTable('dex_liquidity')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('amount0', 'text', (c) => c.notNull())
        .addColumn('amount1', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_liquidity_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createTable('dex_syncs')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('reserve0', 'text', (c) => c.notNull())
        .addColumn('reserve1', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_syncs_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('dex_syncs_pool_time')
        .on('dex_syncs')
        .columns(['chain', 'pool', 'timestamp'])
        .execute();
      await db.schema
        .createTable('dex_pool_snapshots')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('reserve0', 'text', (c) => c.notNull())
        .addColumn('reserve1', 'text', (c) => c.notNull())
        .addColumn('sqrt_price_x96', 'text')
        .addColumn('liquidity', 'text')
        .addColumn('tick', 'bigint')
        .addPrimaryKeyConstraint('dex_pool_snapshots_pk', ['chain', 'pool', 'block_number'])
        .execute();
      await db.schema
        .createTable('token_prices')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('price_usd', 'double precision', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('confidence', 'double precision', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_prices_pk', ['chain', 'token', 'hour'])
        .execute();
    },
  },
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
  // Later migrations live beside the area that owns their tables (same portability rules as above).
  '0004_development': developmentMigration,
  '0005_lending': lendingMigration,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies pending migrations. `schema` (PostgreSQL) keeps the bookkeeping tables in that schema. */
export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
