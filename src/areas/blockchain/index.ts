import { defineArea } from '../kit/module.js';
import { blockchainPaths } from './routes.js';

export const blockchainArea = defineArea({
  id: 'blockchain',
  title: 'Blockchain',
  paths: blockchainPaths,
  dependsOn: [],
  jobs: () => [],
  computations: [],
});
