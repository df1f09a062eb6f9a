import type { PhraseCategory, PhraseKind, PhraseSentiment } from '../social/phrases.js';

/** How busy a subreddit is over the world's days. */
export type SubredditCharacter = 'busy' | 'steady' | 'quiet' | 'declining';

/** Why an item is in the world: whose it is, which decides whether the community area counts it. */
export type AuthorRole =
  /** An ordinary member. */
  | 'member'
  /** A moderator posting as one (distinguished): an official post, counted apart. */
  | 'moderator'
  /** Reddit's AutoModerator bot: never counted. */
  | 'automoderator'
  /** A new account of a raid posting duplicate spam. */
  | 'raider'
  /** A one-off account offering "support" in DMs (scam). */
  | 'scammer';

/** The world's truth about one post or comment: what the API shows of it is rendered from this. */
export interface ThingRecord {
  readonly kind: 't3' | 't1';
  /** Base-36 id; ids grow with creation time. */
  readonly id: string;
  /** `t3_<id>` or `t1_<id>`. */
  readonly name: string;
  readonly subreddit: string;
  /** Unix seconds (whole). */
  readonly createdUtc: number;
  /** The author's name when the item was written (kept even when the API shows `[deleted]`). */
  readonly writer: string;
  readonly writerFullname: string;
  readonly role: AuthorRole;
  /** The text as written: a post's title, or a comment's body. */
  readonly text: string;
  /** A post's self text as written ('' for link posts). */
  readonly selftext: string;
  /** A comment's post (`t3_…`). */
  readonly linkId?: string;
  readonly distinguished: 'moderator' | null;
  readonly stickied: boolean;
  /**
   * What happened to it: `account-deleted` (author shows `[deleted]`, content stays), `deleted` (the author deleted
   * it: `[deleted]` author and text), `removed` (moderators, AutoModerator's filter or Reddit's spam filter removed it:
   * `[removed]` text; a comment's author shows `[deleted]`).
   */
  readonly fate: 'stands' | 'account-deleted' | 'deleted' | 'removed';
  /** `removed_by_category` of a post when not standing (`moderator`, `automod_filtered`, `reddit`, `deleted`). */
  readonly removedBy: 'moderator' | 'automod_filtered' | 'reddit' | 'deleted' | null;
  /** Hidden labels of the phrase it was written from (AutoModerator's templates have none). */
  readonly label: {
    readonly sentiment: PhraseSentiment;
    readonly category: PhraseCategory;
    readonly kind: PhraseKind;
  } | null;
  /** Part of a raid (duplicate spam from new accounts). */
  readonly raid: boolean;
  /** Under the counting rule: not AutoModerator, not `[deleted]`, not removed. */
  readonly counted: boolean;
  /** A moderator-distinguished or stickied post: counted apart as official. */
  readonly official: boolean;
}

export interface SubredditProfile {
  /** The social id (`registry.socialSubjects('reddit')`). */
  readonly socialId: string;
  /** Display name (as the source's mapping names it). */
  readonly name: string;
  /** `t5_<id>`. */
  readonly fullname: string;
  /** Protocol or chain name, for `{protocol}`. */
  readonly title: string;
  /** For `{token}`. */
  readonly token: string;
  readonly index: number;
  readonly character: SubredditCharacter;
  /** Mean posts and comments a day at full activity. */
  readonly postsPerDay: number;
  readonly commentsPerDay: number;
  readonly createdUtc: number;
  readonly subscribers: number;
  /** UTC day index of its exploit day (a spike of scam and hack talk), if it has one. */
  readonly exploitDay: number | null;
  /** UTC day index of its raid, if it has one. */
  readonly raidDay: number | null;
  readonly moderators: readonly string[];
  /** Members' names, most active first. */
  readonly members: readonly string[];
}
