import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const pancakeswap: ProtocolEntry = {
  id: 'pancakeswap',
  name: 'PancakeSwap',
  website: 'https://pancakeswap.finance',
  // CAKE lives on BNB Chain; this is its Ethereum representation (the registry tracks no BNB Chain).
  token: T.CAKE,
  dex: [
    {
      chain: 'ethereum',
      version: 'V3',
      exchangeName: 'Pancakeswap',
      design: 'uniswap-v3',
      // PancakeV3Factory (same address on every chain).
      factory: '0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865',
      pools: [],
    },
  ],
  github: { orgs: ['pancakeswap'], repos: [] },
  social: { discord: 'pancakeswap', reddit: 'pancakeswap' },
};
