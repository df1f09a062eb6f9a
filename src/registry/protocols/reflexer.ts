import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

/** Reflexer, issuer of RAI; FLX is its governance token. */
export const reflexer: ProtocolEntry = {
  id: 'reflexer',
  name: 'Reflexer Finance',
  website: 'https://reflexer.finance',
  token: T.FLX,
  github: { orgs: ['reflexer-labs'], repos: [] },
  social: { discord: 'reflexer', reddit: 'reflexer' },
};
