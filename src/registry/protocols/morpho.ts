import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const morpho: ProtocolEntry = {
  id: 'morpho',
  name: 'Morpho',
  website: 'https://morpho.org',
  token: T.MORPHO,
  lending: [
    {
      chain: 'ethereum',
      version: 'V1',
      // Morpho Blue markets lending USDC against the listed collaterals.
      baseAsset: 'USDC',
      marketName: 'Morpho Blue USDC',
      design: 'morpho-blue',
      poolAddress: '0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb',
      assets: [T.USDC, T.WETH, T.wstETH, T.WBTC],
      startBlock: 18883124,
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'Morpho (Blue singleton)', address: '0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb' },
      { chain: 'ethereum', name: 'AdaptiveCurveIrm', address: '0x870aC11D48B15DB9a138Cf899d20F13F79Ba00BC' },
      { chain: 'ethereum', name: 'MORPHO token', address: T.MORPHO.address },
    ],
  },
  github: { orgs: ['morpho-org'], repos: [] },
  social: { discord: 'morpho', reddit: 'morpho' },
};
