import type { AreaModule } from '../types.js';
import { LENDING_COMPUTATION, lendingJobs } from './jobs.js';
import { lendingPaths } from './routes.js';

export const lendingArea: AreaModule = {
  id: 'lending',
  title: 'Lending',
  paths: lendingPaths,
  jobs: lendingJobs,
  computations: [LENDING_COMPUTATION],
};
