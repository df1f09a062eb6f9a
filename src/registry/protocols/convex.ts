import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const convex: ProtocolEntry = {
  id: 'convex',
  name: 'Convex',
  website: 'https://www.convexfinance.com',
  token: T.CVX,
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'Booster', address: '0xF403C135812408BFbE8713b5A23a04b3D48AAE31' },
      { chain: 'ethereum', name: 'CVX token', address: T.CVX.address },
    ],
  },
  github: { orgs: ['convex-eth'], repos: [] },
  social: { discord: 'convex', reddit: 'convex' },
};
