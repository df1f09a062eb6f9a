import type { AreaModule } from '../types.js';
import { DEX_COMPUTATION, dexJobs } from './jobs.js';
import { dexPaths } from './routes.js';

export const dexArea: AreaModule = {
  id: 'dex',
  title: 'Decentralized exchanges',
  paths: dexPaths,
  jobs: dexJobs,
  computations: [DEX_COMPUTATION],
};
