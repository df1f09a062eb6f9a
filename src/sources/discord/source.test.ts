import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../registry/index.js';
import {
  type DiscordStandin,
  SANDBOX_DISCORD_TOKEN,
  SANDBOX_DISCORD_TOKEN_NO_CONTENT,
  startDiscordStandin,
} from '../../sandbox/standins/discord/server.js';
import { type ChannelProfile, visible } from '../../sandbox/standins/discord/world.js';
import { DiscordAccessError, DiscordAuthError, DiscordError, DiscordNotFoundError } from './client.js';
import type { DiscordMessage } from './schemas.js';
import { compareSnowflakes, msToSnowflake, snowflakeBefore, snowflakeToMs } from './snowflake.js';
import {
  ContentVisibility,
  contentWithheld,
  DiscordSource,
  matchGuilds,
  normaliseGuildName,
  planGuildRead,
  readGuildMessages,
} from './source.js';

const DAY = 86_400_000;
const START = Date.parse('2026-03-09T12:00:00Z');
const ORIGIN_DAY = Math.floor(START / DAY) - 8;
/** A window wholly in the past (deletions done): its content cannot change while tests move the clock. */
const FROM = START - 7 * DAY;
const UNTIL = START - 2 * 3_600_000;

function testClock() {
  const clock = {
    t: START,
    sleeps: [] as number[],
    nowMs: () => clock.t,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

let standin: DiscordStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

async function setup(options: Partial<Parameters<typeof startDiscordStandin>[0]> = {}) {
  const clock = testClock();
  const dc = await startDiscordStandin({ seed: 7, clock, originDay: ORIGIN_DAY, days: 8, ...options });
  standin = dc;
  const source = (extra: Partial<ConstructorParameters<typeof DiscordSource>[0]> = {}) =>
    new DiscordSource({
      baseUrl: dc.url,
      token: SANDBOX_DISCORD_TOKEN,
      clock,
      sleep: clock.sleep,
      random: () => 0.5,
      ...extra,
    });
  const channelOf = (protocolId: string, role: string): ChannelProfile =>
    dc.world.guildOf(protocolId)!.channels.find((c) => c.spec.role === role)!;
  /** Ground truth of a channel (not its threads) in [fromMs, untilMs), ascending. */
  const truthOf = (channel: ChannelProfile, fromMs = FROM, untilMs = UNTIL) => {
    const out = [];
    for (let day = Math.floor(fromMs / DAY); day <= Math.floor(untilMs / DAY); day++) {
      for (const m of dc.world.visibleOfDay(channel, day, clock.t))
        if (m.atMs >= fromMs && m.atMs < untilMs) out.push(m);
    }
    return out;
  };
  return { clock, dc, source, channelOf, truthOf };
}

async function readAll(source: DiscordSource, channelId: string, after: string, before?: string, limit?: number) {
  const out: DiscordMessage[] = [];
  for await (const m of source.messagesAfter(channelId, {
    after,
    ...(before ? { before } : {}),
    ...(limit ? { limit } : {}),
  }))
    out.push(m);
  return out;
}

const ids = (ms: readonly { id: string }[]) => ms.map((m) => m.id);
/** A busy guild without an exploit or a raid: nothing in it is deleted. */
const busiest = (dc: DiscordStandin) =>
  dc.world.guilds.find((g) => g.character === 'busy' && !g.exploitDays.size && !g.raidDays.size)!.protocolId;

describe('Discord source against the stand-in', () => {
  it('finds the guilds of the registry, their channels and threads, and names what it may not read', async () => {
    const { dc, source, clock } = await setup();
    const src = source();
    const guilds = await src.listGuilds();
    const subjects = registry.socialSubjects('discord');
    expect(guilds.length).toBe(subjects.length);
    const { matched, missing } = matchGuilds(subjects, guilds);
    expect(missing).toEqual([]);
    expect(matched.every((m) => m.by === 'name' && dc.world.guild(m.guildId)?.protocolId === m.protocolId)).toBe(true);

    // DISCORD_GUILDS wins over names; a configured guild the bot is not in is reported, not guessed.
    const busy = dc.world.guildOf(busiest(dc))!;
    const uniswap = dc.world.guildOf('uniswap')!;
    const configured = matchGuilds(
      subjects.filter((s) => s.protocolId === 'aave' || s.protocolId === 'compound'),
      guilds,
      new Map([
        ['aave', uniswap.id],
        ['compound', '123456789012345678'],
      ]),
    );
    expect(configured.matched).toEqual([
      { protocolId: 'aave', guildId: uniswap.id, guildName: 'Uniswap', by: 'config' },
    ]);
    expect(configured.missing).toEqual([
      { protocolId: 'compound', reason: 'configured guild not joined', guildId: '123456789012345678' },
    ]);

    const plan = await planGuildRead(src, busy.id, FROM);
    expect(plan.channels.map((c) => c.name).sort()).toEqual(
      ['announcements', 'general', 'governance', 'ideas', 'mod-log', 'support'].sort(),
    );
    const modLog = busy.channels.find((c) => c.spec.role === 'mod-log')!;
    expect(plan.denied).toEqual([{ channelId: modLog.id, code: 50001 }]);
    const expectedThreads = busy.channels
      .flatMap((c) => dc.world.threadsOf(c, Math.floor(FROM / DAY) - 3, Math.floor(clock.t / DAY), clock.t))
      .filter((t) => t.archiveMs >= FROM);
    expect(expectedThreads.length).toBeGreaterThan(3);
    expect(ids(plan.threads).sort()).toEqual(ids(expectedThreads).sort());
    expect(plan.threads.some((t) => t.thread_metadata?.archived === false)).toBe(true);
    expect(plan.threads.some((t) => t.thread_metadata?.archived === true)).toBe(true);

    await expect(readAll(src, modLog.id, '0')).rejects.toMatchObject({ status: 403, code: 50001 });
    await expect(readAll(src, modLog.id, '0')).rejects.toBeInstanceOf(DiscordAccessError);
    await expect(readAll(src, '123456789012345678', '0')).rejects.toBeInstanceOf(DiscordNotFoundError);
    await expect(readAll(src, '123456789012345678', '0')).rejects.toMatchObject({ code: 10003, retryable: false });
    await expect(source({ token: 'wrong' }).listGuilds()).rejects.toBeInstanceOf(DiscordAuthError);
    const bad = await source({ token: 'wrong' })
      .listGuilds()
      .catch((e: Error) => e);
    expect(String(bad)).not.toContain('wrong');
  });

  it('pages a channel and its threads forward, oldest first, each message once, equal to the ground truth', async () => {
    const { dc, source, channelOf, truthOf } = await setup();
    const src = source();
    const general = channelOf(busiest(dc), 'general');
    const read = await readAll(src, general.id, snowflakeBefore(FROM), msToSnowflake(UNTIL));
    const truth = truthOf(general);
    expect(truth.length).toBeGreaterThan(500);
    expect(ids(read)).toEqual(ids(truth));
    for (let i = 1; i < read.length; i++) expect(compareSnowflakes(read[i - 1]!.id, read[i]!.id)).toBe(-1);
    // Every message's time is its snowflake's.
    for (const m of read.slice(0, 50)) expect(Date.parse(m.timestamp)).toBe(snowflakeToMs(m.id));
    // The kinds the counting rules tell apart are all there.
    const types = new Set(read.map((m) => m.type));
    expect(types).toEqual(new Set([0, 7, 19]));
    expect(read.some((m) => m.author.bot)).toBe(true);
    expect(read.filter((m) => m.type === 19).every((m) => m.message_reference?.message_id !== undefined)).toBe(true);
    const announcements = await readAll(src, channelOf(busiest(dc), 'announcements').id, snowflakeBefore(FROM));
    expect(announcements.some((m) => m.webhook_id !== undefined)).toBe(true);

    const forum = channelOf(busiest(dc), 'ideas');
    const [post] = dc.world
      .threadsOf(forum, Math.floor(FROM / DAY), Math.floor(UNTIL / DAY), START)
      .filter((t) => t.archiveMs <= START);
    const postMessages = await readAll(src, post!.id, '0');
    expect(ids(postMessages)).toEqual(ids(post!.messages.filter((m) => visible(m, START))));
    expect(postMessages[0]!.id).toBe(post!.id);
    // Discord's page is 100: 1 request per 100 messages and one more for the last (short or empty) page.
    const requests = dc.log.filter((r) => r.url.startsWith(`/channels/${general.id}/messages`)).length;
    expect(requests).toBe(Math.floor(truth.length / 100) + 1);
  });

  it('paging edge cases: exactly 100 messages, nothing new, and pages that cut through one millisecond', async () => {
    const { dc, source, channelOf, clock } = await setup();
    const src = source();
    const general = channelOf(busiest(dc), 'general');
    const day = Math.floor(FROM / DAY) + 1;
    const ofDay = dc.world.visibleOfDay(general, day, START);
    // Exactly 100 messages after the cursor at "now": a full page, then an empty one ends the reading.
    let k = 0;
    while (ofDay[k + 101]!.atMs === ofDay[k + 100]!.atMs) k++;
    clock.t = ofDay[k + 100]!.atMs;
    const log = dc.log.length;
    const hundred = await readAll(src, general.id, ofDay[k]!.id);
    expect(ids(hundred)).toEqual(ids(ofDay.slice(k + 1, k + 101)));
    expect(dc.log.length - log).toBe(2);

    // Nothing after the newest message: one request, no page.
    const pages: unknown[] = [];
    for await (const page of src.messagePages(general.id, { after: ofDay[k + 100]!.id })) pages.push(page);
    expect(pages).toEqual([]);
    expect(dc.log.length - log).toBe(3);
    clock.t = START;

    // Messages sharing a millisecond (increments of one snowflake time): small pages split such groups, and every
    // message is read once.
    const sameMs = ofDay.filter((m, i) => i > 0 && ofDay[i - 1]!.atMs === m.atMs);
    expect(sameMs.length).toBeGreaterThan(0);
    const small = await readAll(src, general.id, snowflakeBefore(day * DAY), msToSnowflake((day + 1) * DAY), 3);
    expect(ids(small)).toEqual(ids(ofDay));
    expect(new Set(ids(small)).size).toBe(small.length);
  });

  it('follows the buckets from the headers without a 429, and waits retry_after (a float) on a 429', async () => {
    const { dc, source, channelOf, truthOf, clock } = await setup({
      buckets: { messages: { limit: 2, windowSeconds: 5 } },
    });
    const src = source();
    const general = channelOf(busiest(dc), 'general');
    const window = { from: FROM, until: FROM + 2 * DAY };
    const read = await readAll(src, general.id, snowflakeBefore(window.from), msToSnowflake(window.until));
    expect(ids(read)).toEqual(ids(truthOf(general, window.from, window.until)));
    const pages = Math.ceil(read.length / 100);
    expect(pages).toBeGreaterThanOrEqual(4);
    // Two requests a bucket window: the client waited for the reset instead of being refused.
    expect(dc.limits.answered.bucket).toBe(0);
    expect(src.stats.rateLimitWaits).toBeGreaterThanOrEqual(Math.floor((pages - 1) / 2));
    expect(clock.sleeps.every((ms) => ms > 0 && ms <= 5000)).toBe(true);

    // Another process on the same token used the bucket up: a 429 with retry_after, waited, then the page.
    clock.t += 10_000;
    const hour = [snowflakeBefore(window.from), msToSnowflake(window.from + 3_600_000)] as const;
    const other = source();
    await readAll(other, general.id, ...hour);
    await readAll(other, general.id, ...hour);
    expect(dc.limits.answered.bucket).toBe(0);
    const fresh = source();
    const sleeps = clock.sleeps.length;
    const again = await readAll(fresh, general.id, ...hour);
    expect(again.length).toBeGreaterThan(0);
    expect(dc.limits.answered.bucket).toBe(1);
    expect(fresh.stats.bucketLimited).toBe(1);
    expect(clock.sleeps.length).toBe(sleeps + 1);

    // A shared-resource 429 (not this bot's doing) with a fractional retry_after, and the route's bucket headers
    // (Discord sends them with every 429, here with requests remaining): the client waits retry_after only, not
    // until the bucket's reset (5 s) — the bucket is not empty — and the retry breaks no limit of the stand-in.
    dc.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 0.35 }, pathIncludes: '/messages' });
    clock.t += 10_000;
    const before = clock.sleeps.length;
    const violations = dc.stats.violations;
    const third = await readAll(source(), general.id, ...hour);
    expect(ids(third)).toEqual(ids(again));
    expect(clock.sleeps.slice(before)).toEqual([350]);
    expect(dc.stats.violations).toBe(violations);
  });

  it('honours the global limit: a global 429 stops every request for retry_after, and the pace avoids it', async () => {
    const { dc, source, clock } = await setup({ globalPerSecond: 3 });
    const guild = dc.world.guildOf(busiest(dc))!;
    const greedy = source({ globalPerSecond: 100, maxConcurrency: 4 });
    const channels = guild.channels.filter((c) => ['general', 'support', 'governance'].includes(c.spec.role));
    const results = await Promise.all(
      channels.map((c) => readAll(greedy, c.id, snowflakeBefore(FROM), msToSnowflake(FROM + DAY))),
    );
    expect(results.every((r) => r.length > 0)).toBe(true);
    expect(dc.limits.answered.global).toBeGreaterThan(0);
    expect(greedy.stats.globalLimited).toBe(dc.limits.answered.global);
    // After a global 429 the client sent nothing more until retry_after had passed (the clock moves only when the
    // client sleeps): only requests already in flight at that instant were answered after it.
    const log = dc.log;
    log.forEach((refusal, i) => {
      if (refusal.status !== 429) return;
      for (const later of log.slice(i + 1)) if (later.status === 200) expect(later.atMs).toBeGreaterThan(refusal.atMs);
    });
    clock.t += 2000; // the greedy client's second is over
    const paced = source({ globalPerSecond: 3 });
    const global = dc.limits.answered.global;
    await Promise.all(channels.map((c) => readAll(paced, c.id, snowflakeBefore(FROM), msToSnowflake(FROM + DAY))));
    expect(dc.limits.answered.global).toBe(global);
    expect(paced.stats.globalLimited).toBe(0);
  });

  it('retries server errors with backoff, and gives up (retryable) when they persist', async () => {
    const { dc, source, channelOf, truthOf, clock } = await setup();
    const general = channelOf(busiest(dc), 'general');
    const hour = [snowflakeBefore(FROM), msToSnowflake(FROM + 3_600_000)] as const;
    dc.faults.inject({ fault: { kind: 'server-error', status: 502 }, pathIncludes: '/messages', times: 2 });
    const src = source({ baseDelayMs: 100 });
    expect(ids(await readAll(src, general.id, ...hour))).toEqual(ids(truthOf(general, FROM, FROM + 3_600_000)));
    expect(src.stats.retries).toBe(2);
    expect(clock.sleeps.slice(-2)).toEqual([75, 150]);

    dc.faults.inject({ fault: { kind: 'server-error', status: 503 }, pathIncludes: '/messages', times: 10 });
    const failing = source({ baseDelayMs: 100, maxRetries: 3 });
    const error = await readAll(failing, general.id, ...hour).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(failing.stats.requests).toBe(4);
  });

  it('tells a token without the message-content intent: same messages, empty text, contentVisible false', async () => {
    const { dc, source, channelOf } = await setup();
    const general = channelOf(busiest(dc), 'general');
    const me = await source({ token: SANDBOX_DISCORD_TOKEN_NO_CONTENT }).getCurrentUser();
    const blind = await readAll(
      source({ token: SANDBOX_DISCORD_TOKEN_NO_CONTENT }),
      general.id,
      snowflakeBefore(FROM),
      msToSnowflake(FROM + DAY),
    );
    const seeing = await readAll(source(), general.id, snowflakeBefore(FROM), msToSnowflake(FROM + DAY));
    expect(ids(blind)).toEqual(ids(seeing));
    const withheld = new ContentVisibility(me.id);
    withheld.observe(blind);
    expect(withheld.contentVisible).toBe(false);
    expect(withheld.judged).toBeGreaterThan(50);
    const shown = new ContentVisibility(me.id);
    shown.observe(seeing);
    expect(shown.contentVisible).toBe(true);
    expect(new ContentVisibility(me.id).contentVisible).toBeUndefined();
    // Joins have no text either way: they do not count as withheld.
    const join = blind.find((m) => m.type === 7)!;
    expect(contentWithheld(join, me.id)).toBe(false);
  });

  it('resumes after a restart from the stored cursor: nothing read twice, nothing lost', async () => {
    const { dc, source, channelOf, truthOf } = await setup();
    const general = channelOf(busiest(dc), 'general');
    const before = msToSnowflake(UNTIL);
    const first = source();
    const kept: DiscordMessage[] = [];
    let cursor = snowflakeBefore(FROM);
    let pages = 0;
    for await (const page of first.messagePages(general.id, { after: cursor, before })) {
      kept.push(...page.messages);
      cursor = page.cursor;
      if (++pages === 3) break; // the process stops here; the cursor was stored with the page's facts
    }
    const log = dc.log.length;
    const second = source();
    const rest: DiscordMessage[] = [];
    for await (const page of second.messagePages(general.id, { after: cursor, before })) rest.push(...page.messages);
    const all = [...kept, ...rest];
    expect(ids(all)).toEqual(ids(truthOf(general)));
    expect(new Set(ids(all)).size).toBe(all.length);
    expect(dc.log.length - log).toBe(Math.floor(rest.length / 100) + 1);
  });
});

describe('a guild read as an ingest does it', () => {
  it('reads every channel and thread of a guild from cursors, resumes after a stop, and names what it cannot read', async () => {
    const { dc, source } = await setup();
    const guild = dc.world.guildOf(busiest(dc))!;
    const src = source();
    const plan = await planGuildRead(src, guild.id, FROM);
    const options = { startAfter: snowflakeBefore(FROM), before: msToSnowflake(UNTIL) };
    const truth = dc.world.guildMessages(guild.protocolId, FROM, UNTIL, START);

    // A first run stops after 12 events; the ingest had stored each page's cursor with its facts.
    const cursors = new Map<string, string>();
    const read: DiscordMessage[] = [];
    let events = 0;
    for await (const event of readGuildMessages(src, plan, options)) {
      if (event.kind === 'page') {
        read.push(...event.page.messages);
        cursors.set(event.channel.id, event.page.cursor);
      }
      if (++events === 12) break;
    }
    const log = dc.log.length;
    const unreadable: { id: string; status: number; code: number | undefined }[] = [];
    const done = new Set<string>();
    for await (const event of readGuildMessages(source(), plan, { ...options, cursors })) {
      if (event.kind === 'page') read.push(...event.page.messages);
      if (event.kind === 'unreadable')
        unreadable.push({ id: event.channel.id, status: event.status, code: event.code });
      if (event.kind === 'done') done.add(event.channel.id);
    }
    expect(new Set(ids(read)).size).toBe(read.length);
    expect(ids(read).sort()).toEqual(ids(truth).sort());
    const modLog = guild.channels.find((c) => c.spec.role === 'mod-log')!;
    expect(unreadable).toEqual([{ id: modLog.id, status: 403, code: 50001 }]);
    // The forum's own channel is not read (its posts are threads); every other target ends with `done`.
    const forum = guild.channels.find((c) => c.spec.role === 'ideas')!;
    expect(done.has(forum.id)).toBe(false);
    expect(done.size).toBe(plan.channels.length - 2 + plan.threads.length);
    expect(dc.log.slice(log).some((r) => r.url.startsWith(`/channels/${forum.id}/messages`))).toBe(false);
  });
});

describe('a guild read several channels at once', () => {
  it('reads the same messages with 4 channels at once as one by one, with as many requests, channels interleaved', async () => {
    const { clock, dc, source } = await setup();
    const guild = dc.world.guildOf(busiest(dc))!;
    const plan = await planGuildRead(source(), guild.id, FROM);
    const options = { startAfter: snowflakeBefore(FROM), before: msToSnowflake(UNTIL) };
    const truth = ids(dc.world.guildMessages(guild.protocolId, FROM, UNTIL, START)).sort();
    const read = async (channelsAtOnce: number) => {
      const src = source();
      const requests = dc.log.length;
      const messages: string[] = [];
      const order = new Map<string, string[]>();
      for await (const event of readGuildMessages(src, plan, { ...options, channelsAtOnce })) {
        if (event.kind !== 'page') continue;
        messages.push(...ids(event.page.messages));
        order.set(event.channel.id, [...(order.get(event.channel.id) ?? []), ...ids(event.page.messages)]);
      }
      // Each channel's pages stay in order, oldest first.
      for (const list of order.values()) expect([...list].sort(compareSnowflakes)).toEqual(list);
      // Which channel each message request read, in the order sent: one by one, each channel's requests are
      // contiguous; several at once, they interleave (the per-channel buckets are then used side by side).
      const channels = dc.log
        .slice(requests)
        .map((r) => /^\/channels\/(\d+)\/messages/.exec(r.url)?.[1])
        .filter((c) => c !== undefined);
      const runs = channels.filter((c, i) => i === 0 || channels[i - 1] !== c).length;
      return { messages, runs, channels: new Set(channels).size, requests: dc.log.length - requests };
    };
    const one = await read(1);
    clock.t += 10_000;
    const four = await read(4);
    expect(one.messages.sort()).toEqual(truth);
    expect(four.messages.sort()).toEqual(truth);
    expect(four.requests).toBe(one.requests);
    expect(one.runs).toBe(one.channels);
    expect(four.runs).toBeGreaterThan(four.channels);
    expect(dc.stats.violations).toBe(0);
  });
});

describe('snowflakes and guild names', () => {
  it('converts between snowflakes and instants', () => {
    // Discord's documented example: 175928847299117063 was created 2016-04-30T11:18:25.796Z.
    expect(snowflakeToMs('175928847299117063')).toBe(Date.parse('2016-04-30T11:18:25.796Z'));
    const t = Date.parse('2026-03-01T00:00:00Z');
    expect(snowflakeToMs(msToSnowflake(t, 12345))).toBe(t);
    expect(compareSnowflakes(snowflakeBefore(t), msToSnowflake(t))).toBe(-1);
    expect(compareSnowflakes('99', '100')).toBe(-1);
    expect(() => msToSnowflake(0)).toThrow(RangeError);
  });

  it('matches guild names loosely but never ambiguously', () => {
    expect(normaliseGuildName('The Aave Community')).toBe('aave');
    expect(normaliseGuildName('Aave Official')).toBe(normaliseGuildName('aave'));
    const guilds = [
      { id: '1', name: 'Aave' },
      { id: '2', name: 'Curve Official' },
      { id: '3', name: 'Curve Community' },
    ];
    const { matched, missing } = matchGuilds(
      [
        { protocolId: 'aave', name: 'Aave' },
        { protocolId: 'curve', name: 'Curve' },
        { protocolId: 'lido', name: 'Lido' },
      ],
      guilds,
    );
    expect(matched).toEqual([{ protocolId: 'aave', guildId: '1', guildName: 'Aave', by: 'name' }]);
    expect(missing).toEqual([
      { protocolId: 'curve', reason: 'several guilds of that name' },
      { protocolId: 'lido', reason: 'no guild of that name' },
    ]);
  });
});
