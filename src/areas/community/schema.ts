/**
 * Payload schemas of the community paths. `compute.ts` produces exactly these shapes; docs/methodology/
 * community-social.md defines every figure. The legacy API's fields keep their names (reference/legacy-api.md
 * §2.10), including the misspelt `mid_level_topic_based_sentiment_distrubution` that its clients read, emitted
 * beside the correct spelling with the same content.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Count, DailyScoreRecord, Iso, Nullable, ScoreHistory } from '../kit/schema.js';

/** A count, null when nothing of the day was read (with its reason in `gap_reasons`). */
const NullableCount = (description: string) => Nullable(Count(description));

/** A span of time whose messages could not be read, both ends included. */
export const UnreadSpan = Type.Object({
  from: Iso('First second not read'),
  to: Iso('Last second not read (the oldest item the listing reached)'),
});

export const ChannelListingEntry = Type.Object({
  name: Type.String({ description: "The protocol's name" }),
  protocol_id: Type.String({ description: 'Its identifier on the social paths' }),
  source: Type.Object(
    {
      guild_id: Type.Optional(Type.String({ description: 'Discord guild read' })),
      channels: Type.Optional(Type.Array(Type.String(), { description: 'Discord channel ids read, threads included' })),
      subreddit: Type.Optional(Type.String({ description: 'Subreddit read' })),
    },
    { description: 'Where the data comes from' },
  ),
  coverage: Type.Object({
    readable: Type.Boolean({ description: 'Whether the channel can be read' }),
    content_visible: Nullable(
      Type.Boolean({ description: 'Whether message content is visible (Discord: the message-content intent)' }),
    ),
    reason: Nullable(Type.String({ description: 'Why it cannot be read (private, banned, missing access…)' })),
    covered_from: Nullable(Iso('Every message from this instant on has been read')),
    covered_to: Nullable(Iso('… up to this instant')),
    unread: Type.Array(UnreadSpan, {
      description:
        "Spans inside the coverage that could not be read (Reddit's ~1,000-item listing cap): their days' figures are null with `listing_cap`",
    }),
  }),
});
export const ChannelListing = Type.Array(ChannelListingEntry);

export const TopicFrequency = Type.Object({
  topic: Type.String({ description: 'High-level category' }),
  frequency: Type.Integer({ minimum: 0, description: 'Scored messages on it' }),
});

export const MidTopicSentiment = Type.Object({
  topic_name: Type.String({ description: 'Mid-level topic' }),
  high_level_category: Type.String(),
  count: Type.Integer({ minimum: 0 }),
  positive_sentiment_count: Type.Integer({ minimum: 0 }),
  neutral_sentiment_count: Type.Integer({ minimum: 0 }),
  negative_sentiment_count: Type.Integer({ minimum: 0 }),
});

export const DayInputs = Type.Object({
  complete: Type.Boolean({ description: 'Whether every message of the day could be read' }),
  unread: Type.Array(UnreadSpan, {
    description:
      "The day's spans the listing cap left unread (`listing_cap`: the counts, sentiment and topics are then unknown)",
  }),
  messages_seen: Type.Integer({ minimum: 0, description: 'Messages read that day, before the exclusions' }),
  excluded: Type.Object({
    bots: Type.Integer({ minimum: 0 }),
    system: Type.Integer({ minimum: 0, description: 'System users and system message types' }),
    webhooks: Type.Integer({ minimum: 0 }),
    automoderator: Type.Integer({ minimum: 0 }),
    deleted: Type.Integer({ minimum: 0, description: 'Authors [deleted]' }),
    removed: Type.Integer({ minimum: 0 }),
  }),
  spam: Type.Object({
    total: Type.Integer({ minimum: 0, description: 'Counted messages flagged as spam (any signal)' }),
    invite_links: Type.Integer({ minimum: 0 }),
    dm_offers: Type.Integer({ minimum: 0 }),
    mass_mentions: Type.Integer({ minimum: 0 }),
    duplicates: Type.Integer({ minimum: 0, description: 'Same content by ≥ 3 authors within an hour' }),
  }),
  non_english: Type.Integer({ minimum: 0 }),
  no_content: Type.Integer({ minimum: 0, description: 'Counted messages whose content was not visible' }),
  scored: Type.Integer({ minimum: 0, description: 'Messages in sentiment and topics: counted, not spam, English' }),
  model: Type.String({ description: 'The language model version' }),
});

export const SocialDayRecord = Type.Composite([
  Type.Object({
    channel: Type.String(),
    protocol: Type.String(),
    daily_message_count: Nullable(Count('Messages that count that UTC day (issue 16 counting rules), spam included')),
    number_of_unique_users: Nullable(Count('Distinct authors of those messages')),
    official_posts: NullableCount(
      'Reddit: moderator-distinguished and stickied items among the counted ones, counted apart (0 on Discord)',
    ),
    average_sentiment_score: Nullable(
      Type.Number({ minimum: -1, maximum: 1, description: 'Mean VADER compound of the scored messages' }),
    ),
    high_level_topic_frequency: Type.Array(TopicFrequency),
    mid_level_topic_based_sentiment_distribution: Type.Array(MidTopicSentiment),
    mid_level_topic_based_sentiment_distrubution: Type.Array(MidTopicSentiment, {
      description: 'The legacy spelling, same content',
    }),
    inputs: DayInputs,
    gap_reasons: Type.Record(Type.String(), Type.String(), {
      description:
        'Per-field reasons of null figures (`no_data`: no scored message; content not visible; `listing_cap`: part of the day out of the listing’s reach)',
    }),
    score_window: Type.Object(
      {
        from: Iso('First second of the messages scored'),
        to: Iso('Last second of the messages scored (= timestamp)'),
      },
      {
        description:
          'The 24 hours the score is of: the UTC day for a past day, the last 24 hours up to as_of for the running day (the counts above are of the UTC day)',
      },
    ),
  }),
  DailyScoreRecord({
    timestamp: 'The instant scored: as_of for the running day, else the last second of the UTC day',
    gapReasons:
      '`source_error`, `no_data` or `listing_cap`: the channel could not be read completely; `insufficient_evidence`',
  }),
]);
export const SocialHistory = ScoreHistory(SocialDayRecord);

export type ChannelListingEntry = Static<typeof ChannelListingEntry>;
export type SocialDayRecord = Static<typeof SocialDayRecord>;
export type MidTopicSentiment = Static<typeof MidTopicSentiment>;
