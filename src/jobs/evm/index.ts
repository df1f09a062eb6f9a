export type {
  ApplyContext,
  BlockRange,
  EvmCheckpoint,
  IngestOptions,
  IngestResult,
  IngestSink,
  LogQuery,
} from './ingest.js';
export { ingest } from './ingest.js';
export { type EvmEngineTables, storedBlockTimestamp } from './tables.js';
