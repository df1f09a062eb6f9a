import { defineArea } from '../kit/module.js';
import { LIQUID_STAKING_COMPUTATION, liquidStakingJobs } from './jobs.js';
import { liquidStakingPaths } from './routes.js';
import { LIQUID_STAKING_MIGRATIONS } from './tables.js';

export const liquidStakingArea = defineArea({
  id: 'liquid-staking',
  title: 'Liquid staking',
  paths: liquidStakingPaths,
  dependsOn: ['dex', 'lending'],
  migrations: LIQUID_STAKING_MIGRATIONS,
  jobs: liquidStakingJobs,
  computations: [LIQUID_STAKING_COMPUTATION],
});
