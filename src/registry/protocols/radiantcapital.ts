import { arbitrumTokens as A } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const radiantcapital: ProtocolEntry = {
  id: 'radiantcapital',
  name: 'Radiant Capital',
  website: 'https://radiant.capital',
  // RDNT (v2) on Arbitrum.
  token: A.RDNT,
  github: { orgs: ['radiant-capital'], repos: [] },
  social: { discord: 'radiant', reddit: 'radiant' },
};
