import { optimismTokens as O } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const velodrome: ProtocolEntry = {
  id: 'velodrome',
  name: 'Velodrome',
  website: 'https://velodrome.finance',
  // VELO (v2) on Optimism.
  token: O.VELO,
  github: { orgs: ['velodrome-finance'], repos: [] },
  social: { discord: 'velodrome', reddit: 'velodrome' },
};
