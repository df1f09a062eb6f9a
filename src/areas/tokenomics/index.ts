import { defineArea } from '../kit/module.js';
import { tokenomicsPaths } from './routes.js';

export const tokenomicsArea = defineArea({
  id: 'tokenomics',
  title: 'Tokenomics',
  paths: tokenomicsPaths,
  dependsOn: [],
  jobs: () => [],
  computations: [],
});
