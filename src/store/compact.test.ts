import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from './db.js';
import { SQLite } from './sqlite-driver.js';

const LIMIT = 64 * 1024;

describe('SQLite write-ahead log bound (issue 31 item 2)', () => {
  let dir: string;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const walSize = (file: string) => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  };

  it('compact truncates a log that grew while a reader held it, and the log stays within the limit after', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'protoscore-wal-'));
    const file = path.join(dir, 'db.sqlite');
    store = openStore({ migrations: {}, sqliteFile: file, walSizeLimitBytes: LIMIT });
    await sql`create table t (id integer primary key, body text)`.execute(store.db);
    // A second connection (as the API's is) holds a read snapshot: no checkpoint can reset the log meanwhile.
    const reader = new SQLite(file);
    reader.prepare('begin').run();
    reader.prepare('select count(*) from t').get();
    const body = 'x'.repeat(4000);
    for (let i = 0; i < 500; i++) await sql`insert into t (body) values (${body})`.execute(store.db);
    const grown = walSize(file);
    expect(grown).toBeGreaterThan(1_000_000);
    reader.prepare('commit').run();
    reader.close();

    // The reader gone, later writes alone (auto-checkpoints) reuse the log but would keep its size without the limit;
    // compact resets and truncates it.
    expect(await store.compact()).toMatch(/checkpointed and truncated; \d+ of \d+ pages free for reuse/);
    expect(walSize(file)).toBeLessThanOrEqual(LIMIT);

    // Deleting rows frees pages that later writes reuse: the file does not grow back.
    await sql`delete from t`.execute(store.db);
    await store.compact();
    const fileSize = statSync(file).size;
    for (let i = 0; i < 500; i++) await sql`insert into t (body) values (${body})`.execute(store.db);
    await store.compact();
    expect(statSync(file).size).toBeLessThanOrEqual(fileSize);
    expect(walSize(file)).toBeLessThanOrEqual(LIMIT);
  });

  it('reports a busy log, leaving it for the next run, while a reader holds it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'protoscore-wal-'));
    const file = path.join(dir, 'db.sqlite');
    store = openStore({ migrations: {}, sqliteFile: file, walSizeLimitBytes: LIMIT, busyTimeoutMs: 0 });
    await sql`create table t (id integer primary key, body text)`.execute(store.db);
    const reader = new SQLite(file);
    try {
      reader.prepare('begin').run();
      reader.prepare('select count(*) from t').get();
      await sql`insert into t (body) values ('a')`.execute(store.db);
      expect(await store.compact()).toMatch(/write-ahead log busy/);
    } finally {
      reader.prepare('commit').run();
      reader.close();
    }
  });
});
