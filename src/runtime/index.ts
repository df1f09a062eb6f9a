export { type Embedded, type EmbeddedOptions, type StartProgressEvent, startEmbedded } from './embedded.js';
export { type JobSide, JobSideSetupError, type JobSideSources } from './job-side.js';
export { createLogger, logDestination } from './logger.js';
export { isOperatorError } from './operator-error.js';
export {
  areaEnv,
  closeOnSignals,
  enabledJobs,
  type Service,
  type ServiceOptions,
  startService,
  storeFor,
} from './service.js';
export {
  besideRunningSandbox,
  openSources,
  type Role,
  registryBook,
  SOURCES,
  type SourceSetup,
  setUpSources,
  standinLabels,
  startStandins,
  storeEtags,
} from './sources.js';
