import { definePart } from '../../kit/module.js';
import { SYNTHETIX_COMPUTATION, synthetixJobs } from './jobs.js';
import { SYNTHETIX_MIGRATIONS } from './tables.js';

/**
 * The derivatives area's Synthetix part: Synthetix's perpetuals exchange read through its public info API (markets,
 * prices, open interest, hourly candles and funding), for every venue of design `synthetix-exchange` the registry
 * names when the Synthetix source is configured (or the sandbox's stand-in serves it).
 */
export const synthetixPart = definePart({
  id: 'synthetix',
  migrations: SYNTHETIX_MIGRATIONS,
  jobs: synthetixJobs,
  computations: [SYNTHETIX_COMPUTATION],
});
