import type { Generated } from 'kysely';

/**
 * The platform's tables: tokens, datasets and publications, counters, jobs, checkpoints. Portable SQL: integers
 * (Unix seconds or milliseconds, named so) for time, text for big integers and JSON. Both SQLite and PostgreSQL
 * run the same migrations. The EVM ingest engine (`jobs/evm/tables.ts`) and each area (`areas/<x>/tables.ts`)
 * own their tables: their row types and migrations live there, and their code sees them through
 * `db.withTables<…>()`.
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
