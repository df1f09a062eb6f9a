import type { ChainEntry } from '../types.js';

export const optimism: ChainEntry = {
  id: 'optimism',
  name: 'Optimism',
  family: 'evm',
  evmChainId: 10,
  layer: 'l2',
  settlesOn: 'ethereum',
  // Final is what the L1 made final, not a depth of OP Mainnet's own blocks: the node's `finalized` block, which
  // op-node derives from finalised L1 blocks (the batches posted there), ~20–30 min behind the head. Fallback
  // where a node does not know the tag: 900 blocks (30 min of 2 s blocks), about that lag.
  finality: 'tag',
  finalityDepth: 900,
  blockTimeSeconds: 2,
  github: { orgs: [], repos: ['ethereum-optimism/optimism', 'ethereum-optimism/op-geth'] },
  social: { discord: 'optimism', reddit: 'optimism' },
  l1BridgeEscrows: [
    {
      // The L1StandardBridge (its proxy) escrows the L1 ERC-20 tokens bridged to OP Mainnet.
      address: '0x99C9fc46f92E8a1c0deC1b1747d010903E884bE1',
      label: 'optimism-l1-standard-bridge',
      source:
        'https://github.com/ethereum-optimism/optimism/blob/develop/packages/contracts/deployments/mainnet/README.md (Proxy__OVM_L1StandardBridge); also base-org/op-viem src/chains/optimism.ts (l1StandardBridge)',
    },
  ],
};
