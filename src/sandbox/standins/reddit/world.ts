import type { SocialSubject } from '../../../registry/index.js';
import { registry } from '../../../registry/index.js';
import type { Rng } from '../../world/random.js';
import { DAY_MS, dayOf, stableId, streamRng, zipfWeights } from '../base/generate.js';
import { PHRASES, type Phrase, renderPhrase } from '../social/phrases.js';
import type { AuthorRole, SubredditCharacter, SubredditProfile, ThingRecord } from './records.js';

/**
 * The Reddit stand-in's world: a subreddit for each protocol tracked on Reddit (`registry.socialSubjects('reddit')`),
 * each with a character (busy, steady, quiet, declining) and posts (`t3`) and comments (`t1`) written from the
 * phrase bank (src/sandbox/standins/social/phrases.ts), whose hidden labels each item keeps.
 *
 * The calendar: every (subreddit, kind, UTC day) is drawn from its own generator (`<seed>/reddit/<sub>/<kind>/<day>`),
 * so any day can be generated on its own and the world at a later "now" only adds to the world at an earlier one
 * (what lies after "now" is hidden when answering). The scenario's events are placed on the world's days
 * (`epochDay` … `epochDay + days`, the sandbox's simulated history): three subreddits have an exploit day (posts ×2,
 * comments ×3, most of them scam and hack talk), two a raid (an hour of identical spam from a dozen or two new
 * accounts, about 40 % removed by Reddit's spam filter), and the declining ones fade from the epoch on.
 * Every day also has AutoModerator's replies to new posts, `[deleted]` authors (deleted accounts and deleted items),
 * removed items, a stickied moderator-distinguished weekly thread (Mondays) and now and then a distinguished
 * announcement.
 *
 * Ids are base 36 of `(created_utc − 10⁹) · 65536 + subreddit · 2048 + n` (n: order within the second), so they grow
 * with creation as Reddit's do, and an item's day and subreddit can be read back from its id (`thing`).
 */

export const LISTING_CAP = 1000;

const ID_EPOCH = 1_000_000_000;
const SUB_SLOTS = 32;
const PER_SECOND = 2048;

interface CharacterRates {
  readonly posts: number;
  readonly comments: number;
  readonly members: number;
}

const RATES: Record<SubredditCharacter, CharacterRates> = {
  busy: { posts: 14, comments: 70, members: 400 },
  steady: { posts: 5, comments: 25, members: 150 },
  quiet: { posts: 1.2, comments: 5, members: 40 },
  declining: { posts: 10, comments: 50, members: 220 },
};

/** The characters handed out, in a seeded order: 6 busy, 12 steady, 9 quiet, 5 declining for the 32 subreddits. */
const CHARACTER_MIX: readonly SubredditCharacter[] = [
  ...Array<SubredditCharacter>(6).fill('busy'),
  ...Array<SubredditCharacter>(12).fill('steady'),
  ...Array<SubredditCharacter>(9).fill('quiet'),
  ...Array<SubredditCharacter>(5).fill('declining'),
];

/** Well-known communities are larger than an ordinary busy one. */
const SIZE: Readonly<Record<string, number>> = { ethereum: 1.5, bitcoin: 1.5 };
const CHAIN_TOKENS: Readonly<Record<string, string>> = {
  bitcoin: 'BTC',
  ethereum: 'ETH',
  arbitrum: 'ARB',
  optimism: 'OP',
  near: 'NEAR',
};

const ADJECTIVES = ['Ok', 'Wise', 'Lazy', 'Brave', 'Quiet', 'Salty', 'Happy', 'Rare', 'Fancy', 'Bitter', 'Calm', 'Odd'];
const NOUNS = ['Pineapple', 'Otter', 'Falcon', 'Badger', 'Lemon', 'Walrus', 'Comet', 'Pickle', 'Heron', 'Cactus'];

export const AUTOMODERATOR = 'AutoModerator';
const AUTOMODERATOR_FULLNAME = 't2_6l4z3';
const AUTOMOD_REPLY =
  'Thank you for posting! Please read the rules in the sidebar. Never share your seed phrase: moderators will never ' +
  'DM you first. *I am a bot, and this action was performed automatically.*';

const MEMBER_PHRASES = PHRASES.filter((p) => p.kind === 'chat' || p.kind === 'question');
const SECURITY_PHRASES = MEMBER_PHRASES.filter((p) => p.category === 'Scams and Security');
const OTHER_PHRASES = MEMBER_PHRASES.filter((p) => p.category !== 'Scams and Security');
const SPAM_PHRASES = PHRASES.filter((p) => p.kind === 'spam' || p.kind === 'scam');
const SCAM_PHRASES = PHRASES.filter((p) => p.kind === 'scam');
const ANNOUNCEMENTS = PHRASES.filter((p) => p.kind === 'announcement');

export interface RedditWorldOptions {
  readonly seed: number;
  /** Who is tracked: `registry.socialSubjects('reddit')`. */
  readonly subjects: readonly SocialSubject[];
  /** The subreddit read for a social id (the source's mapping: src/sources/reddit/subreddits.ts). */
  readonly subredditOf: (socialId: string) => string;
  /** UTC day index of the scenario's first day (the sandbox world's first simulated day). */
  readonly epochDay: number;
  /** The scenario's length in days (the sandbox's `SANDBOX_DAYS`); events fall inside it. */
  readonly days: number;
  /** Activity multiplier (1: the default). */
  readonly scale?: number;
}

export interface DayTruth {
  /** Items of the day under the counting rule (not AutoModerator, not `[deleted]`, not removed), official included. */
  readonly counted: number;
  readonly official: number;
  readonly uniqueAuthors: number;
  readonly excluded: { readonly automoderator: number; readonly deleted: number; readonly removed: number };
}

export class RedditWorld {
  readonly seed: number;
  readonly epochDay: number;
  readonly days: number;
  readonly subreddits: readonly SubredditProfile[];
  private readonly scale: number;
  private readonly byName = new Map<string, SubredditProfile>();
  private readonly cache = new Map<string, readonly ThingRecord[]>();

  constructor(options: RedditWorldOptions) {
    this.seed = options.seed;
    this.epochDay = options.epochDay;
    this.days = Math.max(4, options.days);
    this.scale = options.scale ?? 1;
    if (options.subjects.length > SUB_SLOTS) throw new Error(`at most ${SUB_SLOTS} subreddits`);
    const mixRng = streamRng(this.seed, 'reddit', 'characters');
    const characters = shuffle(mixRng, [...CHARACTER_MIX]);
    const profiles: SubredditProfile[] = options.subjects.map((subject, index) => {
      const character = characters[index % characters.length]!;
      const rates = RATES[character];
      const size = SIZE[subject.protocolId] ?? 1;
      const name = options.subredditOf(subject.protocolId);
      const rng = streamRng(this.seed, 'reddit', 'profile', name.toLowerCase());
      const members = Array.from({ length: Math.round(rates.members * Math.sqrt(size)) }, () => userName(rng));
      const createdUtc = Math.floor(Date.parse('2017-01-01T00:00:00Z') / 1000) + rng.int(5 * 365) * 86_400;
      return {
        socialId: subject.protocolId,
        name,
        fullname: `t5_${stableId(`reddit/sub/${name.toLowerCase()}`, 36).toString(36)}`,
        title: subject.name,
        token: tokenOf(subject),
        index,
        character,
        postsPerDay: rates.posts * size,
        commentsPerDay: rates.comments * size,
        createdUtc,
        subscribers: Math.round(rates.members * size * (40 + rng.int(200))),
        exploitDay: null,
        raidDay: null,
        moderators: [`${name}_mod`, userName(rng)],
        members,
      };
    });
    // Events on subreddits where they show: not the quiet ones.
    const eventRng = streamRng(this.seed, 'reddit', 'events');
    const lively = shuffle(
      eventRng,
      profiles.filter((p) => p.character !== 'quiet'),
    );
    const eventDay = () => this.epochDay + 2 + eventRng.int(this.days - 3);
    const exploited = lively.slice(0, 3).map((p) => p.index);
    const raided = lively.slice(3, 5).map((p) => p.index);
    this.subreddits = profiles.map((p) => ({
      ...p,
      exploitDay: exploited.includes(p.index) ? eventDay() : null,
      raidDay: raided.includes(p.index) ? eventDay() : null,
    }));
    for (const p of this.subreddits) this.byName.set(p.name.toLowerCase(), p);
  }

  /** A subreddit by name, case-insensitively (as Reddit). */
  subreddit(name: string): SubredditProfile | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** The listing Reddit shows at `nowMs`: newest first, at most `LISTING_CAP` items (older ones are unreachable). */
  listing(profile: SubredditProfile, kind: 't3' | 't1', nowMs: number, cap = LISTING_CAP): ThingRecord[] {
    const out: ThingRecord[] = [];
    const firstDay = dayOf(profile.createdUtc * 1000);
    for (let day = dayOf(nowMs); day >= firstDay && out.length < cap; day--) {
      const items = this.day(profile, kind, day);
      for (let i = items.length - 1; i >= 0 && out.length < cap; i--) {
        if (items[i]!.createdUtc * 1000 <= nowMs) out.push(items[i]!);
      }
    }
    return out;
  }

  /** Every item of a kind created in [fromMs, toMs] (and not after `nowMs`), oldest first: ground truth. */
  things(profile: SubredditProfile, kind: 't3' | 't1', fromMs: number, toMs: number): ThingRecord[] {
    const out: ThingRecord[] = [];
    for (let day = dayOf(fromMs); day <= dayOf(toMs); day++) {
      for (const t of this.day(profile, kind, day)) {
        if (t.createdUtc * 1000 >= fromMs && t.createdUtc * 1000 <= toMs) out.push(t);
      }
    }
    return out;
  }

  /** The item a fullname names (its hidden labels included), or undefined. */
  thing(fullname: string): ThingRecord | undefined {
    const m = /^(t[13])_([0-9a-z]+)$/.exec(fullname);
    if (!m) return undefined;
    const n = Number.parseInt(m[2]!, 36);
    const createdUtc = Math.floor(n / 65536) + ID_EPOCH;
    const profile = this.subreddits[Math.floor((n % 65536) / PER_SECOND)];
    if (!profile) return undefined;
    return this.day(profile, m[1] as 't3' | 't1', dayOf(createdUtc * 1000)).find((t) => t.name === fullname);
  }

  /** The counts of a UTC day of a subreddit as the issue's rule makes them, posts and comments together. */
  dayTruth(profile: SubredditProfile, day: number, nowMs: number): DayTruth {
    const items = [...this.day(profile, 't3', day), ...this.day(profile, 't1', day)].filter(
      (t) => t.createdUtc * 1000 <= nowMs,
    );
    const counted = items.filter((t) => t.counted);
    return {
      counted: counted.length,
      official: counted.filter((t) => t.official).length,
      uniqueAuthors: new Set(counted.map((t) => t.writerFullname)).size,
      excluded: {
        automoderator: items.filter((t) => t.role === 'automoderator').length,
        deleted: items.filter((t) => t.fate === 'account-deleted' || t.fate === 'deleted').length,
        removed: items.filter((t) => t.fate === 'removed').length,
      },
    };
  }

  /** Activity multiplier of a day: the declining subreddits fade from the epoch on. */
  intensity(profile: SubredditProfile, day: number): number {
    const weekday = (day + 4) % 7; // 0 = Sunday (1970-01-01 was a Thursday)
    const weekend = weekday === 0 || weekday === 6 ? 0.8 : 1;
    const decline =
      profile.character === 'declining' && day > this.epochDay
        ? Math.max(0.12, Math.exp(-(day - this.epochDay) / 3))
        : 1;
    return this.scale * weekend * decline;
  }

  /** One day of one kind, oldest first (cached; generated from the day's own stream). */
  private day(profile: SubredditProfile, kind: 't3' | 't1', day: number): readonly ThingRecord[] {
    const key = `${profile.index}/${kind}/${day}`;
    let items = this.cache.get(key);
    if (!items) {
      items =
        day < dayOf(profile.createdUtc * 1000)
          ? []
          : kind === 't3'
            ? this.posts(profile, day)
            : this.comments(profile, day);
      this.cache.set(key, items);
    }
    return items;
  }

  private posts(profile: SubredditProfile, day: number): ThingRecord[] {
    const rng = streamRng(this.seed, 'reddit', profile.name.toLowerCase(), 'posts', day);
    const drafts: Draft[] = [];
    const exploit = profile.exploitDay === day;
    const n = rng.poisson(profile.postsPerDay * this.intensity(profile, day) * (exploit ? 2 : 1));
    for (let i = 0; i < n; i++) drafts.push(this.memberDraft(rng, profile, day, exploit));
    // The weekly discussion thread, Mondays just after midnight: stickied and distinguished by a moderator.
    if ((day + 4) % 7 === 1) {
      drafts.push({
        at: day * 86_400 + 5,
        role: 'moderator',
        writer: profile.moderators[0]!,
        text: `Weekly discussion thread: ${profile.title}, week of ${new Date(day * DAY_MS).toISOString().slice(0, 10)}`,
        label: { sentiment: 'neutral', category: 'Community and Communication', kind: 'announcement' },
        distinguished: 'moderator',
        stickied: true,
        fate: 'stands',
        removedBy: null,
        raid: false,
      });
    }
    if (rng.chance(0.15)) {
      const phrase = rng.pick(ANNOUNCEMENTS);
      drafts.push({
        at: day * 86_400 + rng.int(86_400),
        role: 'moderator',
        writer: rng.pick(profile.moderators),
        ...this.render(rng, profile, phrase),
        distinguished: 'moderator',
        stickied: rng.chance(0.5),
        fate: 'stands',
        removedBy: null,
        raid: false,
      });
    }
    if (profile.raidDay === day) {
      const raid = this.raid(profile, day);
      for (const account of raid.accounts.slice(0, 4)) {
        drafts.push(raidDraft(rng, raid, account));
      }
    }
    return this.finish(profile, 't3', drafts);
  }

  private comments(profile: SubredditProfile, day: number): ThingRecord[] {
    const rng = streamRng(this.seed, 'reddit', profile.name.toLowerCase(), 'comments', day);
    const exploit = profile.exploitDay === day;
    const recent = [day - 3, day - 2, day - 1, day].flatMap((d) => this.day(profile, 't3', d));
    const drafts: Draft[] = [];
    const n = rng.poisson(profile.commentsPerDay * this.intensity(profile, day) * (exploit ? 3 : 1));
    for (let i = 0; i < n; i++) drafts.push(this.memberDraft(rng, profile, day, exploit));
    // AutoModerator answers about 40 % of the day's new posts within half a minute.
    for (const post of this.day(profile, 't3', day)) {
      if (post.role === 'moderator' || !rng.chance(0.4)) continue;
      drafts.push({
        at: Math.min(day * 86_400 + 86_399, post.createdUtc + 1 + rng.int(30)),
        role: 'automoderator',
        writer: AUTOMODERATOR,
        text: AUTOMOD_REPLY,
        label: null,
        distinguished: 'moderator',
        stickied: false,
        fate: 'stands',
        removedBy: null,
        raid: false,
        linkId: post.name,
      });
    }
    if (profile.raidDay === day) {
      const raid = this.raid(profile, day);
      for (const account of raid.accounts) {
        const times = 1 + rng.int(3);
        for (let k = 0; k < times; k++) drafts.push(raidDraft(rng, raid, account));
      }
    }
    // Each comment answers a post written before it in the last three days, else the newest weekly thread (a
    // subreddit's first days may have neither: such comments are not written).
    const placed = drafts.filter((d) => {
      if (d.linkId) return true;
      const candidates = recent.filter((p) => p.createdUtc < d.at && p.createdUtc >= d.at - 3 * 86_400);
      const post = candidates.length ? rng.pick(candidates) : this.weeklyThreadBefore(profile, d.at);
      if (post) d.linkId = post.name;
      return post !== undefined;
    });
    return this.finish(profile, 't1', placed);
  }

  /** The newest weekly thread before an instant, within 8 days. */
  private weeklyThreadBefore(profile: SubredditProfile, atUtc: number): ThingRecord | undefined {
    const today = Math.floor(atUtc / 86_400);
    for (let day = today; day > today - 8; day--) {
      const thread = this.day(profile, 't3', day).find(
        (p) => p.stickied && p.role === 'moderator' && p.createdUtc < atUtc && p.text.startsWith('Weekly'),
      );
      if (thread) return thread;
    }
    return undefined;
  }

  /** The raid of a day: its hour, its new accounts and the one spam text they all repeat. */
  private raid(profile: SubredditProfile, day: number) {
    const rng = streamRng(this.seed, 'reddit', profile.name.toLowerCase(), 'raid', day);
    const startUtc = day * 86_400 + 3600 * rng.int(20);
    const accounts = Array.from({ length: 12 + rng.int(12) }, () => newAccountName(rng));
    const phrase = rng.pick(SPAM_PHRASES);
    return { startUtc, accounts, ...this.render(rng, profile, phrase) };
  }

  /** An ordinary post or comment of a member (or, rarely, a one-off scam account). */
  private memberDraft(rng: Rng, profile: SubredditProfile, day: number, exploit: boolean): Draft {
    const at = day * 86_400 + rng.int(86_400);
    if (rng.chance(0.015)) {
      const removed = rng.chance(0.5);
      return {
        at,
        role: 'scammer',
        writer: newAccountName(rng),
        ...this.render(rng, profile, rng.pick(SCAM_PHRASES)),
        distinguished: null,
        stickied: false,
        fate: removed ? 'removed' : 'stands',
        removedBy: removed ? 'reddit' : null,
        raid: false,
      };
    }
    const weights = memberWeights(profile.members.length);
    const writer = profile.members[rng.weightedIndex(weights)]!;
    // Exploit days: most talk is about the hack; other days security talk is a small share.
    const phrase = exploit
      ? rng.chance(0.65)
        ? rng.pick(SECURITY_PHRASES)
        : rng.pick(OTHER_PHRASES)
      : rng.chance(0.06)
        ? rng.pick(SECURITY_PHRASES)
        : rng.pick(OTHER_PHRASES);
    const r = rng.next();
    const fate: Draft['fate'] = r < 0.02 ? 'account-deleted' : r < 0.03 ? 'deleted' : r < 0.05 ? 'removed' : 'stands';
    return {
      at,
      role: 'member',
      writer,
      ...this.render(rng, profile, phrase),
      distinguished: null,
      stickied: false,
      fate,
      removedBy:
        fate === 'deleted'
          ? 'deleted'
          : fate === 'removed'
            ? rng.chance(0.5)
              ? 'moderator'
              : 'automod_filtered'
            : null,
      raid: false,
    };
  }

  private render(rng: Rng, profile: SubredditProfile, phrase: Phrase): Pick<Draft, 'text' | 'label'> {
    const text = renderPhrase(phrase, {
      protocol: profile.title,
      token: profile.token,
      user: rng.pick(profile.members),
      number: String(1 + rng.int(999)),
    });
    return { text, label: { sentiment: phrase.sentiment, category: phrase.category, kind: phrase.kind } };
  }

  /** Sorts a day's drafts by time, numbers them within their second and freezes them as records. */
  private finish(profile: SubredditProfile, kind: 't3' | 't1', drafts: Draft[]): ThingRecord[] {
    drafts.sort((a, b) => a.at - b.at);
    let second = -1;
    let n = 0;
    return drafts.map((d) => {
      n = d.at === second ? n + 1 : 0;
      second = d.at;
      if (n >= PER_SECOND) throw new Error(`r/${profile.name}: more than ${PER_SECOND} items in one second`);
      const id = ((d.at - ID_EPOCH) * 65536 + profile.index * PER_SECOND + n).toString(36);
      const counted = d.role !== 'automoderator' && d.fate === 'stands';
      return Object.freeze({
        kind,
        id,
        name: `${kind}_${id}`,
        subreddit: profile.name,
        createdUtc: d.at,
        writer: d.writer,
        writerFullname: d.writer === AUTOMODERATOR ? AUTOMODERATOR_FULLNAME : userFullname(d.writer),
        role: d.role,
        text: d.text,
        selftext: '',
        ...(d.linkId ? { linkId: d.linkId } : {}),
        distinguished: d.distinguished,
        stickied: d.stickied,
        fate: d.fate,
        removedBy: kind === 't3' || d.fate === 'removed' ? d.removedBy : null,
        label: d.label,
        raid: d.raid,
        counted,
        official: counted && kind === 't3' && (d.distinguished === 'moderator' || d.stickied),
      } satisfies ThingRecord);
    });
  }
}

interface Draft {
  at: number;
  role: AuthorRole;
  writer: string;
  text: string;
  label: ThingRecord['label'];
  distinguished: 'moderator' | null;
  stickied: boolean;
  fate: ThingRecord['fate'];
  removedBy: ThingRecord['removedBy'];
  raid: boolean;
  linkId?: string;
}

function raidDraft(
  rng: Rng,
  raid: { startUtc: number; text: string; label: ThingRecord['label'] },
  account: string,
): Draft {
  const removed = rng.chance(0.4);
  return {
    at: raid.startUtc + rng.int(3600),
    role: 'raider',
    writer: account,
    text: raid.text,
    label: raid.label,
    distinguished: null,
    stickied: false,
    fate: removed ? 'removed' : 'stands',
    removedBy: removed ? 'reddit' : null,
    raid: true,
  };
}

const weightsMemo = new Map<number, number[]>();
function memberWeights(n: number): number[] {
  let w = weightsMemo.get(n);
  if (!w) {
    w = zipfWeights(n, 1);
    weightsMemo.set(n, w);
  }
  return w;
}

function userName(rng: Rng): string {
  const style = rng.int(3);
  if (style === 0) return `${rng.pick(NOUNS).toLowerCase()}_${rng.pick(ADJECTIVES).toLowerCase()}${rng.int(100)}`;
  if (style === 1) return `${rng.pick(ADJECTIVES)}${rng.pick(NOUNS)}${1000 + rng.int(9000)}`;
  return `defi_${rng.pick(NOUNS).toLowerCase()}${rng.int(1000)}`;
}

/** Reddit's suggested names for new accounts: `Adjective_Noun_1234`. */
function newAccountName(rng: Rng): string {
  return `${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}_${1000 + rng.int(9000)}`;
}

export function userFullname(name: string): string {
  return `t2_${stableId(`reddit/user/${name.toLowerCase()}`, 36).toString(36)}`;
}

function tokenOf(subject: SocialSubject): string {
  if (subject.kind === 'chain') return CHAIN_TOKENS[subject.entityId] ?? subject.name.toUpperCase();
  return (
    registry.protocol(subject.entityId)?.token?.symbol ?? subject.name.replace(/\W/g, '').slice(0, 5).toUpperCase()
  );
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
