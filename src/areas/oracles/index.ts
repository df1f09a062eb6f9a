import type { AreaModule } from '../types.js';
import { oraclesPaths } from './routes.js';

export const oraclesArea: AreaModule = {
  id: 'oracles',
  title: 'Oracles',
  paths: oraclesPaths,
  jobs: () => [],
  computations: [],
};
