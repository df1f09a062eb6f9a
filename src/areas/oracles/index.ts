import { defineArea } from '../kit/module.js';
import { ORACLE_COMPUTATION, oraclesJobs } from './jobs.js';
import { oraclesPaths } from './routes.js';
import { ORACLE_MIGRATIONS } from './tables.js';

export const oraclesArea = defineArea({
  id: 'oracles',
  title: 'Oracles',
  paths: oraclesPaths,
  dependsOn: ['dex'],
  migrations: ORACLE_MIGRATIONS,
  jobs: oraclesJobs,
  computations: [ORACLE_COMPUTATION],
});
