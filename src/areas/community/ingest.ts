/**
 * Every read of the community area: each tracked protocol's Discord guild (its text, announcement and forum
 * channels and their threads) and subreddit (new posts and comments), turned into facts. The text of a message
 * lives only here, long enough for the language model (`messageFact`); authors are stored salted-hashed.
 *
 * Coverage: a channel's reading covers [covered_from, covered_to]: from its first read's look-back (moved up to the
 * retention horizon) to the start of its last successful read. A read that fails leaves the coverage as it was and
 * records the error (days beyond it are published with `score: null`, `source_error`); Reddit's listing cap leaves
 * spans unread inside the coverage, stored as gaps (`no_data`).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { DAY, nowSeconds, startOfUtcDay } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import type { DiscordEndpoint } from '../../sources/discord/endpoint.js';
import {
  ContentVisibility,
  type DiscordMessage,
  type DiscordSource,
  MESSAGE_TYPE,
  matchGuilds,
  planGuildRead,
  readGuildMessages,
  snowflakeBefore,
  snowflakeToMs,
} from '../../sources/discord/index.js';
import type { RedditEndpoint } from '../../sources/reddit/endpoint.js';
import {
  type RedditCheckpoint,
  type RedditComment,
  type RedditPost,
  RedditSubredditError,
} from '../../sources/reddit/index.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import { type Exclusion, messageFact, type ReadMessage, type SocialMessageFact } from './facts.js';
import { loadModelLexicon } from './model/lexicon-file.js';
import type { SentimentLexicon } from './model/vader.js';
import { type ChannelState, CommunityRepository, type SocialTarget } from './repo.js';
import type { CommunityTargets } from './targets.js';

/** A first read looks back 9 days: the 7 published days, the running day's 24-hour score window, and a margin. */
export const FIRST_READ_SECONDS = 9 * DAY;
/** Facts older than 10 days are deleted (whole UTC days): no document reads them (compute's look-back is 8 days). */
export const RETAIN_SECONDS = 10 * DAY;
export const retentionHorizon = (now: number) => startOfUtcDay(now - RETAIN_SECONDS);

/**
 * A guild's read is stored every 5,000 messages (with each channel's cursor, the coverage left where it was), and at
 * its end (the coverage moved up): a first read of a large guild that is stopped continues where it was, and never
 * holds more than this many messages' facts in memory.
 */
export const DISCORD_FLUSH_MESSAGES = 5000;
/**
 * Channels of a guild read at once: Discord's message buckets are per channel (5 requests per 5 s), so 4 channels
 * side by side read 4 pages a second, the Discord client's concurrency (4), far below the global 50 a second.
 */
export const DISCORD_CHANNELS_AT_ONCE = 4;

/** Checkpoint: the installation's salt for author ids (random, generated once, never served). */
const SALT_KEY = 'community:author-salt';

export class CommunityIngest {
  private lexicon: SentimentLexicon | undefined;

  constructor(
    private readonly targets: CommunityTargets,
    private readonly options: { readonly flushMessages?: number } = {},
  ) {}

  async run(ctx: JobContext): Promise<string> {
    this.lexicon ??= loadModelLexicon();
    const repo = new CommunityRepository(ctx.store.db);
    const salt = await authorSalt(ctx);
    const hash = (channel: string, id: string) =>
      createHmac('sha256', salt).update(`${channel}:${id}`).digest('base64url').slice(0, 22);
    const failures: string[] = [];
    let messages = 0;
    const done = (n: number) => {
      messages += n;
    };
    if (this.targets.discord) {
      const { endpoint, subjects } = this.targets.discord;
      try {
        done(await this.readDiscord(ctx, repo, endpoint, subjects, hash, failures));
      } catch (err) {
        failures.push(`discord: ${(err as Error).message}`);
        for (const s of subjects) await repo.recordError('discord', s.protocolId, (err as Error).message, now(ctx));
      }
    }
    if (this.targets.reddit) {
      const { endpoint, subjects } = this.targets.reddit;
      for (const s of subjects) {
        if (ctx.signal.aborted) break;
        try {
          done(await this.readReddit(ctx, repo, endpoint, s, hash));
        } catch (err) {
          failures.push(`reddit ${s.protocolId}: ${(err as Error).message}`);
          await repo.recordError('reddit', s.protocolId, (err as Error).message, now(ctx));
        }
      }
    }
    const summary = `${messages} new messages from ${this.targets.all.length} channels`;
    if (failures.length) throw new Error(`${summary}; ${failures.length} failed: ${failures.slice(0, 3).join('; ')}`);
    return summary;
  }

  private async readDiscord(
    ctx: JobContext,
    repo: CommunityRepository,
    endpoint: DiscordEndpoint,
    subjects: readonly SocialTarget[],
    hash: (channel: string, id: string) => string,
    failures: string[],
  ): Promise<number> {
    const source = endpoint.client;
    const bot = await source.getCurrentUser();
    const { matched, missing } = matchGuilds(subjects, await source.listGuilds(), endpoint.guilds);
    const at = now(ctx);
    for (const miss of missing) {
      const previous = await repo.state('discord', miss.protocolId);
      await repo.write({
        channel: 'discord',
        subject: miss.protocolId,
        state: {
          source: miss.guildId ? { guild_id: miss.guildId } : {},
          readable: false,
          contentVisible: previous?.contentVisible ?? null,
          unreadableReason: miss.reason,
          coveredFrom: previous?.coveredFrom ?? null,
          coveredTo: previous?.coveredTo ?? null,
          cursors: previous?.cursors ?? {},
          lastError: null,
        },
        messages: [],
        gaps: [],
        horizon: retentionHorizon(at),
        at,
      });
    }
    let total = 0;
    for (const m of matched) {
      if (ctx.signal.aborted) break;
      try {
        total += await this.readGuild(ctx, repo, source, m.protocolId, m.guildId, bot.id, hash);
      } catch (err) {
        failures.push(`discord ${m.protocolId}: ${(err as Error).message}`);
        await repo.recordError('discord', m.protocolId, (err as Error).message, now(ctx));
      }
    }
    return total;
  }

  private async readGuild(
    ctx: JobContext,
    repo: CommunityRepository,
    source: DiscordSource,
    subject: string,
    guildId: string,
    botId: string,
    hash: (channel: string, id: string) => string,
  ): Promise<number> {
    const at = now(ctx);
    const previous = await repo.state('discord', subject);
    const coveredFrom = Math.max(previous?.coveredFrom ?? at - FIRST_READ_SECONDS, retentionHorizon(at));
    const plan = await planGuildRead(source, guildId, coveredFrom * 1000);
    const stored = (previous?.cursors ?? {}) as Record<string, string>;
    const cursors = new Map(Object.entries(stored));
    const visibility = new ContentVisibility(botId);
    let facts: SocialMessageFact[] = [];
    let total = 0;
    const unreadable = new Set<string>();
    const flushAt = this.options.flushMessages ?? DISCORD_FLUSH_MESSAGES;
    const visible = () => visibility.contentVisible ?? previous?.contentVisible ?? null;
    const readSource = () => ({
      guild_id: guildId,
      channels: [...plan.channels, ...plan.threads].map((c) => c.id).filter((id) => !unreadable.has(id)),
    });
    /**
     * Stores the facts read so far with every channel's cursor. Until the read ends the coverage stays where it was
     * (none on a first read): nothing is published of a guild read in part, and a stopped read resumes from here.
     */
    const flush = async (finished: boolean) => {
      const state: ChannelState = {
        source: readSource(),
        readable: true,
        contentVisible: visible(),
        unreadableReason: null,
        coveredFrom: finished ? coveredFrom : (previous?.coveredFrom ?? null),
        coveredTo: finished ? at : (previous?.coveredTo ?? null),
        cursors: Object.fromEntries(cursors),
        lastError: finished ? null : (previous?.lastError ?? null),
      };
      await repo.write({
        channel: 'discord',
        subject,
        state,
        messages: facts,
        gaps: [],
        horizon: retentionHorizon(at),
        at: now(ctx),
      });
      total += facts.length;
      facts = [];
    };
    for await (const event of readGuildMessages(source, plan, {
      startAfter: snowflakeBefore(coveredFrom * 1000),
      cursors,
      before: snowflakeBefore(at * 1000),
      channelsAtOnce: DISCORD_CHANNELS_AT_ONCE,
    })) {
      if (event.kind === 'page') {
        visibility.observe(event.page.messages);
        for (const msg of event.page.messages) facts.push(this.discordFact(msg, botId, hash));
        cursors.set(event.channel.id, event.page.cursor);
        if (facts.length >= flushAt) await flush(false);
      } else if (event.kind === 'done') {
        cursors.set(event.channel.id, event.cursor);
      } else {
        // Missing access or gone: not part of what is read (and listed), not a failure of the guild's read.
        unreadable.add(event.channel.id);
      }
      if (ctx.signal.aborted) {
        // Stopped: what was read is kept with its cursors, the coverage not moved; the next run continues.
        await flush(false);
        return total;
      }
    }
    await flush(true);
    return total;
  }

  private discordFact(
    m: DiscordMessage,
    botId: string,
    hash: (channel: string, id: string) => string,
  ): SocialMessageFact {
    const excluded: Exclusion | null = m.author.bot
      ? 'bot'
      : m.author.system
        ? 'system'
        : m.webhook_id !== undefined
          ? 'webhook'
          : m.type !== MESSAGE_TYPE.DEFAULT && m.type !== MESSAGE_TYPE.REPLY
            ? 'message_type'
            : null;
    const withheld =
      m.content === '' &&
      m.author.id !== botId &&
      !m.mentions.some((u) => u.id === botId) &&
      m.embeds.length === 0 &&
      m.attachments.length === 0 &&
      (m.sticker_items?.length ?? 0) === 0;
    const read: ReadMessage = {
      id: m.id,
      at: Math.floor(snowflakeToMs(m.id) / 1000),
      author: hash('discord', m.author.id),
      excluded,
      text: withheld ? null : m.content,
    };
    return messageFact(read, this.lexicon!);
  }

  private async readReddit(
    ctx: JobContext,
    repo: CommunityRepository,
    endpoint: RedditEndpoint,
    target: SocialTarget,
    hash: (channel: string, id: string) => string,
  ): Promise<number> {
    const source = endpoint.client;
    const subreddit = endpoint.subredditFor(target.protocolId);
    const at = now(ctx);
    const horizon = retentionHorizon(at);
    const previous = await repo.state('reddit', target.protocolId);
    const coveredFrom = Math.max(previous?.coveredFrom ?? at - FIRST_READ_SECONDS, horizon);
    const base = { channel: 'reddit' as const, subject: target.protocolId, horizon, at };
    let name = subreddit;
    try {
      name = (await source.about(subreddit)).display_name;
    } catch (err) {
      if (!(err instanceof RedditSubredditError)) throw err;
      await repo.write({
        ...base,
        state: {
          source: { subreddit },
          readable: false,
          contentVisible: true,
          unreadableReason: err.reason,
          coveredFrom: previous?.coveredFrom ?? null,
          coveredTo: previous?.coveredTo ?? null,
          cursors: previous?.cursors ?? {},
          lastError: null,
        },
        messages: [],
        gaps: [],
      });
      return 0;
    }
    const cursors = { ...((previous?.cursors ?? {}) as Record<string, RedditCheckpoint>) };
    const facts: SocialMessageFact[] = [];
    const gaps: { from: number; to: number }[] = [];
    for (const kind of ['posts', 'comments'] as const) {
      const options = {
        sinceUtc: coveredFrom,
        ...(cursors[kind] ? { checkpoint: cursors[kind] } : {}),
      };
      for await (const batch of source.read(subreddit, kind, options)) {
        for (const item of batch.items) facts.push(this.redditFact(item, kind, hash));
        cursors[kind] = batch.checkpoint;
        if (batch.done && batch.coverage?.missing) {
          gaps.push({ from: Math.floor(batch.coverage.missing.fromUtc), to: Math.ceil(batch.coverage.missing.toUtc) });
        }
      }
    }
    await repo.write({
      ...base,
      state: {
        source: { subreddit: name },
        readable: true,
        contentVisible: true,
        unreadableReason: null,
        coveredFrom,
        coveredTo: at,
        cursors,
        lastError: null,
      },
      messages: facts,
      gaps,
    });
    return facts.length;
  }

  private redditFact(
    item: RedditPost | RedditComment,
    kind: 'posts' | 'comments',
    hash: (channel: string, id: string) => string,
  ): SocialMessageFact {
    const removed = (item.removed_by_category ?? null) !== null || (item.banned_by ?? null) !== null;
    const excluded: Exclusion | null =
      item.author === 'AutoModerator'
        ? 'automoderator'
        : item.author === '[deleted]'
          ? 'deleted'
          : removed
            ? 'removed'
            : null;
    const official = item.distinguished === 'moderator' || item.stickied === true;
    const text =
      kind === 'posts'
        ? `${(item as RedditPost).title}\n${(item as RedditPost).selftext}`
        : (item as RedditComment).body;
    return messageFact(
      {
        id: item.name,
        at: Math.floor(item.created_utc),
        author: hash('reddit', item.author_fullname ?? item.author),
        excluded,
        official,
        text,
      },
      this.lexicon!,
    );
  }
}

const now = (ctx: JobContext) => nowSeconds(ctx.clock);

/** The installation's salt for author ids: generated once and kept in a checkpoint (never served, never logged). */
async function authorSalt(ctx: JobContext): Promise<string> {
  const stored = await readCheckpoint<string>(ctx.store.db, SALT_KEY);
  if (stored) return stored;
  const salt = randomBytes(32).toString('hex');
  await writeCheckpoint(ctx.store.db, SALT_KEY, salt, now(ctx));
  return (await readCheckpoint<string>(ctx.store.db, SALT_KEY)) ?? salt;
}
