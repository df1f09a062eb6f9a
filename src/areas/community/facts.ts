/**
 * The community area's facts, as the pure computation sees them: per message what the counting rules and the model
 * need (no text), per tracked channel where it is read and how completely. Pure.
 */
import type { GapReason } from '../../core/gaps.js';
import { analyzeMessage } from './model/analyze.js';
import type { SentimentLexicon } from './model/vader.js';

export const COMMUNITY_CHANNELS = ['discord', 'reddit'] as const;
export type CommunityChannel = (typeof COMMUNITY_CHANNELS)[number];

/**
 * Why a message read does not count (issue 16's counting rules):
 * - Discord: `bot` (author is a bot), `system` (system user or message), `webhook` (has a `webhook_id`),
 *   `message_type` (not 0 default or 19 reply: joins, pins, boosts…);
 * - Reddit: `automoderator`, `deleted` (author `[deleted]`), `removed` (removed by moderators, Reddit or the
 *   author). Moderator-distinguished and stickied items count, and are also counted apart as official posts
 *   (`official`).
 */
export const EXCLUSIONS = ['bot', 'system', 'webhook', 'message_type', 'automoderator', 'deleted', 'removed'] as const;
export type Exclusion = (typeof EXCLUSIONS)[number];

/** Spam signal bits stored per message. */
export const SPAM_INVITE = 1;
export const SPAM_DM_OFFER = 2;
export const SPAM_MASS_MENTION = 4;

export interface SocialMessageFact {
  /** Discord snowflake or Reddit fullname. */
  readonly id: string;
  /** Unix seconds (Discord: the snowflake's time; Reddit: `created_utc`). */
  readonly at: number;
  /** The author's id, salted-hashed. */
  readonly author: string;
  readonly excluded: Exclusion | null;
  /** Reddit: moderator-distinguished or stickied. */
  readonly official: boolean;
  /** Whether the text was visible (Discord without the message-content intent: not). */
  readonly hasContent: boolean;
  /** Model outputs: null without content or for excluded messages. */
  readonly english: boolean | null;
  readonly compound: number | null;
  readonly topicMid: string | null;
  readonly topicHigh: string | null;
  /** `SPAM_*` bits. */
  readonly spamSignals: number;
  /** Normalised content hash for duplicate detection (null: too short, no content, excluded). */
  readonly contentHash: string | null;
}

/** A message as a source reads it, before it becomes a fact (its text is dropped there). */
export interface ReadMessage {
  readonly id: string;
  readonly at: number;
  readonly author: string;
  readonly excluded: Exclusion | null;
  readonly official?: boolean;
  /** Null when the content is not visible. */
  readonly text: string | null;
}

/** A message read → its fact: the model runs here, and nothing of the text survives but its outputs. */
export function messageFact(m: ReadMessage, lexicon: SentimentLexicon): SocialMessageFact {
  const base = { id: m.id, at: m.at, author: m.author, excluded: m.excluded, official: m.official === true };
  if (m.excluded !== null || m.text === null) {
    return {
      ...base,
      hasContent: m.text !== null,
      english: null,
      compound: null,
      topicMid: null,
      topicHigh: null,
      spamSignals: 0,
      contentHash: null,
    };
  }
  const a = analyzeMessage(m.text, lexicon);
  const s = a.spamSignals;
  return {
    ...base,
    hasContent: true,
    english: a.english,
    compound: a.compound,
    topicMid: a.topic.mid,
    topicHigh: a.topic.high,
    spamSignals:
      (s.inviteLink ? SPAM_INVITE : 0) | (s.dmOffer ? SPAM_DM_OFFER : 0) | (s.massMention ? SPAM_MASS_MENTION : 0),
    contentHash: a.contentHash,
  };
}

/** Where a protocol's channel is read (published in the listing's `source`). */
export interface ChannelSource {
  readonly guild_id?: string;
  /** Discord channel ids read, threads included. */
  readonly channels?: readonly string[];
  readonly subreddit?: string;
}

/** One tracked protocol on one channel, with what its reading covers. */
export interface SocialSubjectFacts {
  readonly channel: CommunityChannel;
  readonly protocolId: string;
  readonly name: string;
  readonly source: ChannelSource;
  /** Whether the channel can be read at all (bot invited, subreddit public). */
  readonly readable: boolean;
  /** Whether message content is visible (null: not known yet). */
  readonly contentVisible: boolean | null;
  /** Why it cannot be read (`private`, `banned`, `missing_access`…), when not readable. */
  readonly unreadableReason: string | null;
  /** Every message from this instant on, up to `coveredTo`, has been read (null: nothing read yet). */
  readonly coveredFrom: number | null;
  readonly coveredTo: number | null;
  /**
   * Spans inside the covered range that could not be read, Unix seconds, inclusive: Reddit's listing cap (a listing
   * that ends before the pass reached its stop), the only source of such spans.
   */
  readonly missing: readonly { readonly from: number; readonly to: number }[];
  /** The last read failed: days it leaves uncovered carry `source_error` rather than `no_data`. */
  readonly lastError: string | null;
  readonly messages: readonly SocialMessageFact[];
}

/**
 * Why a span [from, to] is not completely read, or null when it is: outside the coverage `source_error` (the last
 * read failed, or the channel is unreadable) or `no_data`; inside it, a span the listing cap left unread
 * `listing_cap`.
 */
export function spanGap(s: SocialSubjectFacts, from: number, to: number): GapReason | null {
  const failed: GapReason = s.lastError !== null || !s.readable ? 'source_error' : 'no_data';
  if (s.coveredFrom === null || s.coveredTo === null) return failed;
  if (s.coveredFrom > from || s.coveredTo < to) return failed;
  if (unreadSpans(s, from, to).length) return 'listing_cap';
  return null;
}

/** The spans of [from, to] the listing cap left unread, clipped to it, oldest first, overlapping ones merged. */
export function unreadSpans(
  s: Pick<SocialSubjectFacts, 'missing'>,
  from: number,
  to: number,
): { from: number; to: number }[] {
  const clipped = s.missing
    .filter((m) => m.from <= to && m.to >= from)
    .map((m) => ({ from: Math.max(m.from, from), to: Math.min(m.to, to) }))
    .sort((a, b) => a.from - b.from);
  const out: { from: number; to: number }[] = [];
  for (const m of clipped) {
    const last = out.at(-1);
    if (last && m.from <= last.to + 1) last.to = Math.max(last.to, m.to);
    else out.push({ ...m });
  }
  return out;
}
