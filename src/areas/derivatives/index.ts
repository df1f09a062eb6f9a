import type { AreaModule } from '../types.js';
import { derivativesPaths } from './routes.js';

export const derivativesArea: AreaModule = {
  id: 'derivatives',
  title: 'Derivatives',
  paths: derivativesPaths,
  jobs: () => [],
  computations: [],
};
