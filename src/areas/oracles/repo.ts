import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { OracleRoundFact } from './facts.js';
import type { OracleTables } from './tables.js';

type RoundRow = OracleTables['oracle_rounds'];

function toFact(r: RoundRow): OracleRoundFact {
  return {
    chain: r.chain,
    feed: r.feed,
    aggregator: r.aggregator,
    roundId: BigInt(r.round_id),
    answer: BigInt(r.answer),
    updatedAt: Number(r.updated_at),
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
  };
}

/** Reads the oracle area's facts; rows become typed facts (big integers back to bigint) here only. */
export class OracleRepository {
  private readonly db: Kysely<Database & OracleTables>;

  constructor(platform: Kysely<Database>) {
    this.db = platform.withTables<OracleTables>();
  }

  /**
   * A feed's rounds with `from < updatedAt ≤ to` in chain order, preceded by the newest round at or before `from`
   * (the predecessor of the first one: its interval and change need it).
   */
  async rounds(chain: string, feed: string, from: number, to: number): Promise<OracleRoundFact[]> {
    const before = await this.db
      .selectFrom('oracle_rounds')
      .selectAll()
      .where('chain', '=', chain)
      .where('feed', '=', feed)
      .where('updated_at', '<=', from)
      .orderBy('block_number', 'desc')
      .orderBy('log_index', 'desc')
      .limit(1)
      .execute();
    const inside = await this.db
      .selectFrom('oracle_rounds')
      .selectAll()
      .where('chain', '=', chain)
      .where('feed', '=', feed)
      .where('updated_at', '>', from)
      .where('updated_at', '<=', to)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return [...before, ...inside].map(toFact);
  }
}
