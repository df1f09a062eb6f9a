import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const instadapp: ProtocolEntry = {
  id: 'instadapp',
  name: 'Instadapp',
  website: 'https://instadapp.io',
  token: T.INST,
  github: { orgs: ['Instadapp'], repos: [] },
  social: { discord: 'instadapp', reddit: 'instadapp' },
};
