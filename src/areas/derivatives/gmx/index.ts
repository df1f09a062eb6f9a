import { definePart } from '../../kit/module.js';
import { GMX_COMPUTATION, gmxJobs } from './jobs.js';
import { GMX_MIGRATIONS } from './tables.js';

/**
 * The derivatives area's GMX part: GMX v2 read from its own contracts (the EventEmitter's logs decoded by key name,
 * the DataStore's keys at a block), for every venue of design `gmx-v2` the registry and the address book name.
 */
export const gmxPart = definePart({
  id: 'gmx',
  migrations: GMX_MIGRATIONS,
  jobs: gmxJobs,
  computations: [GMX_COMPUTATION],
});
