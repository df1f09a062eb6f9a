import type { Kysely } from 'kysely';
import { DAY, utcDate } from '../../../core/time.js';
import { readCheckpoint, writeCheckpoint } from '../../../store/checkpoints.js';
import { inChunks } from '../../../store/chunks.js';
import type { Database } from '../../../store/schema.js';
import type { IngestStart } from '../../kit/ingest-start.js';
import { type ChainInput, type DayFacts, historyDays } from './compute.js';
import type { BlockFact, NetworkSample } from './facts.js';
import type { NativePriceValue } from './schema.js';
import type { BlockchainTables } from './tables.js';
import type { EvmChainTarget } from './targets.js';

/** Blocks, senders and samples are kept this long (the 7 published days and a margin). */
export const HISTORY_SECONDS = 9 * DAY;
/**
 * A first ingestion reads back to the start of the UTC day this long before the head: the oldest of the 7 published
 * days (today and the 6 before it), whole, and nothing older (9 days were read before: ~28 % more blocks, for days
 * never published).
 */
export const START_LOOKBACK_SECONDS = 6 * DAY;
const INSERT_CHUNK = 200;

export const blocksKey = (chain: string) => `blockchain:${chain}`;
export const startKey = (chain: string) => `blockchain:${chain}:start`;
export const validatorsKey = (chain: string) => `blockchain:${chain}:validators`;

export interface StoredBlock {
  readonly number: number;
  readonly hash: string;
  readonly timestamp: number;
}

type Stats = Omit<BlockFact, 'chain' | 'number' | 'hash' | 'parentHash' | 'timestamp' | 'senders' | 'addresses'>;

type DayAddress = { chain: string; day: string; address: string; first_block: number };

export class BlockchainRepository {
  private readonly db: Kysely<Database & BlockchainTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<BlockchainTables>();
  }

  /** The newest stored block of a chain. */
  async lastBlock(chain: string): Promise<StoredBlock | undefined> {
    const row = await this.db
      .selectFrom('blockchain_blocks')
      .select(['number', 'hash', 'timestamp'])
      .where('chain', '=', chain)
      .orderBy('number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { number: Number(row.number), hash: row.hash, timestamp: Number(row.timestamp) } : undefined;
  }

  /** Stored blocks with number ≥ `from`, newest first. */
  async blocksFrom(chain: string, from: number): Promise<StoredBlock[]> {
    const rows = await this.db
      .selectFrom('blockchain_blocks')
      .select(['number', 'hash', 'timestamp'])
      .where('chain', '=', chain)
      .where('number', '>=', from)
      .orderBy('number', 'desc')
      .execute();
    return rows.map((r) => ({ number: Number(r.number), hash: r.hash, timestamp: Number(r.timestamp) }));
  }

  /**
   * One batch of blocks, their senders, their addresses and the checkpoint, in one transaction. Senders and
   * addresses keep the first block of the day they were seen in (blocks come in ascending order, so the first insert
   * is the first sighting).
   */
  async saveBlocks(chain: string, facts: readonly BlockFact[], now: number): Promise<void> {
    if (!facts.length) return;
    await this.platform.transaction().execute(async (platformTrx) => {
      const trx = platformTrx.withTables<BlockchainTables>();
      const rows = facts.map((f) => {
        const { chain: _c, number, hash, parentHash, timestamp, senders: _s, addresses: _a, ...stats } = f;
        return {
          chain,
          number,
          hash,
          parent_hash: parentHash,
          timestamp,
          day: utcDate(timestamp),
          stats: JSON.stringify(stats satisfies Stats),
          addresses_counted: 1,
        };
      });
      await inChunks(rows, (chunk) => trx.insertInto('blockchain_blocks').values(chunk).execute(), INSERT_CHUNK);
      const firstSightings = (of: (f: BlockFact) => readonly string[]) => {
        const seen = new Map<string, DayAddress>();
        for (const f of facts) {
          const day = utcDate(f.timestamp);
          for (const address of of(f)) {
            const key = `${day}/${address}`;
            if (!seen.has(key)) seen.set(key, { chain, day, address, first_block: f.number });
          }
        }
        return [...seen.values()];
      };
      await inChunks(
        firstSightings((f) => f.senders),
        (chunk) =>
          trx
            .insertInto('blockchain_senders')
            .values(chunk)
            .onConflict((oc) => oc.columns(['chain', 'day', 'address']).doNothing())
            .execute(),
        INSERT_CHUNK,
      );
      await inChunks(
        firstSightings((f) => f.addresses),
        (chunk) =>
          trx
            .insertInto('blockchain_addresses')
            .values(chunk)
            .onConflict((oc) => oc.columns(['chain', 'day', 'address']).doNothing())
            .execute(),
        INSERT_CHUNK,
      );
      const last = facts[facts.length - 1]!;
      await writeCheckpoint(platformTrx, blocksKey(chain), { block: last.number, hash: last.hash }, now);
    });
  }

  /**
   * Deletes every block from `number` up and the senders and addresses first seen in them (a reorg), with the
   * checkpoint.
   */
  async rollbackFrom(chain: string, number: number, now: number): Promise<void> {
    await this.platform.transaction().execute(async (platformTrx) => {
      const trx = platformTrx.withTables<BlockchainTables>();
      await trx.deleteFrom('blockchain_blocks').where('chain', '=', chain).where('number', '>=', number).execute();
      for (const table of ['blockchain_senders', 'blockchain_addresses'] as const) {
        await trx.deleteFrom(table).where('chain', '=', chain).where('first_block', '>=', number).execute();
      }
      const top = await trx
        .selectFrom('blockchain_blocks')
        .select(['number', 'hash'])
        .where('chain', '=', chain)
        .orderBy('number', 'desc')
        .limit(1)
        .executeTakeFirst();
      await writeCheckpoint(
        platformTrx,
        blocksKey(chain),
        top ? { block: Number(top.number), hash: top.hash } : { block: number - 1, hash: null },
        now,
      );
    });
  }

  /** Stores a sample; a second sample at the same instant replaces it but keeps its validator snapshot. */
  async saveSample(sample: NetworkSample): Promise<void> {
    const existing = await this.db
      .selectFrom('blockchain_samples')
      .select('data')
      .where('chain', '=', sample.chain)
      .where('taken_at', '=', sample.takenAt)
      .executeTakeFirst();
    const kept = existing ? (JSON.parse(existing.data) as NetworkSample).validators : null;
    const data = JSON.stringify(sample.validators || !kept ? sample : { ...sample, validators: kept });
    await this.db
      .insertInto('blockchain_samples')
      .values({ chain: sample.chain, taken_at: sample.takenAt, day: utcDate(sample.takenAt), data })
      .onConflict((oc) => oc.columns(['chain', 'taken_at']).doUpdateSet({ data }))
      .execute();
  }

  async lastSampleAt(chain: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('blockchain_samples')
      .select('taken_at')
      .where('chain', '=', chain)
      .orderBy('taken_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.taken_at) : null;
  }

  /** The UTC day of the last validator snapshot (taken at most once a day) and when a read last failed since. */
  async validatorRead(chain: string): Promise<{ day?: string; failedAt?: number } | undefined> {
    return readCheckpoint<{ day?: string; failedAt?: number }>(this.platform, validatorsKey(chain));
  }

  async setValidatorDay(chain: string, day: string, now: number): Promise<void> {
    await writeCheckpoint(this.platform, validatorsKey(chain), { day }, now);
  }

  /** A validator read failed at `now` (the day of the last snapshot is kept). */
  async setValidatorFailure(chain: string, now: number): Promise<void> {
    const last = await this.validatorRead(chain);
    await writeCheckpoint(
      this.platform,
      validatorsKey(chain),
      { ...(last?.day !== undefined ? { day: last.day } : {}), failedAt: now },
      now,
    );
  }

  start(chain: string): Promise<IngestStart | undefined> {
    return readCheckpoint<IngestStart>(this.platform, startKey(chain));
  }

  /** Forgets what is older than the history (blocks, senders, addresses and samples of days before `beforeDay`). */
  async prune(chain: string, beforeDay: string): Promise<void> {
    await this.db.deleteFrom('blockchain_blocks').where('chain', '=', chain).where('day', '<', beforeDay).execute();
    await this.db.deleteFrom('blockchain_senders').where('chain', '=', chain).where('day', '<', beforeDay).execute();
    await this.db.deleteFrom('blockchain_addresses').where('chain', '=', chain).where('day', '<', beforeDay).execute();
    await this.db.deleteFrom('blockchain_samples').where('chain', '=', chain).where('day', '<', beforeDay).execute();
  }

  private async day(chain: string, date: string): Promise<DayFacts> {
    const rows = await this.db
      .selectFrom('blockchain_blocks')
      .selectAll()
      .where('chain', '=', chain)
      .where('day', '=', date)
      .orderBy('number')
      .execute();
    const blocks: BlockFact[] = rows.map((r) => ({
      ...(JSON.parse(r.stats) as Stats),
      chain,
      number: Number(r.number),
      hash: r.hash,
      parentHash: r.parent_hash,
      timestamp: Number(r.timestamp),
      senders: [],
      addresses: [],
    }));
    let previousTimestamp: number | null = null;
    if (blocks.length) {
      const prev = await this.db
        .selectFrom('blockchain_blocks')
        .select('timestamp')
        .where('chain', '=', chain)
        .where('number', '=', blocks[0]!.number - 1)
        .executeTakeFirst();
      previousTimestamp = prev ? Number(prev.timestamp) : null;
    }
    const distinct = async (table: 'blockchain_senders' | 'blockchain_addresses') => {
      const count = await this.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('chain', '=', chain)
        .where('day', '=', date)
        .executeTakeFirst();
      return Number(count?.n ?? 0);
    };
    // A block stored before migration 0015 has no recorded recipients: the day's address count is unknown.
    const uncounted = rows.some((r) => r.addresses_counted === null);
    return {
      date,
      blocks,
      previousTimestamp,
      activeSenders: await distinct('blockchain_senders'),
      activeAddresses: uncounted ? null : await distinct('blockchain_addresses'),
    };
  }

  /**
   * A chain's compute input: the 7 days ending at its newest stored block, their blocks and sender counts, the
   * days' network samples and the native prices; undefined before the first block is stored.
   */
  async chainInput(
    target: EvmChainTarget,
    prices: (days: readonly string[], asOf: number) => Promise<ReadonlyMap<string, NativePriceValue>>,
  ): Promise<ChainInput | undefined> {
    const last = await this.lastBlock(target.chain);
    const start = await this.start(target.chain);
    if (!last || !start) return undefined;
    const dates = historyDays(last.timestamp);
    const days: DayFacts[] = [];
    for (const date of dates) days.push(await this.day(target.chain, date));
    const rows = await this.db
      .selectFrom('blockchain_samples')
      .select('data')
      .where('chain', '=', target.chain)
      .where('day', 'in', dates)
      .orderBy('taken_at')
      .execute();
    return {
      chain: target.chain,
      kind: target.kind,
      asOf: last.timestamp,
      // Block 0 has nothing before it: its day is complete from genesis.
      coveredFrom: start.block === 0 ? 0 : start.timestamp,
      days,
      samples: rows.map((r) => JSON.parse(r.data) as NetworkSample),
      prices: await prices(dates, last.timestamp),
    };
  }
}
