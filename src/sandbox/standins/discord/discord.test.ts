import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.js';
import { PHRASES } from '../social/phrases.js';
import {
  type DiscordStandin,
  SANDBOX_DISCORD_TOKEN,
  SANDBOX_DISCORD_TOKEN_NO_CONTENT,
  startDiscordStandin,
  worldOriginDay,
} from './server.js';
import { DELETE_WITHIN_MS, DiscordWorld, type GuildProfile, type MessageRecord, visible } from './world.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-09T12:00:00Z');
const TODAY = Math.floor(NOW / DAY);
const ORIGIN = TODAY - 8;
const subjects = registry.socialSubjects('discord');
const world = new DiscordWorld({ seed: 3, subjects, originDay: ORIGIN, days: 8 });

/** A guild's messages of one UTC day, readable channels and threads, as visible at NOW. */
const dayOf = (g: GuildProfile, day: number, nowMs = NOW) =>
  world.guildMessages(g.protocolId, day * DAY, (day + 1) * DAY, nowMs);
/** What the counting rules count: users' messages (type 0 or 19), no bot, system or webhook. */
const counted = (ms: readonly MessageRecord[]) =>
  ms.filter((m) => (m.type === 0 || m.type === 19) && !m.author.bot && !m.author.system && !m.webhookId);

describe('Discord world', () => {
  it('has a guild per tracked protocol, its channels, and every character', () => {
    expect(world.guilds.map((g) => g.protocolId).sort()).toEqual(subjects.map((s) => s.protocolId).sort());
    expect(world.guilds.length).toBe(32);
    for (const c of ['busy', 'normal', 'quiet', 'declining'] as const) {
      expect(world.guilds.filter((g) => g.character === c).length).toBeGreaterThanOrEqual(4);
    }
    const g = world.guilds[0]!;
    expect(g.channels.map((c) => c.spec.name)).toEqual([
      'Community',
      'announcements',
      'general',
      'support',
      'governance',
      'ideas',
      'mod-log',
      'Voice',
    ]);
    expect(new Set(world.guilds.flatMap((x) => x.channels.map((c) => c.id))).size).toBe(32 * 8);
  });

  it('gives characters their traffic: busy over quiet, a declining guild falling', () => {
    const mean = (gs: GuildProfile[], day: number) =>
      gs.reduce((n, g) => n + counted(dayOf(g, day)).length, 0) / gs.length;
    const of = (c: string) => world.guilds.filter((g) => g.character === c && !g.exploitDays.size && !g.raidDays.size);
    expect(mean(of('busy'), TODAY - 3)).toBeGreaterThan(8 * mean(of('quiet'), TODAY - 3));
    const declining = of('declining');
    expect(mean(declining, TODAY - 1)).toBeLessThan(0.4 * mean(declining, ORIGIN));
    expect(mean(declining, TODAY - 1)).toBeGreaterThan(0);
  });

  it('has an exploit day (a spike of scam and hack talk) and a raid (duplicate spam from new accounts)', () => {
    const exploited = world.guilds.find((g) => g.exploitDays.size)!;
    const [exploitDay] = [...exploited.exploitDays];
    const spike = counted(dayOf(exploited, exploitDay!));
    const before = counted(dayOf(exploited, exploitDay! - 2));
    expect(spike.length).toBeGreaterThan(2 * before.length);
    const scamShare = (ms: MessageRecord[]) =>
      ms.filter((m) => m.label?.category === 'Scams and Security').length / ms.length;
    expect(scamShare(spike)).toBeGreaterThan(0.4);
    expect(scamShare(before)).toBeLessThan(0.25);
    // Scam offers from new accounts, most deleted within minutes: visible while they last, gone after.
    const general = exploited.channels.find((c) => c.spec.role === 'general')!;
    const scams = world.recordsOfDay(general, exploitDay!).filter((m) => m.label?.kind === 'scam');
    const deleted = scams.filter((m) => m.deletedAtMs !== undefined);
    expect(scams.length).toBeGreaterThanOrEqual(10);
    expect(deleted.length).toBeGreaterThan(0);
    expect(deleted.length).toBeLessThan(scams.length);
    for (const m of deleted) {
      expect(visible(m, m.atMs)).toBe(true);
      expect(visible(m, m.deletedAtMs!)).toBe(false);
      expect(m.deletedAtMs! - m.atMs).toBeLessThanOrEqual(DELETE_WITHIN_MS);
    }
    expect(scams.every((m) => m.label?.spam)).toBe(true);

    const raided = world.guilds.find((g) => g.raidDays.size)!;
    const [raidDay] = [...raided.raidDays];
    const raidGeneral = raided.channels.find((c) => c.spec.role === 'general')!;
    const raid = world.recordsOfDay(raidGeneral, raidDay!).filter((m) => m.label?.kind === 'spam');
    const texts = new Map<string, Set<string>>();
    for (const m of raid) {
      const text = m.content.replace(/^(<@\d+> )+/, '');
      texts.set(text, (texts.get(text) ?? new Set()).add(m.author.id));
    }
    const [, authors] = [...texts].sort((a, b) => b[1].size - a[1].size)[0]!;
    expect(authors.size).toBeGreaterThanOrEqual(20);
    expect(Math.max(...raid.map((m) => m.atMs)) - Math.min(...raid.map((m) => m.atMs))).toBeLessThan(2 * 3_600_000);
    // New accounts: each raider joined (type 7) that day, and their accounts are days old at most.
    const joins = new Set(
      world
        .recordsOfDay(raidGeneral, raidDay!)
        .filter((m) => m.type === 7)
        .map((m) => m.author.id),
    );
    for (const id of authors) expect(joins.has(id)).toBe(true);
    expect(raid.some((m) => m.mentions.length >= 10)).toBe(true);
    expect(raid.every((m) => m.label?.spam)).toBe(true);
  });

  it('holds every kind of message the counting rules tell apart, with labels from the phrase bank', () => {
    const g = world.guilds.find((x) => x.character === 'busy')!;
    const ms = world.guildMessages(g.protocolId, (TODAY - 7) * DAY, TODAY * DAY, NOW);
    const types = new Set(ms.map((m) => m.type));
    for (const t of [0, 6, 7, 19]) expect(types.has(t), `type ${t}`).toBe(true);
    expect(ms.some((m) => m.author.bot && !m.webhookId)).toBe(true);
    expect(ms.some((m) => m.webhookId)).toBe(true);
    expect(ms.some((m) => m.pinned)).toBe(true);
    // Threads and forum posts are in the truth; their messages live in the thread.
    const threadMessages = ms.filter((m) => !world.channel(m.channelId));
    expect(threadMessages.length).toBeGreaterThan(20);
    // Replies point at an earlier message of their channel.
    for (const r of ms.filter((m) => m.type === 19)) expect(BigInt(r.referenceId!)).toBeLessThan(BigInt(r.id));
    // Same-millisecond messages have distinct, ordered ids.
    const sameMs = ms.filter((m, i) => i > 0 && ms[i - 1]!.atMs === m.atMs && ms[i - 1]!.channelId === m.channelId);
    expect(sameMs.length).toBeGreaterThan(0);
    expect(new Set(ms.map((m) => m.id)).size).toBe(ms.length);
    // Every user message carries its phrase's labels.
    const texts = new Set(PHRASES.map((p) => p.category));
    for (const m of counted(ms)) {
      expect(m.label).toBeDefined();
      expect(texts.has(m.label!.category)).toBe(true);
    }
  });

  it('only adds messages as the clock advances (deletions apart), whatever was asked before', () => {
    const g = world.guilds.find((x) => x.character === 'normal')!;
    const earlier = world.guildMessages(g.protocolId, ORIGIN * DAY, NOW, NOW - DAY);
    const later = world.guildMessages(g.protocolId, ORIGIN * DAY, NOW, NOW);
    const laterIds = new Set(later.map((m) => m.id));
    const gone = earlier.filter((m) => !laterIds.has(m.id));
    expect(gone.every((m) => m.deletedAtMs !== undefined && m.deletedAtMs <= NOW)).toBe(true);
    expect(later.length).toBeGreaterThan(earlier.length);
    const fresh = new DiscordWorld({ seed: 3, subjects, originDay: ORIGIN, days: 8 });
    expect(fresh.guildMessages(g.protocolId, ORIGIN * DAY, NOW, NOW)).toEqual(later);
    const other = new DiscordWorld({ seed: 4, subjects, originDay: ORIGIN, days: 8 });
    expect(other.guildMessages(g.protocolId, ORIGIN * DAY, NOW, NOW).map((m) => m.id)).not.toEqual(
      later.map((m) => m.id),
    );
    for (const m of later) expect(visible(m, NOW)).toBe(true);
  });

  it('keeps its first day under the data directory, per seed', () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'discord-world-')), 'sandbox', 'discord');
    expect(worldOriginDay(dir, 1, 8, NOW)).toBe(TODAY - 8);
    expect(worldOriginDay(dir, 1, 8, NOW + 5 * DAY)).toBe(TODAY - 8);
    expect(worldOriginDay(dir, 2, 8, NOW + 5 * DAY)).toBe(TODAY - 3);
  });
});

describe('Discord stand-in wire format', () => {
  let standin: DiscordStandin | undefined;
  afterEach(async () => {
    await standin?.close();
    standin = undefined;
  });
  const clock = { t: NOW, nowMs: () => clock.t };
  const get = (url: string, token = SANDBOX_DISCORD_TOKEN) =>
    fetch(`${standin!.url}${url}`, { headers: { authorization: `Bot ${token}` } });

  it('answers as Discord: auth, errors with codes, newest first, rate-limit headers and 429 bodies', async () => {
    standin = await startDiscordStandin({
      seed: 3,
      clock,
      originDay: ORIGIN,
      days: 8,
      buckets: { messages: { limit: 2, windowSeconds: 2 } },
    });
    const g = standin.world.guilds.find((x) => x.character === 'busy')!;
    const general = g.channels.find((c) => c.spec.role === 'general')!;
    expect((await fetch(`${standin.url}/users/@me/guilds`)).status).toBe(401);
    const bad = await fetch(`${standin.url}/users/@me/guilds`, { headers: { authorization: 'Bearer x' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ message: '401: Unauthorized', code: 0 });

    const after = (BigInt(general.id) + 1n).toString();
    const page = await get(`/channels/${general.id}/messages?after=${after}&limit=100`);
    expect(page.status).toBe(200);
    const body = (await page.json()) as { id: string; timestamp: string; content: string }[];
    expect(body.length).toBe(100);
    for (let i = 1; i < body.length; i++) expect(BigInt(body[i - 1]!.id)).toBeGreaterThan(BigInt(body[i]!.id));
    expect(body[0]!.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    expect(page.headers.get('x-ratelimit-limit')).toBe('2');
    expect(page.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(page.headers.get('x-ratelimit-reset-after')).toBe('2.000');
    expect(page.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]+d15c0rd$/);
    // The oldest messages of the channel: they begin its history.
    expect(body.at(-1)!.id).toBe(standin.world.visibleOfDay(general, Math.floor(g.createdMs / DAY), NOW)[0]!.id);

    expect((await get(`/channels/${general.id}/messages?limit=101`)).status).toBe(400);
    const limited = await get(`/channels/${general.id}/messages?limit=5`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    const refusal = (await limited.json()) as { retry_after: number; global: boolean };
    expect(refusal.global).toBe(false);
    expect(refusal.retry_after).toBeGreaterThan(0);
    expect(refusal.retry_after).toBeLessThanOrEqual(2);

    const modLog = g.channels.find((c) => c.spec.role === 'mod-log')!;
    const denied = await get(`/channels/${modLog.id}/messages`);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({ message: 'Missing Access', code: 50001 });
    const unknown = await get('/channels/1/threads/archived/public');
    expect(await unknown.json()).toEqual({ message: 'Unknown Channel', code: 10003 });
    expect(await (await get('/guilds/1/channels')).json()).toEqual({ message: 'Unknown Guild', code: 10004 });
  });

  it('withholds message text from a bot without the message-content intent, and lists threads', async () => {
    standin = await startDiscordStandin({ seed: 3, clock, originDay: ORIGIN, days: 8 });
    const g = standin.world.guilds.find((x) => x.character === 'busy')!;
    const general = g.channels.find((c) => c.spec.role === 'general')!;
    const url = `/channels/${general.id}/messages?limit=20`;
    const seen = (await (await get(url)).json()) as { id: string; content: string; type: number }[];
    const blind = (await (await get(url, SANDBOX_DISCORD_TOKEN_NO_CONTENT)).json()) as typeof seen;
    expect(blind.map((m) => m.id)).toEqual(seen.map((m) => m.id));
    expect(seen.filter((m) => m.type === 0).some((m) => m.content !== '')).toBe(true);
    expect(blind.every((m) => m.content === '')).toBe(true);

    const active = (await (await get(`/guilds/${g.id}/threads/active`)).json()) as {
      threads: { id: string; parent_id: string; thread_metadata: { archived: boolean } }[];
    };
    expect(active.threads.length).toBeGreaterThan(0);
    expect(active.threads.every((t) => !t.thread_metadata.archived)).toBe(true);
    const support = g.channels.find((c) => c.spec.role === 'support')!;
    const archived = (await (await get(`/channels/${support.id}/threads/archived/public?limit=2`)).json()) as {
      threads: { thread_metadata: { archived: boolean; archive_timestamp: string } }[];
      has_more: boolean;
    };
    expect(archived.threads.length).toBe(2);
    expect(archived.has_more).toBe(true);
    const [a, b] = archived.threads;
    expect(Date.parse(a!.thread_metadata.archive_timestamp)).toBeGreaterThanOrEqual(
      Date.parse(b!.thread_metadata.archive_timestamp),
    );
  });
});
