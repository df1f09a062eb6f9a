/**
 * Loads what a token's on-chain DEX volume is counted from (dex-volume.ts): the DEX area's facts of a chain through
 * its public read model (`DexReadModel` of dex/public.ts; its tables stay its own) over the week of records and the
 * 24 hours before the oldest: the tracked pools, their tokens, the swaps, the hourly USD prices, the newest block its
 * facts reach.
 */
import type { Kysely } from 'kysely';
import { DAY, HOUR } from '../../core/time.js';
import type { Database } from '../../store/schema.js';
import { DexReadModel } from '../dex/public.js';
import type { DexVolumeFacts } from './dex-volume.js';

/** The days of a token's records (tokenDays: 7) plus the 24 hours before the oldest one's instant. */
const WINDOW = 8 * DAY;

/** The chain's DEX facts for records up to `until` (the newest snapshot's time), one read per chain. */
export async function loadDexVolumeFacts(db: Kysely<Database>, chain: string, until: number): Promise<DexVolumeFacts> {
  const dex = new DexReadModel(db);
  const from = until - WINDOW;
  const [pools, tokens, swaps, prices, head] = await Promise.all([
    dex.pools(chain),
    dex.tokens(chain),
    dex.swaps(chain, from, until),
    dex.prices(chain, Math.floor(from / HOUR) * HOUR, until),
    dex.head(chain),
  ]);
  return { pools, tokens, swaps, prices, head };
}
