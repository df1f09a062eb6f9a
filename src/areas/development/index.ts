import type { AreaModule } from '../types.js';
import { developmentPaths } from './routes.js';

export const developmentArea: AreaModule = {
  id: 'development',
  title: 'Development',
  paths: developmentPaths,
  jobs: () => [],
  computations: [],
};
