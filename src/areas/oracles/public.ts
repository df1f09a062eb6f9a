/**
 * The oracle area's public face: what other areas may read of it. Its feeds (the registry's, resolved to their
 * aggregators), their rounds as facts, the USD feed answers the price policy takes (`feedAnswers`) and the
 * computation's name; nothing else of the area is imported from outside it (the layering test checks).
 */
export type { OracleFeedState, OracleRoundFact } from './facts.js';
export { ORACLE_COMPUTATION } from './jobs.js';
export { feedAnswers, OracleRepository } from './repo.js';
export type { OracleTables } from './tables.js';
export { type OracleFeedTarget, oracleTargets } from './targets.js';
