import { defineArea } from '../kit/module.js';
import { stablecoinPaths } from './routes.js';

export const stablecoinArea = defineArea({
  id: 'stablecoin',
  title: 'Stablecoins',
  paths: stablecoinPaths,
  dependsOn: [],
  jobs: () => [],
  computations: [],
});
