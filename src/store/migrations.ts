import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';

/**
 * The platform's migrations; areas bring their own (`areas/<x>/tables.ts`) and the runtime hands them to the
 * store, so one set runs on both dialects. Types are kept portable: `bigint` becomes INTEGER on SQLite and int8
 * on PostgreSQL (read back as numbers, see db.ts); `text` everywhere else.
 */
export const PLATFORM_MIGRATIONS: Readonly<Record<string, Migration>> = {
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
};

/**
 * Applies pending migrations: the platform's and those the runtime hands in (the areas' own, from their
 * `tables.ts`), in key order. `schema` (PostgreSQL) keeps the bookkeeping tables in that schema.
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  extra: Readonly<Record<string, Migration>>,
  schema?: string,
): Promise<string[]> {
  for (const key of Object.keys(extra)) {
    if (key in PLATFORM_MIGRATIONS) throw new Error(`migration ${key} is the platform's`);
  }
  const all = { ...PLATFORM_MIGRATIONS, ...extra };
  const provider: MigrationProvider = { getMigrations: async () => all };
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
