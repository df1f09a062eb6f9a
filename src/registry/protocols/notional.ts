import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const notional: ProtocolEntry = {
  id: 'notional',
  name: 'Notional',
  website: 'https://notional.finance',
  token: T.NOTE,
  security: {
    chains: ['ethereum'],
    contracts: [{ chain: 'ethereum', name: 'Notional proxy', address: '0x1344A36A1B56144C3Bc62E7757377D288fDE0369' }],
  },
  github: { orgs: ['notional-finance'], repos: [] },
  social: { discord: 'notional', reddit: 'notional' },
};
