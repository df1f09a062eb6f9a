import { defineArea } from '../kit/module.js';
import { DEVELOPMENT_COMPUTATION, developmentJobs } from './jobs.js';
import { developmentPaths } from './routes.js';
import { DEVELOPMENT_MIGRATIONS } from './tables.js';

export const developmentArea = defineArea({
  id: 'development',
  title: 'Development',
  paths: developmentPaths,
  dependsOn: [],
  migrations: DEVELOPMENT_MIGRATIONS,
  jobs: developmentJobs,
  computations: [DEVELOPMENT_COMPUTATION],
});
