import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { LendingEventFact, LendingEventKind, MarketSnapshot } from './facts.js';
import type { Participants } from './snapshot.js';
import type { LendingTables } from './tables.js';

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

/** Reads and writes the lending area's facts (events and snapshots). */
export class LendingRepository {
  private readonly db: Kysely<Database & LendingTables>;

  constructor(platform: Kysely<Database>) {
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
      .where('kind', 'in', ['supply', 'transfer', 'supply_collateral', 'borrow'])
      .where('block_number', '<=', maxBlock)
      .execute();
    const accounts = new Map<string, { supplied: Set<string>; borrowed: Set<string> }>();
    for (const r of rows) {
      const key = r.market_id ? `${r.market_id}:${r.account}` : r.account;
      let entry = accounts.get(key);
      if (!entry) {
        entry = { supplied: new Set(), borrowed: new Set() };
        accounts.set(key, entry);
      }
      (r.kind === 'borrow' ? entry.borrowed : entry.supplied).add(r.asset);
    }
    return { accounts };
  }

  /** Morpho markets learnt from CreateMarket logs on a singleton. */
  async createdMarkets(chain: string, pool: string): Promise<{ id: string; data: string }[]> {
    const rows = await this.db
      .selectFrom('lending_events')
      .select(['market_id', 'data'])
      .where('chain', '=', chain)
      .where('pool', '=', pool)
      .where('kind', '=', 'create_market')
      .execute();
    return rows.filter((r) => r.data !== null).map((r) => ({ id: r.market_id, data: r.data! }));
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

  /** For each instant, the newest snapshot taken at or before it and after `instant − maxAge` (or undefined). */
  async snapshotsAtOrBefore(
    chain: string,
    pool: string,
    instants: readonly number[],
    maxAge = 6 * 3600,
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
}
