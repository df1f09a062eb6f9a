/**
 * The social score of a protocol's channel (Discord guild or subreddit) for a day, `community.social@1.2.0`
 * (docs/methodology/community-social.md). Pure: a day's aggregates and the instant in, a score record out.
 *
 * Four components, combined by a weighted geometric mean (`core/score.ts`), so that a channel overrun by spam and
 * scam talk, or one nobody writes in, is not bought back by the others:
 * - activity: messages by people (spam excluded) on a log scale;
 * - breadth: distinct people writing them, on a log scale;
 * - sentiment: the mean VADER compound of the scored messages, shrunk toward neutral by `SENTIMENT_PRIOR` neutral
 *   messages, mapped from [−1, 1] to [0, 1];
 * - safety: 1 less the share of spam and scam/hack talk, shrunk toward none by the same prior, reaching 0 at
 *   `UNSAFE_SHARE_AT_ZERO`.
 * The window is the 24 hours ending at the instant scored: the UTC day for past days, the last 24 hours for the
 * running day (so the current score is not low only because the day has just begun).
 */
import type { GapReason } from '../../core/gaps.js';
import {
  type ComponentInput,
  combineScore,
  logScale,
  methodologyId,
  roundTo,
  type ScoreRecord,
  scoreGapReason,
} from '../../core/score.js';
import { DAY, isoSeconds, utcDate } from '../../core/time.js';

export const SOCIAL_METHODOLOGY = methodologyId('community', 'social', '1.2.0');

/**
 * Activity: human, non-spam messages in the 24 hours on a log scale, 0 at 1 (a message a day: a dead channel) and
 * 1 at 2,000 (the busiest protocol Discords and subreddits: a few thousand messages and comments a day). Each
 * tenfold step is worth 0.30: 20 a day read 0.39, 200 a day 0.70.
 */
export const ACTIVITY_ANCHORS = { zero_at: 1, one_at: 2000 } as const;
/**
 * Breadth: distinct authors of those messages on a log scale, 0 at 1 (one person talking to themselves) and 1 at
 * 300 (a large community's daily writers). 10 people read 0.40, 50 0.69.
 */
export const BREADTH_ANCHORS = { zero_at: 1, one_at: 300 } as const;
/**
 * Sentiment and safety are shrunk toward their neutral value by this many imaginary messages: a day of 5 messages
 * says little about a community's mood, one of 500 a lot. 20 is the size of a quiet channel's day: below it the
 * prior dominates, above it the messages do. (The mean of n messages m weighs n / (n + 20).)
 */
export const SENTIMENT_PRIOR = 20;
/**
 * Safety reaches 0 when spam and scam/hack talk make up a quarter of the (shrunk) messages: on an ordinary day a
 * few percent of a channel's messages are spam or security talk; an exploit day or a raid brings a quarter or more.
 */
export const UNSAFE_SHARE_AT_ZERO = 0.25;

/**
 * Nominal weights (sum 1):
 * - sentiment 0.30, the heaviest: how people feel about the protocol is what a social score is read for;
 * - activity 0.25 and breadth 0.25: that people talk, and that many do (a handful of loud accounts is not a
 *   community);
 * - safety 0.20: spam and scam talk are rarer than the others but, through the geometric mean, a day where they
 *   dominate is capped low whatever else it shows.
 */
export const WEIGHTS = { activity: 0.25, breadth: 0.25, sentiment: 0.3, safety: 0.2 } as const;

/** A channel's aggregates over the 24 hours a score describes (built by the compute from the stored messages). */
export interface SocialWindow {
  /** Whether every message of the window could be read; when not, `gapReason` says why and the score is null. */
  readonly complete: boolean;
  readonly gapReason?: GapReason;
  /** Whether message content was visible (Discord without the message-content intent: not). */
  readonly contentVisible: boolean;
  /** Messages that count (people's, after bots, webhooks, system messages and removed items), spam included. */
  readonly counted: number;
  /** Spam among them (invite links, DM offers, mass mentions, duplicates across authors). */
  readonly spam: number;
  /** Distinct authors of the counted messages that are not spam. */
  readonly authors: number;
  /** Messages scored for sentiment and topic: counted, not spam, English, with content. */
  readonly scored: number;
  /** Σ VADER compound over the scored messages. */
  readonly compoundSum: number;
  /** Scored messages on the `Scams and Security` topics (scam warnings, hacks and exploits). */
  readonly scamTalk: number;
}

export interface SocialScoreRecord extends ScoreRecord {
  readonly date: string;
  readonly partial: boolean;
  readonly gap_reason: string | null;
  /** The messages the score is of: the 24 hours ending at `timestamp`, both ends included (ISO seconds). */
  readonly score_window: { readonly from: string; readonly to: string };
}

/** The score's window: the 24 hours ending at `t` (the UTC day for a past day's last second), both ends included. */
export const scoreWindow = (t: number) => ({ from: isoSeconds(t - DAY + 1), to: isoSeconds(t) });

/** The sentiment component: the shrunk mean compound mapped from [−1, 1] to [0, 1]. */
export function shrunkSentiment(compoundSum: number, scored: number): number {
  return compoundSum / (scored + SENTIMENT_PRIOR);
}

function components(w: SocialWindow): ComponentInput[] {
  const humans = w.counted - w.spam;
  const shrunk = shrunkSentiment(w.compoundSum, w.scored);
  const unsafe = (w.spam + w.scamTalk) / (w.counted + SENTIMENT_PRIOR);
  const noContent = { gapReason: 'no_data' as const };
  return [
    {
      name: 'activity',
      value: logScale(humans, ACTIVITY_ANCHORS.zero_at, ACTIVITY_ANCHORS.one_at),
      weight: WEIGHTS.activity,
      inputs: {
        messages: humans,
        spam_excluded: w.spam,
        zero_at: ACTIVITY_ANCHORS.zero_at,
        one_at: ACTIVITY_ANCHORS.one_at,
        formula: 'log(messages / zero_at) / log(one_at / zero_at), clamped to [0, 1]',
      },
    },
    {
      name: 'breadth',
      value: logScale(w.authors, BREADTH_ANCHORS.zero_at, BREADTH_ANCHORS.one_at),
      weight: WEIGHTS.breadth,
      inputs: {
        authors: w.authors,
        zero_at: BREADTH_ANCHORS.zero_at,
        one_at: BREADTH_ANCHORS.one_at,
        formula: 'log(authors / zero_at) / log(one_at / zero_at), clamped to [0, 1]',
      },
    },
    {
      name: 'sentiment',
      value: w.contentVisible ? (shrunk + 1) / 2 : null,
      weight: WEIGHTS.sentiment,
      ...(w.contentVisible ? {} : noContent),
      inputs: {
        scored_messages: w.scored,
        mean_compound: w.scored > 0 ? roundTo(w.compoundSum / w.scored, 4) : null,
        shrunk_compound: roundTo(shrunk, 4),
        prior_messages: SENTIMENT_PRIOR,
        content_visible: w.contentVisible,
        formula: '(Σ compound / (scored_messages + prior_messages) + 1) / 2',
      },
    },
    {
      name: 'safety',
      value: w.contentVisible ? 1 - Math.min(1, unsafe / UNSAFE_SHARE_AT_ZERO) : null,
      weight: WEIGHTS.safety,
      ...(w.contentVisible ? {} : noContent),
      inputs: {
        messages: w.counted,
        spam: w.spam,
        scam_talk: w.scamTalk,
        unsafe_share: roundTo(unsafe, 4),
        prior_messages: SENTIMENT_PRIOR,
        zero_at_share: UNSAFE_SHARE_AT_ZERO,
        content_visible: w.contentVisible,
        formula: '1 − min(1, ((spam + scam_talk) / (messages + prior_messages)) / zero_at_share)',
      },
    },
  ];
}

/**
 * The score record of the window ending at `t` (Unix seconds), for the UTC day of `t`. A window that could not be
 * read completely publishes no score (null, with its gap reason), never a score of what happened to be read.
 */
export function socialScoreAt(w: SocialWindow, t: number, partial: boolean): SocialScoreRecord {
  const options = { methodology: SOCIAL_METHODOLOGY, at: t, aggregation: 'weighted-geometric-mean' } as const;
  // The record names its window: the running day's score is of the last 24 hours, not of its UTC day's counts.
  const base = { date: utcDate(t), partial, score_window: scoreWindow(t) };
  if (!w.complete) {
    return { ...combineScore([], options), ...base, gap_reason: w.gapReason ?? 'no_data' };
  }
  const record = combineScore(components(w), options);
  return { ...record, ...base, gap_reason: scoreGapReason(record, 'no_data') };
}
