import type { Kysely } from 'kysely';
import type { FeedAnswer } from '../../core/price-policy.js';
import { DAY, dailyHistoryInstants, HOUR } from '../../core/time.js';
import type { Database } from '../../store/schema.js';
import { DexReadModel } from '../dex/public.js';
import { feedAnswers, type OracleFeedTarget } from '../oracles/public.js';
import type { LendingInput, MarketInput } from './compute.js';
import type { LendingEventFact, LendingEventKind, MarketSnapshot, MorphoMarketParams, Participants } from './facts.js';
import { PARTICIPATING_KINDS, type ParticipationRow, participantsOf } from './participants.js';
import type { ChainDexFacts } from './prices.js';
import type { LendingTables } from './tables.js';
import type { LendingMarketTarget } from './targets.js';

/** A snapshot stands for the end of a UTC day when it was taken at most this long before it. */
export const DAILY_TOLERANCE_SECONDS = 6 * HOUR;

type EventRow = LendingTables['lending_events'];

function toFact(r: EventRow): LendingEventFact {
  return {
    chain: r.chain,
    pool: r.pool,
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
    txHash: r.tx_hash,
    timestamp: Number(r.timestamp),
    kind: r.kind as LendingEventKind,
    marketId: r.market_id,
    asset: r.asset,
    account: r.account,
    actor: r.actor,
    amount: BigInt(r.amount),
    collateralAsset: r.collateral_asset,
    collateralAmount: BigInt(r.collateral_amount),
  };
}

/** Reads and writes the lending area's facts (events and snapshots), and loads what the computation reads. */
export class LendingRepository {
  private readonly db: Kysely<Database & LendingTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<LendingTables>();
  }

  /** A market's events of the given kinds with `from < timestamp ≤ to`, in chain order. */
  async events(
    chain: string,
    pool: string,
    kinds: readonly LendingEventKind[],
    from: number,
    to: number,
  ): Promise<LendingEventFact[]> {
    const rows = await this.db
      .selectFrom('lending_events')
      .selectAll()
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('kind', 'in', [...kinds])
      .where('timestamp', '>', from)
      .where('timestamp', '<=', to)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return rows.map(toFact);
  }

  /**
   * Every account that ever held a position in the market up to `maxBlock`, with the assets it supplied (Supply,
   * aToken transfers received, Morpho collateral) and borrowed. Morpho keys are `<market id>:<account>`.
   */
  async participants(chain: string, pool: string, maxBlock: number): Promise<Participants> {
    const rows = await this.db
      .selectFrom('lending_events')
      .select(['kind', 'market_id', 'account', 'asset'])
      .distinct()
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('kind', 'in', [...PARTICIPATING_KINDS])
      .where('block_number', '<=', maxBlock)
      .execute();
    return participantsOf(rows);
  }

  /** The rows of a market's events with `after < block ≤ upTo` that name an account (the incremental step). */
  async eventsTouching(chain: string, pool: string, after: number, upTo: number): Promise<ParticipationRow[]> {
    return this.db
      .selectFrom('lending_events')
      .select(['kind', 'market_id', 'account', 'actor', 'asset'])
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('block_number', '>', after)
      .where('block_number', '<=', upTo)
      .where('kind', '!=', 'create_market')
      .execute();
  }

  /** The newest snapshot of a market at or below `block` (the base an incremental snapshot carries from). */
  async snapshotAtOrBelow(chain: string, pool: string, block: number): Promise<MarketSnapshot | undefined> {
    const row = await this.db
      .selectFrom('lending_snapshots')
      .select('snapshot')
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('block_number', '<=', block)
      .orderBy('block_number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? (JSON.parse(row.snapshot) as MarketSnapshot) : undefined;
  }

  /** Morpho markets learnt from CreateMarket logs on the chain (on one singleton when `pool` is given). */
  async createdMarkets(chain: string, pool?: string): Promise<MorphoMarketParams[]> {
    let query = this.db
      .selectFrom('lending_events')
      .select(['market_id', 'data'])
      .where('chain', '=', chain)
      .where('kind', '=', 'create_market');
    if (pool !== undefined) query = query.where('pool', '=', pool);
    const rows = await query.execute();
    return rows.flatMap((r) =>
      r.data === null
        ? []
        : [{ ...(JSON.parse(r.data) as Omit<MorphoMarketParams, 'id'>), id: r.market_id as `0x${string}` }],
    );
  }

  /** The newest hourly DEX price (USD) of each token on the chain within `maxAge` seconds before the hour of `t`. */
  async usdPrices(chain: string, t: number, maxAge = 6 * HOUR): Promise<Map<string, number>> {
    return new DexReadModel(this.platform).usdPricesAt(chain, t, maxAge);
  }

  async saveSnapshot(s: MarketSnapshot): Promise<void> {
    await this.db
      .insertInto('lending_snapshots')
      .values({
        chain: s.chain,
        pool: s.pool,
        block_number: s.blockNumber,
        timestamp: s.timestamp,
        snapshot: JSON.stringify(s),
      })
      .onConflict((oc) => oc.columns(['chain', 'pool', 'block_number']).doUpdateSet({ snapshot: JSON.stringify(s) }))
      .execute();
  }

  async latestSnapshot(chain: string, pool: string): Promise<MarketSnapshot | undefined> {
    const row = await this.db
      .selectFrom('lending_snapshots')
      .select('snapshot')
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .orderBy('block_number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? (JSON.parse(row.snapshot) as MarketSnapshot) : undefined;
  }

  /** The snapshot taken at `block`, if it is still stored. */
  async snapshotAt(chain: string, pool: string, block: number): Promise<MarketSnapshot | undefined> {
    const row = await this.db
      .selectFrom('lending_snapshots')
      .select('snapshot')
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('block_number', '=', block)
      .executeTakeFirst();
    return row ? (JSON.parse(row.snapshot) as MarketSnapshot) : undefined;
  }

  /** For each instant, the newest snapshot taken at or before it and after `instant − maxAge` (or undefined). */
  async snapshotsAtOrBefore(
    chain: string,
    pool: string,
    instants: readonly number[],
    maxAge = DAILY_TOLERANCE_SECONDS,
  ): Promise<(MarketSnapshot | undefined)[]> {
    const out: (MarketSnapshot | undefined)[] = [];
    for (const t of instants) {
      const row = await this.db
        .selectFrom('lending_snapshots')
        .select('snapshot')
        .where('chain', '=', chain)
        .where('pool', '=', pool)
        .where('timestamp', '<=', t)
        .where('timestamp', '>', t - maxAge)
        .orderBy('timestamp', 'desc')
        .limit(1)
        .executeTakeFirst();
      out.push(row ? (JSON.parse(row.snapshot) as MarketSnapshot) : undefined);
    }
    return out;
  }

  /** Per market with a snapshot, its pool and newest snapshot block (what the computation would read). */
  async latestSnapshotBlocks(targets: readonly LendingMarketTarget[]): Promise<[string, number][]> {
    const out: [string, number][] = [];
    for (const m of targets) {
      const row = await this.db
        .selectFrom('lending_snapshots')
        .select('block_number')
        .where('chain', '=', m.chain)
        .where('pool', '=', m.pool)
        .orderBy('block_number', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (row) out.push([m.pool, Number(row.block_number)]);
    }
    return out;
  }

  /** Timestamps and blocks of a market's snapshots, oldest first. */
  async snapshotTimes(chain: string, pool: string): Promise<{ blockNumber: number; timestamp: number }[]> {
    const rows = await this.db
      .selectFrom('lending_snapshots')
      .select(['block_number', 'timestamp'])
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .orderBy('block_number')
      .execute();
    return rows.map((r) => ({ blockNumber: Number(r.block_number), timestamp: Number(r.timestamp) }));
  }

  async deleteSnapshots(chain: string, pool: string, blocks: readonly number[]): Promise<void> {
    if (!blocks.length) return;
    await this.db
      .deleteFrom('lending_snapshots')
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('block_number', 'in', [...blocks])
      .execute();
  }

  /**
   * Everything the computation reads, from the store: per market its newest snapshot, the snapshots standing for
   * the ends of the 6 previous UTC days, the week's liquidations, the DEX area's hourly prices and pool depth, and
   * the oracle area's USD feed answers of `oracleFeeds` (the liquidations' feed candidates). The computation's
   * `as_of` is the oldest of the newest snapshots (undefined before the first).
   */
  async computeInput(
    targets: readonly LendingMarketTarget[],
    oracleFeeds: readonly OracleFeedTarget[] = [],
  ): Promise<LendingInput | undefined> {
    const dex = new DexReadModel(this.platform);
    const latest = new Map<LendingMarketTarget, MarketSnapshot | undefined>();
    for (const m of targets) latest.set(m, await this.latestSnapshot(m.chain, m.pool));
    const taken = [...latest.values()].filter((s): s is MarketSnapshot => s !== undefined);
    if (!taken.length) return undefined;
    const asOf = Math.min(...taken.map((s) => s.timestamp));
    const dexFacts: Record<string, ChainDexFacts> = {};
    const feeds: Record<string, FeedAnswer[]> = {};
    const markets: MarketInput[] = [];
    for (const m of targets) {
      if (!dexFacts[m.chain]) dexFacts[m.chain] = await this.dexFacts(dex, m.chain, asOf);
      // The oracle area's USD feed answers of the liquidations' window (and the newest before it): the policy's
      // feed candidate at each liquidation's block time, the same answers the other areas take.
      if (!feeds[m.chain]) {
        const chainFeeds = oracleFeeds.filter((f) => f.chain === m.chain);
        feeds[m.chain] = await feedAnswers(this.platform, chainFeeds, asOf - 8 * DAY, asOf);
      }
      markets.push({
        source: m,
        latest: latest.get(m),
        daily: await this.snapshotsAtOrBefore(m.chain, m.pool, dailyHistoryInstants(asOf).slice(1)),
        liquidations: await this.events(m.chain, m.pool, ['liquidation'], asOf - 7 * DAY, asOf),
      });
    }
    return { asOf, markets, dex: dexFacts, feeds };
  }

  /**
   * The DEX area's facts of a chain up to `asOf` that the computation rebuilds each day's prices and pool states
   * from: pools, tokens, the newest snapshots at or before asOf, the history's swaps and syncs, hourly prices.
   */
  private dexFacts(dex: DexReadModel, chain: string, asOf: number): Promise<ChainDexFacts> {
    const from = Math.floor((asOf - 8 * DAY) / HOUR) * HOUR;
    return dex.factsWindow(chain, { from, until: asOf, snapshot: { atOrBefore: asOf } });
  }
}
