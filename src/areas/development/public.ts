/**
 * The development area's public face: what other areas may read of it. The repositories' facts (commits, issues,
 * pull requests, events, daily observations) as compute reads them, the development score of a set of
 * repositories at an instant (docs/methodology/development.md), and the computation's name; nothing else of the
 * area is imported from outside it (the layering test checks).
 */
export type {
  CommitFact,
  ContributorCount,
  EventFact,
  IssueFact,
  RepoDayFact,
  RepoFacts,
} from './facts.js';
export { DEVELOPMENT_COMPUTATION } from './jobs.js';
export { DevelopmentRepository } from './repo.js';
export type { DevelopmentScoreRecord } from './schema.js';
export { DEVELOPMENT_METHODOLOGY, developmentScoreAt } from './score.js';
export type { DevelopmentTables } from './tables.js';
