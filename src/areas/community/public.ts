/**
 * The community area's public face: what other areas may read of it. Its facts' types, the social score of a
 * day (docs/methodology/community-social.md), the language model's entry point, and the computation's name;
 * nothing else of the area is imported from outside it (the layering test checks).
 */
export type { ChannelSource, CommunityChannel, SocialMessageFact, SocialSubjectFacts } from './facts.js';
export { COMMUNITY_COMPUTATION } from './jobs.js';
export { analyzeMessage, type MessageAnalysis, MODEL_VERSION } from './model/analyze.js';
export { CommunityRepository } from './repo.js';
export type { ChannelListingEntry, SocialDayRecord } from './schema.js';
export { SOCIAL_METHODOLOGY, type SocialWindow, socialScoreAt } from './score.js';
export type { CommunityTables } from './tables.js';
