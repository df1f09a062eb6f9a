import { defineArea } from '../kit/module.js';
import { TOKENOMICS_COMPUTATION, tokenomicsJobs } from './jobs.js';
import { tokenomicsPaths } from './routes.js';
import { TOKENOMICS_MIGRATIONS } from './tables.js';

export const tokenomicsArea = defineArea({
  id: 'tokenomics',
  title: 'Tokenomics',
  paths: tokenomicsPaths,
  dependsOn: ['dex'],
  migrations: TOKENOMICS_MIGRATIONS,
  jobs: tokenomicsJobs,
  computations: [TOKENOMICS_COMPUTATION],
});
