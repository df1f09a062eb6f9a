import type { AreaModule } from '../types.js';
import { DEVELOPMENT_COMPUTATION, developmentJobs } from './jobs.js';
import { developmentPaths } from './routes.js';

export const developmentArea: AreaModule = {
  id: 'development',
  title: 'Development',
  paths: developmentPaths,
  jobs: developmentJobs,
  computations: [DEVELOPMENT_COMPUTATION],
};
