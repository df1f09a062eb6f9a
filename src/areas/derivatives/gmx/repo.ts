import type { Kysely } from 'kysely';
import { DAY, startOfUtcDay } from '../../../core/time.js';
import { inChunks } from '../../../store/chunks.js';
import type { Database } from '../../../store/schema.js';
import type { GmxComputeInput, GmxPriceObservation } from './compute.js';
import type { GmxEventName } from './events.js';
import { factJson, type GmxEventFact, type GmxMarketFact, type GmxStateSnapshot, parseFactJson } from './facts.js';
import type { GmxTables } from './tables.js';
import type { GmxTarget } from './targets.js';

const INSERT_CHUNK = 500;

/** The GMX part's queries over its tables. */
export class GmxRepository {
  private readonly db: Kysely<Database & GmxTables>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<GmxTables>();
  }

  async markets(chain: string, dataStore: string): Promise<GmxMarketFact[]> {
    const rows = await this.db
      .selectFrom('gmx_markets')
      .selectAll()
      .where('chain', '=', chain)
      .where('data_store', '=', dataStore.toLowerCase())
      .orderBy('market')
      .execute();
    return rows.map((r) => ({
      chain: r.chain,
      dataStore: r.data_store,
      market: r.market,
      indexToken: r.index_token,
      longToken: r.long_token,
      shortToken: r.short_token,
      createdBlock: r.created_block === null ? null : Number(r.created_block),
    }));
  }

  /** Markets not stored yet are added; a stored market is kept (its `MarketCreated` block, when known, stays). */
  async saveMarkets(markets: readonly GmxMarketFact[]): Promise<void> {
    await inChunks(
      markets.map((m) => ({
        chain: m.chain,
        data_store: m.dataStore.toLowerCase(),
        market: m.market.toLowerCase(),
        index_token: m.indexToken.toLowerCase(),
        long_token: m.longToken.toLowerCase(),
        short_token: m.shortToken.toLowerCase(),
        created_block: m.createdBlock,
      })),
      (rows) =>
        this.db
          .insertInto('gmx_markets')
          .values(rows)
          .onConflict((oc) => oc.columns(['chain', 'market']).doNothing())
          .execute(),
      INSERT_CHUNK,
    );
  }

  /** Tokens the markets name whose decimals are not stored (synthetic index tokens stay here: they have none). */
  async tokensWithoutMetadata(chain: string, dataStore: string): Promise<string[]> {
    const known = new Set(
      (await this.db.selectFrom('gmx_tokens').select('address').where('chain', '=', chain).execute()).map(
        (r) => r.address,
      ),
    );
    const tokens = new Set<string>();
    for (const m of await this.markets(chain, dataStore)) {
      for (const t of [m.indexToken, m.longToken, m.shortToken]) if (!known.has(t)) tokens.add(t);
    }
    tokens.delete('0x0000000000000000000000000000000000000000');
    return [...tokens].sort();
  }

  /**
   * How many markets and named tokens are stored for a venue: with the newest snapshot, what the computation's
   * output depends on (a token named after the snapshot, e.g. by the oracle keeper once it answers, changes pairs).
   */
  async metadataCounts(chain: string, dataStore: string): Promise<{ markets: number; tokens: number }> {
    const [markets, tokens] = await Promise.all([
      this.db
        .selectFrom('gmx_markets')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('chain', '=', chain)
        .where('data_store', '=', dataStore.toLowerCase())
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('gmx_tokens')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('chain', '=', chain)
        .executeTakeFirstOrThrow(),
    ]);
    return { markets: Number(markets.n), tokens: Number(tokens.n) };
  }

  async saveTokens(
    chain: string,
    tokens: readonly { address: string; symbol: string; decimals: number }[],
  ): Promise<void> {
    await inChunks(
      tokens.map((t) => ({ chain, address: t.address.toLowerCase(), symbol: t.symbol, decimals: t.decimals })),
      (rows) =>
        this.db
          .insertInto('gmx_tokens')
          .values(rows)
          .onConflict((oc) => oc.columns(['chain', 'address']).doNothing())
          .execute(),
      INSERT_CHUNK,
    );
  }

  async tokens(chain: string): Promise<Record<string, { symbol: string; decimals: number }>> {
    const rows = await this.db.selectFrom('gmx_tokens').selectAll().where('chain', '=', chain).execute();
    return Object.fromEntries(rows.map((r) => [r.address, { symbol: r.symbol, decimals: Number(r.decimals) }]));
  }

  async saveSnapshot(snapshot: GmxStateSnapshot): Promise<void> {
    await this.db
      .insertInto('gmx_snapshots')
      .values({
        chain: snapshot.chain,
        data_store: snapshot.dataStore.toLowerCase(),
        block_number: snapshot.blockNumber,
        timestamp: snapshot.timestamp,
        state: factJson(snapshot.markets),
      })
      .onConflict((oc) => oc.columns(['chain', 'data_store', 'block_number']).doNothing())
      .execute();
  }

  async snapshotTimes(chain: string, dataStore: string): Promise<{ blockNumber: number; timestamp: number }[]> {
    const rows = await this.db
      .selectFrom('gmx_snapshots')
      .select(['block_number', 'timestamp'])
      .where('chain', '=', chain)
      .where('data_store', '=', dataStore.toLowerCase())
      .orderBy('block_number')
      .execute();
    return rows.map((r) => ({ blockNumber: Number(r.block_number), timestamp: Number(r.timestamp) }));
  }

  /** Snapshots taken in `[from, to]` (Unix seconds), oldest first. */
  async snapshots(chain: string, dataStore: string, from: number, to: number): Promise<GmxStateSnapshot[]> {
    const rows = await this.db
      .selectFrom('gmx_snapshots')
      .selectAll()
      .where('chain', '=', chain)
      .where('data_store', '=', dataStore.toLowerCase())
      .where('timestamp', '>=', from)
      .where('timestamp', '<=', to)
      .orderBy('block_number')
      .execute();
    return rows.map((r) => ({
      chain: r.chain,
      dataStore: r.data_store,
      blockNumber: Number(r.block_number),
      timestamp: Number(r.timestamp),
      markets: parseFactJson(r.state),
    }));
  }

  /** Drops snapshots older than `before` (Unix seconds) except the newest of each UTC day (the daily records'). */
  async pruneSnapshots(chain: string, dataStore: string, before: number): Promise<number> {
    const times = await this.snapshotTimes(chain, dataStore);
    const newestOfDay = new Map<number, number>();
    for (const t of times) newestOfDay.set(Math.floor(t.timestamp / 86_400), t.blockNumber);
    const keep = new Set(newestOfDay.values());
    const drop = times.filter((t) => t.timestamp < before && !keep.has(t.blockNumber)).map((t) => t.blockNumber);
    await inChunks(
      drop,
      (blocks) =>
        this.db
          .deleteFrom('gmx_snapshots')
          .where('chain', '=', chain)
          .where('data_store', '=', dataStore.toLowerCase())
          .where('block_number', 'in', blocks)
          .execute(),
      INSERT_CHUNK,
    );
    return drop.length;
  }

  /** The emitter's events of the given names with timestamps in `[from, to]`, in chain order. */
  async events(
    chain: string,
    emitter: string,
    names: readonly GmxEventName[],
    from: number,
    to: number,
  ): Promise<GmxEventFact[]> {
    if (!names.length) return [];
    const rows = await this.db
      .selectFrom('gmx_events')
      .selectAll()
      .where('chain', '=', chain)
      .where('emitter', '=', emitter.toLowerCase())
      .where('name', 'in', [...names])
      .where('timestamp', '>=', from)
      .where('timestamp', '<=', to)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return rows.map((r) => ({
      blockNumber: Number(r.block_number),
      logIndex: Number(r.log_index),
      txHash: r.tx_hash,
      timestamp: Number(r.timestamp),
      event: parseFactJson(r.data),
    }));
  }

  /**
   * What `computeGmx` reads for a venue, as of its newest snapshot: the 7 days' snapshots and events (from a day
   * before the oldest record's, so that funding carries over into it), markets and tokens; events after the
   * snapshot wait for the next one (no record is newer than its payload). Undefined before the first snapshot.
   */
  async computeInput(
    target: GmxTarget,
    prices: readonly GmxPriceObservation[] = [],
  ): Promise<GmxComputeInput | undefined> {
    const newest = (await this.snapshotTimes(target.chain, target.dataStore)).at(-1);
    if (!newest) return undefined;
    const asOf = newest.timestamp;
    const from = startOfUtcDay(asOf) - 7 * DAY;
    return {
      protocol: target.protocol,
      chain: target.chain,
      version: target.version,
      dataStore: target.dataStore,
      eventEmitter: target.eventEmitter,
      asOf,
      listedPairs: target.pairs,
      markets: await this.markets(target.chain, target.dataStore),
      tokens: await this.tokens(target.chain),
      snapshots: await this.snapshots(target.chain, target.dataStore, from, asOf),
      events: await this.events(target.chain, target.eventEmitter, COMPUTE_EVENTS, from, asOf),
      prices: prices.filter((p) => p.timestamp <= asOf),
    };
  }
}

/** The events `computeGmx` reads. */
export const COMPUTE_EVENTS: readonly GmxEventName[] = [
  'PositionIncrease',
  'PositionDecrease',
  'PositionFeesCollected',
  'OpenInterestUpdated',
  'Funding',
  'Borrowing',
];
