import type { ChainEntry } from '../types.js';

export const ethereum: ChainEntry = {
  id: 'ethereum',
  name: 'Ethereum',
  family: 'evm',
  evmChainId: 1,
  layer: 'l1',
  // Two epochs (2 × 32 slots): a block this deep is finalised by the beacon chain.
  finalityDepth: 64,
  blockTimeSeconds: 12,
  github: {
    orgs: [],
    repos: ['ethereum/go-ethereum', 'ethereum/consensus-specs', 'ethereum/execution-specs'],
  },
  social: { discord: 'ethereum', reddit: 'ethereum' },
};
