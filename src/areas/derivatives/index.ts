import { defineArea } from '../kit/module.js';
import { derivativesPaths } from './routes.js';

export const derivativesArea = defineArea({
  id: 'derivatives',
  title: 'Derivatives',
  paths: derivativesPaths,
  dependsOn: [],
  jobs: () => [],
  computations: [],
});
