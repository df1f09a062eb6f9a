/**
 * The community computation: each tracked protocol's channel facts → the channel listings and, per protocol and
 * channel, 7 daily records (the legacy figures, the inputs behind them and the day's social score). Pure.
 * docs/methodology/community-social.md defines every figure.
 */
import { roundTo } from '../../core/score.js';
import { DAY, type DayWindow, dailyHistoryInstants, inDayWindow, isoSeconds, utcDayWindow } from '../../core/time.js';
import {
  type CommunityChannel,
  type Exclusion,
  type SocialMessageFact,
  type SocialSubjectFacts,
  SPAM_DM_OFFER,
  SPAM_INVITE,
  SPAM_MASS_MENTION,
  spanGap,
  unreadSpans,
} from './facts.js';
import { MODEL_VERSION } from './model/analyze.js';
import { duplicateSpam } from './model/spam.js';
import { HIGH_LEVEL_CATEGORIES } from './model/topics.js';
import { sentimentLabel } from './model/vader.js';
import type { ChannelListingEntry, MidTopicSentiment, SocialDayRecord } from './schema.js';
import { type SocialWindow, socialScoreAt } from './score.js';

export const HISTORY_DAYS = 7;
/** How far back the computation reads: 7 days, plus the running day's 24-hour score window and an hour of duplicates. */
export const LOOKBACK_SECONDS = HISTORY_DAYS * DAY + DAY + 3600;

export interface CommunityInput {
  /** The instant computed: the oldest `coveredTo` of the readable channels (what every document has seen). */
  readonly asOf: number;
  readonly subjects: readonly SocialSubjectFacts[];
}

export interface CommunityOutput {
  readonly listings: ReadonlyMap<CommunityChannel, ChannelListingEntry[]>;
  /** `<channel>:<protocol>` → 7 records, newest first. */
  readonly histories: ReadonlyMap<string, SocialDayRecord[]>;
}

/** A message, its fact, and whether the day's rules flag it as spam. */
interface Classified {
  readonly fact: SocialMessageFact;
  readonly duplicate: boolean;
  readonly spam: boolean;
}

function classify(messages: readonly SocialMessageFact[]): Classified[] {
  const counted = messages.filter((m) => m.excluded === null);
  const duplicates = duplicateSpam(counted.map((m) => ({ contentHash: m.contentHash, author: m.author, at: m.at })));
  return counted.map((fact, i) => {
    const duplicate = duplicates.has(i);
    return { fact, duplicate, spam: duplicate || fact.spamSignals !== 0 };
  });
}

const isScored = (c: Classified) => !c.spam && c.fact.hasContent && c.fact.english === true;

function windowOf(s: SocialSubjectFacts, all: readonly Classified[], from: number, to: number): SocialWindow {
  const gap = spanGap(s, from, to);
  const inside = all.filter((c) => c.fact.at >= from && c.fact.at <= to);
  const authors = new Set<string>();
  let spam = 0;
  let scored = 0;
  let compoundSum = 0;
  let scamTalk = 0;
  for (const c of inside) {
    if (c.spam) {
      spam++;
      continue;
    }
    authors.add(c.fact.author);
    if (!isScored(c)) continue;
    scored++;
    compoundSum += c.fact.compound ?? 0;
    if (c.fact.topicHigh === 'Scams and Security') scamTalk++;
  }
  return {
    complete: gap === null,
    ...(gap === null ? {} : { gapReason: gap }),
    contentVisible: s.contentVisible !== false,
    counted: inside.length,
    spam,
    authors: authors.size,
    scored,
    compoundSum,
    scamTalk,
  };
}

const EXCLUDED_KEYS: Record<Exclusion, keyof SocialDayRecord['inputs']['excluded']> = {
  bot: 'bots',
  system: 'system',
  message_type: 'system',
  webhook: 'webhooks',
  automoderator: 'automoderator',
  deleted: 'deleted',
  removed: 'removed',
};

function dayRecord(
  s: SocialSubjectFacts,
  all: readonly Classified[],
  window: DayWindow,
  partial: boolean,
): SocialDayRecord {
  const { from: dayStart, to: at } = window;
  const seen = s.messages.filter((m) => inDayWindow(m.at, window));
  const excluded = { bots: 0, system: 0, webhooks: 0, automoderator: 0, deleted: 0, removed: 0 };
  let official = 0;
  for (const m of seen) {
    if (m.excluded === null) {
      if (m.official) official++;
      continue;
    }
    excluded[EXCLUDED_KEYS[m.excluded]]++;
  }
  const counted = all.filter((c) => inDayWindow(c.fact.at, window));
  const spam = { total: 0, invite_links: 0, dm_offers: 0, mass_mentions: 0, duplicates: 0 };
  const users = new Set<string>();
  let nonEnglish = 0;
  let noContent = 0;
  let compoundSum = 0;
  const highs = new Map<string, number>();
  const mids = new Map<string, MidTopicSentiment>();
  for (const c of counted) {
    users.add(c.fact.author);
    if (c.spam) {
      spam.total++;
      if (c.fact.spamSignals & SPAM_INVITE) spam.invite_links++;
      if (c.fact.spamSignals & SPAM_DM_OFFER) spam.dm_offers++;
      if (c.fact.spamSignals & SPAM_MASS_MENTION) spam.mass_mentions++;
      if (c.duplicate) spam.duplicates++;
      continue;
    }
    if (!c.fact.hasContent) {
      noContent++;
      continue;
    }
    if (c.fact.english !== true) {
      nonEnglish++;
      continue;
    }
    const compound = c.fact.compound ?? 0;
    compoundSum += compound;
    const high = c.fact.topicHigh ?? 'Other';
    const mid = c.fact.topicMid ?? 'Other';
    highs.set(high, (highs.get(high) ?? 0) + 1);
    const row = mids.get(mid) ?? {
      topic_name: mid,
      high_level_category: high,
      count: 0,
      positive_sentiment_count: 0,
      neutral_sentiment_count: 0,
      negative_sentiment_count: 0,
    };
    row.count++;
    row[`${sentimentLabel(compound)}_sentiment_count`]++;
    mids.set(mid, row);
  }
  const scored = counted.length - spam.total - noContent - nonEnglish;
  const order = (a: string, b: string) =>
    HIGH_LEVEL_CATEGORIES.indexOf(a as never) - HIGH_LEVEL_CATEGORIES.indexOf(b as never);
  const topicFrequency = [...highs.entries()]
    .sort((a, b) => b[1] - a[1] || order(a[0], b[0]))
    .map(([topic, frequency]) => ({ topic, frequency }));
  const distribution = [...mids.values()].sort(
    (a, b) => b.count - a.count || (a.topic_name < b.topic_name ? -1 : a.topic_name > b.topic_name ? 1 : 0),
  );
  const gapReasons: Record<string, string> = {};
  // Nothing of the day was read (a channel never read, or read only after it): its counts are unknown, not 0. A day
  // the listing cap left partly unread (`listing_cap`) is unknown too: what was read is its newest part only, so its
  // counts, sentiment and topics are null or empty with that reason, and `inputs` say what was read and what not.
  // Another day read in part publishes what was read, flagged `inputs.complete: false`, with no score.
  const gap = spanGap(s, dayStart, at);
  const unread = s.coveredFrom === null || s.coveredTo === null || s.coveredTo < dayStart || s.coveredFrom > at;
  const capped = gap === 'listing_cap';
  const unknown = unread || capped;
  if (unknown) {
    for (const field of ['daily_message_count', 'number_of_unique_users', 'official_posts'] as const) {
      gapReasons[field] = gap ?? 'no_data';
    }
  }
  if (capped) {
    for (const field of [
      'high_level_topic_frequency',
      'mid_level_topic_based_sentiment_distribution',
      'mid_level_topic_based_sentiment_distrubution',
    ] as const) {
      gapReasons[field] = gap;
    }
  }
  const average = scored > 0 && !capped ? roundTo(compoundSum / scored, 4) : null;
  if (average === null) gapReasons.average_sentiment_score = unknown ? (gap ?? 'no_data') : 'no_data';

  const score = socialScoreAt(windowOf(s, all, at - DAY + 1, at), at, partial);
  return {
    channel: s.channel,
    protocol: s.protocolId,
    daily_message_count: unknown ? null : counted.length,
    number_of_unique_users: unknown ? null : users.size,
    official_posts: unknown ? null : official,
    average_sentiment_score: average,
    high_level_topic_frequency: capped ? [] : topicFrequency,
    mid_level_topic_based_sentiment_distribution: capped ? [] : distribution,
    mid_level_topic_based_sentiment_distrubution: capped ? [] : distribution.map((d) => ({ ...d })),
    inputs: {
      complete: gap === null,
      unread: isoSpans(unreadSpans(s, dayStart, at)),
      messages_seen: seen.length,
      excluded,
      spam,
      non_english: nonEnglish,
      no_content: noContent,
      scored,
      model: MODEL_VERSION,
    },
    gap_reasons: gapReasons,
    ...score,
  };
}

const isoSpans = (spans: readonly { from: number; to: number }[]) =>
  spans.map((m) => ({ from: isoSeconds(m.from), to: isoSeconds(m.to) }));

/** The 7 records of one protocol's channel at `asOf`, newest first. */
export function socialHistory(s: SocialSubjectFacts, asOf: number): SocialDayRecord[] {
  const all = classify(s.messages);
  return dailyHistoryInstants(asOf, HISTORY_DAYS).map((end, k) => dayRecord(s, all, utcDayWindow(end), k === 0));
}

export function listingEntry(s: SocialSubjectFacts): ChannelListingEntry {
  return {
    name: s.name,
    protocol_id: s.protocolId,
    source: {
      ...(s.source.guild_id === undefined ? {} : { guild_id: s.source.guild_id }),
      ...(s.source.channels === undefined ? {} : { channels: [...s.source.channels] }),
      ...(s.source.subreddit === undefined ? {} : { subreddit: s.source.subreddit }),
    },
    coverage: {
      readable: s.readable,
      content_visible: s.contentVisible,
      reason: s.unreadableReason,
      covered_from: s.coveredFrom === null ? null : isoSeconds(s.coveredFrom),
      covered_to: s.coveredTo === null ? null : isoSeconds(s.coveredTo),
      unread: isoSpans(
        s.coveredFrom === null || s.coveredTo === null ? [] : unreadSpans(s, s.coveredFrom, s.coveredTo),
      ),
    },
  };
}

export function computeCommunity(input: CommunityInput): CommunityOutput {
  const listings = new Map<CommunityChannel, ChannelListingEntry[]>();
  const histories = new Map<string, SocialDayRecord[]>();
  const subjects = [...input.subjects].sort((a, b) =>
    a.protocolId < b.protocolId ? -1 : a.protocolId > b.protocolId ? 1 : 0,
  );
  for (const s of subjects) {
    const list = listings.get(s.channel) ?? [];
    list.push(listingEntry(s));
    listings.set(s.channel, list);
    histories.set(`${s.channel}:${s.protocolId}`, socialHistory(s, input.asOf));
  }
  return { listings, histories };
}
