import type { ChannelEntry } from '../types.js';
import { discord } from './discord.js';
import { reddit } from './reddit.js';

/** Community channels, sorted by id. */
export const CHANNELS: readonly ChannelEntry[] = [discord, reddit];
