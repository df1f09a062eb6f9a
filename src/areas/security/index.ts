import { defineArea } from '../kit/module.js';
import { securityPaths } from './routes.js';

export const securityArea = defineArea({
  id: 'security',
  title: 'Security',
  paths: securityPaths,
  dependsOn: [],
  jobs: () => [],
  computations: [],
});
