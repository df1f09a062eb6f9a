import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the community area (see src/store/migrations.ts for the portability rules): per tracked protocol and
 * channel, where it is read and how far (`social_channels`, with the source's resumable cursors), the spans its
 * reading could not cover (`social_gaps`), and per message what the computation needs and nothing more
 * (`social_messages`: no text; the author salted-hashed). Times are Unix seconds (`bigint`), JSON is text. Kysely
 * sees them through `platform.withTables<CommunityTables>()`.
 */
export type CommunityTables = {
  social_channels: SocialChannelTable;
  social_gaps: SocialGapTable;
  social_messages: SocialMessageTable;
};

export interface SocialChannelTable {
  /** `discord` or `reddit`. */
  channel: string;
  /** The protocol's id on the social paths. */
  subject: string;
  /** JSON `ChannelSource`: guild id and channel ids, or subreddit. */
  source: string;
  readable: number;
  /** 1, 0, or null when not known yet. */
  content_visible: number | null;
  unreadable_reason: string | null;
  covered_from: number | null;
  covered_to: number | null;
  /** JSON: the source's cursors (per Discord channel, per Reddit listing). */
  cursors: string;
  last_error: string | null;
  updated_at: number;
}

export interface SocialGapTable {
  channel: string;
  subject: string;
  from_utc: number;
  to_utc: number;
}

export interface SocialMessageTable {
  channel: string;
  /** Discord snowflake or Reddit fullname. */
  message_id: string;
  subject: string;
  at: number;
  author_hash: string;
  excluded: string | null;
  official: number;
  has_content: number;
  english: number | null;
  compound: number | null;
  topic_mid: string | null;
  topic_high: string | null;
  spam_signals: number;
  content_hash: string | null;
}

/** Migrations of the tables above, under their original keys. */
export const COMMUNITY_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0010_community': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('social_channels')
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('readable', 'bigint', (c) => c.notNull())
        .addColumn('content_visible', 'bigint')
        .addColumn('unreadable_reason', 'text')
        .addColumn('covered_from', 'bigint')
        .addColumn('covered_to', 'bigint')
        .addColumn('cursors', 'text', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('social_channels_pk', ['channel', 'subject'])
        .execute();
      await db.schema
        .createTable('social_gaps')
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('from_utc', 'bigint', (c) => c.notNull())
        .addColumn('to_utc', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('social_gaps_pk', ['channel', 'subject', 'from_utc'])
        .execute();
      await db.schema
        .createTable('social_messages')
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('author_hash', 'text', (c) => c.notNull())
        .addColumn('excluded', 'text')
        .addColumn('official', 'bigint', (c) => c.notNull())
        .addColumn('has_content', 'bigint', (c) => c.notNull())
        .addColumn('english', 'bigint')
        .addColumn('compound', 'double precision')
        .addColumn('topic_mid', 'text')
        .addColumn('topic_high', 'text')
        .addColumn('spam_signals', 'bigint', (c) => c.notNull())
        .addColumn('content_hash', 'text')
        .addPrimaryKeyConstraint('social_messages_pk', ['channel', 'subject', 'message_id'])
        .execute();
      await db.schema
        .createIndex('social_messages_subject_at')
        .on('social_messages')
        .columns(['channel', 'subject', 'at'])
        .execute();
    },
  },
};
