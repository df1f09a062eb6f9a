import type { AreaModule } from '../types.js';
import { dexPaths } from './routes.js';

export const dexArea: AreaModule = {
  id: 'dex',
  title: 'Decentralized exchanges',
  paths: dexPaths,
  jobs: () => [],
  computations: [],
};
