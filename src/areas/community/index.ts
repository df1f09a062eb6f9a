import type { AreaModule } from '../types.js';
import { communityPaths } from './routes.js';

export const communityArea: AreaModule = {
  id: 'community',
  title: 'Community',
  paths: communityPaths,
  jobs: () => [],
  computations: [],
};
