import { defineArea } from '../kit/module.js';
import { tokenomicsPaths } from './routes.js';
import { TOKENOMICS_MIGRATIONS } from './tables.js';

export const tokenomicsArea = defineArea({
  id: 'tokenomics',
  title: 'Tokenomics',
  paths: tokenomicsPaths,
  dependsOn: [],
  migrations: TOKENOMICS_MIGRATIONS,
  jobs: () => [],
  computations: [],
});
