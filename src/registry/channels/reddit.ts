import type { ChannelEntry } from '../types.js';

export const reddit: ChannelEntry = { id: 'reddit', name: 'Reddit' };
