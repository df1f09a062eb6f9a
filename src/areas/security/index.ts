import type { AreaModule } from '../types.js';
import { securityPaths } from './routes.js';

export const securityArea: AreaModule = {
  id: 'security',
  title: 'Security',
  paths: securityPaths,
  jobs: () => [],
  computations: [],
};
