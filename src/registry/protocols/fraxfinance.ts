import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const fraxfinance: ProtocolEntry = {
  id: 'fraxfinance',
  name: 'Frax Finance',
  website: 'https://frax.finance',
  token: T.FXS,
  dex: [
    {
      chain: 'ethereum',
      version: 'V2',
      exchangeName: 'Fraxswap',
      design: 'uniswap-v2',
      // FraxswapFactory V2.
      factory: '0x43eC799eAdd63848443E2347C49f5f52e8Fe0F6f',
      pools: [],
    },
  ],
  github: { orgs: ['FraxFinance'], repos: [] },
  social: { discord: 'frax', reddit: 'frax' },
};
