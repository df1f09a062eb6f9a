import type { Kysely } from 'kysely';
import { DAY } from '../../core/time.js';
import type { Database } from '../../store/schema.js';
import type { ExchangeInfo } from './compute.js';
import type { ChartReading, CoinReading, Fetched, GlobalReading } from './market-days.js';
import type { TokenomicsTables } from './tables.js';

/**
 * The market readings' store (migration `0022_tokenomics_market`): one run's readings written in one transaction
 * (all or nothing), the retention, and what the computation loads for a record's instant.
 */

/** Readings are kept 8 days: the published week and a day. */
export const MARKET_RETENTION_SECONDS = 8 * DAY;

export type ReadingKind = 'coin' | 'chart' | 'global';
export const GLOBAL_ID = 'global';

/** Everything one run fetched, at its fetch time. */
export interface MarketRun {
  readonly fetchedAt: number;
  readonly coins: ReadonlyMap<string, CoinReading>;
  readonly charts: ReadonlyMap<string, ChartReading>;
  readonly global: GlobalReading;
  /** Exchanges whose flag this run fetched (the others were fresh enough). */
  readonly exchanges: readonly ExchangeInfo[];
}

type Db = Kysely<Database & TokenomicsTables>;

export class MarketRepository {
  private readonly db: Db;

  constructor(platform: Kysely<Database>) {
    this.db = platform.withTables<TokenomicsTables>();
  }

  /** Writes a run's readings and exchange flags and prunes what the retention drops, in one transaction. */
  async saveRun(run: MarketRun): Promise<void> {
    const rows = [
      ...[...run.coins].map(([id, r]) => ({ kind: 'coin', coin_id: id, payload: JSON.stringify(r) })),
      ...[...run.charts].map(([id, r]) => ({ kind: 'chart', coin_id: id, payload: JSON.stringify(r) })),
      { kind: 'global', coin_id: GLOBAL_ID, payload: JSON.stringify(run.global) },
    ].map((r) => ({ ...r, fetched_at: run.fetchedAt }));
    const before = run.fetchedAt - MARKET_RETENTION_SECONDS;
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .insertInto('tok_market_readings')
          .values(row)
          .onConflict((oc) => oc.columns(['kind', 'coin_id', 'fetched_at']).doUpdateSet({ payload: row.payload }))
          .execute();
      }
      for (const e of run.exchanges) {
        const values = { name: e.name, centralized: e.centralized ? 1 : 0, fetched_at: run.fetchedAt };
        await trx
          .insertInto('tok_market_exchanges')
          .values({ exchange_id: e.id, ...values })
          .onConflict((oc) => oc.column('exchange_id').doUpdateSet(values))
          .execute();
      }
      await trx.deleteFrom('tok_market_readings').where('fetched_at', '<', before).execute();
      await trx.deleteFrom('tok_market_exchanges').where('fetched_at', '<', before).execute();
    });
  }

  /** The newest reading of `kind`/`id` fetched at or before `asOf`, if any. */
  async readingAt<T>(kind: ReadingKind, id: string, asOf: number): Promise<Fetched<T> | undefined> {
    const row = await this.db
      .selectFrom('tok_market_readings')
      .select(['fetched_at', 'payload'])
      .where('kind', '=', kind)
      .where('coin_id', '=', id)
      .where('fetched_at', '<=', asOf)
      .orderBy('fetched_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { fetchedAt: Number(row.fetched_at), reading: JSON.parse(row.payload) as T } : undefined;
  }

  /** The newest fetch time of any reading (what moves the computation's inputs), or null. */
  async newestFetch(): Promise<number | null> {
    const row = await this.db
      .selectFrom('tok_market_readings')
      .select((eb) => eb.fn.max('fetched_at').as('t'))
      .executeTakeFirst();
    return row?.t == null ? null : Number(row.t);
  }

  /** Every stored exchange flag, with its fetch time. */
  async exchanges(): Promise<(ExchangeInfo & { fetchedAt: number })[]> {
    const rows = await this.db.selectFrom('tok_market_exchanges').selectAll().orderBy('exchange_id').execute();
    return rows.map((r) => ({
      id: r.exchange_id,
      name: r.name,
      centralized: Number(r.centralized) === 1,
      fetchedAt: Number(r.fetched_at),
    }));
  }

  /** How many readings are stored (retention checks). */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('tok_market_readings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
