import type { AreaModule } from '../types.js';
import { lendingPaths } from './routes.js';

export const lendingArea: AreaModule = {
  id: 'lending',
  title: 'Lending',
  paths: lendingPaths,
  jobs: () => [],
  computations: [],
};
