import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../test/helpers.js';

if (!PG_URL)
  it.skip('PostgreSQL introspection tests skipped: set TEST_DATABASE_URL or DATABASE_URL to run them', () => {});

describe.runIf(PG_URL)('introspection and migration on PostgreSQL', () => {
  it('sees only the store’s own schema, with its columns', async () => {
    const { store, cleanup } = testStore('postgres');
    const other = testStore('postgres');
    try {
      await store.migrate();
      await other.store.migrate();
      const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
      const own = /\(schema (\w+)\)/.exec(store.location)?.[1];
      expect(own).toBeDefined();
      expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([own]));
      const names = tables.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['schema_migrations', 'schema_migrations_lock', 'datasets']));
      expect((await store.db.introspection.getTables()).map((t) => t.name)).toEqual(names);
      const migrations = tables.find((t) => t.name === 'schema_migrations');
      expect(migrations?.columns.map((c) => c.name)).toEqual(['name', 'timestamp']);
      expect(migrations?.columns.every((c) => !c.isNullable && !c.isAutoIncrementing)).toBe(true);
    } finally {
      await other.cleanup();
      await cleanup();
    }
  });

  it('fresh schemas migrate while another client creates and drops schemas with serial columns', async () => {
    const churn = new pg.Client({ connectionString: PG_URL });
    await churn.connect();
    let stop = false;
    let churned = 0;
    const loop = (async () => {
      while (!stop) {
        const name = `churn_${process.pid}_${churned++}`;
        await churn.query(`create schema ${name}`);
        await churn.query(`create table ${name}.a (id serial primary key, v text)`);
        await churn.query(`create table ${name}.b (id bigserial primary key)`);
        await churn.query(`drop schema ${name} cascade`);
      }
    })();
    try {
      for (let i = 0; i < 10; i++) {
        const { store, cleanup } = testStore('postgres');
        try {
          const applied = await store.migrate();
          expect(applied.length).toBeGreaterThan(0);
          expect(await store.migrate()).toEqual([]);
        } finally {
          await cleanup();
        }
      }
    } finally {
      stop = true;
      await loop;
      await churn.end();
    }
    expect(churned).toBeGreaterThan(10);
  }, 60_000);
});
