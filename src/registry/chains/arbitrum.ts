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
