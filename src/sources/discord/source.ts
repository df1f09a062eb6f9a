import type { Static, TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { schemaMismatch } from '../schema-mismatch.js';
import {
  createDiscordClient,
  DiscordAccessError,
  type DiscordClient,
  type DiscordClientOptions,
  DiscordNotFoundError,
  DiscordSchemaError,
} from './client.js';
import {
  CHANNEL_TYPE,
  DiscordChannel,
  DiscordGuild,
  DiscordMessage,
  DiscordThreadList,
  DiscordUser,
  MESSAGE_TYPE,
} from './schemas.js';
import { compareSnowflakes } from './snowflake.js';

/**
 * What the community area reads from Discord, as typed, validated lists: the bot's guilds, a guild's channels and
 * threads, and a channel's messages paged forward from a checkpoint. Discord returns every page newest first,
 * whether asked `after` or `before` an id; the source re-orders each page oldest first, drops ids it has already
 * yielded (de-duplication by id) and moves its cursor to the newest id, so an ingest that stores the cursor with
 * what it wrote resumes exactly there.
 */

/** Discord's largest page of messages. */
export const MESSAGES_PER_PAGE = 100;
/** Discord's largest page of `GET /users/@me/guilds`. */
const GUILDS_PER_PAGE = 200;
/** Discord's largest page of archived threads. */
const THREADS_PER_PAGE = 100;

interface Checker<T extends TSchema> {
  readonly route: string;
  readonly check: TypeCheck<T>;
}

function checker<T extends TSchema>(route: string, schema: T): Checker<T> {
  return { route, check: TypeCompiler.Compile(schema) };
}

function validate<T extends TSchema>(c: Checker<T>, data: unknown): Static<T> {
  if (c.check.Check(data)) return data;
  const { path, message } = schemaMismatch(c.check, data);
  throw new DiscordSchemaError(c.route, path, message);
}

const ROUTE = {
  me: 'GET /users/@me',
  guilds: 'GET /users/@me/guilds',
  channels: 'GET /guilds/{guild.id}/channels',
  activeThreads: 'GET /guilds/{guild.id}/threads/active',
  archivedThreads: 'GET /channels/{channel.id}/threads/archived/public',
  messages: 'GET /channels/{channel.id}/messages',
} as const;

const CHECK = {
  me: checker(ROUTE.me, DiscordUser),
  guilds: checker(ROUTE.guilds, Type.Array(DiscordGuild)),
  channels: checker(ROUTE.channels, Type.Array(DiscordChannel)),
  activeThreads: checker(ROUTE.activeThreads, DiscordThreadList),
  archivedThreads: checker(ROUTE.archivedThreads, DiscordThreadList),
  messages: checker(ROUTE.messages, Type.Array(DiscordMessage)),
};

/** Channel types whose messages count for a protocol: text, announcement, forum (its posts are threads). */
export const READ_CHANNEL_TYPES: ReadonlySet<number> = new Set([
  CHANNEL_TYPE.GUILD_TEXT,
  CHANNEL_TYPE.GUILD_ANNOUNCEMENT,
  CHANNEL_TYPE.GUILD_FORUM,
]);
export const THREAD_TYPES: ReadonlySet<number> = new Set([
  CHANNEL_TYPE.ANNOUNCEMENT_THREAD,
  CHANNEL_TYPE.PUBLIC_THREAD,
  CHANNEL_TYPE.PRIVATE_THREAD,
]);

/** One page of a channel's messages, oldest first, and the cursor after it. */
export interface MessagePage {
  readonly messages: readonly DiscordMessage[];
  /** The newest id read so far: `after` of the next page, the checkpoint to store with this page's facts. */
  readonly cursor: string;
}

export interface MessagesAfterOptions {
  /** Exclusive lower bound: a stored cursor, or `snowflakeBefore(startMs)` for a first read. */
  readonly after: string;
  /** Exclusive upper bound: messages at or after it are not yielded and end the reading (default none). */
  readonly before?: string;
  /** Page size (default and maximum 100). */
  readonly limit?: number;
}

/**
 * Whether a message's text is hidden from this bot: Discord empties `content` (and embeds, attachments, components)
 * for a bot without the message-content intent, except on its own messages and those that mention it. A user
 * message (type 0 or 19) with no text, no embed, no attachment and no sticker cannot be posted, so one such
 * message means the text is being withheld.
 */
export function contentWithheld(message: DiscordMessage, botUserId: string | undefined): boolean {
  if (message.type !== MESSAGE_TYPE.DEFAULT && message.type !== MESSAGE_TYPE.REPLY) return false;
  if (message.content !== '') return false;
  if (botUserId !== undefined && message.author.id === botUserId) return false;
  if (botUserId !== undefined && message.mentions.some((u) => u.id === botUserId)) return false;
  return message.embeds.length === 0 && message.attachments.length === 0 && (message.sticker_items?.length ?? 0) === 0;
}

/** What a source saw of message text: visible, withheld (no message-content intent), or nothing to judge yet. */
export class ContentVisibility {
  /** User messages that must have text (see `contentWithheld`). */
  judged = 0;
  withheld = 0;

  constructor(private readonly botUserId: string | undefined) {}

  observe(messages: readonly DiscordMessage[]): void {
    for (const m of messages) {
      if (m.type !== MESSAGE_TYPE.DEFAULT && m.type !== MESSAGE_TYPE.REPLY) continue;
      if (this.botUserId !== undefined && m.author.id === this.botUserId) continue;
      if (m.embeds.length || m.attachments.length || m.sticker_items?.length) continue;
      this.judged++;
      if (contentWithheld(m, this.botUserId)) this.withheld++;
    }
  }

  /**
   * `true` when some user message had text, `false` when every judged one came empty (the intent is missing),
   * `undefined` before any was judged.
   */
  get contentVisible(): boolean | undefined {
    if (this.judged === 0) return undefined;
    return this.withheld < this.judged;
  }
}

export class DiscordSource {
  readonly client: DiscordClient;

  constructor(options: DiscordClientOptions) {
    this.client = createDiscordClient(options);
  }

  get stats() {
    return this.client.stats;
  }

  /** The bot's own user (its id tells its own messages apart). */
  async getCurrentUser(): Promise<DiscordUser> {
    return validate(CHECK.me, await this.client.get({ route: ROUTE.me, path: '/users/@me' }));
  }

  /** Every guild the bot is a member of (paged by id, 200 a page). */
  async listGuilds(): Promise<DiscordGuild[]> {
    const out: DiscordGuild[] = [];
    const seen = new Set<string>();
    let after: string | undefined;
    for (;;) {
      const page = validate(
        CHECK.guilds,
        await this.client.get({
          route: ROUTE.guilds,
          path: '/users/@me/guilds',
          query: { limit: GUILDS_PER_PAGE, after },
        }),
      );
      const fresh = page.filter((g) => !seen.has(g.id));
      for (const g of fresh) seen.add(g.id);
      out.push(...fresh);
      if (page.length < GUILDS_PER_PAGE || fresh.length === 0) break;
      after = page.map((g) => g.id).reduce((a, b) => (compareSnowflakes(a, b) >= 0 ? a : b));
    }
    return out.sort((a, b) => compareSnowflakes(a.id, b.id));
  }

  /** A guild's channels (every type; categories included). */
  async listChannels(guildId: string): Promise<DiscordChannel[]> {
    return validate(
      CHECK.channels,
      await this.client.get({ route: ROUTE.channels, path: `/guilds/${guildId}/channels`, major: guildId }),
    );
  }

  /** The guild's active (not archived) threads, of every channel the bot can see. */
  async listActiveThreads(guildId: string): Promise<DiscordChannel[]> {
    const list = validate(
      CHECK.activeThreads,
      await this.client.get({
        route: ROUTE.activeThreads,
        path: `/guilds/${guildId}/threads/active`,
        major: guildId,
      }),
    );
    return list.threads;
  }

  /**
   * A channel's archived public threads (forum posts included) archived at or after `sinceMs` (all when absent),
   * newest archived first, paged by archive time.
   */
  async listArchivedThreads(channelId: string, sinceMs?: number): Promise<DiscordChannel[]> {
    const out: DiscordChannel[] = [];
    const seen = new Set<string>();
    let before: string | undefined;
    for (;;) {
      const list = validate(
        CHECK.archivedThreads,
        await this.client.get({
          route: ROUTE.archivedThreads,
          path: `/channels/${channelId}/threads/archived/public`,
          query: { limit: THREADS_PER_PAGE, before },
          major: channelId,
        }),
      );
      let older = false;
      for (const t of list.threads) {
        const archivedMs = Date.parse(t.thread_metadata?.archive_timestamp ?? '');
        if (sinceMs !== undefined && archivedMs < sinceMs) {
          older = true;
          continue;
        }
        if (!seen.has(t.id)) {
          seen.add(t.id);
          out.push(t);
        }
      }
      const last = list.threads.at(-1)?.thread_metadata?.archive_timestamp;
      if (!list.has_more || older || last === undefined || last === before) break;
      before = last;
    }
    return out;
  }

  /**
   * A channel's (or thread's) messages after `options.after`, page by page, each page oldest first. Stops at the
   * first short page (Discord has no more), at an empty one, or at `options.before`.
   */
  async *messagePages(channelId: string, options: MessagesAfterOptions): AsyncGenerator<MessagePage> {
    const limit = Math.min(MESSAGES_PER_PAGE, Math.max(1, options.limit ?? MESSAGES_PER_PAGE));
    let cursor = options.after;
    for (;;) {
      const raw = validate(
        CHECK.messages,
        await this.client.get({
          route: ROUTE.messages,
          path: `/channels/${channelId}/messages`,
          query: { after: cursor, limit },
          major: channelId,
        }),
      );
      const byId = new Map<string, DiscordMessage>();
      for (const m of raw) if (compareSnowflakes(m.id, cursor) > 0) byId.set(m.id, m);
      const ascending = [...byId.values()].sort((a, b) => compareSnowflakes(a.id, b.id));
      const bounded =
        options.before === undefined
          ? ascending
          : ascending.filter((m) => compareSnowflakes(m.id, options.before!) < 0);
      if (ascending.length === 0) return;
      cursor = ascending.at(-1)!.id;
      const reachedBound = bounded.length < ascending.length;
      const newest = bounded.length ? bounded.at(-1)!.id : cursor;
      if (bounded.length) yield { messages: bounded, cursor: reachedBound ? newest : cursor };
      if (reachedBound || raw.length < limit) return;
    }
  }

  /** `messagePages` flattened: every message after `options.after`, oldest first. */
  async *messagesAfter(channelId: string, options: MessagesAfterOptions): AsyncGenerator<DiscordMessage> {
    for await (const page of this.messagePages(channelId, options)) yield* page.messages;
  }

  /**
   * A channel's messages before `before` (newest first, as Discord pages them), back to `stopAt` excluded: the
   * way to look back from "now" when no checkpoint exists.
   */
  async *messagesBefore(
    channelId: string,
    options: { readonly before?: string; readonly stopAt?: string; readonly limit?: number },
  ): AsyncGenerator<DiscordMessage> {
    const limit = Math.min(MESSAGES_PER_PAGE, Math.max(1, options.limit ?? MESSAGES_PER_PAGE));
    let before = options.before;
    const seen = new Set<string>();
    for (;;) {
      const raw = validate(
        CHECK.messages,
        await this.client.get({
          route: ROUTE.messages,
          path: `/channels/${channelId}/messages`,
          query: { before, limit },
          major: channelId,
        }),
      );
      const descending = raw
        .filter((m) => !seen.has(m.id) && (before === undefined || compareSnowflakes(m.id, before) < 0))
        .sort((a, b) => compareSnowflakes(b.id, a.id));
      if (descending.length === 0) return;
      for (const m of descending) {
        if (options.stopAt !== undefined && compareSnowflakes(m.id, options.stopAt) <= 0) return;
        seen.add(m.id);
        yield m;
      }
      before = descending.at(-1)!.id;
      if (raw.length < limit) return;
    }
  }
}

/** A protocol's guild, and how it was found. */
export interface GuildMatch {
  readonly protocolId: string;
  readonly guildId: string;
  readonly guildName: string;
  /** `config`: `DISCORD_GUILDS` names it; `name`: the bot's only guild whose name matches the protocol's. */
  readonly by: 'config' | 'name';
}

/** Why a protocol has no guild to read. */
export interface GuildMiss {
  readonly protocolId: string;
  readonly reason: 'configured guild not joined' | 'no guild of that name' | 'several guilds of that name';
  readonly guildId?: string;
}

const WORDS_AROUND_NAMES = new Set(['official', 'community', 'discord', 'server', 'the', 'hq']);

/** A guild or protocol name reduced for matching: lowercase letters and digits, without words like "Official". */
export function normaliseGuildName(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9 ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !WORDS_AROUND_NAMES.has(w))
    .join('');
}

/**
 * Which guild is which protocol's (docs/standins.md, Discord): the guild `DISCORD_GUILDS` names for it when the bot
 * is a member of it; otherwise the bot's one guild whose name, normalised, equals the protocol's registry name
 * ("Aave", "Aave Official", "the Aave community" all match Aave). Two matching guilds match nothing: a bot invited
 * to an impostor server must not read it by accident.
 */
export function matchGuilds(
  subjects: readonly { readonly protocolId: string; readonly name: string }[],
  guilds: readonly DiscordGuild[],
  configured: ReadonlyMap<string, string> = new Map(),
): { matched: GuildMatch[]; missing: GuildMiss[] } {
  const matched: GuildMatch[] = [];
  const missing: GuildMiss[] = [];
  const byId = new Map(guilds.map((g) => [g.id, g]));
  for (const s of subjects) {
    const wanted = configured.get(s.protocolId);
    if (wanted !== undefined) {
      const g = byId.get(wanted);
      if (g) matched.push({ protocolId: s.protocolId, guildId: g.id, guildName: g.name, by: 'config' });
      else missing.push({ protocolId: s.protocolId, reason: 'configured guild not joined', guildId: wanted });
      continue;
    }
    const key = normaliseGuildName(s.name);
    const candidates = guilds.filter((g) => normaliseGuildName(g.name) === key);
    if (candidates.length === 1) {
      matched.push({
        protocolId: s.protocolId,
        guildId: candidates[0]!.id,
        guildName: candidates[0]!.name,
        by: 'name',
      });
    } else {
      missing.push({
        protocolId: s.protocolId,
        reason: candidates.length ? 'several guilds of that name' : 'no guild of that name',
      });
    }
  }
  return { matched, missing };
}

/** What of a guild the community area reads: its text, announcement and forum channels, and their threads. */
export interface GuildReadPlan {
  readonly guildId: string;
  readonly channels: readonly DiscordChannel[];
  /** Active threads and public threads archived since the window's start, of those channels. */
  readonly threads: readonly DiscordChannel[];
  /** Channels whose archived threads the bot may not list (403): their threads are missing from `threads`. */
  readonly denied: readonly { readonly channelId: string; readonly code: number | undefined }[];
}

/** The channels and threads of a guild that may hold a protocol's messages since `sinceMs`. */
export async function planGuildRead(source: DiscordSource, guildId: string, sinceMs: number): Promise<GuildReadPlan> {
  const all = await source.listChannels(guildId);
  const channels = all.filter((c) => READ_CHANNEL_TYPES.has(c.type));
  const parents = new Set(channels.map((c) => c.id));
  const threads = new Map<string, DiscordChannel>();
  for (const t of await source.listActiveThreads(guildId)) {
    if (t.parent_id && parents.has(t.parent_id)) threads.set(t.id, t);
  }
  const denied: { channelId: string; code: number | undefined }[] = [];
  for (const c of channels) {
    try {
      for (const t of await source.listArchivedThreads(c.id, sinceMs)) threads.set(t.id, t);
    } catch (err) {
      if (err instanceof DiscordAccessError) denied.push({ channelId: c.id, code: err.code });
      else throw err;
    }
  }
  return {
    guildId,
    channels,
    threads: [...threads.values()].sort((a, b) => compareSnowflakes(a.id, b.id)),
    denied,
  };
}

/** What `readGuildMessages` reports, channel by channel. */
export type GuildReadEvent =
  /** A page of a channel or thread, oldest first: store its facts and `page.cursor` for `channel.id` together. */
  | { readonly kind: 'page'; readonly channel: DiscordChannel; readonly page: MessagePage }
  /** The channel or thread was read to its end (or to `before`); `cursor` is where a next run starts. */
  | { readonly kind: 'done'; readonly channel: DiscordChannel; readonly cursor: string }
  /** The bot may not read it (403: 50001 Missing Access, 50013) or it is gone (404): coverage, not a failure. */
  | {
      readonly kind: 'unreadable';
      readonly channel: DiscordChannel;
      readonly status: 403 | 404;
      readonly code: number | undefined;
    };

/**
 * Every message of a guild's planned channels and threads, from each one's stored cursor (`cursors`, by channel or
 * thread id) or else from `startAfter` (e.g. `snowflakeBefore(windowStartMs)`), up to `before`. Forum channels hold
 * no messages of their own: only their posts (threads) are read. Channels are read `channelsAtOnce` at a time
 * (default 1: one after the other, threads after channels, each by id): Discord's message buckets are per channel
 * (5 requests per 5 s), so reading several at once multiplies the pace, up to the client's concurrency and the
 * global limit. Each channel's events stay in its order; channels' events interleave. A run stopped between two
 * events resumes from the cursors stored with the pages: nothing is skipped, and nothing is read twice but the
 * pages in flight on the other channels read at once when it stopped (never taken, so never stored).
 */
export async function* readGuildMessages(
  source: DiscordSource,
  plan: GuildReadPlan,
  options: {
    readonly startAfter: string;
    readonly cursors?: ReadonlyMap<string, string>;
    readonly before?: string;
    readonly channelsAtOnce?: number;
  },
): AsyncGenerator<GuildReadEvent> {
  const targets = [...plan.channels.filter((c) => c.type !== CHANNEL_TYPE.GUILD_FORUM), ...plan.threads];
  const readers = targets.map((channel) => () => readChannel(source, channel, options));
  yield* mergeInTurn(readers, Math.max(1, options.channelsAtOnce ?? 1));
}

/** One channel's (or thread's) events: its pages, then `done`, or `unreadable` when the bot may not read it. */
async function* readChannel(
  source: DiscordSource,
  channel: DiscordChannel,
  options: { readonly startAfter: string; readonly cursors?: ReadonlyMap<string, string>; readonly before?: string },
): AsyncGenerator<GuildReadEvent> {
  const stored = options.cursors?.get(channel.id);
  let cursor = stored !== undefined && compareSnowflakes(stored, options.startAfter) > 0 ? stored : options.startAfter;
  try {
    for await (const page of source.messagePages(channel.id, {
      after: cursor,
      ...(options.before !== undefined ? { before: options.before } : {}),
    })) {
      cursor = page.cursor;
      yield { kind: 'page', channel, page };
    }
  } catch (err) {
    if (err instanceof DiscordAccessError || err instanceof DiscordNotFoundError) {
      yield { kind: 'unreadable', channel, status: err.status as 403 | 404, code: err.code };
      return;
    }
    throw err;
  }
  yield { kind: 'done', channel, cursor };
}

/**
 * The items of several generators, at most `limit` of them running at once (started in the given order), each
 * yielded as it comes. The first failure is thrown once the others' pending steps are settled; stopping early
 * closes the running ones.
 */
async function* mergeInTurn<T>(starts: readonly (() => AsyncGenerator<T>)[], limit: number): AsyncGenerator<T> {
  type Step = { readonly index: number; readonly result?: IteratorResult<T>; readonly error?: unknown };
  const running = new Map<number, { gen: AsyncGenerator<T>; step: Promise<Step> }>();
  const advance = (index: number, gen: AsyncGenerator<T>) => {
    const step = gen.next().then(
      (result): Step => ({ index, result }),
      (error: unknown): Step => ({ index, error }),
    );
    running.set(index, { gen, step });
  };
  let next = 0;
  /** The generator whose item is being yielded (not running meanwhile). */
  let held: AsyncGenerator<T> | undefined;
  const fill = () => {
    while (running.size < limit && next < starts.length) {
      const index = next++;
      advance(index, starts[index]!());
    }
  };
  try {
    fill();
    while (running.size) {
      const step = await Promise.race([...running.values()].map((r) => r.step));
      const { gen } = running.get(step.index)!;
      if ('error' in step) {
        running.delete(step.index);
        throw step.error;
      }
      if (step.result!.done) {
        running.delete(step.index);
        fill();
        continue;
      }
      // The next page of this channel is asked only once this one is taken: a stop after it reads nothing twice.
      running.delete(step.index);
      held = gen;
      yield step.result!.value;
      held = undefined;
      advance(step.index, gen);
    }
  } finally {
    // Stopped early or failed: let the others' requests in flight end, then close them.
    const rest = [...running.values()];
    running.clear();
    await Promise.all(rest.map(async (r) => r.step));
    const gens = [...rest.map((r) => r.gen), ...(held ? [held] : [])];
    await Promise.all(gens.map(async (g) => g.return(undefined).catch(() => undefined)));
  }
}
