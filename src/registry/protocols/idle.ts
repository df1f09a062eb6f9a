import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const idle: ProtocolEntry = {
  id: 'idle',
  name: 'Idle',
  website: 'https://idle.finance',
  token: T.IDLE,
  github: { orgs: ['Idle-Labs'], repos: [] },
  social: { discord: 'idle', reddit: 'idle' },
};
