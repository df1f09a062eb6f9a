import type { ChainEntry } from '../types.js';

/** Not served by the blockchain paths (no layer): present because the community and development areas track it. */
export const near: ChainEntry = {
  id: 'near',
  name: 'NEAR',
  family: 'near',
  // Doomslug finality: a block is final once two more blocks are built on it; one more for margin.
  finality: 'depth',
  finalityDepth: 3,
  blockTimeSeconds: 1.2,
  github: { orgs: [], repos: ['near/nearcore'] },
  social: { discord: 'near', reddit: 'near' },
};
