import { sql } from 'kysely';
import type { Store } from '../../src/store/db.js';
import { testStore } from '../helpers.js';

/**
 * What the derivatives parts' fault tests compare (test/derivatives-*-faults.test.ts): a venue's published documents
 * and its fact rows, each in a stable order, on fresh migrated stores made and removed together.
 */

/** A venue's published documents (`/data/derivatives/<protocol>…`), by path. */
export function venueDatasets(store: Store, protocol: string) {
  return store.db
    .selectFrom('datasets')
    .select(['path', 'payload', 'meta', 'as_of'])
    .where('path', 'like', `/data/derivatives/${protocol}%`)
    .orderBy('path')
    .execute();
}

/** Every row of each table, as JSON, sorted. */
export async function tableRows(store: Store, tables: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(store.db);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** Fresh migrated SQLite stores for one test file; `cleanup` closes and removes every one made. */
export function migratedStores(): { fresh: () => Promise<Store>; cleanup: () => Promise<void> } {
  const made: { cleanup: () => Promise<void> }[] = [];
  return {
    fresh: async () => {
      const s = testStore();
      made.push(s);
      await s.store.migrate();
      return s.store;
    },
    cleanup: async () => {
      for (const s of made) await s.cleanup();
    },
  };
}
