import { type Kysely, sql } from 'kysely';
import { DAY } from '../../../core/time.js';
import { readCheckpoint, writeCheckpoint } from '../../../store/checkpoints.js';
import { inChunks } from '../../../store/chunks.js';
import type { Database } from '../../../store/schema.js';
import type { BitcoinBlockFact, BitcoinMissingBlock, MempoolSample } from './schema.js';
import type { BitcoinTables, BtcBlockTable } from './tables.js';

/** Checkpoints of the Bitcoin ingest: where it goes on, and its last failure. */
export const BITCOIN_INGEST_KEY = 'blockchain.bitcoin:ingest';
export const BITCOIN_ERROR_KEY = 'blockchain.bitcoin:error';

export interface IngestCheckpoint {
  /** The next height to read. */
  readonly next: number;
  /** Unix seconds of the last successful pass (the chain is known up to then). */
  readonly at: number;
}

export interface ErrorCheckpoint {
  readonly at: number;
  readonly message: string;
}

export interface BlockBatch {
  readonly blocks: readonly BtcBlockTable[];
  readonly addresses: readonly { height: number; address: string; spent: 0 | 1 }[];
  readonly missing: readonly (BitcoinMissingBlock & { hash: string })[];
  readonly mempool?: MempoolSample;
  readonly checkpoint: IngestCheckpoint;
}

export class BitcoinRepository {
  private readonly db: Kysely<Database & BitcoinTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<BitcoinTables>();
  }

  checkpoint<T>(key: string): Promise<T | undefined> {
    return readCheckpoint<T>(this.platform, key);
  }

  async recordError(message: string, at: number): Promise<void> {
    await writeCheckpoint(this.platform, BITCOIN_ERROR_KEY, { at, message } satisfies ErrorCheckpoint, at);
  }

  /** The newest stored blocks (height and hash), newest first. */
  async recentBlocks(n: number): Promise<{ height: number; hash: string }[]> {
    const rows = await this.db
      .selectFrom('btc_blocks')
      .select(['height', 'hash'])
      .orderBy('height', 'desc')
      .limit(n)
      .execute();
    return rows.map((r) => ({ height: Number(r.height), hash: r.hash }));
  }

  /** Saves a batch and its checkpoint at once; `rewindTo` first removes what a reorganisation replaced. */
  async save(batch: BlockBatch, now: number, rewindTo?: number): Promise<void> {
    await this.platform.transaction().execute(async (platformTrx) => {
      const trx = platformTrx.withTables<BitcoinTables>();
      if (rewindTo !== undefined) {
        await trx.deleteFrom('btc_blocks').where('height', '>=', rewindTo).execute();
        await trx.deleteFrom('btc_block_addresses').where('height', '>=', rewindTo).execute();
        await trx.deleteFrom('btc_missing_blocks').where('height', '>=', rewindTo).execute();
      }
      await inChunks(batch.blocks, (chunk) => trx.insertInto('btc_blocks').values(chunk).execute(), 200);
      await inChunks(
        batch.addresses,
        (chunk) =>
          trx
            .insertInto('btc_block_addresses')
            .values(chunk)
            .onConflict((oc) => oc.columns(['height', 'address']).doNothing())
            .execute(),
        500,
      );
      for (const m of batch.missing) {
        await trx
          .insertInto('btc_missing_blocks')
          .values({ height: m.height, hash: m.hash, time: m.time, reason: m.reason })
          .onConflict((oc) => oc.column('height').doNothing())
          .execute();
      }
      if (batch.mempool) {
        const m = batch.mempool;
        await trx
          .insertInto('btc_mempool_samples')
          .values({ time: m.time, size: m.size, bytes: m.bytes, total_fee_sat: m.totalFee?.toString() ?? null })
          .onConflict((oc) => oc.column('time').doNothing())
          .execute();
      }
      // Facts older than the history (and its margin) are not read again.
      const horizon = now - 10 * DAY;
      const old = trx.selectFrom('btc_blocks').select('height').where('time', '<', horizon);
      await trx.deleteFrom('btc_block_addresses').where('height', 'in', old).execute();
      await trx.deleteFrom('btc_blocks').where('time', '<', horizon).execute();
      await trx.deleteFrom('btc_mempool_samples').where('time', '<', horizon).execute();
      await writeCheckpoint(platformTrx, BITCOIN_INGEST_KEY, batch.checkpoint, now);
    });
  }

  /** Everything the computation reads for the days from `since` (Unix seconds) on. */
  async computeInput(since: number) {
    const rows = await this.db
      .selectFrom('btc_blocks')
      .selectAll()
      .where('time', '>=', since - DAY)
      .orderBy('height')
      .execute();
    const blocks: BitcoinBlockFact[] = rows.map((r) => ({
      height: Number(r.height),
      hash: r.hash,
      time: Number(r.time),
      txCount: Number(r.tx_count),
      size: Number(r.size),
      weight: Number(r.weight),
      totalFee: BigInt(r.total_fee_sat),
      difficulty: Number(r.difficulty),
      chainwork: r.chainwork,
      hashrate144: r.hashrate_144 === null ? null : Number(r.hashrate_144),
      hashrate2016: r.hashrate_2016 === null ? null : Number(r.hashrate_2016),
      txFees: JSON.parse(r.tx_fees) as [number, number][],
      typeMix: JSON.parse(r.type_mix) as BitcoinBlockFact['typeMix'],
    }));
    // A literal: better-sqlite3 binds a JS number as a double, and time / 86400.0 would group by the instant.
    const day = sql<number>`(b.time / ${sql.lit(DAY)})`;
    const counts = await this.db
      .selectFrom('btc_block_addresses as a')
      .innerJoin('btc_blocks as b', 'b.height', 'a.height')
      .select([
        day.as('day'),
        sql<number>`count(distinct a.address)`.as('n'),
        sql<number>`count(distinct case when a.spent = 1 then a.address end)`.as('senders'),
      ])
      .where('b.time', '>=', since)
      .groupBy(day)
      .execute();
    const date = (d: number) => new Date(Number(d) * DAY * 1000).toISOString().slice(0, 10);
    const activeAddresses = new Map(counts.map((c) => [date(c.day), Number(c.n)]));
    const activeSenders = new Map<string, number | null>(counts.map((c) => [date(c.day), Number(c.senders)]));
    // Days with a block stored before migration 0015: which of their addresses were spent from is not recorded.
    const unmarked = await this.db
      .selectFrom('btc_blocks as b')
      .select(day.as('day'))
      .distinct()
      .where('b.time', '>=', since)
      .where('b.address_roles', 'is', null)
      .execute();
    for (const u of unmarked) activeSenders.set(date(u.day), null);
    const missing = (
      await this.db.selectFrom('btc_missing_blocks').selectAll().where('time', '>=', since).execute()
    ).map((m): BitcoinMissingBlock => ({ height: Number(m.height), time: Number(m.time), reason: 'source_error' }));
    const mempool = (
      await this.db.selectFrom('btc_mempool_samples').selectAll().where('time', '>=', since).execute()
    ).map(
      (m): MempoolSample => ({
        time: Number(m.time),
        size: Number(m.size),
        bytes: Number(m.bytes),
        totalFee: m.total_fee_sat === null ? null : BigInt(m.total_fee_sat),
      }),
    );
    return { blocks, activeAddresses, activeSenders, missing, mempool };
  }
}
