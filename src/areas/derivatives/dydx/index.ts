import { definePart } from '../../kit/module.js';
import { DYDX_COMPUTATION, dydxJobs } from './jobs.js';
import { DYDX_MIGRATIONS } from './tables.js';

/**
 * The derivatives area's dYdX part: dYdX v4 read from its indexer's REST API (markets, daily candles, hourly
 * funding, taker fills) and its chain's bank module (the subaccounts' and the insurance fund's USDC), for every venue
 * of design `dydx-v4` the registry names.
 */
export const dydxPart = definePart({
  id: 'dydx',
  migrations: DYDX_MIGRATIONS,
  jobs: dydxJobs,
  computations: [DYDX_COMPUTATION],
});
