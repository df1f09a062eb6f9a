import { defineArea } from '../kit/module.js';
import { BLOCKCHAIN_COMPUTATION, blockchainJobs } from './jobs.js';
import { blockchainPaths } from './routes.js';
import { BLOCKCHAIN_MIGRATIONS } from './tables.js';

export const blockchainArea = defineArea({
  id: 'blockchain',
  title: 'Blockchain',
  paths: blockchainPaths,
  // Native asset prices: the oracle area's ETH-USD / BTC-USD feeds and the DEX area's hourly prices.
  dependsOn: ['oracles', 'dex'],
  migrations: BLOCKCHAIN_MIGRATIONS,
  jobs: blockchainJobs,
  computations: [BLOCKCHAIN_COMPUTATION],
});
