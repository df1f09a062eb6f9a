import type { AreaModule } from '../types.js';
import { ORACLE_COMPUTATION, oraclesJobs } from './jobs.js';
import { oraclesPaths } from './routes.js';

export const oraclesArea: AreaModule = {
  id: 'oracles',
  title: 'Oracles',
  paths: oraclesPaths,
  jobs: oraclesJobs,
  computations: [ORACLE_COMPUTATION],
};
