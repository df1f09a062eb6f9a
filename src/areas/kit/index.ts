export { type ComputeJobSpec, computedKey, computeJob, publishedAs, type Wait, wait } from './compute-job.js';
export { type DocumentDefaults, type DocumentOptions, DocumentSet, isScorePath } from './documents.js';
export { eachTarget } from './each-target.js';
export { type IngestStart, type IngestStartOptions, ingestStart } from './ingest-start.js';
export { type AreaEnv, type AreaModule, defineArea } from './module.js';
export { chainSourceLabel, isSandboxSource, sourceLabel } from './source-label.js';
