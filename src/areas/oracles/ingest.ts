import type { Kysely, Transaction } from 'kysely';
import { DAY, nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/index.js';
import { ingest } from '../../jobs/evm/index.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import type { EvmLog } from '../../sources/evm/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import { ingestStart } from '../kit/ingest-start.js';
import { ROUNDS_HISTORY_SECONDS } from './compute.js';
import { AGGREGATOR_ABI, ANSWER_UPDATED_TOPIC, decodeAnswerUpdated, PROXY_ABI } from './events.js';
import type { AggregatorPeriod, OracleUnresolved } from './facts.js';
import { type OracleFeedStates, OracleRepository, roundsKey, startKey } from './repo.js';
import type { OracleTables } from './tables.js';
import type { OracleFeedTarget } from './targets.js';

/**
 * Every read of the oracle area from the chain, turned into facts:
 * - feed resolution (`resolveFeeds`): a registry feed is an EACAggregatorProxy, which emits nothing; its
 *   `aggregator()` names the contract whose `AnswerUpdated` logs carry the rounds, its `decimals()` their scale.
 *   A proxy can be repointed: each aggregator it named is read for the blocks in which it named it
 *   (`AggregatorPeriod`), the switch block found by asking the proxy at the blocks in between;
 * - `OracleSink`, the EVM ingest engine's sink for one chain: one stage, the `AnswerUpdated` logs of the feeds'
 *   aggregators, each kept only within its period. Rounds are inserted with ON CONFLICT DO NOTHING on their
 *   (chain, block, log index) keys, so a re-run of a range writes nothing twice;
 * - `OracleIngest`, one pass over a chain: resolution at the head, then the rounds up to that same block.
 */

/** A call's value, or what the chain answered instead. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** What a feed's proxy answered at one block. */
export interface ProxyReading {
  /** Lowercase. */
  readonly aggregator: Outcome<string>;
  readonly decimals: Outcome<number>;
}

/** `aggregator()` and `decimals()` of each feed at a block, in the order of `feeds`. */
export type ReadProxies = (feeds: readonly `0x${string}`[], block: number) => Promise<ProxyReading[]>;

/** A failed call's reason in one line (viem's short message), for summaries. */
function reason(error: unknown): string {
  const e = error as { shortMessage?: unknown; message?: unknown } | undefined;
  const text = String(e?.shortMessage ?? e?.message ?? error ?? 'failed');
  const line = text.split('\n')[0]!.trim();
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

function outcome<T>(
  result: { status: 'success'; result: unknown } | { status: 'failure'; error: unknown } | undefined,
  value: (raw: unknown) => T,
): Outcome<T> {
  if (result?.status === 'success') return { ok: true, value: value(result.result) };
  return { ok: false, error: reason(result?.error) };
}

/** The proxies' views through one multicall at the block. */
export function proxyReader(source: EvmSource): ReadProxies {
  return async (feeds, block) => {
    const contracts = feeds.flatMap((address) => [
      { address, abi: PROXY_ABI, functionName: 'aggregator' as const },
      { address, abi: AGGREGATOR_ABI, functionName: 'decimals' as const },
    ]);
    const results = await source.multicall({ contracts, allowFailure: true, blockNumber: BigInt(block) });
    return feeds.map((_, i) => ({
      aggregator: outcome(results[2 * i], (a) => String(a).toLowerCase()),
      decimals: outcome(results[2 * i + 1], Number),
    }));
  };
}

/**
 * The periods that follow `from` (the proxy named `from.aggregator` at `from.block`) up to `to` (it names
 * `to.aggregator` at `to.block`): each switch's block is the first at which `probe` (the proxy's `aggregator()` at a
 * block) names another aggregator, found by bisection. When `probe` cannot tell (the node has no state that old),
 * the rest is one switch to `to.aggregator` right after the last block known to name the old one (`exact: false`).
 */
export async function findSwitches(
  probe: (block: number) => Promise<string | undefined>,
  from: { readonly aggregator: string; readonly block: number },
  to: { readonly aggregator: string; readonly block: number },
): Promise<{ periods: AggregatorPeriod[]; exact: boolean }> {
  const periods: AggregatorPeriod[] = [];
  let current = from.aggregator;
  let lo = from.block;
  const guess = () => ({ periods: [...periods, { aggregator: to.aggregator, fromBlock: lo + 1 }], exact: false });
  while (current !== to.aggregator) {
    // The proxy names `current` at `lo` and another aggregator at `hi`.
    let hi = to.block;
    let atHi = to.aggregator;
    if (hi <= lo) return guess();
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const named = await probe(mid);
      if (named === undefined) return guess();
      if (named === current) lo = mid;
      else [hi, atHi] = [mid, named];
    }
    periods.push({ aggregator: atHi, fromBlock: hi });
    [current, lo] = [atHi, hi];
  }
  return { periods, exact: true };
}

export interface ResolveContext {
  /** The block at which the proxies are asked: the block ingestion will read up to. */
  readonly block: number;
  /**
   * The last block whose rounds are already read (the one before the start when none is): a feed first resolved now
   * is read after it, and a switch of a feed resolved at an unknown block is looked for after it.
   */
  readonly readBlock: number;
  /** Unix seconds of `readBlock` (of the start block when nothing is read yet): a new feed's `coveredFrom`. */
  readonly readTime: number;
}

export interface Resolution {
  readonly states: OracleFeedStates;
  /** Switches, unresolved feeds: what the run summary says. */
  readonly notes: string[];
}

/** A feed's aggregator and decimals from its proxy's answers, or why it cannot be read. */
function resolution(reading: ProxyReading): { aggregator: string; decimals: number } | OracleUnresolved {
  if (!reading.aggregator.ok) {
    return { reason: 'no_aggregator', detail: `aggregator() failed: ${reading.aggregator.error}` };
  }
  if (!reading.decimals.ok) return { reason: 'no_decimals', detail: `decimals() failed: ${reading.decimals.error}` };
  return { aggregator: reading.aggregator.value, decimals: reading.decimals.value };
}

const short = (address: string) => `${address.slice(0, 10)}…`;

/**
 * Each feed's state at `at.block` from the previous one: the aggregator its proxy names and its decimals, the
 * periods of every aggregator named since ingestion began, and, for a feed that cannot be read, why. A feed whose
 * `aggregator()` fails is not an aggregator proxy: it is not read (`no_aggregator`), never taken for an aggregator
 * itself. Nor is a feed whose `decimals()` fails (`no_decimals`). Either is read again once it answers; what was
 * learned of it before is kept.
 */
export async function resolveFeeds(
  read: ReadProxies,
  feeds: readonly OracleFeedTarget[],
  previous: OracleFeedStates,
  at: ResolveContext,
): Promise<Resolution> {
  const addresses = feeds.map((f) => f.address);
  const readings = addresses.length ? await read(addresses, at.block) : [];
  const states: OracleFeedStates = {};
  const notes: string[] = [];
  for (const [i, f] of feeds.entries()) {
    const reading = readings[i]!;
    const prev = previous[f.address];
    const resolved = resolution(reading);
    if ('reason' in resolved) {
      // Not read until it answers; what was learned of it before stays.
      states[f.address] = {
        aggregator: prev?.aggregator ?? null,
        decimals: prev?.decimals ?? null,
        periods: prev?.periods ?? [],
        resolvedAt: prev?.resolvedAt ?? null,
        coveredFrom: prev?.coveredFrom ?? null,
        unresolved: resolved,
      };
      notes.push(`${f.pair} not read (${resolved.reason}: ${resolved.detail})`);
      continue;
    }
    const { aggregator, decimals } = resolved;
    const last = prev?.periods.at(-1);
    let periods: readonly AggregatorPeriod[];
    if (!prev || !last) {
      periods = [{ aggregator, fromBlock: 0 }];
    } else if (last.aggregator === aggregator) {
      periods = prev.periods;
    } else {
      const from = { aggregator: last.aggregator, block: prev.resolvedAt ?? at.readBlock };
      const probe = async (block: number) => {
        const [r] = await read([f.address], block);
        return r?.aggregator.ok ? r.aggregator.value : undefined;
      };
      const found = await findSwitches(probe, from, { aggregator, block: at.block });
      periods = [...prev.periods, ...found.periods];
      for (const p of found.periods) {
        // Only the last period of an inexact search is a guess.
        notes.push(
          found.exact || p !== found.periods.at(-1)
            ? `${f.pair}: aggregator ${short(p.aggregator)} from block ${p.fromBlock}`
            : `${f.pair}: aggregator ${short(p.aggregator)} somewhere in blocks ${p.fromBlock}–${at.block} (no state ` +
                `that old on the node): read from block ${p.fromBlock}`,
        );
      }
    }
    const first = !prev?.periods.length;
    states[f.address] = {
      aggregator,
      decimals,
      periods,
      resolvedAt: at.block,
      coveredFrom: first ? at.readTime : (prev?.coveredFrom ?? null),
      unresolved: null,
    };
  }
  return { states, notes };
}

/** Rows per INSERT: 9 columns × 500 stays far below SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 500;

/** Blocks `[from, to)` in which an aggregator's rounds are a feed's. */
interface Window {
  readonly feed: string;
  readonly from: number;
  readonly to: number;
}

export class OracleSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;
  /** Lowercase aggregator → where its rounds are whose. */
  private windows = new Map<string, Window[]>();

  constructor(
    readonly chain: string,
    readonly startBlock: number,
  ) {
    this.key = roundsKey(chain);
  }

  /** The feeds to read now, each with the periods of the aggregators its proxy named. */
  setFeeds(feeds: ReadonlyMap<string, readonly AggregatorPeriod[]>): void {
    const windows = new Map<string, Window[]>();
    for (const [feed, periods] of feeds) {
      periods.forEach((p, i) => {
        const to = periods[i + 1]?.fromBlock ?? Number.POSITIVE_INFINITY;
        if (to <= p.fromBlock) return;
        const aggregator = p.aggregator.toLowerCase();
        windows.set(aggregator, [
          ...(windows.get(aggregator) ?? []),
          { feed: feed.toLowerCase(), from: p.fromBlock, to },
        ]);
      });
    }
    this.windows = windows;
  }

  /** The feed a log's round belongs to, if its aggregator was the feed's at the log's block. */
  private feedOf(log: EvmLog): string | undefined {
    const block = Number(log.blockNumber);
    return this.windows.get(log.address.toLowerCase())?.find((w) => w.from <= block && block < w.to)?.feed;
  }

  async queries(_stage: number, platform: Kysely<Database>): Promise<LogQuery[]> {
    // Ranges follow the checkpoint: an aggregator whose periods all ended before the next block is no longer read.
    const next = ((await readCheckpoint<{ block: number }>(platform, this.key))?.block ?? this.startBlock - 1) + 1;
    const addresses = [...this.windows]
      .filter(([, ws]) => ws.some((w) => w.to > next))
      .map(([a]) => a as `0x${string}`)
      .sort();
    return addresses.length ? [{ addresses, topics: [ANSWER_UPDATED_TOPIC] }] : [];
  }

  async apply(
    platformTrx: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    _ctx: ApplyContext,
  ): Promise<number> {
    const trx = platformTrx.withTables<OracleTables>();
    const rows: OracleTables['oracle_rounds'][] = [];
    for (const log of logs[0] ?? []) {
      const feed = this.feedOf(log);
      const round = decodeAnswerUpdated(log);
      if (!feed || !round) continue;
      rows.push({
        chain: this.chain,
        block_number: log.blockNumber,
        log_index: log.logIndex,
        tx_hash: log.transactionHash.toLowerCase(),
        feed,
        aggregator: log.address.toLowerCase(),
        round_id: round.roundId.toString(),
        answer: round.answer.toString(),
        updated_at: round.updatedAt,
      });
    }
    await inChunks(
      rows,
      (chunk) =>
        trx
          .insertInto('oracle_rounds')
          .values(chunk)
          .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
          .execute(),
      INSERT_CHUNK,
    );
    return rows.length;
  }

  async rollback(platformTrx: Transaction<Database>, afterBlock: number): Promise<void> {
    const trx = platformTrx.withTables<OracleTables>();
    await trx
      .deleteFrom('oracle_rounds')
      .where('chain', '=', this.chain)
      .where('block_number', '>', afterBlock)
      .execute();
  }
}

/** The newest block whose rounds a chain's ingestion committed, and its time. */
export interface OracleHead {
  readonly chain: string;
  readonly block: number;
  readonly timestamp: number;
}

/**
 * Rounds are kept while a computation may read them: the computation reads `ROUNDS_HISTORY_SECONDS` before its
 * `as_of`, the slowest chain's head, and a chain added later starts `lookbackSeconds` below its head; a day more
 * for reorgs. Older rounds are deleted (each feed's predecessor of the window kept): `roundsCutoff` of the slowest
 * head, at most once an hour of chain time.
 */
export const roundsCutoff = (slowestHead: number, lookbackSeconds: number) =>
  slowestHead - ROUNDS_HISTORY_SECONDS - lookbackSeconds - DAY;
const PRUNE_EVERY_SECONDS = 3600;

/** The oracle area's ingestion of its chains, one sink per chain, started at the kit's `ingestStart`. */
export class OracleIngest {
  private readonly sinks = new Map<string, OracleSink>();
  /** Per chain, the cutoff of its last prune (this process). */
  private readonly pruned = new Map<string, number>();

  constructor(
    private readonly evm: EvmChains,
    private readonly targets: readonly OracleFeedTarget[],
    /** Without every feed's deployment block: how far below the head ingestion starts. */
    private readonly lookbackSeconds: number,
  ) {}

  /**
   * One pass over a chain: the feeds resolved at the head, then their aggregators' rounds up to that block (so that
   * a switch the resolution saw is never behind the blocks read).
   */
  async run(ctx: JobContext, chain: string): Promise<string> {
    const source = this.evm.source(chain);
    const repo = new OracleRepository(ctx.store.db);
    const feeds = this.targets.filter((f) => f.chain === chain);
    const start = await ingestStart(ctx, source, startKey(chain), {
      startBlocks: feeds.map((f) => f.startBlock),
      lookbackSeconds: this.lookbackSeconds,
    });
    let sink = this.sinks.get(chain);
    if (!sink) {
      sink = new OracleSink(chain, start.block);
      this.sinks.set(chain, sink);
    }
    const block = await source.blockNumber();
    const head = await this.head(repo, chain);
    const { states, notes } = await resolveFeeds(proxyReader(source), feeds, await repo.feedStates(chain), {
      block,
      readBlock: head?.block ?? start.block - 1,
      readTime: head?.timestamp ?? start.timestamp,
    });
    await repo.saveFeedStates(chain, states, nowSeconds(ctx.clock));
    const read = Object.entries(states).filter(([, s]) => s.unresolved === null && s.periods.length > 0);
    sink.setFeeds(new Map(read.map(([feed, s]) => [feed, s.periods])));
    const result = await ingest(source, ctx.store, sink, {
      signal: ctx.signal,
      toBlock: block,
      now: () => nowSeconds(ctx.clock),
      log: ctx.log,
    });
    const pruned = await this.prune(ctx, repo, chain);
    return (
      `${chain}: blocks ${result.from}–${result.to}, ${result.facts} rounds of ${read.length} of ${feeds.length} feeds` +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '') +
      (pruned ? `, ${pruned} rounds past retention deleted` : '') +
      notes.map((n) => `; ${n}`).join('')
    );
  }

  /** Deletes the chain's rounds older than `roundsCutoff` of the slowest chain's head (see there). */
  private async prune(ctx: JobContext, repo: OracleRepository, chain: string): Promise<number> {
    const chains = [...new Set(this.targets.map((f) => f.chain))];
    const heads = await this.heads(ctx, chains);
    if (heads.length < chains.length) return 0;
    const cutoff = roundsCutoff(Math.min(...heads.map((h) => h.timestamp)), this.lookbackSeconds);
    const last = this.pruned.get(chain);
    if (last !== undefined && cutoff < last + PRUNE_EVERY_SECONDS) return 0;
    this.pruned.set(chain, cutoff);
    return repo.pruneRounds(chain, cutoff);
  }

  /** The newest block whose rounds are committed, and its time (the stored header's, else the node's). */
  private async head(repo: OracleRepository, chain: string): Promise<OracleHead | undefined> {
    const ingested = await repo.ingested(chain);
    if (!ingested) return undefined;
    const timestamp = ingested.timestamp ?? (await this.evm.source(chain).getBlock(ingested.block))?.timestamp;
    return timestamp === undefined ? undefined : { chain, block: ingested.block, timestamp };
  }

  /** Per chain with rounds ingested, its head. */
  async heads(ctx: JobContext, chains: readonly string[]): Promise<OracleHead[]> {
    const repo = new OracleRepository(ctx.store.db);
    const out: OracleHead[] = [];
    for (const chain of chains) {
      const head = await this.head(repo, chain);
      if (head) out.push(head);
    }
    return out;
  }
}
