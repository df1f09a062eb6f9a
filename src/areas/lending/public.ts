/**
 * The lending area's public face: its markets (targets), their state snapshots as facts, and the computation's
 * name. Nothing else of the area is imported from outside it (the layering test checks).
 */
export type { MarketSnapshot, PositionSnapshot, ReserveSnapshot } from './facts.js';
export { LENDING_COMPUTATION } from './jobs.js';
export { feedCandidate, marketOracleCandidate } from './prices.js';
export { LendingRepository } from './repo.js';
export type { LendingTables } from './tables.js';
export { type LendingAssetTarget, type LendingMarketTarget, lendingTargets } from './targets.js';
