import type { Kysely, Transaction } from 'kysely';
import { ServiceError } from '../../core/errors.js';
import type { FinalBlock } from '../../sources/evm/finality.js';
import { mergeLogs } from '../../sources/evm/logs.js';
import type { EvmSource } from '../../sources/evm/source.js';
import type { BlockInfo, EvmLog, EvmLogger, Hex, LogTopics } from '../../sources/evm/types.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import { inChunks } from '../../store/chunks.js';
import type { Store } from '../../store/db.js';
import type { Database } from '../../store/schema.js';
import type { EvmEngineTables } from './tables.js';

/**
 * The generic ingest loop of every on-chain area. A sink says which logs it wants (in stages: a factory's
 * events, then its children's) and how to write and delete its facts; the engine walks the chain range by range
 * and commits each range's facts, the `evm_blocks` rows and the checkpoint in one transaction, so a crash leaves
 * a range entirely written or not at all. Reorgs above the final block are detected by block hash and rolled back.
 *
 * The final block is read once per run (`EvmSource.finalBlock`): the node's `finalized` block on chains whose
 * finality comes from elsewhere (the L1 for layer 2s, thousands of blocks behind the head), or a depth below the
 * head. Headers at or below it are taken from the cache; walk-back points are kept above it (and at least the
 * finality depth below the checkpoint), dense near the checkpoint and sparse further down when there are more
 * than fit, so a reorg anywhere in the unfinalized span still finds a surviving point at or below its fork.
 */

export interface LogQuery {
  /** An empty list matches nothing (the query is skipped). */
  readonly addresses: readonly Hex[];
  readonly topics: LogTopics;
}

export interface BlockRange {
  readonly from: number;
  readonly to: number;
}

export interface ApplyContext {
  readonly chain: string;
  /** Headers of every block with a log in the range, and of the range's first and last blocks. */
  readonly blocks: ReadonlyMap<number, BlockInfo>;
  /** Transaction hash → sender (`from`), lowercase, for the logs `needsSenders` selected. */
  readonly senders: ReadonlyMap<string, string>;
}

export interface IngestSink {
  /** Checkpoint key, e.g. `dex:ethereum`. */
  readonly key: string;
  readonly startBlock: number;
  /** Stages per range; stage i's queries may depend on what stage i-1 found in the same range (factory → children). */
  readonly stages: number;
  /**
   * Queries of a stage, given the logs found in this range by earlier stages (`discovered[i]` for stage i, not yet
   * committed) and the store (what earlier ranges committed).
   */
  queries(stage: number, db: Kysely<Database>, discovered: readonly (readonly EvmLog[])[]): Promise<LogQuery[]>;
  /**
   * Writes the facts of one block range inside the engine's transaction; returns how many it wrote. Must be
   * idempotent (insert-or-ignore on primary keys): after a crash between RPC and commit the range comes again.
   */
  apply(
    trx: Transaction<Database>,
    range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number>;
  /** Deletes every fact this sink wrote for blocks > `afterBlock` (reorg rollback), inside the engine's transaction. */
  rollback(trx: Transaction<Database>, afterBlock: number): Promise<void>;
  /** Whether `apply` needs the sender of this log's transaction (only those are fetched). */
  needsSenders?(log: EvmLog): boolean;
}

export interface IngestOptions {
  /** Checked between ranges: the run stops at the next range boundary, everything before it committed. */
  readonly signal?: AbortSignal;
  /** Last block to ingest (default: the head; never beyond it). */
  readonly toBlock?: number;
  /** Unix seconds, for the checkpoint's `updated_at`. */
  readonly now: () => number;
  readonly log?: EvmLogger;
}

export interface IngestResult {
  /** First block this run covered. */
  readonly from: number;
  /** Last block covered: the checkpoint. `to < from` when there was nothing new. */
  readonly to: number;
  readonly facts: number;
  readonly logs: number;
  readonly ranges: number;
  /** First block whose facts a reorg rollback deleted (they were ingested again from the new chain). */
  readonly reorgedFrom?: number;
  /** The final block this run used (read once at its start). */
  readonly final: FinalBlock;
  /** The run stopped early because `signal` aborted. */
  readonly aborted: boolean;
}

/** What a sink's checkpoint holds. */
export interface EvmCheckpoint {
  /** Last block whose facts are committed. */
  readonly block: number;
  readonly hash: Hex;
  /**
   * `[number, hash]` of blocks this sink committed above the final block, newest first (sparse further down): where
   * a reorg walk-back looks for the newest block still on the chain. Kept per sink (rather than read from the
   * shared `evm_blocks`) because another sink of the same chain may already have overwritten those rows with
   * the new chain's hashes, which would hide this sink's stale facts.
   */
  readonly recent: readonly (readonly [number, Hex])[];
}

/** Walk-back points kept in a checkpoint, bounded for JSON size: the newest `DENSE_RECENT` all, older ones sparse. */
export const MAX_RECENT = 256;
const DENSE_RECENT = 128;
/** Consecutive ranges whose logs and headers disagree (a reorg while fetching) before the run gives up. */
const MAX_INCONSISTENT = 5;
/** `evm_blocks` rows compared per round trip when a reorg reaches below the walk-back points. */
const WALK_PAGE = 100;
/** Past this many mismatching stored blocks the chain is treated as a different chain: ingest from the start. */
const WALK_LIMIT = 10_000;
const INSERT_CHUNK = 500;

function parseCheckpoint(value: unknown, key: string): EvmCheckpoint | undefined {
  if (value === undefined) return undefined;
  const v = value as Partial<EvmCheckpoint>;
  if (typeof v !== 'object' || v === null || !Number.isInteger(v.block) || typeof v.hash !== 'string') {
    throw new ServiceError(`checkpoint ${key} is not an EVM checkpoint: ${JSON.stringify(value)}`, false);
  }
  const recent = Array.isArray(v.recent) ? v.recent : [];
  return { block: v.block as number, hash: v.hash as Hex, recent: [...recent].sort((a, b) => b[0] - a[0]) };
}

function sameCheckpoint(a: EvmCheckpoint | undefined, b: EvmCheckpoint | undefined): boolean {
  return a?.block === b?.block && a?.hash === b?.hash;
}

/** Guards against another writer of the same key (leases should prevent it; this makes it loud, not corrupting). */
async function assertCheckpoint(trx: Transaction<Database>, key: string, expected: EvmCheckpoint | undefined) {
  const current = parseCheckpoint(await readCheckpoint<unknown>(trx, key), key);
  if (!sameCheckpoint(current, expected)) {
    throw new ServiceError(`checkpoint ${key} moved during ingest (another worker?)`, true);
  }
}

async function upsertBlocks(trx: Transaction<Database>, chain: string, blocks: readonly BlockInfo[]): Promise<void> {
  await inChunks(
    blocks,
    async (chunk) => {
      const rows = chunk.map((b) => ({
        chain,
        number: b.number,
        hash: b.hash,
        parent_hash: b.parentHash,
        timestamp: b.timestamp,
      }));
      // The newest fetch is the truth: a row left by another sink from an abandoned fork is corrected.
      await trx
        .withTables<EvmEngineTables>()
        .insertInto('evm_blocks')
        .values(rows)
        .onConflict((oc) =>
          oc.columns(['chain', 'number']).doUpdateSet((eb) => ({
            hash: eb.ref('excluded.hash'),
            parent_hash: eb.ref('excluded.parent_hash'),
            timestamp: eb.ref('excluded.timestamp'),
          })),
        )
        .execute();
    },
    INSERT_CHUNK,
  );
}

interface FetchedRange {
  readonly logs: EvmLog[][];
  readonly blocks: Map<number, BlockInfo>;
  readonly senders: Map<string, string>;
  readonly logCount: number;
}

async function fetchRange(
  source: EvmSource,
  store: Store,
  sink: IngestSink,
  range: BlockRange,
  final: FinalBlock,
): Promise<FetchedRange> {
  const window = source.window(sink.key);
  const logs: EvmLog[][] = [];
  for (let stage = 0; stage < sink.stages; stage++) {
    const queries = await sink.queries(stage, store.db, logs);
    const lists = await Promise.all(
      queries.map((q) =>
        source.getLogs(
          { addresses: q.addresses, topics: q.topics, fromBlock: range.from, toBlock: range.to },
          { window },
        ),
      ),
    );
    logs.push(mergeLogs(lists));
  }
  const numbers = new Set<number>([range.from, range.to]);
  let logCount = 0;
  for (const list of logs) {
    logCount += list.length;
    for (const log of list) numbers.add(log.blockNumber);
  }
  // Headers at or below the final block cannot change: cached ones will do. Newer ones are fetched fresh.
  const deep = [...numbers].filter((n) => n <= final.number);
  const shallow = [...numbers].filter((n) => n > final.number);
  const [deepBlocks, shallowBlocks] = await Promise.all([
    source.getBlocks(deep),
    source.getBlocks(shallow, { fresh: true }),
  ]);
  const blocks = new Map([...deepBlocks, ...shallowBlocks]);
  const senderHashes = new Set<string>();
  if (sink.needsSenders) {
    for (const list of logs) for (const log of list) if (sink.needsSenders(log)) senderHashes.add(log.transactionHash);
  }
  const senders = await source.txSenders([...senderHashes]);
  return { logs, blocks, senders, logCount };
}

/** Why a fetched range cannot be committed as is (the chain moved while it was fetched), or undefined. */
function inconsistency(fetched: FetchedRange, range: BlockRange, checkpoint: EvmCheckpoint | undefined) {
  const first = fetched.blocks.get(range.from);
  const last = fetched.blocks.get(range.to);
  if (!first || !last) return `block ${first ? range.to : range.from} is missing on the node`;
  if (checkpoint && checkpoint.block === range.from - 1 && first.parentHash !== checkpoint.hash) {
    return `block ${range.from} no longer follows the checkpoint`;
  }
  for (const list of fetched.logs) {
    for (const log of list) {
      const block = fetched.blocks.get(log.blockNumber);
      if (block?.hash !== log.blockHash) return `logs and header of block ${log.blockNumber} disagree`;
    }
  }
  return undefined;
}

/**
 * At most `MAX_RECENT` of `points` (newest first): the newest `DENSE_RECENT` all, then evenly spread picks of the
 * rest down to the oldest. A reorg between two kept points rolls back to the lower one: more is ingested again,
 * nothing is missed.
 */
export function thinPoints<T>(points: readonly T[]): T[] {
  if (points.length <= MAX_RECENT) return [...points];
  const rest = points.slice(DENSE_RECENT);
  const k = MAX_RECENT - DENSE_RECENT;
  const picked = new Set<number>();
  for (let i = 0; i < k; i++) picked.add(Math.round((i * (rest.length - 1)) / (k - 1)));
  return [...points.slice(0, DENSE_RECENT), ...[...picked].sort((a, b) => a - b).map((i) => rest[i]!)];
}

/** Where walk-back points stop: the final block, and never less than the finality depth below `to`. */
function pointsFloor(final: FinalBlock, to: number, finalityDepth: number): number {
  return Math.min(final.number, to - finalityDepth);
}

function nextCheckpoint(
  previous: EvmCheckpoint | undefined,
  blocks: ReadonlyMap<number, BlockInfo>,
  to: number,
  lowest: number,
): EvmCheckpoint {
  const points = new Map<number, Hex>();
  for (const [n, h] of previous?.recent ?? []) if (n > lowest) points.set(n, h);
  for (const b of blocks.values()) if (b.number > lowest && b.number <= to) points.set(b.number, b.hash);
  const recent = thinPoints([...points.entries()].sort((a, b) => b[0] - a[0]));
  return { block: to, hash: blocks.get(to)!.hash, recent };
}

/**
 * Finds the newest block at or below `below` whose stored hash (any sink's `evm_blocks` row) still matches the
 * chain. Reached only when no walk-back point of the sink matched, i.e. the reorg looks deeper than the final
 * block: the stored rows are the best evidence left.
 */
async function walkStoredBlocks(
  source: EvmSource,
  store: Store,
  below: number,
  floor: number,
): Promise<{ match?: { number: number; hash: Hex }; checked: number }> {
  let cursor = below;
  let checked = 0;
  while (checked < WALK_LIMIT) {
    const rows = await store.db
      .withTables<EvmEngineTables>()
      .selectFrom('evm_blocks')
      .select(['number', 'hash'])
      .where('chain', '=', source.chain.id)
      .where('number', '<=', cursor)
      .where('number', '>', floor)
      .orderBy('number', 'desc')
      .limit(WALK_PAGE)
      .execute();
    if (rows.length === 0) return { checked };
    const fresh = await source.getBlocks(
      rows.map((r) => Number(r.number)),
      { fresh: true },
    );
    for (const row of rows) {
      const n = Number(row.number);
      if (fresh.get(n)?.hash === row.hash) return { match: { number: n, hash: row.hash as Hex }, checked };
      checked++;
    }
    cursor = Number(rows[rows.length - 1]!.number) - 1;
  }
  return { checked };
}

/**
 * The checkpoint's block is no longer on the chain: finds the newest block that is, deletes the sink's facts and
 * the `evm_blocks` rows above it, and moves the checkpoint there, in one transaction.
 */
async function rollBack(
  source: EvmSource,
  store: Store,
  sink: IngestSink,
  checkpoint: EvmCheckpoint,
  final: FinalBlock,
  options: IngestOptions,
  log: EvmLogger | undefined,
): Promise<{ checkpoint: EvmCheckpoint | undefined; afterBlock: number }> {
  const chain = source.chain;
  const floor = sink.startBlock - 1;
  const candidates = checkpoint.recent.filter(([n]) => n < checkpoint.block && n > floor);
  const fresh = await source.getBlocks(
    candidates.map(([n]) => n),
    { fresh: true },
  );
  const match = candidates.find(([n, h]) => fresh.get(n)?.hash === h);
  let afterBlock: number;
  let hash: Hex | undefined;
  if (match) {
    [afterBlock, hash] = match;
  } else {
    // No walk-back point survived: by the finality assumption everything at or below the final block stands (by
    // the depth model: the finality depth below the checkpoint, as the points were kept).
    const lowestPoint = candidates.length > 0 ? candidates[candidates.length - 1]![0] : checkpoint.block;
    const stands = final.by === 'tag' ? final.number : checkpoint.block - chain.finalityDepth;
    afterBlock = Math.max(floor, Math.min(stands, lowestPoint - 1));
    if (afterBlock > floor) {
      // Check the assumption against the stored headers at or below that block, and walk down if it is wrong.
      const walk = await walkStoredBlocks(source, store, afterBlock, floor);
      if (walk.checked > 0) {
        afterBlock = walk.match?.number ?? floor;
        hash = walk.match?.hash;
        log?.error(
          {
            chain: chain.id,
            key: sink.key,
            checkpoint: checkpoint.block,
            afterBlock,
            final: final.number,
            finalBy: final.by,
            finalityDepth: chain.finalityDepth,
          },
          'reorg deeper than the finality depth: rolling back to the newest stored block still on the chain',
        );
      } else {
        hash = (await source.getBlock(afterBlock, { fresh: true }))?.hash;
      }
      // The chain is now shorter than that block: nothing of it can be trusted.
      if (afterBlock > floor && hash === undefined) afterBlock = floor;
    }
  }
  const next: EvmCheckpoint | undefined =
    afterBlock > floor && hash !== undefined
      ? { block: afterBlock, hash, recent: checkpoint.recent.filter(([n]) => n <= afterBlock) }
      : undefined;
  await store.db.transaction().execute(async (trx) => {
    await assertCheckpoint(trx, sink.key, checkpoint);
    await sink.rollback(trx, afterBlock);
    await trx
      .withTables<EvmEngineTables>()
      .deleteFrom('evm_blocks')
      .where('chain', '=', chain.id)
      .where('number', '>', afterBlock)
      .execute();
    if (next) await writeCheckpoint(trx, sink.key, next, options.now());
    else await trx.deleteFrom('checkpoints').where('key', '=', sink.key).execute();
  });
  source.forgetBlocksFrom(afterBlock + 1);
  log?.warn(
    {
      chain: chain.id,
      key: sink.key,
      from: afterBlock + 1,
      to: checkpoint.block,
      depth: checkpoint.block - afterBlock,
    },
    'reorg: rolled back',
  );
  return { checkpoint: next, afterBlock };
}

/** Ingests `sink` from its checkpoint up to `toBlock` (or the head). See the module comment. */
export async function ingest(
  source: EvmSource,
  store: Store,
  sink: IngestSink,
  options: IngestOptions,
): Promise<IngestResult> {
  const log = options.log ?? source.log;
  const chain = source.chain;
  const window = source.window(sink.key);
  let checkpoint = parseCheckpoint(await readCheckpoint<unknown>(store.db, sink.key), sink.key);
  let latest = await source.blockNumber();
  // Read once per run: blocks final at the start stay final, whatever the head does during the run.
  const final = await source.finalBlock(latest);
  let target = options.toBlock === undefined ? latest : Math.min(options.toBlock, latest);
  let next = checkpoint ? checkpoint.block + 1 : sink.startBlock;
  let from = next;
  let facts = 0;
  let logs = 0;
  let ranges = 0;
  let reorgedFrom: number | undefined;
  let aborted = false;
  // The stored hash is checked once per run; afterwards each range checks that its first block follows it.
  let verify = checkpoint !== undefined;
  let inconsistent = 0;
  const started = Date.now();

  for (;;) {
    if (options.signal?.aborted) {
      aborted = true;
      break;
    }
    if (checkpoint && verify) {
      const current = await source.getBlock(checkpoint.block, { fresh: true });
      if (current?.hash !== checkpoint.hash) {
        const rolled = await rollBack(source, store, sink, checkpoint, final, options, log);
        checkpoint = rolled.checkpoint;
        next = rolled.afterBlock + 1;
        from = Math.min(from, next);
        reorgedFrom = Math.min(reorgedFrom ?? next, next);
      }
      verify = false;
    }
    if (next > target) break;

    const range = { from: next, to: Math.min(target, next + window.size - 1) };
    const fetched = await fetchRange(source, store, sink, range, final);
    const problem = inconsistency(fetched, range, checkpoint);
    if (problem) {
      if (++inconsistent > MAX_INCONSISTENT) throw new ServiceError(`${chain.id} ${sink.key}: ${problem}`, true);
      log?.warn(
        { chain: chain.id, key: sink.key, ...range, problem },
        'chain moved while fetching: range fetched again',
      );
      source.forgetBlocksFrom(range.from);
      verify = true;
      // The new chain may be shorter than the head this run started with.
      latest = await source.blockNumber();
      target = Math.min(target, latest);
      continue;
    }
    inconsistent = 0;

    const written = nextCheckpoint(
      checkpoint,
      fetched.blocks,
      range.to,
      pointsFloor(final, range.to, chain.finalityDepth),
    );
    const withLogs = new Set(fetched.logs.flatMap((list) => list.map((l) => l.blockNumber)));
    const blockRows = [...fetched.blocks.values()]
      .filter((b) => b.number === range.to || withLogs.has(b.number))
      .sort((a, b) => a.number - b.number);
    const previous = checkpoint;
    const count = await store.db.transaction().execute(async (trx) => {
      await assertCheckpoint(trx, sink.key, previous);
      const n = await sink.apply(trx, range, fetched.logs, {
        chain: chain.id,
        blocks: fetched.blocks,
        senders: fetched.senders,
      });
      await upsertBlocks(trx, chain.id, blockRows);
      await writeCheckpoint(trx, sink.key, written, options.now());
      return n;
    });
    checkpoint = written;
    next = range.to + 1;
    facts += count;
    logs += fetched.logCount;
    ranges++;
    log?.debug({ chain: chain.id, key: sink.key, ...range, logs: fetched.logCount, facts: count }, 'range committed');
  }

  const to = checkpoint ? checkpoint.block : sink.startBlock - 1;
  if (ranges > 0 || reorgedFrom !== undefined) {
    log?.info(
      { chain: chain.id, key: sink.key, from, to, ranges, logs, facts, reorgedFrom, ms: Date.now() - started },
      'ingested',
    );
  }
  return { from, to, facts, logs, ranges, aborted, final, ...(reorgedFrom === undefined ? {} : { reorgedFrom }) };
}
