/**
 * The topic taxonomy: mid-level topics under the legacy API's 9 high-level categories, each with weighted keywords
 * and phrases (the classifier is `topics.ts`). The topics' keywords are data, in three files in list order.
 *
 * Weights: 3 for the words that name an attack or a fraud (scam, phishing, drainer, hacked, exploited…), 2 for a
 * phrase or a word that names its topic unambiguously ("phishing", "quorum", "health factor"),
 * 1 for a word typical of the topic, 0.5 for a word that leans towards it but appears elsewhere ("price", "token").
 * Ties go to the topic listed first: the order puts those whose misreading costs most first (scams and hacks before
 * everything else).
 *
 * Versioned (`TAXONOMY_VERSION`): a change of topics, keywords, weights or order changes published topic figures.
 */
import { ANALYTICS_TRADING_COMMUNITY_TOPICS } from './topics-analytics-trading-community.js';
import { SECURITY_GOVERNANCE_DEFI_TOPICS } from './topics-security-governance-defi.js';
import { SUPPORT_MARKET_TOPICS } from './topics-support-market.js';

export const TAXONOMY_VERSION = '1.0.0';

export const HIGH_LEVEL_CATEGORIES = [
  'Scams and Security',
  'Governance and Voting',
  'DeFi and Yield Farming',
  'Technical Discussions and Support',
  'Price and Market Discussions',
  'Data and Analytics',
  'Trading and Tokens',
  'Community and Communication',
  'Other',
] as const;

export type HighLevelCategory = (typeof HIGH_LEVEL_CATEGORIES)[number];

export interface MidLevelTopic {
  readonly name: string;
  readonly high: HighLevelCategory;
  /** Keyword or phrase (single spaces) → weight. */
  readonly keywords: Readonly<Record<string, number>>;
}

/** The topic of a message with no keyword, and its category. */
export const OTHER_TOPIC = 'Other';

/** Every mid-level topic, in the order ties are broken by. */
export const TAXONOMY: readonly MidLevelTopic[] = [
  ...SECURITY_GOVERNANCE_DEFI_TOPICS,
  ...SUPPORT_MARKET_TOPICS,
  ...ANALYTICS_TRADING_COMMUNITY_TOPICS,
];
