/**
 * The language model's one entry point: a message's text in, what the community computation needs out (its
 * sentiment, topic, spam signals, language and content hash). Pure; the lexicon is data passed in
 * (`lexicon-file.ts` reads it). docs/methodology/community-social.md describes the model and its measured accuracy.
 */
import { CRYPTO_LEXICON_VERSION } from './crypto-lexicon.js';
import { isEnglish } from './language.js';
import { isSpamBySignals, type SpamSignals, spamSignals } from './spam.js';
import { contentHash } from './text.js';
import { classifyTopic, type HighLevelCategory, TAXONOMY_VERSION } from './topics.js';
import { polarityScores, type SentimentLabel, type SentimentLexicon, sentimentLabel } from './vader.js';

/** The model's version: its rules and the versions of its lexicon and taxonomy. Published beside its figures. */
export const MODEL_VERSION = `1.0.0 (vader-3.3.2 rules, crypto lexicon ${CRYPTO_LEXICON_VERSION}, taxonomy ${TAXONOMY_VERSION})`;

export interface MessageAnalysis {
  /** VADER's compound score in [−1, 1], 4 decimals. */
  readonly compound: number;
  readonly sentiment: SentimentLabel;
  readonly topic: { readonly mid: string; readonly high: HighLevelCategory };
  readonly spamSignals: SpamSignals;
  /** Any per-message spam signal (duplicates across authors are judged over a day: `duplicateSpam`). */
  readonly spam: boolean;
  readonly english: boolean;
  /** Hash of the normalised content for duplicate detection; null for messages too short to judge. */
  readonly contentHash: string | null;
}

export function analyzeMessage(text: string, lexicon: SentimentLexicon): MessageAnalysis {
  const { compound } = polarityScores(text, lexicon);
  const topic = classifyTopic(text);
  const signals = spamSignals(text);
  return {
    compound,
    sentiment: sentimentLabel(compound),
    topic: { mid: topic.mid, high: topic.high },
    spamSignals: signals,
    spam: isSpamBySignals(signals),
    english: isEnglish(text),
    contentHash: contentHash(text),
  };
}
