import { definePart } from '../../kit/module.js';
import { BLOCKCHAIN_COMPUTATION, blockchainJobs } from './jobs.js';
import { BLOCKCHAIN_MIGRATIONS } from './tables.js';

/**
 * The blockchain area's EVM part: Ethereum and the layer 2s from the EVM chains' nodes (whole blocks, receipts,
 * network samples) and the beacon API (validators); each chain's documents name their own chain in `meta.source`.
 */
export const evmPart = definePart({
  id: 'evm',
  migrations: BLOCKCHAIN_MIGRATIONS,
  jobs: blockchainJobs,
  computations: [BLOCKCHAIN_COMPUTATION],
});
