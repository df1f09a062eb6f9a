import type { Kysely, Transaction } from 'kysely';
import { startOfUtcDay } from '../../core/time.js';
import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import type { StablecoinProtocolInput, StablecoinRef } from './compute.js';
import type { StableEventFact, StableSnapshot } from './facts.js';
import type { StablecoinTables } from './tables.js';

/** Events the computation reads: two 7-day windows (the oldest daily record has its own trailing week). */
export const HISTORY_SECONDS = 14 * 86_400;

/** Events per page where every one up to a block may be many (`eachEventsPage`). */
const EVENTS_PAGE = 10_000;

/** Rows per INSERT: 10 columns × 500 stays far below SQLite's bound-parameter limit. */
const INSERT_CHUNK = 500;

/** JSON with exact big integers: a bigint is written as its decimal digits suffixed `n`, and read back as one. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v.toString()}n` : v));
}

const BIGINT_TEXT = /^-?\d+n$/;

export function fromJson<T>(text: string): T {
  return JSON.parse(text, (_k, v) => (typeof v === 'string' && BIGINT_TEXT.test(v) ? BigInt(v.slice(0, -1)) : v)) as T;
}

type EventRow = StablecoinTables['stable_events'];

export function eventRow(e: StableEventFact): EventRow {
  const { source, kind, ...fields } = e.event;
  return {
    chain: e.chain,
    protocol: e.protocol,
    block_number: e.blockNumber,
    log_index: e.logIndex,
    tx_hash: e.txHash,
    address: e.address,
    source,
    kind,
    timestamp: e.timestamp,
    fields: toJson(fields),
  };
}

function eventFact(r: EventRow): StableEventFact {
  return {
    chain: r.chain,
    protocol: r.protocol,
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
    txHash: r.tx_hash,
    address: r.address,
    timestamp: Number(r.timestamp),
    event: { source: r.source, kind: r.kind, ...fromJson<object>(r.fields) } as StableEventFact['event'],
  };
}

/** Writes the events of one block range inside the EVM engine's transaction (idempotent: insert or ignore). */
export async function insertEvents(platform: Transaction<Database>, events: readonly StableEventFact[]) {
  const trx = platform.withTables<StablecoinTables>();
  await inChunks(
    events,
    (chunk) =>
      trx
        .insertInto('stable_events')
        .values(chunk.map(eventRow))
        .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute(),
    INSERT_CHUNK,
  );
}

/** Reorg rollback: the protocol's events and snapshots above `afterBlock`. */
/**
 * Deletes a protocol's facts above `after`: with `part`, only that part's (`transfers`: the token's events;
 * `protocol`: every other event and the snapshots), since each part has a checkpoint of its own.
 */
export async function rollbackStable(
  platform: Transaction<Database>,
  chain: string,
  protocol: string,
  after: number,
  only?: { token: string; part: 'protocol' | 'transfers' },
) {
  const trx = platform.withTables<StablecoinTables>();
  let events = trx
    .deleteFrom('stable_events')
    .where('chain', '=', chain)
    .where('protocol', '=', protocol)
    .where('block_number', '>', after);
  if (only) events = events.where('address', only.part === 'transfers' ? '=' : '<>', only.token);
  await events.execute();
  if (only?.part === 'transfers') return;
  await trx
    .deleteFrom('stable_snapshots')
    .where('chain', '=', chain)
    .where('protocol', '=', protocol)
    .where('block_number', '>', after)
    .execute();
}

/** Reads and writes the stablecoin area's facts; rows become typed facts (big integers back to bigint) here only. */
export class StablecoinRepository {
  private readonly db: Kysely<Database & StablecoinTables>;

  constructor(platform: Kysely<Database>) {
    this.db = platform.withTables<StablecoinTables>();
  }

  /** Events of the protocol with `from < timestamp ≤ to` (all kinds, or the given ones), in chain order. */
  async events(
    chain: string,
    protocol: string,
    range: { from?: number; to: number },
    kinds?: readonly string[],
  ): Promise<StableEventFact[]> {
    let q = this.db
      .selectFrom('stable_events')
      .selectAll()
      .where('chain', '=', chain)
      .where('protocol', '=', protocol)
      .where('timestamp', '<=', range.to);
    if (range.from !== undefined) q = q.where('timestamp', '>', range.from);
    if (kinds) q = q.where('kind', 'in', [...kinds]);
    const rows = await q.orderBy('block_number').orderBy('log_index').execute();
    return rows.map(eventFact);
  }

  /** Events up to a block (the positions a snapshot must read). */
  async eventsUpTo(chain: string, protocol: string, block: number, kinds: readonly string[]) {
    const rows = await this.db
      .selectFrom('stable_events')
      .selectAll()
      .where('chain', '=', chain)
      .where('protocol', '=', protocol)
      .where('block_number', '<=', block)
      .where('kind', 'in', [...kinds])
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return rows.map(eventFact);
  }

  /**
   * Events of the given kinds with `from < block ≤ to` (from the first when `from` is absent), in chain order, handed
   * to `each` a page of `EVENTS_PAGE` at a time: memory stays bounded however many there are (Maker's notes since
   * 2019 on mainnet).
   */
  async eachEventsPage(
    chain: string,
    protocol: string,
    range: { from?: number; to: number },
    kinds: readonly string[],
    each: (page: StableEventFact[]) => void | Promise<void>,
    pageSize = EVENTS_PAGE,
  ): Promise<void> {
    let after: { block: number; log: number } | undefined =
      range.from === undefined ? undefined : { block: range.from, log: Number.MAX_SAFE_INTEGER };
    for (;;) {
      let q = this.db
        .selectFrom('stable_events')
        .selectAll()
        .where('chain', '=', chain)
        .where('protocol', '=', protocol)
        .where('kind', 'in', [...kinds])
        .where('block_number', '<=', range.to);
      if (after) {
        const { block, log } = after;
        q = q.where((eb) =>
          eb.or([eb('block_number', '>', block), eb.and([eb('block_number', '=', block), eb('log_index', '>', log)])]),
        );
      }
      const rows = await q.orderBy('block_number').orderBy('log_index').limit(pageSize).execute();
      if (rows.length === 0) return;
      await each(rows.map(eventFact));
      if (rows.length < pageSize) return;
      const last = rows[rows.length - 1]!;
      after = { block: Number(last.block_number), log: Number(last.log_index) };
    }
  }

  /**
   * The stored snapshot nearest a block (by block distance; the one below on a tie), or none: the base a new
   * snapshot carries what did not change from.
   */
  async nearestSnapshot(chain: string, protocol: string, block: number): Promise<StableSnapshot | undefined> {
    const side = (below: boolean) =>
      this.db
        .selectFrom('stable_snapshots')
        .select('block_number')
        .where('chain', '=', chain)
        .where('protocol', '=', protocol)
        .where('block_number', below ? '<=' : '>', block)
        .orderBy('block_number', below ? 'desc' : 'asc')
        .limit(1)
        .executeTakeFirst();
    const [below, above] = await Promise.all([side(true), side(false)]);
    const candidates = [below, above].flatMap((r) => (r ? [Number(r.block_number)] : []));
    if (candidates.length === 0) return undefined;
    const nearest = candidates.reduce((a, b) => (Math.abs(b - block) < Math.abs(a - block) ? b : a));
    const row = await this.db
      .selectFrom('stable_snapshots')
      .select('state')
      .where('chain', '=', chain)
      .where('protocol', '=', protocol)
      .where('block_number', '=', nearest)
      .executeTakeFirstOrThrow();
    return fromJson<StableSnapshot>(row.state);
  }

  async saveSnapshot(s: StableSnapshot): Promise<void> {
    await this.db
      .insertInto('stable_snapshots')
      .values({
        chain: s.chain,
        protocol: s.protocol,
        block_number: s.blockNumber,
        timestamp: s.timestamp,
        state: toJson(s),
      })
      .onConflict((oc) => oc.columns(['chain', 'protocol', 'block_number']).doNothing())
      .execute();
  }

  /** Blocks and times of the protocol's snapshots, newest first. */
  async snapshotHeads(chain: string, protocol: string): Promise<{ blockNumber: number; timestamp: number }[]> {
    const rows = await this.db
      .selectFrom('stable_snapshots')
      .select(['block_number', 'timestamp'])
      .where('chain', '=', chain)
      .where('protocol', '=', protocol)
      .orderBy('block_number', 'desc')
      .execute();
    return rows.map((r) => ({ blockNumber: Number(r.block_number), timestamp: Number(r.timestamp) }));
  }

  /** Snapshots with `timestamp ≥ from`, oldest first. */
  async snapshots(chain: string, protocol: string, from: number): Promise<StableSnapshot[]> {
    const rows = await this.db
      .selectFrom('stable_snapshots')
      .select('state')
      .where('chain', '=', chain)
      .where('protocol', '=', protocol)
      .where('timestamp', '>=', from)
      .orderBy('block_number')
      .execute();
    return rows.map((r) => fromJson<StableSnapshot>(r.state));
  }

  /** Keeps the newest three snapshots and the newest of each UTC day; the others are never read. */
  async pruneSnapshots(chain: string, protocol: string): Promise<void> {
    const heads = await this.snapshotHeads(chain, protocol);
    const keepDays = new Set<number>();
    const drop: number[] = [];
    heads.forEach((h, i) => {
      const day = Math.floor(h.timestamp / 86_400);
      if (i < 3 || !keepDays.has(day)) keepDays.add(day);
      else drop.push(h.blockNumber);
    });
    await inChunks(
      drop,
      (chunk) =>
        this.db
          .deleteFrom('stable_snapshots')
          .where('chain', '=', chain)
          .where('protocol', '=', protocol)
          .where('block_number', 'in', chunk)
          .execute(),
      INSERT_CHUNK,
    );
  }
}

/** The flow events the computation reads over its history window (transfers are read on their own). */
export const FLOW_KINDS = [
  'poke',
  'bark',
  'kick',
  'take',
  'redo',
  'trove_liquidated',
  'liquidation',
  'redemption',
  'sp_balance',
  'last_good_price',
] as const;

/** Everything the computation reads of the area's own facts, at each protocol's newest snapshot. */
export async function stablecoinFacts(
  repo: StablecoinRepository,
  targets: readonly StablecoinRef[],
): Promise<StablecoinProtocolInput[]> {
  const out: StablecoinProtocolInput[] = [];
  for (const target of targets) {
    const [head] = await repo.snapshotHeads(target.chain, target.protocol);
    if (!head) continue;
    const from = startOfUtcDay(head.timestamp) - 7 * 86_400;
    out.push({
      target,
      snapshots: await repo.snapshots(target.chain, target.protocol, from),
      events: await repo.events(
        target.chain,
        target.protocol,
        { from: head.timestamp - HISTORY_SECONDS, to: head.timestamp },
        FLOW_KINDS,
      ),
      transfers: await repo.events(target.chain, target.protocol, { to: head.timestamp }, ['transfer']),
    });
  }
  return out;
}
