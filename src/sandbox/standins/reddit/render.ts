import type { SubredditProfile, ThingRecord } from './records.js';

/**
 * Reddit's wire format of the stand-in's records (the fields of `t3` and `t1` things an app-only client sees). What
 * a deleted or removed item shows, as on Reddit:
 * - a deleted account: author `[deleted]`, no `author_fullname`, the text stays;
 * - an item its author deleted: author `[deleted]`, text `[deleted]` (a post's title stays), `removed_by_category:
 *   "deleted"` on posts;
 * - a removed post: the author stays, `selftext: "[removed]"`, `removed_by_category` names who removed it
 *   (`moderator`, `automod_filtered`, `reddit`); a removed comment: author `[deleted]`, body `[removed]`.
 * `banned_by` is null: only moderators see who removed an item.
 */

function authorOf(t: ThingRecord): { author: string; author_fullname?: string } {
  const hidden = t.fate === 'account-deleted' || t.fate === 'deleted' || (t.kind === 't1' && t.fate === 'removed');
  return hidden ? { author: '[deleted]' } : { author: t.writer, author_fullname: t.writerFullname };
}

function permalink(t: ThingRecord, postId: string): string {
  const slug =
    t.kind === 't3'
      ? t.text
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '_')
          .slice(0, 50)
          .replace(/^_|_$/g, '')
      : '_';
  return `/r/${t.subreddit}/comments/${postId}/${slug || '_'}/${t.kind === 't1' ? `${t.id}/` : ''}`;
}

export function renderPost(profile: SubredditProfile, t: ThingRecord): unknown {
  const selftext = t.fate === 'deleted' ? '[deleted]' : t.fate === 'removed' ? '[removed]' : t.selftext;
  const link = permalink(t, t.id);
  return {
    kind: 't3',
    data: {
      id: t.id,
      name: t.name,
      subreddit: profile.name,
      subreddit_id: profile.fullname,
      subreddit_name_prefixed: `r/${profile.name}`,
      subreddit_type: 'public',
      ...authorOf(t),
      title: t.text,
      selftext,
      is_self: true,
      created: t.createdUtc,
      created_utc: t.createdUtc,
      distinguished: t.distinguished,
      stickied: t.stickied,
      removed_by_category: t.removedBy,
      banned_by: null,
      locked: false,
      archived: false,
      over_18: false,
      edited: false,
      score: 1,
      ups: 1,
      permalink: link,
      url: `https://www.reddit.com${link}`,
    },
  };
}

export function renderComment(profile: SubredditProfile, t: ThingRecord): unknown {
  const body = t.fate === 'deleted' ? '[deleted]' : t.fate === 'removed' ? '[removed]' : t.text;
  const postId = (t.linkId ?? 't3_').slice(3);
  return {
    kind: 't1',
    data: {
      id: t.id,
      name: t.name,
      subreddit: profile.name,
      subreddit_id: profile.fullname,
      subreddit_name_prefixed: `r/${profile.name}`,
      ...authorOf(t),
      body,
      link_id: t.linkId,
      parent_id: t.linkId,
      created: t.createdUtc,
      created_utc: t.createdUtc,
      distinguished: t.distinguished,
      stickied: t.stickied,
      banned_by: null,
      edited: false,
      score: 1,
      ups: 1,
      permalink: permalink(t, postId),
    },
  };
}

export function renderAbout(profile: SubredditProfile): unknown {
  return {
    kind: 't5',
    data: {
      display_name: profile.name,
      display_name_prefixed: `r/${profile.name}`,
      name: profile.fullname,
      id: profile.fullname.slice(3),
      title: profile.title,
      public_description: `The ${profile.title} community`,
      subscribers: profile.subscribers,
      created: profile.createdUtc,
      created_utc: profile.createdUtc,
      subreddit_type: 'public',
      over18: false,
      quarantine: false,
      lang: 'en',
      url: `/r/${profile.name}/`,
    },
  };
}
