import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Monotonic counters that readers poll to learn that something changed (published datasets, tokens). */
export type CounterName = 'datasets' | 'tokens';

export async function bumpCounter(db: Kysely<Database> | Transaction<Database>, name: CounterName): Promise<number> {
  const row = await db
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', name)
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

export async function readCounters(db: Kysely<Database>): Promise<Record<CounterName, number>> {
  const rows = await db.selectFrom('counters').select(['name', 'value']).execute();
  const out: Record<CounterName, number> = { datasets: 0, tokens: 0 };
  for (const r of rows) out[r.name as CounterName] = Number(r.value);
  return out;
}
