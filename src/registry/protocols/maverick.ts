import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const maverick: ProtocolEntry = {
  id: 'maverick',
  name: 'Maverick Protocol',
  website: 'https://www.mav.xyz',
  token: T.MAV,
  github: { orgs: ['maverickprotocol'], repos: [] },
  social: { discord: 'maverick', reddit: 'maverick' },
};
