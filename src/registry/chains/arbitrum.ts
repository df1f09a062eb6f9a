import type { ChainEntry } from '../types.js';

export const arbitrum: ChainEntry = {
  id: 'arbitrum',
  name: 'Arbitrum',
  family: 'evm',
  evmChainId: 42161,
  layer: 'l2',
  settlesOn: 'ethereum',
  // Reorg safety against the sequencer's soft confirmations, not L1 finality (which is ~15 min, thousands of
  // 0.25 s blocks): the same depth as Ethereum keeps ingestion close to the head.
  finalityDepth: 64,
  blockTimeSeconds: 0.25,
  github: { orgs: [], repos: ['OffchainLabs/nitro', 'OffchainLabs/nitro-contracts'] },
  social: { discord: 'arbitrum', reddit: 'arbitrum' },
};
