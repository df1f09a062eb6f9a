import { defineArea } from '../kit/module.js';
import { dydxPart } from './dydx/index.js';
import { gmxPart } from './gmx/index.js';
import { derivativesPaths } from './routes.js';
import { synthetixPart } from './synthetix/index.js';

/**
 * The derivatives area, one part per venue design (`gmx/`: GMX v2 from its own contracts; `dydx/`: dYdX v4 from its
 * indexer and its chain's bank module; `synthetix/`: Synthetix's exchange from its info API).
 */
export const derivativesArea = defineArea({
  id: 'derivatives',
  title: 'Derivatives',
  paths: derivativesPaths,
  dependsOn: [],
  parts: [gmxPart, dydxPart, synthetixPart],
});
