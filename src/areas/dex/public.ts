/**
 * The DEX area's public face: what other areas may read of it. Its pools, tokens, snapshots, swaps and syncs as
 * facts, read through its read model (`DexReadModel`: a facts window, hourly USD prices, a USD price at an instant;
 * its repository and writers stay its own), and a pool's state at an instant (`poolStateAt`), a swap's USD value (`swapUsdValue`, the area's volume convention); nothing else of the
 * area is imported from outside it (the layering test checks).
 */
export type {
  PoolFact,
  PoolSnapshotFact,
  SwapFact,
  SyncFact,
  TokenFact,
  TokenPriceFact,
} from './facts.js';
export { DEX_COMPUTATION } from './jobs.js';
export { type PoolStateAt, poolStateAt } from './pool-state.js';
export { type DexFactsWindow, DexReadModel, type DexWindowOptions } from './read-model.js';
export { dexPriceBlocks } from './repo.js';
export { DEX_METHODOLOGY, scorePoolAt } from './score.js';
export { type HourlyPriceLookup, swapUsdValue } from './swap-value.js';
export type { DexTables } from './tables.js';
export { type DexTarget, dexTargets, type PriceAnchor } from './targets.js';
