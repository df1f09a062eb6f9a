import { defineArea } from '../kit/module.js';
import { BITCOIN_COMPUTATION, bitcoinJobs } from './bitcoin-jobs.js';
import { BITCOIN_MIGRATIONS } from './bitcoin-tables.js';
import { BLOCKCHAIN_COMPUTATION, blockchainJobs } from './jobs.js';
import { blockchainPaths } from './routes.js';
import { BLOCKCHAIN_MIGRATIONS } from './tables.js';

export const blockchainArea = defineArea({
  id: 'blockchain',
  title: 'Blockchain',
  paths: blockchainPaths,
  // Native asset prices: the oracle area's ETH-USD / BTC-USD feeds and the DEX area's hourly prices.
  dependsOn: ['oracles', 'dex'],
  migrations: { ...BLOCKCHAIN_MIGRATIONS, ...BITCOIN_MIGRATIONS },
  jobs: (env) => [...blockchainJobs(env), ...bitcoinJobs(env)],
  computations: [BLOCKCHAIN_COMPUTATION, BITCOIN_COMPUTATION],
});
