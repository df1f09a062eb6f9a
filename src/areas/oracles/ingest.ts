import type { Kysely, Transaction } from 'kysely';
import { nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/index.js';
import { ingest } from '../../jobs/evm/index.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import type { EvmLog } from '../../sources/evm/types.js';
import type { Database } from '../../store/schema.js';
import { ingestStart } from '../kit/ingest-start.js';
import { AGGREGATOR_ABI, ANSWER_UPDATED_TOPIC, decodeAnswerUpdated, PROXY_ABI } from './events.js';
import { type OracleFeedStates, OracleRepository, roundsKey, startKey } from './repo.js';
import type { OracleTables } from './tables.js';
import type { OracleFeedTarget } from './targets.js';

/**
 * Every read of the oracle area from the chain, turned into facts:
 * - feed resolution: each feed's aggregator (a registry feed is an EACAggregatorProxy, which emits nothing: its
 *   `aggregator()` names the contract whose logs carry the rounds) and its `decimals()`;
 * - `OracleSink`, the EVM ingest engine's sink for one chain: one stage, the `AnswerUpdated` logs of the feeds'
 *   aggregators. Rounds are inserted with ON CONFLICT DO NOTHING on their (chain, block, log index) keys, so a
 *   re-run of a range writes nothing twice. The aggregator → feed map is set before each run (a proxy's aggregator
 *   can change); aggregators that emitted rounds for a feed before stay read, so a range that straddles a switch
 *   keeps the old aggregator's last rounds;
 * - `OracleIngest`, one pass over a chain: resolution, then the rounds.
 */

/** Rows per INSERT: 9 columns × 500 stays far below SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 500;

export class OracleSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;
  /** Lowercase aggregator → lowercase feed. */
  private emitters = new Map<string, string>();

  constructor(
    readonly chain: string,
    readonly startBlock: number,
  ) {
    this.key = roundsKey(chain);
  }

  /** The aggregators to read now, by the feed each reports for. */
  setEmitters(byAggregator: ReadonlyMap<string, string>): void {
    this.emitters = new Map([...byAggregator].map(([a, f]) => [a.toLowerCase(), f.toLowerCase()]));
  }

  async queries(_stage: number, platform: Kysely<Database>): Promise<LogQuery[]> {
    const db = platform.withTables<OracleTables>();
    const seen = await db
      .selectFrom('oracle_rounds')
      .select(['aggregator', 'feed'])
      .distinct()
      .where('chain', '=', this.chain)
      .execute();
    const feeds = new Set(this.emitters.values());
    for (const row of seen) {
      if (feeds.has(row.feed) && !this.emitters.has(row.aggregator)) this.emitters.set(row.aggregator, row.feed);
    }
    const addresses = [...this.emitters.keys()].sort() as `0x${string}`[];
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
      const aggregator = log.address.toLowerCase();
      const feed = this.emitters.get(aggregator);
      const round = decodeAnswerUpdated(log);
      if (!feed || !round) continue;
      rows.push({
        chain: this.chain,
        block_number: log.blockNumber,
        log_index: log.logIndex,
        tx_hash: log.transactionHash.toLowerCase(),
        feed,
        aggregator,
        round_id: round.roundId.toString(),
        answer: round.answer.toString(),
        updated_at: round.updatedAt,
      });
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('oracle_rounds')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute();
    }
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

/**
 * Each feed's aggregator and decimals. A registry feed is an EACAggregatorProxy, which emits nothing: its
 * `aggregator()` names the contract whose logs carry the rounds. A feed without `aggregator()` (the sandbox's) is
 * an aggregator itself. A feed whose `decimals()` fails is left out until it answers.
 */
export async function resolveFeeds(source: EvmSource, feeds: readonly OracleFeedTarget[]): Promise<OracleFeedStates> {
  const contracts = feeds.flatMap((f) => [
    { address: f.address, abi: PROXY_ABI, functionName: 'aggregator' as const },
    { address: f.address, abi: AGGREGATOR_ABI, functionName: 'decimals' as const },
  ]);
  const results = await source.multicall({ contracts, allowFailure: true });
  const states: OracleFeedStates = {};
  feeds.forEach((f, i) => {
    const [aggregator, decimals] = [results[2 * i], results[2 * i + 1]];
    if (decimals?.status !== 'success') return;
    states[f.address] = {
      aggregator: aggregator?.status === 'success' ? String(aggregator.result).toLowerCase() : f.address,
      decimals: Number(decimals.result),
    };
  });
  return states;
}

/** The newest block whose rounds a chain's ingestion committed, and its time. */
export interface OracleHead {
  readonly chain: string;
  readonly block: number;
  readonly timestamp: number;
}

/** The oracle area's ingestion of its chains, one sink per chain, started at the kit's `ingestStart`. */
export class OracleIngest {
  private readonly sinks = new Map<string, OracleSink>();

  constructor(
    private readonly evm: EvmChains,
    private readonly targets: readonly OracleFeedTarget[],
    /** Without every feed's deployment block: how far below the head ingestion starts. */
    private readonly lookbackSeconds: number,
  ) {}

  /** One pass over a chain: resolve its feeds, then their aggregators' rounds up to the head. */
  async run(ctx: JobContext, chain: string): Promise<string> {
    const source = this.evm.source(chain);
    const repo = new OracleRepository(ctx.store.db);
    const feeds = this.targets.filter((f) => f.chain === chain);
    const states = await resolveFeeds(source, feeds);
    await repo.saveFeedStates(chain, states, nowSeconds(ctx.clock));
    const start = await ingestStart(ctx, source, startKey(chain), {
      startBlocks: feeds.map((f) => f.startBlock),
      lookbackSeconds: this.lookbackSeconds,
    });
    let sink = this.sinks.get(chain);
    if (!sink) {
      sink = new OracleSink(chain, start.block);
      this.sinks.set(chain, sink);
    }
    sink.setEmitters(new Map(Object.entries(states).map(([feed, s]) => [s.aggregator, feed])));
    const result = await ingest(source, ctx.store, sink, {
      signal: ctx.signal,
      now: () => nowSeconds(ctx.clock),
      log: ctx.log,
    });
    const read = Object.keys(states).length;
    const unresolved = feeds.length - read;
    return (
      `${chain}: blocks ${result.from}–${result.to}, ${result.facts} rounds of ${read} feeds` +
      (unresolved ? ` (${unresolved} without decimals(), skipped)` : '') +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '')
    );
  }

  /** Per chain with rounds ingested, the newest committed block and its time (from the stored header, else the node). */
  async heads(ctx: JobContext, chains: readonly string[]): Promise<OracleHead[]> {
    const repo = new OracleRepository(ctx.store.db);
    const out: OracleHead[] = [];
    for (const chain of chains) {
      const ingested = await repo.ingested(chain);
      if (!ingested) continue;
      const timestamp = ingested.timestamp ?? (await this.evm.source(chain).getBlock(ingested.block))?.timestamp;
      if (timestamp !== undefined) out.push({ chain, block: ingested.block, timestamp });
    }
    return out;
  }
}
