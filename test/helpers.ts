import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { areaMigrations } from '../src/areas/index.js';
import { type Config, loadConfig } from '../src/config/index.js';
import type { Clock } from '../src/core/time.js';
import { createLogger, type Role, type ServiceOptions, startService } from '../src/runtime/index.js';
import { type DatasetDocument, DatasetRepository } from '../src/store/datasets.js';
import { openStore, type Store, type StoreOptions } from '../src/store/db.js';
import { TokenRepository } from '../src/store/tokens.js';

export const PG_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
export const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;

/** A settable clock for tests. */
export class TestClock implements Clock {
  constructor(public ms = Date.UTC(2026, 10, 20, 14, 0, 0)) {}
  nowMs(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** Collects log lines in memory. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

let schemaSeq = 0;

/** A store with the service's migrations (the platform's and every area's), as the runtime opens it. */
export function openServiceStore(options: Omit<StoreOptions, 'migrations'>): Store {
  return openStore({ ...options, migrations: areaMigrations() });
}

/**
 * A fresh store: SQLite in a temp dir, or (dialect 'postgres') a new schema in the test database. `connect()` opens
 * another connection to the same database, as a second process would (the caller closes it).
 */
export function testStore(dialect: 'sqlite' | 'postgres' = 'sqlite'): {
  store: Store;
  dir: string;
  connect: () => Store;
  cleanup: () => Promise<void>;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'protoscore-test-'));
  if (dialect === 'postgres') {
    if (!PG_URL) throw new Error('no PostgreSQL URL');
    const schema = `t_${process.pid}_${Date.now().toString(36)}_${schemaSeq++}`;
    const connect = () => openServiceStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 4 });
    const store = connect();
    return {
      store,
      dir,
      connect,
      cleanup: async () => {
        const admin = openServiceStore({ databaseUrl: PG_URL, pgPoolSize: 1 });
        await store.close();
        const { sql } = await import('kysely');
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
        await admin.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const connect = () => openServiceStore({ sqliteFile: path.join(dir, 'test.sqlite') });
  const store = connect();
  return {
    store,
    dir,
    connect,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');

/** Runs the `protoscore` CLI in a child process with only PATH and `env` in its environment. */
export async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly config: Config;
  readonly clock: TestClock;
  readonly logs: LogCapture;
  /** A valid token (600/min). */
  readonly token: string;
  createToken(opts?: {
    expiresAt?: number | null;
    rateLimit?: number;
    rateWindowSeconds?: number;
  }): Promise<{ id: string; token: string }>;
  publish(computation: string, area: string, documents: DatasetDocument[]): Promise<number>;
  /** Makes the API see store changes now (instead of waiting for the sync interval). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export async function testApp(
  options: {
    env?: Record<string, string>;
    role?: Role;
    dialect?: 'sqlite' | 'postgres';
    overload?: ServiceOptions['overload'];
  } = {},
): Promise<TestApp> {
  const { store, dir, cleanup } = testStore(options.dialect);
  // Tests run computations on demand: every moved input publishes (PUBLISH_EVERY_SECONDS 0) unless a test says otherwise.
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'info',
    SYNC_INTERVAL_MS: '600000',
    PUBLISH_EVERY_SECONDS: '0',
    ...options.env,
  });
  const logs = new LogCapture();
  const logger = createLogger(config, logs);
  const clock = new TestClock();
  const service = await startService({
    role: options.role ?? 'serve',
    config,
    logger,
    clock,
    store,
    listen: false,
    ...(options.overload ? { overload: options.overload } : {}),
  });
  const tokens = new TokenRepository(store.db);
  const createToken: TestApp['createToken'] = (opts = {}) =>
    tokens.create(
      {
        name: 'test',
        expiresAt: opts.expiresAt ?? null,
        rateLimit: opts.rateLimit ?? 600,
        rateWindowSeconds: opts.rateWindowSeconds ?? 60,
      },
      Math.floor(clock.nowMs() / 1000),
    );
  const app = service.app!;
  const sync = () => service.syncNow();
  const { token } = await createToken();
  await sync();
  return {
    app,
    store,
    config,
    clock,
    logs,
    token,
    createToken: async (opts) => {
      const t = await createToken(opts);
      await sync();
      return t;
    },
    publish: async (computation, area, documents) => {
      const v = await new DatasetRepository(store.db).publish({
        computation,
        area,
        computedAt: Math.floor(clock.nowMs() / 1000),
        documents,
      });
      await sync();
      return v;
    },
    sync,
    close: async () => {
      await service.close();
      await cleanup();
    },
  };
}

/**
 * `app.inject`, retried while the overload guard sheds it (503 `overloaded`): a test that blocks its own process's
 * event loop for seconds (building an app, a schema validator, a linter) makes the API it hosts shed the next request.
 */
export async function injectSettled(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  for (let attempt = 0; ; attempt++) {
    const res = await app.inject(options);
    const overloaded = res.statusCode === 503 && res.body.includes('"overloaded"');
    if (!overloaded || attempt === 20) return res;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
