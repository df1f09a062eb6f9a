import { defineArea } from '../kit/module.js';
import { LIQUID_STAKING_COMPUTATION, liquidStakingJobs } from './jobs.js';
import { liquidStakingPaths } from './routes.js';

export const liquidStakingArea = defineArea({
  id: 'liquid-staking',
  title: 'Liquid staking',
  paths: liquidStakingPaths,
  dependsOn: ['dex', 'lending'],
  jobs: liquidStakingJobs,
  computations: [LIQUID_STAKING_COMPUTATION],
});
