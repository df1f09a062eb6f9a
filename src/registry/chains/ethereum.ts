import type { ChainEntry } from '../types.js';

export const ethereum: ChainEntry = {
  id: 'ethereum',
  name: 'Ethereum',
  family: 'evm',
  evmChainId: 1,
  layer: 'l1',
  // The node's `finalized` block: the execution block of the beacon chain's finalized checkpoint, usually 64–95
  // slots behind the head and far more while the chain does not finalise (May 2023), where a fixed depth would
  // call unfinalised blocks final. Fallback where a node does not know the tag: two epochs (2 × 32 slots), the
  // depth at which a block is normally finalised.
  finality: 'tag',
  finalityDepth: 64,
  blockTimeSeconds: 12,
  github: {
    orgs: [],
    repos: ['ethereum/go-ethereum', 'ethereum/consensus-specs', 'ethereum/execution-specs'],
  },
  social: { discord: 'ethereum', reddit: 'ethereum' },
};
