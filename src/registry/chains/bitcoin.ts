import type { ChainEntry } from '../types.js';

export const bitcoin: ChainEntry = {
  id: 'bitcoin',
  name: 'Bitcoin',
  family: 'bitcoin',
  layer: 'l1',
  // The customary six confirmations.
  finality: 'depth',
  finalityDepth: 6,
  blockTimeSeconds: 600,
  github: { orgs: [], repos: ['bitcoin/bitcoin'] },
  social: { discord: 'bitcoin', reddit: 'bitcoin' },
};
