/**
 * The facts the oracle area ingests and its computation reads: plain data, no I/O. Answers and round ids are exact
 * bigints (convention 7 of DESIGN.md) until the computed payloads.
 */

export interface OracleRoundFact {
  readonly chain: string;
  /** Lowercase feed address as configured: the feed's proxy. */
  readonly feed: string;
  /** Lowercase address of the aggregator that emitted the round. */
  readonly aggregator: string;
  readonly roundId: bigint;
  /** Raw answer, in units of 10^-decimals of the feed. */
  readonly answer: bigint;
  /** Unix seconds, the log's `updatedAt`. */
  readonly updatedAt: number;
  readonly blockNumber: number;
  readonly logIndex: number;
}

/** Why a feed's rounds are not read (the pair listing's `unresolved_reason`). */
export type OracleUnresolvedReason = 'no_aggregator' | 'no_decimals';

export interface OracleUnresolved {
  readonly reason: OracleUnresolvedReason;
  /** What the chain answered (the call's error), for the run summary. */
  readonly detail: string;
}

/**
 * One aggregator its proxy named for a feed: its `AnswerUpdated` rounds are the feed's from `fromBlock` on, until
 * the next period's `fromBlock` (exclusive). The first period of a feed starts at 0 (from wherever ingestion began).
 */
export interface AggregatorPeriod {
  readonly aggregator: string;
  readonly fromBlock: number;
}

/** What ingestion learned about a feed from the chain. */
export interface OracleFeedState {
  /** The aggregator whose logs are read now (the last period's), or null when none was ever named. */
  readonly aggregator: string | null;
  readonly decimals: number | null;
  /** The aggregators the feed's proxy named since ingestion began, oldest first. */
  readonly periods: readonly AggregatorPeriod[];
  /** The last block at which the proxy was asked and named `aggregator`; null when unknown (older checkpoints). */
  readonly resolvedAt: number | null;
  /**
   * Unix seconds from which the feed's rounds are known: when it was first resolved (a feed resolved after its
   * chain's ingestion began is read from there); null when unknown (older checkpoints: from the ingestion start).
   */
  readonly coveredFrom: number | null;
  /** Why the feed is not read now; null when it is. */
  readonly unresolved: OracleUnresolved | null;
}
