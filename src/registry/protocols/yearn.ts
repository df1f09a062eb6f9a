import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const yearn: ProtocolEntry = {
  id: 'yearn',
  name: 'Yearn',
  website: 'https://yearn.fi',
  token: T.YFI,
  github: { orgs: ['yearn'], repos: [] },
  social: { discord: 'yearn', reddit: 'yearn' },
};
