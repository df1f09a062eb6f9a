import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { registry, type SocialSubject } from '../../../registry/index.js';
import { snowflakeToMs } from '../../../sources/discord/snowflake.js';
import { FaultInjector, type FaultRates } from '../base/faults.js';
import { dayOf } from '../base/generate.js';
import {
  HttpError,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinOptions,
  type StandinRequest,
  type StandinResponse,
  type StandinService,
  type StandinStats,
  startStandin,
} from '../base/server.js';
import {
  type ChannelProfile,
  DiscordWorld,
  type GuildProfile,
  type MessageRecord,
  SANDBOX_BOT,
  type ThreadRecord,
  visible,
  type WorldUser,
} from './world.js';

/**
 * The Discord stand-in: the part of Discord's HTTP API v10 that `sources/discord` reads, serving the generated
 * `DiscordWorld` in Discord's wire format: `Authorization: Bot <token>` (401 otherwise), snowflake ids as strings,
 * `GET /channels/{id}/messages` paged with `after`/`before` (1–100, default 50, newest first always), thread lists,
 * JSON error codes (50001 Missing Access, 10003 Unknown Channel, 10004 Unknown Guild), per-route buckets with
 * `X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket` per token and major parameter, a global limit per token
 * (`X-RateLimit-Global`, 429 with `"global": true`), and 429 bodies whose `retry_after` is in seconds (a float).
 * A token without the message-content intent gets messages with empty `content` (except the bot's own and those
 * that mention it), as Discord serves them. See docs/standins.md.
 */

/** The bot token of the sandbox: the message-content intent is granted. */
export const SANDBOX_DISCORD_TOKEN = 'sandbox-discord-bot';
/** A second bot token of the sandbox, without the message-content intent (tests). */
export const SANDBOX_DISCORD_TOKEN_NO_CONTENT = 'sandbox-discord-bot-no-content';

/** A rare 5xx in the sandbox, and now and then a shared-resource 429 of a fraction of a second. */
export const SANDBOX_DISCORD_FAULTS: FaultRates = {
  serverError: 0.005,
  secondaryLimit: 0.002,
  secondaryRetryAfterSeconds: 1,
};

export interface BucketLimit {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Per-route buckets (by token and major parameter): Discord does not publish them and may change them; these are
 * of the order its headers announce for a bot (one guild list a second, a few reads per channel a few seconds).
 */
export const DISCORD_BUCKETS: Readonly<Record<string, BucketLimit>> = {
  me: { limit: 5, windowSeconds: 5 },
  guilds: { limit: 1, windowSeconds: 1 },
  guild: { limit: 5, windowSeconds: 5 },
  channel: { limit: 5, windowSeconds: 5 },
  threads: { limit: 5, windowSeconds: 5 },
  messages: { limit: 5, windowSeconds: 5 },
};

/** Discord's global limit: requests a second per bot token. */
export const DISCORD_GLOBAL_PER_SECOND = 50;

const ERROR_CODES: Record<string, number> = {
  '401: Unauthorized': 0,
  'Missing Access': 50001,
  'Unknown Channel': 10003,
  'Unknown Guild': 10004,
  'Invalid Form Body': 50035,
};

function discordDialect(tokens: ReadonlyMap<string, TokenGrant>): StandinDialect {
  return {
    // Not the base's fixed windows: buckets and the global limit are counted per route by `DiscordLimits`.
    defaultResource: 'discord',
    commonHeaders: { 'content-type': 'application/json', via: '1.1 google' },
    errorBody: (status, message) =>
      status >= 500 ? { message: '500: Internal Server Error', code: 0 } : { message, code: ERROR_CODES[message] ?? 0 },
    identify: (headers: IncomingHttpHeaders) => {
      const value = headers.authorization;
      if (value === undefined) return undefined;
      const m = /^Bot\s+(\S+)$/.exec(value.trim());
      if (!m || !tokens.has(m[1]!)) throw new HttpError(401, '401: Unauthorized');
      return m[1]!;
    },
    rateLimitHeaders: () => ({}),
    // Never reached: the base's windows never run out for this service, and its faults are drawn by the routes
    // (`DiscordFaults`), which know the route whose headers a shared 429 carries.
    primaryLimited: () => ({ status: 500, body: { message: 'unreachable', code: 0 } }),
    secondaryLimited: () => ({ status: 500, body: { message: 'unreachable', code: 0 } }),
  };
}

export interface TokenGrant {
  readonly contentIntent: boolean;
}

interface Window {
  used: number;
  resetMs: number;
}

/** Buckets and the global limit, counted on the stand-in's clock. */
export class DiscordLimits {
  private readonly windows = new Map<string, Window>();
  private readonly globals = new Map<string, Window>();
  /** 429s answered: on a bucket, on the global limit. */
  readonly answered = { bucket: 0, global: 0 };

  constructor(
    public buckets: Readonly<Record<string, BucketLimit>> = DISCORD_BUCKETS,
    public globalPerSecond = DISCORD_GLOBAL_PER_SECOND,
  ) {}

  /** Counts a request; a 429 answer when a limit is exhausted, else the bucket's headers. */
  take(
    token: string,
    bucket: string,
    major: string,
    nowMs: number,
  ): { refused?: StandinResponse; headers: Record<string, string> } {
    const global = this.window(this.globals, token, 1000, nowMs);
    if (global.used >= this.globalPerSecond) {
      this.answered.global++;
      const retryAfter = (global.resetMs - nowMs) / 1000;
      return {
        refused: {
          status: 429,
          body: { message: 'You are being rate limited.', retry_after: retryAfter, global: true, code: 0 },
          headers: {
            'retry-after': String(Math.ceil(retryAfter)),
            'x-ratelimit-global': 'true',
            'x-ratelimit-scope': 'global',
          },
        },
        headers: {},
      };
    }
    const def = this.buckets[bucket] ?? { limit: 5, windowSeconds: 5 };
    const w = this.window(this.windows, `${token}\u0000${bucket}\u0000${major}`, def.windowSeconds * 1000, nowMs);
    const headersOf = (remaining: number) => this.bucketHeaders(bucket, def, w, remaining, nowMs);
    if (w.used >= def.limit) {
      this.answered.bucket++;
      const retryAfter = Math.max(0, (w.resetMs - nowMs) / 1000);
      return {
        refused: {
          status: 429,
          body: { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
          headers: { ...headersOf(0), 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-scope': 'user' },
        },
        headers: {},
      };
    }
    global.used++;
    w.used++;
    return { headers: headersOf(def.limit - w.used) };
  }

  /**
   * A shared-resource 429 (`X-RateLimit-Scope: shared`: the resource is busy, whatever this bot's own use): with the
   * route's bucket headers, as Discord's docs say every 429 carries, the bucket not counted.
   */
  shared(token: string, bucket: string, major: string, retryAfter: number, nowMs: number): StandinResponse {
    const def = this.buckets[bucket] ?? { limit: 5, windowSeconds: 5 };
    const w = this.window(this.windows, `${token}\u0000${bucket}\u0000${major}`, def.windowSeconds * 1000, nowMs);
    return {
      status: 429,
      body: { message: 'The resource is being rate limited.', retry_after: retryAfter, global: false },
      headers: {
        ...this.bucketHeaders(bucket, def, w, def.limit - w.used, nowMs),
        'retry-after': String(Math.ceil(retryAfter)),
        'x-ratelimit-scope': 'shared',
      },
    };
  }

  private bucketHeaders(bucket: string, def: BucketLimit, w: Window, remaining: number, nowMs: number) {
    const resetAfter = Math.max(0, (w.resetMs - nowMs) / 1000);
    return {
      'x-ratelimit-limit': String(def.limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': (w.resetMs / 1000).toFixed(3),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': bucketHash(bucket),
    };
  }

  private window(map: Map<string, Window>, key: string, lengthMs: number, nowMs: number): Window {
    let w = map.get(key);
    if (!w || w.resetMs <= nowMs) {
      w = { used: 0, resetMs: nowMs + lengthMs };
      map.set(key, w);
    }
    return w;
  }
}

/** Discord's bucket ids are opaque hashes; these are stable per bucket name. */
function bucketHash(bucket: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bucket.length; i++) h = Math.imul(h ^ bucket.charCodeAt(i), 0x01000193);
  return `${(h >>> 0).toString(16).padStart(8, '0')}${bucket.length.toString(16).padStart(2, '0')}d15c0rd`;
}

/** Discord's timestamps: ISO 8601 with microseconds and an explicit offset. */
export function discordTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

function renderUser(u: WorldUser) {
  return {
    id: u.id,
    username: u.username,
    avatar: null,
    discriminator: u.bot ? '0000' : '0',
    public_flags: 0,
    flags: 0,
    global_name: u.bot || u.system ? null : u.username,
    ...(u.bot ? { bot: true } : {}),
    ...(u.system ? { system: true } : {}),
  };
}

function renderMessage(m: MessageRecord, grant: TokenGrant, position?: number) {
  const mentionsBot = m.mentions.some((u) => u.id === SANDBOX_BOT.id);
  const hide = !grant.contentIntent && m.author.id !== SANDBOX_BOT.id && !mentionsBot;
  return {
    type: m.type,
    content: hide ? '' : m.content,
    mentions: m.mentions.map(renderUser),
    mention_roles: [],
    attachments: [],
    embeds: [],
    timestamp: discordTime(m.atMs),
    edited_timestamp: null,
    flags: 0,
    components: [],
    id: m.id,
    channel_id: m.channelId,
    author: renderUser(m.author),
    pinned: m.pinned,
    mention_everyone: m.mentionEveryone,
    tts: false,
    ...(m.webhookId ? { webhook_id: m.webhookId } : {}),
    ...(m.referenceId
      ? { message_reference: { type: 0, channel_id: m.channelId, message_id: m.referenceId, guild_id: m.guildId } }
      : {}),
    ...(position === undefined ? {} : { position }),
  };
}

function renderChannel(c: ChannelProfile, lastMessageId: string | null) {
  return {
    id: c.id,
    type: c.spec.type,
    guild_id: c.guild.id,
    name: c.spec.name,
    position: c.position,
    parent_id: c.parentId,
    flags: 0,
    nsfw: false,
    permission_overwrites: c.spec.hidden ? [{ id: c.guild.id, type: 0, allow: '0', deny: '1024' }] : [],
    ...(c.spec.type === 0 || c.spec.type === 5 || c.spec.type === 15
      ? { last_message_id: lastMessageId, rate_limit_per_user: 0, topic: null }
      : {}),
    ...(c.spec.type === 15
      ? { available_tags: [], default_reaction_emoji: null, default_sort_order: null, default_forum_layout: 0 }
      : {}),
  };
}

function renderThread(t: ThreadRecord, nowMs: number) {
  const shown = t.messages.filter((m) => visible(m, nowMs));
  const archived = t.archiveMs <= nowMs;
  return {
    id: t.id,
    type: t.type,
    guild_id: t.guildId,
    parent_id: t.parentId,
    owner_id: t.ownerId,
    name: t.name,
    last_message_id: shown.at(-1)?.id ?? null,
    message_count: shown.length,
    member_count: Math.min(50, new Set(shown.map((m) => m.author.id)).size),
    total_message_sent: shown.length,
    rate_limit_per_user: 0,
    flags: 0,
    applied_tags: [],
    thread_metadata: {
      archived,
      // Discord: the time the archive status last changed; the creation time for a thread never archived.
      archive_timestamp: discordTime(archived ? t.archiveMs : t.createdMs),
      auto_archive_duration: 1440,
      locked: false,
      create_timestamp: discordTime(t.createdMs),
    },
  };
}

/** `limit` as Discord reads it: an integer in [min, max], the default when absent; 400 otherwise. */
function limitParam(req: StandinRequest, min: number, max: number, fallback: number): number {
  const raw = req.query.get('limit');
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new HttpError(400, 'Invalid Form Body');
  return Number(raw);
}

function snowflakeParam(req: StandinRequest, name: string): bigint | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  if (!/^\d{1,20}$/.test(raw)) throw new HttpError(400, 'Invalid Form Body');
  return BigInt(raw);
}

export interface DiscordStandinOptions extends Omit<StandinOptions, 'seed'> {
  readonly seed: number;
  /** Default: `registry.socialSubjects('discord')`. */
  readonly subjects?: readonly SocialSubject[];
  readonly originDay: number;
  /** The world's first history in days (`SANDBOX_DAYS`). */
  readonly days: number;
  /** Accepted bot tokens and their intents; default: the two sandbox tokens. */
  readonly tokens?: ReadonlyMap<string, TokenGrant>;
  readonly buckets?: Readonly<Record<string, BucketLimit>>;
  readonly globalPerSecond?: number;
}

export interface DiscordStandin extends Standin {
  readonly world: DiscordWorld;
  readonly limits: DiscordLimits;
}

/**
 * Faults drawn by the routes rather than the base, so that a shared 429 names its route's bucket: `injector`
 * (scripted and seeded, as the base's), and the stand-in's stats to count them in (set once it listens). A shared
 * 429 holds its resource (token, bucket, major parameter) for its `retry_after`: a request sent meanwhile gets it
 * again and counts as a violation.
 */
export interface DiscordFaults {
  readonly injector: FaultInjector;
  stats?: StandinStats;
}

export function discordRoutes(
  world: DiscordWorld,
  limits: DiscordLimits,
  tokens: ReadonlyMap<string, TokenGrant>,
  faults: DiscordFaults = { injector: new FaultInjector(0, 'discord') },
): RouteDef[] {
  const sharedUntil = new Map<string, number>();
  const tokenOf = (req: StandinRequest): string => {
    const m = /^Bot\s+(\S+)$/.exec(String(req.headers.authorization ?? '').trim());
    if (!req.authenticated || !m) throw new HttpError(401, '401: Unauthorized');
    return m[1]!;
  };
  /** Every route: authentication, then the global limit and the route's bucket, then the handler. */
  const route = (
    routePath: string,
    bucket: string,
    major: (req: StandinRequest) => string,
    handler: (req: StandinRequest, grant: TokenGrant) => StandinResponse,
  ): RouteDef => ({
    method: 'GET',
    path: routePath,
    resource: 'discord',
    handler: (req) => {
      const token = tokenOf(req);
      const resource = `${token}\u0000${bucket}\u0000${major(req)}`;
      const heldMs = (sharedUntil.get(resource) ?? 0) - req.nowMs;
      if (heldMs > 0) {
        if (faults.stats) faults.stats.violations++;
        return limits.shared(token, bucket, major(req), heldMs / 1000, req.nowMs);
      }
      const fault = faults.injector.draw(req.rawPath);
      if (fault && faults.stats) faults.stats.faults++;
      if (fault?.kind === 'server-error') throw new HttpError(fault.status, 'Server Error');
      if (fault?.kind === 'secondary-limit') {
        sharedUntil.set(resource, req.nowMs + fault.retryAfterSeconds * 1000);
        return limits.shared(token, bucket, major(req), fault.retryAfterSeconds, req.nowMs);
      }
      const taken = limits.take(token, bucket, major(req), req.nowMs);
      if (taken.refused) return taken.refused;
      const response = handler(req, tokens.get(token)!);
      return { ...response, headers: { ...taken.headers, ...response.headers } };
    },
  });
  const guildAt = (req: StandinRequest): GuildProfile => {
    const guild = world.guild(req.params.guild!);
    if (!guild || guild.createdMs > req.nowMs) throw new HttpError(404, 'Unknown Guild');
    return guild;
  };
  /** A channel or a thread the bot may read; 403 Missing Access for a hidden one. */
  const readable = (req: StandinRequest): { channel?: ChannelProfile; thread?: ThreadRecord } => {
    const channel = world.channel(req.params.channel!);
    if (channel && channel.guild.createdMs <= req.nowMs) {
      if (channel.spec.hidden) throw new HttpError(403, 'Missing Access');
      return { channel };
    }
    const thread = world.thread(req.params.channel!, req.nowMs);
    if (thread) return { thread };
    throw new HttpError(404, 'Unknown Channel');
  };

  return [
    route(
      '/users/@me',
      'me',
      () => '',
      () => json({ ...renderUser({ ...SANDBOX_BOT, bot: true }), verified: true, mfa_enabled: false }),
    ),
    route(
      '/users/@me/guilds',
      'guilds',
      () => '',
      (req) => {
        const limit = limitParam(req, 1, 200, 200);
        const after = snowflakeParam(req, 'after');
        const before = snowflakeParam(req, 'before');
        let guilds = world.guilds
          .filter((g) => g.createdMs <= req.nowMs)
          .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        if (after !== undefined) guilds = guilds.filter((g) => BigInt(g.id) > after).slice(0, limit);
        else if (before !== undefined) guilds = guilds.filter((g) => BigInt(g.id) < before).slice(-limit);
        else guilds = guilds.slice(0, limit);
        return json(
          guilds.map((g) => ({
            id: g.id,
            name: g.name,
            icon: null,
            banner: null,
            owner: false,
            permissions: '68608',
            features: [],
          })),
        );
      },
    ),
    route(
      '/guilds/:guild/channels',
      'guild',
      (req) => req.params.guild!,
      (req) => {
        const guild = guildAt(req);
        return json(
          guild.channels.map((c) => {
            const last = lastMessageId(world, c, req.nowMs);
            return renderChannel(c, last);
          }),
        );
      },
    ),
    route(
      '/guilds/:guild/threads/active',
      'guild',
      (req) => req.params.guild!,
      (req) => {
        const guild = guildAt(req);
        const today = dayOf(req.nowMs);
        const threads = guild.channels
          .filter((c) => !c.spec.hidden)
          .flatMap((c) => world.threadsOf(c, today - 4, today, req.nowMs))
          .filter((t) => t.archiveMs > req.nowMs);
        return json({ threads: threads.map((t) => renderThread(t, req.nowMs)), members: [] });
      },
    ),
    route(
      '/channels/:channel',
      'channel',
      (req) => req.params.channel!,
      (req) => {
        const { channel, thread } = readable(req);
        return json(
          channel ? renderChannel(channel, lastMessageId(world, channel, req.nowMs)) : renderThread(thread!, req.nowMs),
        );
      },
    ),
    route(
      '/channels/:channel/threads/archived/public',
      'threads',
      (req) => req.params.channel!,
      (req) => {
        const { channel } = readable(req);
        if (!channel) throw new HttpError(404, 'Unknown Channel');
        const limit = limitParam(req, 2, 100, 50);
        const rawBefore = req.query.get('before');
        const beforeMs = rawBefore === null ? req.nowMs + 1 : Date.parse(rawBefore);
        if (Number.isNaN(beforeMs)) throw new HttpError(400, 'Invalid Form Body');
        const archived = world
          .threadsOf(channel, 0, dayOf(req.nowMs), req.nowMs)
          .filter((t) => t.archiveMs <= req.nowMs && t.archiveMs < beforeMs)
          .sort((a, b) => b.archiveMs - a.archiveMs || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
        return json({
          threads: archived.slice(0, limit).map((t) => renderThread(t, req.nowMs)),
          members: [],
          has_more: archived.length > limit,
        });
      },
    ),
    route(
      '/channels/:channel/messages',
      'messages',
      (req) => req.params.channel!,
      (req, grant) => {
        const { channel, thread } = readable(req);
        const limit = limitParam(req, 1, 100, 50);
        const after = snowflakeParam(req, 'after');
        const before = snowflakeParam(req, 'before');
        const around = snowflakeParam(req, 'around');
        if ([after, before, around].filter((x) => x !== undefined).length > 1)
          throw new HttpError(400, 'Invalid Form Body');
        if (around !== undefined) throw new HttpError(400, 'Invalid Form Body');
        const page = thread
          ? pageOfThread(thread, req.nowMs, limit, after, before)
          : pageOfChannel(world, channel!, req.nowMs, limit, after, before);
        // Newest first, always (also when paging forward with `after`), as Discord answers.
        const positions = thread ? new Map(thread.messages.map((m, i) => [m.id, i])) : undefined;
        return json(page.reverse().map((m) => renderMessage(m, grant, positions?.get(m.id))));
      },
    ),
  ];
}

/** Ascending: the `limit` messages right after `after`, or right before `before` (or before now). */
function pageOfChannel(
  world: DiscordWorld,
  channel: ChannelProfile,
  nowMs: number,
  limit: number,
  after: bigint | undefined,
  before: bigint | undefined,
): MessageRecord[] {
  const firstDay = dayOf(channel.guild.createdMs);
  const today = dayOf(nowMs);
  if (after !== undefined) {
    const out: MessageRecord[] = [];
    const start = Math.max(firstDay, dayOf(Math.max(0, Number(after >> 22n) + 1_420_070_400_000)));
    for (let day = start; day <= today && out.length < limit; day++) {
      for (const m of world.visibleOfDay(channel, day, nowMs)) {
        if (BigInt(m.id) > after) out.push(m);
        if (out.length >= limit) break;
      }
    }
    return out;
  }
  const out: MessageRecord[] = [];
  const start = before === undefined ? today : Math.min(today, dayOf(snowflakeToMs(before.toString())));
  for (let day = start; day >= firstDay && out.length < limit; day--) {
    const ofDay = world.visibleOfDay(channel, day, nowMs).filter((m) => before === undefined || BigInt(m.id) < before);
    out.unshift(...ofDay.slice(Math.max(0, ofDay.length - (limit - out.length))));
  }
  return out;
}

function pageOfThread(
  thread: ThreadRecord,
  nowMs: number,
  limit: number,
  after: bigint | undefined,
  before: bigint | undefined,
): MessageRecord[] {
  const shown = thread.messages.filter((m) => visible(m, nowMs));
  if (after !== undefined) return shown.filter((m) => BigInt(m.id) > after).slice(0, limit);
  const older = before === undefined ? shown : shown.filter((m) => BigInt(m.id) < before);
  return older.slice(Math.max(0, older.length - limit));
}

function lastMessageId(world: DiscordWorld, channel: ChannelProfile, nowMs: number): string | null {
  if (channel.spec.type !== 0 && channel.spec.type !== 5) return null;
  for (let day = dayOf(nowMs); day >= dayOf(nowMs) - 7; day--) {
    const last = world.visibleOfDay(channel, day, nowMs).at(-1);
    if (last) return last.id;
  }
  return null;
}

export const DEFAULT_DISCORD_TOKENS: ReadonlyMap<string, TokenGrant> = new Map([
  [SANDBOX_DISCORD_TOKEN, { contentIntent: true }],
  [SANDBOX_DISCORD_TOKEN_NO_CONTENT, { contentIntent: false }],
]);

export function discordService(
  world: DiscordWorld,
  limits: DiscordLimits,
  tokens = DEFAULT_DISCORD_TOKENS,
  faults?: DiscordFaults,
): StandinService {
  return { name: 'discord', routes: discordRoutes(world, limits, tokens, faults), dialect: discordDialect(tokens) };
}

/** Starts the Discord stand-in on loopback. */
export async function startDiscordStandin(options: DiscordStandinOptions): Promise<DiscordStandin> {
  const world = new DiscordWorld({
    seed: options.seed,
    subjects: options.subjects ?? registry.socialSubjects('discord'),
    originDay: options.originDay,
    days: options.days,
  });
  const limits = new DiscordLimits(options.buckets, options.globalPerSecond);
  // The same seeded stream as the base's would be; `standin.faults` is this injector (tests script it).
  const faults: DiscordFaults = { injector: new FaultInjector(options.seed, 'discord', options.faults) };
  // The base's own windows never refuse, and it draws no faults: Discord's limits are `limits`' (per route, major
  // parameter, and global), its faults the routes'.
  const { faults: _rates, ...rest } = options;
  const standin = await startStandin(discordService(world, limits, options.tokens, faults), {
    ...rest,
    rateLimit: { limit: Number.MAX_SAFE_INTEGER, anonymousLimit: Number.MAX_SAFE_INTEGER, windowSeconds: 3600 },
  });
  faults.stats = standin.stats;
  return Object.assign(standin, { world, limits, faults: faults.injector });
}

/**
 * The world's first day, kept under the sandbox's data directory so that the calendar (characters, the exploit and
 * the raid) stays where it was on later starts: the first start of a seed fixes it at `days` before today.
 */
export function worldOriginDay(dir: string, seed: number, days: number, nowMs: number): number {
  const file = path.join(dir, 'world.json');
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { seed?: unknown; originDay?: unknown };
    if (saved.seed === seed && typeof saved.originDay === 'number') return saved.originDay;
  } catch {
    // No world yet (or an unreadable one): a new calendar.
  }
  const originDay = dayOf(nowMs) - days;
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ seed, originDay, days })}\n`);
  return originDay;
}
