/**
 * The facts the oracle area ingests and its computation reads: plain data, no I/O. Answers and round ids are exact
 * bigints (convention 7 of DESIGN.md) until the computed payloads.
 */

export interface OracleRoundFact {
  readonly chain: string;
  /** Lowercase feed address as configured (the registry's proxy, or the sandbox's aggregator). */
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

/** What ingestion learned about a feed from the chain. */
export interface OracleFeedState {
  /** The aggregator whose logs are read: the proxy's `aggregator()`, or the feed itself when it is one. */
  readonly aggregator: string;
  readonly decimals: number;
}
