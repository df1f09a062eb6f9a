import { defineArea } from '../kit/module.js';
import { bitcoinPart } from './bitcoin/index.js';
import { evmPart } from './evm/index.js';
import { blockchainPaths } from './routes.js';

/**
 * The blockchain area, in two parts (`evm/`, `bitcoin/`: one folder per source family in the area's roles) that
 * share the path table (`routes.ts`) and the native asset prices (`prices.ts`).
 */
export const blockchainArea = defineArea({
  id: 'blockchain',
  title: 'Blockchain',
  paths: blockchainPaths,
  // Native asset prices: the oracle area's ETH-USD / BTC-USD feeds and the DEX area's hourly prices.
  dependsOn: ['oracles', 'dex'],
  parts: [evmPart, bitcoinPart],
});
