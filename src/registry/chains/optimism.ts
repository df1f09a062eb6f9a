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
