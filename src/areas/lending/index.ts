import { defineArea } from '../kit/module.js';
import { LENDING_COMPUTATION, lendingJobs } from './jobs.js';
import { lendingPaths } from './routes.js';
import { LENDING_MIGRATIONS } from './tables.js';

export const lendingArea = defineArea({
  id: 'lending',
  title: 'Lending',
  paths: lendingPaths,
  dependsOn: ['dex', 'oracles'],
  migrations: LENDING_MIGRATIONS,
  jobs: lendingJobs,
  computations: [LENDING_COMPUTATION],
});
