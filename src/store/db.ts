import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, type Migration, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { ScopedPostgresDialect } from './introspector.js';
import { migrateToLatest } from './migrations.js';
import type { Database } from './schema.js';
import { SQLite } from './sqlite-driver.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Where the data lives, for logs and `/status` (no credentials). */
  readonly location: string;
  migrate(): Promise<string[]>;
  /**
   * Bounds what the database keeps on disk beyond its rows (maintenance.prune runs it hourly). SQLite: a checkpoint
   * that truncates the write-ahead log (see `WAL_SIZE_LIMIT_BYTES`); deleted rows' pages stay in the file as free
   * pages that later writes reuse, so the file stays at its high-water size without a VACUUM. PostgreSQL: nothing
   * (autovacuum). Returns a line for the job's summary.
   */
  compact(): Promise<string>;
  close(): Promise<void>;
}

/**
 * SQLite's write-ahead log keeps the size it once reached (it is reused from its start, not shrunk), and a
 * checkpoint cannot reset it while a reader still uses its frames: with the API reading while the jobs write, it
 * can grow on and on (checkpoint starvation). SQLite truncates it to this size whenever it resets it, and
 * `compact` forces that reset (a TRUNCATE checkpoint, which waits up to the busy timeout for readers).
 */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export interface StoreOptions {
  /** Migrations beyond the platform's: the areas' own (the runtime collects them; the store knows no area). */
  readonly migrations: Readonly<Record<string, Migration>>;
  /** PostgreSQL connection string; when absent, SQLite at `sqliteFile`. */
  readonly databaseUrl?: string | undefined;
  readonly sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves in one); created if missing. */
  readonly pgSchema?: string;
  readonly pgPoolSize?: number;
  /**
   * SQLite: how long a write waits for another connection's write to end (default 5000 ms). better-sqlite3 waits
   * synchronously, blocking the event loop, so the API half of `start` uses a short one (its writes can wait).
   */
  readonly busyTimeoutMs?: number;
  /** SQLite: `WAL_SIZE_LIMIT_BYTES` unless given (tests use a small one). */
  readonly walSizeLimitBytes?: number;
}

// int8 (bigint) columns hold Unix seconds/milliseconds and counters, all far below 2^53: read them as numbers.
pg.types.setTypeParser(20, (value) => Number(value));

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres';
  }
}

export function defaultSqliteFile(dataDir: string): string {
  return path.join(dataDir, 'protoscore.sqlite');
}

export function openStore(options: StoreOptions): Store {
  if (options.databaseUrl) {
    const schema = options.pgSchema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.pgPoolSize ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    const db = new Kysely<Database>({ dialect: new ScopedPostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      location: redact(options.databaseUrl) + (schema ? ` (schema ${schema})` : ''),
      async migrate() {
        if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
        return migrateToLatest(db as Kysely<unknown>, options.migrations, schema);
      },
      compact: async () => 'PostgreSQL: left to autovacuum',
      close: () => db.destroy(),
    };
  }
  const file = options.sqliteFile ?? ':memory:';
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  database.pragma('foreign_keys = ON');
  database.pragma(`journal_size_limit = ${Math.max(0, Math.floor(options.walSizeLimitBytes ?? WAL_SIZE_LIMIT_BYTES))}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    dialect: 'sqlite',
    location: file,
    migrate: () => migrateToLatest(db as Kysely<unknown>, options.migrations),
    compact: async () => {
      // busy = 1: a reader kept the log from being reset; the next run tries again (journal_size_limit applies then).
      const [cp] = database.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
      const free = Number(database.pragma('freelist_count', { simple: true }));
      const pages = Number(database.pragma('page_count', { simple: true }));
      const wal =
        !cp || cp.log < 0
          ? 'no write-ahead log'
          : cp.busy
            ? `write-ahead log busy (${cp.log} frames kept)`
            : `write-ahead log of ${cp.log} frames checkpointed and truncated`;
      return `${wal}; ${free} of ${pages} pages free for reuse`;
    },
    close: () => db.destroy(),
  };
}
