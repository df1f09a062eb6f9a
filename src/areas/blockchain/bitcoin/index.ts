import { definePart } from '../../kit/module.js';
import { BITCOIN_COMPUTATION, bitcoinJobs } from './jobs.js';
import { BITCOIN_MIGRATIONS } from './tables.js';

/** The blockchain area's Bitcoin part: blocks and mempool samples from Bitcoin Core's JSON-RPC. */
export const bitcoinPart = definePart({
  id: 'bitcoin',
  migrations: BITCOIN_MIGRATIONS,
  jobs: bitcoinJobs,
  computations: [BITCOIN_COMPUTATION],
});
