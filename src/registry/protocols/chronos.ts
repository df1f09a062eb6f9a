import type { ProtocolEntry } from '../types.js';

/** Chronos, a ve(3,3) DEX on Arbitrum. Tracked for community data only. */
export const chronos: ProtocolEntry = {
  id: 'chronos',
  name: 'Chronos',
  website: 'https://chronos.exchange',
  social: { discord: 'chronos', reddit: 'chronos' },
};
