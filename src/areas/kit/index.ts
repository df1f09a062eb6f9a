export {
  type ComputeJobSpec,
  computedKey,
  computeJob,
  type NamedDocument,
  publishedAs,
  publishingEvery,
  type Wait,
  wait,
} from './compute-job.js';
export {
  DEFAULT_FRESH_FOR_SECONDS,
  type DocumentDefaults,
  type DocumentOptions,
  DocumentSet,
  freshForEvery,
  isScorePath,
} from './documents.js';
export { eachTarget } from './each-target.js';
export { type IngestStart, type IngestStartOptions, ingestStart } from './ingest-start.js';
export {
  type AreaDeclaration,
  type AreaEnv,
  type AreaModule,
  type AreaPart,
  defineArea,
  definePart,
} from './module.js';
export { chainSourceLabel, isSandboxSource, sourceLabel } from './source-label.js';
