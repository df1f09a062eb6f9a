import type { Generated } from 'kysely';

/**
 * Table types of the store. Portable SQL: integers (Unix seconds or milliseconds, named so) for time, text for
 * big integers and JSON. Both SQLite and PostgreSQL run the same migrations (`migrations.ts`).
 */
export interface Database {
  api_tokens: ApiTokenTable;
  datasets: DatasetTable;
  publications: PublicationTable;
  counters: CounterTable;
  job_state: JobStateTable;
  job_runs: JobRunTable;
  job_leases: JobLeaseTable;
  checkpoints: CheckpointTable;
  evm_blocks: EvmBlockTable;
  evm_tokens: EvmTokenTable;
  dex_pools: DexPoolTable;
  dex_swaps: DexSwapTable;
  dex_liquidity: DexLiquidityTable;
  dex_syncs: DexSyncTable;
  dex_pool_snapshots: DexPoolSnapshotTable;
  token_prices: TokenPriceTable;
  oracle_rounds: OracleRoundTable;
}

/** Big integers (token amounts, sqrtPriceX96, liquidity) are decimal strings; addresses and hashes lowercase hex. */
export interface EvmBlockTable {
  chain: string;
  number: number;
  hash: string;
  parent_hash: string;
  timestamp: number;
}

export interface EvmTokenTable {
  chain: string;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

export interface DexPoolTable {
  chain: string;
  address: string;
  protocol: string;
  version: string;
  design: string;
  factory: string;
  token0: string;
  token1: string;
  fee: number;
  tick_spacing: number | null;
  created_block: number;
  created_at: number;
}

export interface DexSwapTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  pool: string;
  trader: string;
  amount0: string;
  amount1: string;
  sqrt_price_x96: string | null;
  liquidity: string | null;
  tick: number | null;
  timestamp: number;
}

export interface DexLiquidityTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  pool: string;
  kind: string;
  amount0: string;
  amount1: string;
  owner: string;
  timestamp: number;
}

export interface DexSyncTable {
  chain: string;
  block_number: number;
  log_index: number;
  pool: string;
  reserve0: string;
  reserve1: string;
  timestamp: number;
}

export interface DexPoolSnapshotTable {
  chain: string;
  pool: string;
  block_number: number;
  timestamp: number;
  reserve0: string;
  reserve1: string;
  sqrt_price_x96: string | null;
  liquidity: string | null;
  tick: number | null;
}

export interface TokenPriceTable {
  chain: string;
  token: string;
  hour: number;
  price_usd: number;
  source: string;
  confidence: number;
}

/** A price feed round: one `AnswerUpdated` log. `answer` and `round_id` are decimal strings (int256, uint256). */
export interface OracleRoundTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  /** The feed as configured (the registry's proxy, or the sandbox's aggregator), lowercase. */
  feed: string;
  /** The contract that emitted the log, lowercase. */
  aggregator: string;
  round_id: string;
  answer: string;
  /** The log's `updatedAt` (Unix seconds). */
  updated_at: number;
}

export interface ApiTokenTable {
  id: string;
  name: string;
  /** sha256 of the token's secret part, hex. The token itself is never stored. */
  secret_hash: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  rate_limit: number;
  rate_window_seconds: number;
}

export interface DatasetTable {
  /** Canonical path the document answers (lowercase addresses; paged listings without their page segments). */
  path: string;
  area: string;
  /** The computation that publishes it; a publication replaces all documents of its computation. */
  computation: string;
  /** JSON text of the payload (`data`). */
  payload: string;
  /** JSON text of extra meta fields (methodology, source, …). */
  meta: string;
  as_of: number;
  computed_at: number;
  /** Seconds after `as_of` within which the document is fresh. */
  fresh_for: number;
  version: number;
}

export interface PublicationTable {
  version: number;
  computation: string;
  area: string;
  published_at: number;
  documents: number;
  as_of: number;
}

export interface CounterTable {
  name: string;
  value: number;
}

export interface JobStateTable {
  job: string;
  next_run_at: number;
  last_run_id: string | null;
  consecutive_failures: number;
}

export interface JobRunTable {
  id: string;
  job: string;
  owner: string;
  started_at_ms: number;
  finished_at_ms: number | null;
  status: 'running' | 'ok' | 'failed';
  attempts: number;
  error: string | null;
  summary: string | null;
}

export interface JobLeaseTable {
  job: string;
  owner: string;
  expires_at_ms: number;
}

export interface CheckpointTable {
  key: string;
  value: string;
  updated_at: number;
}

export type WithGenerated<T> = { [K in keyof T]: T[K] | Generated<T[K]> };
