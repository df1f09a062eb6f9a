import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const harvest: ProtocolEntry = {
  id: 'harvest',
  name: 'Harvest',
  website: 'https://harvest.finance',
  token: T.FARM,
  github: { orgs: ['harvest-finance'], repos: [] },
  social: { discord: 'harvest', reddit: 'harvest' },
};
