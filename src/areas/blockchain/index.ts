import type { AreaModule } from '../types.js';
import { blockchainPaths } from './routes.js';

export const blockchainArea: AreaModule = {
  id: 'blockchain',
  title: 'Blockchain',
  paths: blockchainPaths,
  jobs: () => [],
  computations: [],
};
