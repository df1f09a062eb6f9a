/**
 * The DEX area's public face: what other areas may read of it. Its pools, tokens, snapshots, swaps and syncs as
 * facts, its hourly USD prices (docs/methodology/prices.md) and a pool's state at an instant (`poolStateAt`); nothing else of the area
 * is imported from outside it (the layering test checks).
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
export { DexRepository, dexPriceBlocks } from './repo.js';
export { DEX_METHODOLOGY, scorePoolAt } from './score.js';
export type { DexTables } from './tables.js';
export { type DexTarget, dexTargets, type PriceAnchor } from './targets.js';
