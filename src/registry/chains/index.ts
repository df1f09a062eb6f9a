import type { ChainEntry } from '../types.js';
import { arbitrum } from './arbitrum.js';
import { bitcoin } from './bitcoin.js';
import { ethereum } from './ethereum.js';
import { near } from './near.js';
import { optimism } from './optimism.js';

/** Every supported chain, sorted by id. */
export const CHAINS: readonly ChainEntry[] = [arbitrum, bitcoin, ethereum, near, optimism];
