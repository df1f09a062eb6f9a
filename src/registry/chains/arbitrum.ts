import type { ChainEntry } from '../types.js';

export const arbitrum: ChainEntry = {
  id: 'arbitrum',
  name: 'Arbitrum',
  family: 'evm',
  evmChainId: 42161,
  layer: 'l2',
  settlesOn: 'ethereum',
  // Final is what the L1 made final, not a depth of Arbitrum's own blocks: the node's `finalized` block, which
  // Nitro takes from the batches and assertions posted to Ethereum once the L1 block holding them is finalised
  // (~15–20 min behind the head: 4,000+ blocks of 0.25 s). Fallback where a node does not know the tag: 4,800
  // blocks (20 min), about that lag.
  finality: 'tag',
  finalityDepth: 4800,
  blockTimeSeconds: 0.25,
  github: { orgs: [], repos: ['OffchainLabs/nitro', 'OffchainLabs/nitro-contracts'] },
  social: { discord: 'arbitrum', reddit: 'arbitrum' },
  l1BridgeEscrows: [
    {
      // The standard ERC-20 gateway escrows the L1 tokens bridged through it (UNI, AAVE and LINK among them).
      address: '0xa3A7B6F88361F48403514059F1F16C8E78d60EeC',
      label: 'arbitrum-l1-erc20-gateway',
      source:
        'https://github.com/OffchainLabs/arbitrum-sdk/blob/main/src/lib/dataEntities/networks.ts (Arbitrum One mainnet tokenBridge.l1ERC20Gateway)',
    },
  ],
};
