import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Checkpoints record what an ingest job covered (per source and block range or time window). Write them in the
 * same transaction as the facts they cover, so a crash leaves both or neither.
 */
export async function readCheckpoint<T>(db: Db, key: string): Promise<T | undefined> {
  const row = await db.selectFrom('checkpoints').select('value').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value) as T) : undefined;
}

/** A checkpoint with the time it was last written (`writeCheckpoint`'s `nowSeconds`). */
export async function readCheckpointAt<T>(db: Db, key: string): Promise<{ value: T; at: number } | undefined> {
  const row = await db
    .selectFrom('checkpoints')
    .select(['value', 'updated_at'])
    .where('key', '=', key)
    .executeTakeFirst();
  return row ? { value: JSON.parse(row.value) as T, at: Number(row.updated_at) } : undefined;
}

export async function writeCheckpoint(db: Db, key: string, value: unknown, nowSeconds: number): Promise<void> {
  const text = JSON.stringify(value);
  await db
    .insertInto('checkpoints')
    .values({ key, value: text, updated_at: nowSeconds })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: text, updated_at: nowSeconds }))
    .execute();
}
