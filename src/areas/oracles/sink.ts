import type { Kysely, Transaction } from 'kysely';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/index.js';
import type { EvmLog } from '../../sources/evm/types.js';
import type { Database } from '../../store/schema.js';
import { ANSWER_UPDATED_TOPIC, decodeAnswerUpdated } from './events.js';
import type { OracleTables } from './tables.js';

/**
 * The oracle area's ingest sink for one chain: one stage, the `AnswerUpdated` logs of the feeds' aggregators.
 * Rounds are inserted with ON CONFLICT DO NOTHING on their (chain, block, log index) keys, so a re-run of a range
 * writes nothing twice. The aggregator → feed map is set by the ingest job before each run (a proxy's aggregator
 * can change); aggregators that emitted rounds for a feed before stay read, so a range that straddles a switch
 * keeps the old aggregator's last rounds.
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
    this.key = `oracles:${chain}`;
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
