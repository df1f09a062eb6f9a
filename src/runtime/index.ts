export { createLogger } from './logger.js';
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
  openSources,
  type Role,
  registryBook,
  SOURCES,
  type SourceSetup,
  setUpSources,
  startStandins,
} from './sources.js';
