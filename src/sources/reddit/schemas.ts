/**
 * Schemas of the Reddit API answers the source reads (app-only OAuth, `/r/{sub}/about`, `/r/{sub}/new`,
 * `/r/{sub}/comments`): only the fields used, so that Reddit adding or dropping others changes nothing, while a used
 * field that is missing or of another type fails at the boundary with its path (DESIGN.md convention 3).
 */
import { type Static, Type } from '@sinclair/typebox';

/** `POST /api/v1/access_token` (grant_type=client_credentials). */
export const RedditToken = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  token_type: Type.String(),
  /** Seconds (Reddit: 86400). */
  expires_in: Type.Number({ minimum: 0 }),
  scope: Type.Optional(Type.String()),
});
export type RedditToken = Static<typeof RedditToken>;

/** Reddit's error body (`{"message": "Forbidden", "error": 403, "reason": "private"}`); every field optional. */
export const RedditErrorBody = Type.Object({
  message: Type.Optional(Type.String()),
  error: Type.Optional(Type.Union([Type.Number(), Type.String()])),
  reason: Type.Optional(Type.String()),
});
export type RedditErrorBody = Static<typeof RedditErrorBody>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** Fields posts and comments share. `author_fullname` is absent for `[deleted]` authors. */
const ThingFields = {
  id: Type.String({ pattern: '^[0-9a-z]+$' }),
  name: Type.String({ pattern: '^t[13]_[0-9a-z]+$' }),
  author: Type.String(),
  author_fullname: Type.Optional(Type.String()),
  /** Unix seconds, a float on the wire (`1700000000.0`). */
  created_utc: Type.Number(),
  /** `moderator`, `admin`, a special role, or null. */
  distinguished: Type.Optional(NullableString),
  stickied: Type.Optional(Type.Boolean()),
  /** Why an item was removed (`moderator`, `automod_filtered`, `reddit`, `deleted`…), null when it stands. */
  removed_by_category: Type.Optional(NullableString),
  /** The moderator who removed it, shown to moderators only; `true`/null for others. */
  banned_by: Type.Optional(Type.Union([Type.String(), Type.Boolean(), Type.Null()])),
  subreddit: Type.String(),
};

/** A post (`t3`). */
export const RedditPost = Type.Object({
  ...ThingFields,
  title: Type.String(),
  /** Empty for link posts. */
  selftext: Type.String(),
});
export type RedditPost = Static<typeof RedditPost>;

/** A comment (`t1`); `link_id` is the post it belongs to (`t3_…`). */
export const RedditComment = Type.Object({
  ...ThingFields,
  body: Type.String(),
  link_id: Type.String({ pattern: '^t3_[0-9a-z]+$' }),
});
export type RedditComment = Static<typeof RedditComment>;

function listing<K extends 't1' | 't3', T extends typeof RedditPost | typeof RedditComment>(kind: K, item: T) {
  return Type.Object({
    kind: Type.Literal('Listing'),
    data: Type.Object({
      /** The cursor of the next (older) page: the fullname of this page's last item; null at the end. */
      after: NullableString,
      before: Type.Optional(NullableString),
      children: Type.Array(Type.Object({ kind: Type.Literal(kind), data: item })),
    }),
  });
}

export const RedditPostListing = listing('t3', RedditPost);
export type RedditPostListing = Static<typeof RedditPostListing>;
export const RedditCommentListing = listing('t1', RedditComment);
export type RedditCommentListing = Static<typeof RedditCommentListing>;

/** `/r/{sub}/about` (`t5`). */
export const RedditAbout = Type.Object({
  kind: Type.Literal('t5'),
  data: Type.Object({
    display_name: Type.String(),
    name: Type.String({ pattern: '^t5_[0-9a-z]+$' }),
    created_utc: Type.Number(),
    /** `public`, `restricted`, `private`, `archived`, `user`… */
    subreddit_type: Type.String(),
    subscribers: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  }),
});
export type RedditAbout = Static<typeof RedditAbout>;
