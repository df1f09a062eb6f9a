import { defineArea } from '../kit/module.js';
import { BITCOIN_COMPUTATION, bitcoinJobs } from './bitcoin-jobs.js';
import { BITCOIN_MIGRATIONS } from './bitcoin-tables.js';
import { blockchainPaths } from './routes.js';

export const blockchainArea = defineArea({
  id: 'blockchain',
  title: 'Blockchain',
  paths: blockchainPaths,
  dependsOn: [],
  migrations: { ...BITCOIN_MIGRATIONS },
  jobs: (env) => [...bitcoinJobs(env)],
  computations: [BITCOIN_COMPUTATION],
});
