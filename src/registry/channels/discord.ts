import type { ChannelEntry } from '../types.js';

export const discord: ChannelEntry = { id: 'discord', name: 'Discord' };
