export { type ComputeJobSpec, computedKey, computeJob, type Wait, wait } from './compute-job.js';
export { type DocumentDefaults, type DocumentOptions, DocumentSet } from './documents.js';
export { type IngestStart, type IngestStartOptions, ingestStart } from './ingest-start.js';
export { type AreaEnv, type AreaModule, defineArea } from './module.js';
