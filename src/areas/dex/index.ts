import { defineArea } from '../kit/module.js';
import { DEX_COMPUTATION, dexJobs } from './jobs.js';
import { dexPaths } from './routes.js';
import { DEX_MIGRATIONS } from './tables.js';

export const dexArea = defineArea({
  id: 'dex',
  title: 'Decentralized exchanges',
  paths: dexPaths,
  dependsOn: [],
  migrations: DEX_MIGRATIONS,
  jobs: dexJobs,
  computations: [DEX_COMPUTATION],
});
