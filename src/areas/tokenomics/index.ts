import type { AreaModule } from '../types.js';
import { tokenomicsPaths } from './routes.js';

export const tokenomicsArea: AreaModule = {
  id: 'tokenomics',
  title: 'Tokenomics',
  paths: tokenomicsPaths,
  jobs: () => [],
  computations: [],
};
