import type { SocialSubject } from '../../../registry/index.js';
import { msToSnowflake, snowflakeToMs } from '../../../sources/discord/snowflake.js';
import { pow } from '../../world/pow.js';
import type { Rng } from '../../world/random.js';
import { DAY_MS, dayOf, stableId, streamRng, zipfWeights } from '../base/generate.js';
import { PHRASES, type Phrase, type PhraseCategory, renderPhrase } from '../social/phrases.js';

/**
 * The Discord stand-in's world: a guild per protocol tracked on Discord (`registry.socialSubjects('discord')`), each
 * with a few channels (announcements, general, support, governance, an `ideas` forum, a `mod-log` the bot may not
 * read, a voice channel), members, bots and a webhook, and messages generated day by day:
 *
 * - characters: `busy`, `normal`, `quiet` and `declining` guilds (a decline from the world's first day on);
 * - an exploit day on one guild (three times the traffic, most of it scam and hack talk, and scam offers from new
 *   accounts that moderators delete) and a raid on another (new accounts join and post the same spam within the
 *   hour, some with mass mentions, some in the same millisecond), on the last days of the world's first history,
 *   then now and then on later days;
 * - ordinary traffic: chat and questions from the phrase bank (`../social/phrases.ts`) in each channel's own mix of
 *   topics, replies (type 19), threads in `support` and posts (threads) in the forum, joins (type 7), bot messages,
 *   webhook posts and pinned announcements with their pin notices (type 6), Discord's system user now and then,
 *   and messages deleted a few minutes after they were posted.
 *
 * Every message keeps its hidden labels (the phrase's sentiment and category, its kind, whether it is spam): the
 * world's truth that end-to-end tests compare the service's figures with (`guildMessages`).
 *
 * Each channel-day is drawn from its own generator (`<seed>/discord/<channel>/<day>`), on a calendar anchored at the
 * world's first day (`originDay`, kept by the sandbox with its data), and what lies after "now" is hidden when
 * answering: the world at a later "now" only adds to the world at an earlier one, except for messages deleted in
 * between (at most `DELETE_WITHIN_MS` after they were posted).
 */

export const GUILD_CHARACTERS = ['busy', 'normal', 'quiet', 'declining'] as const;
export type GuildCharacter = (typeof GUILD_CHARACTERS)[number];

/** Days of history each guild has before the world's first day (its creation). */
export const HISTORY_BEFORE_DAYS = 30;
/** A deleted message disappears at most this long after it was posted. */
export const DELETE_WITHIN_MS = 30 * 60_000;
/** A thread archives this long after its last message (Discord's 24-hour auto-archive). */
export const AUTO_ARCHIVE_MS = 24 * 3_600_000;

/** The bot the sandbox reads as: a member of every guild. */
export const SANDBOX_BOT = { id: '1090000000000000001', username: 'protoscore' } as const;
/** Discord's own system user (official notices). */
export const DISCORD_SYSTEM_USER = { id: '643945264868098049', username: 'Discord' } as const;

/** Messages of a user (type 0 or 19) per day in `general` of a guild of each character, before events. */
const GENERAL_RATE: Record<GuildCharacter, number> = { busy: 160, normal: 50, quiet: 6, declining: 140 };
const MEMBERS: Record<GuildCharacter, number> = { busy: 500, normal: 180, quiet: 40, declining: 260 };
/** A declining guild's traffic halves every this many days from the world's first day. */
const DECLINE_HALF_LIFE_DAYS = 3;

export type ChannelRole =
  | 'category'
  | 'announcements'
  | 'general'
  | 'support'
  | 'governance'
  | 'ideas'
  | 'mod-log'
  | 'voice';

interface ChannelSpec {
  readonly role: ChannelRole;
  readonly name: string;
  /** Discord channel type. */
  readonly type: number;
  /** Share of `general`'s user traffic. */
  readonly weight: number;
  /** Topics this channel's chat leans to (with probability `lean`). */
  readonly topics: readonly PhraseCategory[];
  readonly lean: number;
  /** Threads (support) or posts (forum) started a day, per message of `general`. */
  readonly threadsPerMessage: number;
  /** The bot lacks View Channel: 403 Missing Access. */
  readonly hidden?: true;
}

const CHANNEL_SPECS: readonly ChannelSpec[] = [
  { role: 'category', name: 'Community', type: 4, weight: 0, topics: [], lean: 0, threadsPerMessage: 0 },
  { role: 'announcements', name: 'announcements', type: 5, weight: 0, topics: [], lean: 0, threadsPerMessage: 0 },
  {
    role: 'general',
    name: 'general',
    type: 0,
    weight: 1,
    topics: ['Community and Communication', 'Price and Market Discussions', 'Trading and Tokens'],
    lean: 0.4,
    threadsPerMessage: 0,
  },
  {
    role: 'support',
    name: 'support',
    type: 0,
    weight: 0.3,
    topics: ['Technical Discussions and Support'],
    lean: 0.75,
    threadsPerMessage: 0.02,
  },
  {
    role: 'governance',
    name: 'governance',
    type: 0,
    weight: 0.15,
    topics: ['Governance and Voting'],
    lean: 0.8,
    threadsPerMessage: 0,
  },
  {
    role: 'ideas',
    name: 'ideas',
    type: 15,
    weight: 0,
    topics: ['DeFi and Yield Farming', 'Governance and Voting', 'Data and Analytics'],
    lean: 0.7,
    threadsPerMessage: 0.012,
  },
  { role: 'mod-log', name: 'mod-log', type: 0, weight: 0.05, topics: [], lean: 0, threadsPerMessage: 0, hidden: true },
  { role: 'voice', name: 'Voice', type: 2, weight: 0, topics: [], lean: 0, threadsPerMessage: 0 },
];

export interface WorldUser {
  readonly id: string;
  readonly username: string;
  readonly bot?: true;
  readonly system?: true;
}

export interface GuildProfile {
  readonly index: number;
  readonly protocolId: string;
  readonly name: string;
  readonly id: string;
  readonly createdMs: number;
  readonly character: GuildCharacter;
  /** The token symbol its chat talks about. */
  readonly token: string;
  readonly channels: readonly ChannelProfile[];
  readonly members: readonly WorldUser[];
  readonly bots: readonly WorldUser[];
  readonly webhook: WorldUser;
  /** Scripted days: an exploit (scam and hack talk) and a raid (duplicate spam from new accounts). */
  readonly exploitDays: ReadonlySet<number>;
  readonly raidDays: ReadonlySet<number>;
}

export interface ChannelProfile {
  readonly id: string;
  readonly guild: GuildProfile;
  readonly spec: ChannelSpec;
  /** Unique over the world: the worker and process bits of the ids of this channel's messages. */
  readonly ordinal: number;
  readonly position: number;
  readonly parentId: string | null;
}

/** A message's hidden truth. */
export interface MessageLabel {
  readonly sentiment: Phrase['sentiment'];
  readonly category: PhraseCategory;
  readonly kind: Phrase['kind'];
  /** Raid duplicates, scam offers, mass mentions: what the spam rules should flag. */
  readonly spam: boolean;
}

export interface MessageRecord {
  readonly id: string;
  /** The channel or thread it is in. */
  readonly channelId: string;
  readonly guildId: string;
  readonly atMs: number;
  readonly author: WorldUser;
  readonly type: number;
  readonly content: string;
  readonly webhookId?: string;
  readonly mentions: readonly WorldUser[];
  readonly mentionEveryone: boolean;
  readonly pinned: boolean;
  /** Replies and pin notices: the message they point at (same channel). */
  readonly referenceId?: string;
  /** When moderators delete it (hidden from then on). */
  readonly deletedAtMs?: number;
  /** Absent on joins, pin notices, bot and system messages. */
  readonly label?: MessageLabel;
}

export interface ThreadRecord {
  readonly id: string;
  readonly name: string;
  readonly guildId: string;
  readonly parentId: string;
  /** 11: a public thread (forum posts are public threads of the forum). */
  readonly type: number;
  readonly ownerId: string;
  readonly createdMs: number;
  /** Ascending by id; the first is the starter of a forum post. */
  readonly messages: readonly MessageRecord[];
  /** Last message + 24 h. */
  readonly archiveMs: number;
}

interface ChannelDay {
  readonly messages: readonly MessageRecord[];
  readonly threads: readonly ThreadRecord[];
}

export interface DiscordWorldOptions {
  readonly seed: number;
  /** Who is tracked: `registry.socialSubjects('discord')`. */
  readonly subjects: readonly SocialSubject[];
  /** The world's first day (UTC day index): characters and scripted events are counted from it. */
  readonly originDay: number;
  /** The length of the world's first history (`SANDBOX_DAYS`): its last days hold the exploit and the raid. */
  readonly days: number;
}

const MEMO_DAYS = 4000;

export class DiscordWorld {
  readonly seed: number;
  readonly originDay: number;
  readonly guilds: readonly GuildProfile[];
  readonly bot: WorldUser = SANDBOX_BOT;
  private readonly guildIndex = new Map<string, GuildProfile>();
  private readonly channelIndex = new Map<string, ChannelProfile>();
  private readonly byOrdinal = new Map<number, ChannelProfile>();
  private readonly memo = new Map<string, ChannelDay>();

  constructor(options: DiscordWorldOptions) {
    this.seed = options.seed;
    this.originDay = options.originDay;
    const subjects = [...options.subjects].sort((a, b) => a.protocolId.localeCompare(b.protocolId));
    const characters = assignCharacters(options.seed, subjects.length);
    // The exploit and the raid of the first history: a busy or normal guild each, on its last days.
    const eventRng = streamRng(options.seed, 'discord', 'events');
    const lively = subjects.map((_, i) => i).filter((i) => characters[i] === 'busy' || characters[i] === 'normal');
    const exploitGuild = lively[eventRng.int(lively.length)] ?? 0;
    const others = lively.filter((i) => i !== exploitGuild);
    const raidGuild = others[eventRng.int(Math.max(1, others.length))] ?? (exploitGuild + 1) % subjects.length;
    const lastDay = options.originDay + Math.max(1, options.days) - 1;
    const exploitDay = Math.max(options.originDay, lastDay - 2);
    const raidDay = Math.max(options.originDay, lastDay - 1);
    const createdMs = (options.originDay - HISTORY_BEFORE_DAYS) * DAY_MS;

    const guilds: GuildProfile[] = [];
    subjects.forEach((subject, index) => {
      const character = characters[index]!;
      const guildCreated = createdMs + index * 60_000;
      const exploitDays = new Set<number>(index === exploitGuild ? [exploitDay] : []);
      const raidDays = new Set<number>(index === raidGuild ? [raidDay] : []);
      const channels: ChannelProfile[] = [];
      const members = Array.from({ length: MEMBERS[character] }, (_, k) =>
        user(
          `${subject.protocolId}/member/${k}`,
          guildCreated - (k + 1) * 3_600_000,
          nameOf(options.seed, subject.protocolId, k),
        ),
      );
      const guild: GuildProfile = {
        index,
        protocolId: subject.protocolId,
        name: subject.name,
        id: msToSnowflake(guildCreated, (1023 << 12) | index),
        createdMs: guildCreated,
        character,
        token: tokenOf(subject.name),
        channels,
        members,
        bots: [
          { ...user(`${subject.protocolId}/bot/levels`, guildCreated + 1000, 'LevelBot'), bot: true },
          { ...user(`${subject.protocolId}/bot/tips`, guildCreated + 2000, 'TipBot'), bot: true },
        ],
        webhook: {
          ...user(`${subject.protocolId}/webhook`, guildCreated + 3000, `${subject.name} Updates`),
          bot: true,
        },
        exploitDays,
        raidDays,
      };
      const categoryId = msToSnowflake(guildCreated + 1, (index * CHANNEL_SPECS.length) << 12);
      CHANNEL_SPECS.forEach((spec, position) => {
        const ordinal = index * CHANNEL_SPECS.length + position;
        const channel: ChannelProfile = {
          id: position === 0 ? categoryId : msToSnowflake(guildCreated + 1 + position, ordinal << 12),
          guild,
          spec,
          ordinal,
          position,
          parentId: position === 0 || spec.role === 'voice' ? null : categoryId,
        };
        channels.push(channel);
        this.channelIndex.set(channel.id, channel);
        this.byOrdinal.set(ordinal, channel);
      });
      guilds.push(guild);
      this.guildIndex.set(guild.id, guild);
    });
    this.guilds = guilds;
  }

  guild(id: string): GuildProfile | undefined {
    return this.guildIndex.get(id);
  }

  guildOf(protocolId: string): GuildProfile | undefined {
    return this.guilds.find((g) => g.protocolId === protocolId);
  }

  channel(id: string): ChannelProfile | undefined {
    return this.channelIndex.get(id);
  }

  /** A thread by id (its parent is in the id's worker bits, its day in its time), if it exists by `nowMs`. */
  thread(id: string, nowMs: number): ThreadRecord | undefined {
    if (!/^\d{1,20}$/.test(id)) return undefined;
    const low = Number(BigInt(id) & 0x3fffffn);
    const parent = this.byOrdinal.get(low >> 12);
    const atMs = snowflakeToMs(id);
    if (!parent || parent.spec.threadsPerMessage === 0 || atMs > nowMs) return undefined;
    return this.channelDay(parent, dayOf(atMs)).threads.find((t) => t.id === id);
  }

  /** Threads of a channel created by `nowMs` with creation day in [fromDay, toDay]. */
  threadsOf(channel: ChannelProfile, fromDay: number, toDay: number, nowMs: number): ThreadRecord[] {
    if (channel.spec.threadsPerMessage === 0) return [];
    const out: ThreadRecord[] = [];
    const first = Math.max(fromDay, dayOf(channel.guild.createdMs));
    for (let day = first; day <= Math.min(toDay, dayOf(nowMs)); day++) {
      for (const t of this.channelDay(channel, day).threads) if (t.createdMs <= nowMs) out.push(t);
    }
    return out;
  }

  /** Messages of a channel (not its threads) posted on `day` and visible at `nowMs`, ascending by id. */
  visibleOfDay(channel: ChannelProfile, day: number, nowMs: number): MessageRecord[] {
    if (day < dayOf(channel.guild.createdMs) || day > dayOf(nowMs)) return [];
    return this.channelDay(channel, day).messages.filter((m) => visible(m, nowMs));
  }

  /** Every message of a channel-day as generated: deleted ones and those after "now" included (ground truth). */
  recordsOfDay(channel: ChannelProfile, day: number): readonly MessageRecord[] {
    if (day < dayOf(channel.guild.createdMs)) return [];
    return this.channelDay(channel, day).messages;
  }

  /**
   * Ground truth: every message of a guild's readable channels and their threads posted in [fromMs, toMs) and
   * visible at `nowMs`, with its labels, ascending by time. The bot cannot read `mod-log`: not included.
   */
  guildMessages(protocolId: string, fromMs: number, toMs: number, nowMs: number): MessageRecord[] {
    const guild = this.guildOf(protocolId);
    if (!guild) return [];
    const out: MessageRecord[] = [];
    const to = Math.min(toMs, nowMs + 1);
    for (const channel of guild.channels) {
      if (channel.spec.hidden || channel.spec.type === 4 || channel.spec.type === 2) continue;
      for (let day = dayOf(fromMs); day <= dayOf(to - 1); day++) {
        for (const m of this.visibleOfDay(channel, day, nowMs)) if (m.atMs >= fromMs && m.atMs < to) out.push(m);
      }
      // Threads started up to two days before the window may still be talking in it.
      for (const t of this.threadsOf(channel, dayOf(fromMs) - 3, dayOf(to - 1), nowMs)) {
        for (const m of t.messages) if (m.atMs >= fromMs && m.atMs < to && visible(m, nowMs)) out.push(m);
      }
    }
    return out.sort((a, b) => a.atMs - b.atMs || (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  private channelDay(channel: ChannelProfile, day: number): ChannelDay {
    const key = `${channel.id}/${day}`;
    let cached = this.memo.get(key);
    if (!cached) {
      cached = generateDay(this, channel, day);
      if (this.memo.size >= MEMO_DAYS) this.memo.delete(this.memo.keys().next().value!);
      this.memo.set(key, cached);
    }
    return cached;
  }
}

export function visible(m: MessageRecord, nowMs: number): boolean {
  return m.atMs <= nowMs && (m.deletedAtMs === undefined || m.deletedAtMs > nowMs);
}

/** Characters over the guilds: every character present, the rest drawn from the seed. */
function assignCharacters(seed: number, n: number): GuildCharacter[] {
  const rng = streamRng(seed, 'discord', 'characters');
  const base: GuildCharacter[] = ['busy', 'busy', 'normal', 'normal', 'quiet', 'quiet', 'declining', 'declining'];
  const out = Array.from({ length: n }, (_, i): GuildCharacter => base[i % base.length]!);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function user(name: string, createdMs: number, username: string): WorldUser {
  return { id: msToSnowflake(Math.max(createdMs, 1_420_070_400_000), stableId(name, 22) - 1), username };
}

const NAME_A = ['crypto', 'degen', 'moon', 'eth', 'sol', 'yield', 'gas', 'block', 'hodl', 'ape', 'anon', 'defi'];
const NAME_B = ['wizard', 'whale', 'farmer', 'ninja', 'panda', 'fox', 'maxi', 'chad', 'bear', 'bull', 'dev', 'otter'];

function nameOf(seed: number, protocolId: string, k: number): string {
  const h = stableId(`${seed}/${protocolId}/name/${k}`, 30);
  return `${NAME_A[h % NAME_A.length]}${NAME_B[(h >> 4) % NAME_B.length]}${h % 1000}`;
}

function tokenOf(name: string): string {
  const letters = name.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return letters.slice(0, Math.min(5, letters.length)) || 'TKN';
}

const USER_KINDS: ReadonlySet<Phrase['kind']> = new Set(['chat', 'question']);
const BY_CATEGORY = new Map<PhraseCategory, Phrase[]>();
const BY_KIND = new Map<Phrase['kind'], Phrase[]>();
for (const p of PHRASES) {
  if (USER_KINDS.has(p.kind)) BY_CATEGORY.set(p.category, [...(BY_CATEGORY.get(p.category) ?? []), p]);
  BY_KIND.set(p.kind, [...(BY_KIND.get(p.kind) ?? []), p]);
}
const CHAT = PHRASES.filter((p) => USER_KINDS.has(p.kind));

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[rng.int(items.length)]!;
}

/** The guild's user traffic in `general` on a day: its character, its decline, its events. */
export function generalRate(guild: GuildProfile, day: number, originDay: number): number {
  let rate = GENERAL_RATE[guild.character];
  if (guild.character === 'declining' && day > originDay) rate *= pow(0.5, (day - originDay) / DECLINE_HALF_LIFE_DAYS);
  if (guild.exploitDays.has(day)) rate *= 3;
  return Math.max(rate, 1);
}

/** Events after the scripted ones: a rare exploit or raid on a later day, drawn per guild-day. */
function liveEvents(world: DiscordWorld, guild: GuildProfile, day: number): { exploit: boolean; raid: boolean } {
  const scripted = { exploit: guild.exploitDays.has(day), raid: guild.raidDays.has(day) };
  const lastScripted = Math.max(...[...guild.exploitDays, ...guild.raidDays, world.originDay + 1]);
  if (day <= lastScripted + 1) return scripted;
  const rng = streamRng(world.seed, 'discord', guild.protocolId, 'events', day);
  return { exploit: scripted.exploit || rng.chance(0.01), raid: scripted.raid || rng.chance(0.015) };
}

/**
 * Messages of one channel on one day (and the threads started in it, with all their messages), from the
 * channel-day's own generator. Ids carry the channel's ordinal in their worker bits and a per-millisecond
 * increment, so they are unique and ordered by time, several messages sharing a millisecond now and then.
 */
function generateDay(world: DiscordWorld, channel: ChannelProfile, day: number): ChannelDay {
  const { guild, spec } = channel;
  if (spec.type === 4 || spec.type === 2) return { messages: [], threads: [] };
  const rng = streamRng(world.seed, 'discord', channel.id, day);
  const events = liveEvents(world, guild, day);
  const base = generalRate(guild, day, world.originDay) * (events.exploit && !guild.exploitDays.has(day) ? 3 : 1);
  const weights = zipfWeights(guild.members.length, 1.05);
  const drafts: Draft[] = [];
  const threads: ThreadRecord[] = [];
  const dayStart = day * DAY_MS;
  const at = () => dayStart + rng.int(DAY_MS);
  const member = () => guild.members[rng.weightedIndex(weights)]!;
  const slots = (author: WorldUser) => ({
    protocol: guild.name,
    token: guild.token,
    user: member().username === author.username ? 'ser' : member().username,
    number: String(1 + rng.int(999)),
  });
  const chat = (author: WorldUser, atMs: number, exploit: boolean): Draft => {
    const leaning = spec.topics.length && rng.chance(spec.lean);
    const pool =
      exploit && rng.chance(0.6)
        ? (BY_CATEGORY.get('Scams and Security') ?? CHAT)
        : leaning
          ? (BY_CATEGORY.get(pick(rng, spec.topics)) ?? CHAT)
          : CHAT;
    const phrase = pick(rng, pool);
    return {
      atMs,
      author,
      type: 0,
      content: renderPhrase(phrase, slots(author)),
      label: { sentiment: phrase.sentiment, category: phrase.category, kind: phrase.kind, spam: false },
    };
  };

  if (spec.role === 'announcements') {
    // The team's webhook feed, and now and then a pinned announcement by a team member with its pin notice.
    const posts = rng.poisson(guild.character === 'quiet' ? 0.3 : 1.2);
    const announcements = BY_KIND.get('announcement') ?? CHAT;
    for (let i = 0; i < posts; i++) {
      const phrase = pick(rng, announcements);
      drafts.push({
        atMs: at(),
        author: guild.webhook,
        type: 0,
        webhookId: guild.webhook.id,
        content: renderPhrase(phrase, slots(guild.webhook)),
        label: { sentiment: phrase.sentiment, category: phrase.category, kind: phrase.kind, spam: false },
      });
    }
    if (rng.chance(0.25)) {
      const phrase = pick(rng, announcements);
      const author = guild.members[0]!;
      const atMs = at();
      const pinned: Draft = {
        atMs,
        author,
        type: 0,
        pinned: true,
        content: renderPhrase(phrase, slots(author)),
        label: { sentiment: phrase.sentiment, category: phrase.category, kind: phrase.kind, spam: false },
      };
      drafts.push(pinned, { atMs: atMs + 5_000 + rng.int(60_000), author, type: 6, content: '', pinOf: pinned });
    }
  } else {
    const n = rng.poisson(base * spec.weight);
    for (let i = 0; i < n; i++) {
      const author = member();
      const draft = chat(author, at(), events.exploit);
      // Same-millisecond neighbours exist on Discord (bursts, bridges); one message in fifty here.
      if (drafts.length && rng.chance(0.02)) draft.atMs = drafts[drafts.length - 1]!.atMs;
      drafts.push(draft);
    }
    if (spec.role === 'general') {
      // Joins (Discord posts them in the system channel), bot chatter, the odd notice from Discord itself.
      const joins = rng.poisson(base * 0.06);
      for (let i = 0; i < joins; i++)
        drafts.push({ atMs: at(), author: newcomer(guild, day, i), type: 7, content: '' });
      const botPosts = rng.poisson(base * 0.05);
      for (let i = 0; i < botPosts; i++) {
        const target = member();
        drafts.push({
          atMs: at(),
          author: pick(rng, guild.bots),
          type: 0,
          content: `GG ${target.username}, you just advanced to level ${2 + rng.int(30)}!`,
          mentions: [target],
        });
      }
      if (rng.chance(0.03)) {
        drafts.push({
          atMs: at(),
          author: { ...DISCORD_SYSTEM_USER, system: true },
          type: 0,
          content: 'Discord will be undergoing scheduled maintenance.',
        });
      }
      if (events.exploit) scamOffers(rng, guild, day, drafts, slots);
      if (events.raid) raid(rng, guild, day, drafts, slots);
    }
  }

  // Nothing before the channel existed (its first day starts at its creation).
  const createdMs = snowflakeToMs(channel.id);
  const messages = finalize(
    rng,
    channel,
    drafts.filter((d) => d.atMs > createdMs && (d.pinOf === undefined || d.pinOf.atMs > createdMs)),
  );
  if (spec.threadsPerMessage > 0) {
    const count = rng.poisson(base * spec.threadsPerMessage * (events.exploit ? 2 : 1));
    // A message starts at most one thread (the thread takes its id).
    const starters = new Set<string>();
    for (let i = 0; i < count; i++) {
      const thread = makeThread(world, channel, day, i, messages, events.exploit, starters);
      starters.add(thread.id);
      threads.push(thread);
    }
  }
  return { messages, threads };
}

interface Draft {
  atMs: number;
  author: WorldUser;
  type: number;
  content: string;
  webhookId?: string;
  mentions?: readonly WorldUser[];
  mentionEveryone?: boolean;
  pinned?: boolean;
  /** The message a pin notice refers to. */
  pinOf?: Draft;
  deleteAfterMs?: number;
  label?: MessageLabel;
}

/** A new account that joined the guild on `day` (raiders and scammers are new accounts). */
function newcomer(guild: GuildProfile, day: number, i: number): WorldUser {
  const name = `${guild.protocolId}/newcomer/${day}/${i}`;
  const h = stableId(name, 24);
  return user(name, day * DAY_MS - (h % 86_400) * 1000, `${NAME_A[h % NAME_A.length]}_${h % 100000}`);
}

/** Scam offers of an exploit day, from new accounts; moderators delete most within minutes. */
function scamOffers(
  rng: Rng,
  guild: GuildProfile,
  day: number,
  drafts: Draft[],
  slots: (a: WorldUser) => Parameters<typeof renderPhrase>[1],
): void {
  const scams = BY_KIND.get('scam') ?? [];
  const n = 10 + rng.int(15);
  for (let i = 0; i < n && scams.length; i++) {
    const author = newcomer(guild, day, 1000 + i);
    const phrase = pick(rng, scams);
    drafts.push({
      atMs: day * DAY_MS + rng.int(DAY_MS),
      author,
      type: 0,
      content: renderPhrase(phrase, slots(author)),
      ...(rng.chance(0.6) ? { deleteAfterMs: 60_000 + rng.int(DELETE_WITHIN_MS - 60_000) } : {}),
      label: { sentiment: phrase.sentiment, category: phrase.category, kind: phrase.kind, spam: true },
    });
  }
}

/** A raid: new accounts join within minutes and post the same spam within the hour, some with mass mentions. */
function raid(
  rng: Rng,
  guild: GuildProfile,
  day: number,
  drafts: Draft[],
  slots: (a: WorldUser) => Parameters<typeof renderPhrase>[1],
): void {
  const spam = BY_KIND.get('spam') ?? [];
  if (!spam.length) return;
  const phrase = pick(rng, spam);
  const start = day * DAY_MS + (2 + rng.int(18)) * 3_600_000;
  const raiders = 25 + rng.int(25);
  const text = renderPhrase(phrase, slots(guild.members[0]!));
  const label: MessageLabel = { sentiment: phrase.sentiment, category: phrase.category, kind: phrase.kind, spam: true };
  for (let i = 0; i < raiders; i++) {
    const author = newcomer(guild, day, 2000 + i);
    const joined = start + rng.int(10 * 60_000);
    drafts.push({ atMs: joined, author, type: 7, content: '' });
    const posts = 1 + rng.int(3);
    for (let k = 0; k < posts; k++) {
      // Bots fire together: a third of the posts land in the millisecond of the previous raider's.
      const previous = drafts.at(-1)!;
      const atMs = previous.type === 0 && rng.chance(0.33) ? previous.atMs : joined + 1000 + rng.int(50 * 60_000);
      const massMention = rng.chance(0.2);
      const mentions = massMention
        ? Array.from({ length: 12 }, () => guild.members[rng.int(guild.members.length)]!)
        : [];
      drafts.push({
        atMs,
        author,
        type: 0,
        content: massMention ? `${mentions.map((m) => `<@${m.id}>`).join(' ')} ${text}` : text,
        mentions,
        mentionEveryone: rng.chance(0.05),
        ...(rng.chance(0.3) ? { deleteAfterMs: 120_000 + rng.int(DELETE_WITHIN_MS - 120_000) } : {}),
        label,
      });
    }
  }
}

/** Orders drafts by time, turns a quarter of user messages into replies, assigns ids. */
function finalize(rng: Rng, channel: ChannelProfile, drafts: Draft[]): MessageRecord[] {
  const order = drafts.map((d, i) => ({ d, i })).sort((a, b) => a.d.atMs - b.d.atMs || a.i - b.i);
  const idOfDraft = new Map<Draft, string>();
  const out: MessageRecord[] = [];
  const previous: MessageRecord[] = [];
  let lastMs = -1;
  let increment = 0;
  for (const { d } of order) {
    increment = d.atMs === lastMs ? increment + 1 : 0;
    lastMs = d.atMs;
    const id = msToSnowflake(d.atMs, (channel.ordinal << 12) | Math.min(increment, 2047));
    idOfDraft.set(d, id);
    const reply =
      d.type === 0 && d.label && !d.label.spam && !d.webhookId && previous.length > 0 && rng.chance(0.25)
        ? previous[previous.length - 1 - rng.int(Math.min(previous.length, 10))]
        : undefined;
    const referenceId = d.pinOf !== undefined ? idOfDraft.get(d.pinOf) : reply?.id;
    const record: MessageRecord = {
      id,
      channelId: channel.id,
      guildId: channel.guild.id,
      atMs: d.atMs,
      author: d.author,
      type: reply ? 19 : d.type,
      content: d.content,
      ...(d.webhookId ? { webhookId: d.webhookId } : {}),
      mentions: reply ? [...(d.mentions ?? []), reply.author] : (d.mentions ?? []),
      mentionEveryone: d.mentionEveryone ?? false,
      pinned: d.pinned ?? false,
      ...(referenceId ? { referenceId } : {}),
      ...(d.deleteAfterMs !== undefined ? { deletedAtMs: d.atMs + d.deleteAfterMs } : {}),
      ...(d.label ? { label: d.label } : {}),
    };
    out.push(record);
    if (record.label && !record.label.spam) previous.push(record);
  }
  return out;
}

/**
 * A thread started on `day`: in `support` from one of the day's messages (the thread takes the message's id), in
 * the forum as a post whose starter message is the thread's first (same id). Replies over the next two days.
 */
function makeThread(
  world: DiscordWorld,
  channel: ChannelProfile,
  day: number,
  index: number,
  parentMessages: readonly MessageRecord[],
  exploit: boolean,
  taken: ReadonlySet<string>,
): ThreadRecord {
  const { guild, spec } = channel;
  const rng = streamRng(world.seed, 'discord', channel.id, day, 'thread', index);
  const weights = zipfWeights(guild.members.length, 1.05);
  const member = () => guild.members[rng.weightedIndex(weights)]!;
  const topic = (): Phrase => {
    const pool =
      exploit && rng.chance(0.5)
        ? (BY_CATEGORY.get('Scams and Security') ?? CHAT)
        : rng.chance(spec.lean)
          ? (BY_CATEGORY.get(pick(rng, spec.topics)) ?? CHAT)
          : CHAT;
    return pick(rng, pool);
  };
  const users = parentMessages.filter(
    (m) => m.type === 0 && m.label && !m.label.spam && !m.webhookId && !taken.has(m.id) && m.deletedAtMs === undefined,
  );
  const forum = spec.type === 15;
  const fromMessage = !forum && users.length > 0 ? users[rng.int(users.length)]! : undefined;
  const startMs = fromMessage ? fromMessage.atMs : day * DAY_MS + rng.int(DAY_MS);
  // Thread ids live in the 2048+ increments of their parent's ordinal, apart from the parent's own messages.
  const threadLow = (channel.ordinal << 12) | (2048 + (index % 1024));
  const id = fromMessage ? fromMessage.id : msToSnowflake(startMs, threadLow);
  const owner = fromMessage ? fromMessage.author : member();
  const slots = (author: WorldUser) => ({
    protocol: guild.name,
    token: guild.token,
    user: author === owner ? member().username : owner.username,
    number: String(1 + rng.int(999)),
  });
  const starterPhrase = topic();
  const messages: MessageRecord[] = [];
  const label = (p: Phrase): MessageLabel => ({
    sentiment: p.sentiment,
    category: p.category,
    kind: p.kind,
    spam: false,
  });
  if (forum) {
    messages.push({
      id,
      channelId: id,
      guildId: guild.id,
      atMs: startMs,
      author: owner,
      type: 0,
      content: renderPhrase(starterPhrase, slots(owner)),
      mentions: [],
      mentionEveryone: false,
      pinned: false,
      label: label(starterPhrase),
    });
  }
  const replies = 1 + rng.poisson(forum ? 6 : 4);
  const times = Array.from({ length: replies }, () => startMs + 1000 + rng.int(2 * DAY_MS)).sort((a, b) => a - b);
  let lastMs = -1;
  let increment = 0;
  for (const atMs of times) {
    increment = atMs === lastMs ? increment + 1 : 0;
    lastMs = atMs;
    const author = rng.chance(0.35) ? owner : member();
    const phrase = topic();
    messages.push({
      // Replies take the 3072+ increments: apart from the parent's messages and from thread ids.
      id: msToSnowflake(atMs, (channel.ordinal << 12) | (3072 + ((index * 7 + increment) % 1024))),
      channelId: id,
      guildId: guild.id,
      atMs,
      author,
      type: 0,
      content: renderPhrase(phrase, slots(author)),
      mentions: [],
      mentionEveryone: false,
      pinned: false,
      label: label(phrase),
    });
  }
  const name = (fromMessage?.content ?? messages[0]!.content).slice(0, 60) || 'thread';
  return {
    id,
    name,
    guildId: guild.id,
    parentId: channel.id,
    type: 11,
    ownerId: owner.id,
    createdMs: startMs,
    messages,
    archiveMs: messages.at(-1)!.atMs + AUTO_ARCHIVE_MS,
  };
}
