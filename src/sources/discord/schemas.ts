/**
 * Schemas of the Discord API v10 payloads the source accepts: only the fields it reads, so that Discord adding
 * fields changes nothing, while a used field that is missing or of another type fails at the boundary with its
 * path (DESIGN.md convention 3).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** Ids are 64-bit: always decimal strings on the wire. */
export const Snowflake = Type.String({ pattern: '^\\d{1,20}$' });
/** ISO 8601 with an offset, as Discord writes it: `2026-03-01T12:00:00.123000+00:00`. */
const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
});

/** Message types the source knows by name; others pass as their number. */
export const MESSAGE_TYPE = {
  DEFAULT: 0,
  CHANNEL_PINNED_MESSAGE: 6,
  USER_JOIN: 7,
  THREAD_CREATED: 18,
  REPLY: 19,
  THREAD_STARTER_MESSAGE: 21,
} as const;

/** Channel types read: text, announcement, forum, and the threads under them. */
export const CHANNEL_TYPE = {
  GUILD_TEXT: 0,
  GUILD_VOICE: 2,
  GUILD_CATEGORY: 4,
  GUILD_ANNOUNCEMENT: 5,
  ANNOUNCEMENT_THREAD: 10,
  PUBLIC_THREAD: 11,
  PRIVATE_THREAD: 12,
  GUILD_FORUM: 15,
} as const;

export const DiscordUser = Type.Object({
  id: Snowflake,
  username: Type.String(),
  bot: Type.Optional(Type.Boolean()),
  /** Discord's own system user (official notices). */
  system: Type.Optional(Type.Boolean()),
});
export type DiscordUser = Static<typeof DiscordUser>;

export const DiscordGuild = Type.Object({
  id: Snowflake,
  name: Type.String(),
});
export type DiscordGuild = Static<typeof DiscordGuild>;

export const DiscordChannel = Type.Object({
  id: Snowflake,
  type: Type.Integer({ minimum: 0 }),
  guild_id: Type.Optional(Snowflake),
  name: Type.Optional(Nullable(Type.String())),
  /** The category of a channel; the text, announcement or forum channel of a thread. */
  parent_id: Type.Optional(Nullable(Snowflake)),
  last_message_id: Type.Optional(Nullable(Snowflake)),
  /** Threads only. */
  thread_metadata: Type.Optional(
    Type.Object({
      archived: Type.Boolean(),
      archive_timestamp: Timestamp,
      locked: Type.Optional(Type.Boolean()),
      create_timestamp: Type.Optional(Nullable(Timestamp)),
    }),
  ),
  message_count: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type DiscordChannel = Static<typeof DiscordChannel>;

export const DiscordThreadList = Type.Object({
  threads: Type.Array(DiscordChannel),
  /** Archived lists only: more threads before the last one's archive time. */
  has_more: Type.Optional(Type.Boolean()),
});
export type DiscordThreadList = Static<typeof DiscordThreadList>;

export const DiscordMessage = Type.Object({
  id: Snowflake,
  channel_id: Snowflake,
  author: DiscordUser,
  /** Empty for a bot without the message-content intent, except its own messages and those mentioning it. */
  content: Type.String(),
  timestamp: Timestamp,
  edited_timestamp: Type.Optional(Nullable(Timestamp)),
  type: Type.Integer({ minimum: 0 }),
  /** Set on messages a webhook posted (their author is the webhook, not a user). */
  webhook_id: Type.Optional(Snowflake),
  mentions: Type.Array(DiscordUser),
  mention_everyone: Type.Boolean(),
  mention_roles: Type.Optional(Type.Array(Snowflake)),
  pinned: Type.Boolean(),
  attachments: Type.Array(Type.Object({ id: Snowflake })),
  embeds: Type.Array(Type.Object({})),
  sticker_items: Type.Optional(Type.Array(Type.Object({ id: Snowflake }))),
  /** Replies (type 19), pins (type 6), thread starters: what they point at. */
  message_reference: Type.Optional(
    Type.Object({
      message_id: Type.Optional(Snowflake),
      channel_id: Type.Optional(Snowflake),
      guild_id: Type.Optional(Snowflake),
    }),
  ),
});
export type DiscordMessage = Static<typeof DiscordMessage>;

/** A 429's body: `retry_after` in seconds (a float), `global` when the whole token is limited. */
export const DiscordRateLimitBody = Type.Object({
  message: Type.String(),
  retry_after: Type.Number({ minimum: 0 }),
  global: Type.Boolean(),
  code: Type.Optional(Type.Integer()),
});
export type DiscordRateLimitBody = Static<typeof DiscordRateLimitBody>;

/** Discord's error body: `code` is its JSON error code (50001 Missing Access, 10003 Unknown Channel, …). */
export const DiscordErrorBody = Type.Object({
  message: Type.String(),
  code: Type.Integer(),
});
