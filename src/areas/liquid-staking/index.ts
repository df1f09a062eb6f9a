import type { AreaModule } from '../types.js';
import { LIQUID_STAKING_COMPUTATION, liquidStakingJobs } from './jobs.js';
import { liquidStakingPaths } from './routes.js';

export const liquidStakingArea: AreaModule = {
  id: 'liquid-staking',
  title: 'Liquid staking',
  paths: liquidStakingPaths,
  jobs: liquidStakingJobs,
  computations: [LIQUID_STAKING_COMPUTATION],
};
