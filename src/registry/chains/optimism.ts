import type { ChainEntry } from '../types.js';

export const optimism: ChainEntry = {
  id: 'optimism',
  name: 'Optimism',
  family: 'evm',
  evmChainId: 10,
  layer: 'l2',
  settlesOn: 'ethereum',
  // Reorg safety against unsafe (sequencer-only) blocks, not L1 finality: see arbitrum.ts.
  finalityDepth: 64,
  blockTimeSeconds: 2,
  github: { orgs: [], repos: ['ethereum-optimism/optimism', 'ethereum-optimism/op-geth'] },
  social: { discord: 'optimism', reddit: 'optimism' },
};
