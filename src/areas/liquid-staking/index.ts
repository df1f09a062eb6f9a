import type { AreaModule } from '../types.js';
import { liquidStakingPaths } from './routes.js';

export const liquidStakingArea: AreaModule = {
  id: 'liquid-staking',
  title: 'Liquid staking',
  paths: liquidStakingPaths,
  jobs: () => [],
  computations: [],
};
