import { defineArea } from '../kit/module.js';
import { communityPaths } from './routes.js';

export const communityArea = defineArea({
  id: 'community',
  title: 'Community',
  paths: communityPaths,
  dependsOn: [],
  jobs: () => [],
  computations: [],
});
