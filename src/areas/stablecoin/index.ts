import { defineArea } from '../kit/module.js';
import { STABLECOIN_COMPUTATION, stablecoinJobs } from './jobs.js';
import { stablecoinPaths } from './routes.js';
import { STABLECOIN_MIGRATIONS } from './tables.js';

export const stablecoinArea = defineArea({
  id: 'stablecoin',
  title: 'Stablecoins',
  paths: stablecoinPaths,
  dependsOn: ['dex', 'oracles'],
  migrations: STABLECOIN_MIGRATIONS,
  jobs: stablecoinJobs,
  computations: [STABLECOIN_COMPUTATION],
});
