import type { AreaModule } from '../types.js';
import { stablecoinPaths } from './routes.js';

export const stablecoinArea: AreaModule = {
  id: 'stablecoin',
  title: 'Stablecoins',
  paths: stablecoinPaths,
  jobs: () => [],
  computations: [],
};
