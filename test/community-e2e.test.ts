import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { communityArea } from '../src/areas/community/index.js';
import type { SocialDayRecord } from '../src/areas/community/schema.js';
import { PATHS } from '../src/areas/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { isoSeconds } from '../src/core/time.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { type Registry, registry } from '../src/registry/index.js';
import { dayOf } from '../src/sandbox/standins/base/generate.js';
import type { DiscordStandin } from '../src/sandbox/standins/discord/index.js';
import { SANDBOX_DISCORD_TOKEN_NO_CONTENT } from '../src/sandbox/standins/discord/index.js';
import type { RedditStandin } from '../src/sandbox/standins/reddit/index.js';
import { subredditFor } from '../src/sources/reddit/subreddits.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { startTestSources, type TestSources } from './support/sources.js';
import { checkDocument, modelPathsOf, rowOf } from './support/vocabulary.js';

/**
 * The community area end to end on the Discord and Reddit stand-ins: the area's jobs read them through the sources
 * as in production, and the served records are held to the stand-ins' worlds: per protocol and completely read UTC
 * day, the message counts and unique users equal a recount under issue 16's rules, and the served sentiment and
 * topics agree with the world's hidden labels (the phrase bank's) at the model's floor.
 */
const PROTOCOLS = ['aave', 'uniswap', 'lido', 'ethereum'];
const DAYS = 8;
const DAY_MS = 86_400_000;

type Rec = Record<string, unknown>;
interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Rec & { as_of: string; methodology?: string; source: string };
}

/** The registry, tracking only `PROTOCOLS` on the social channels (a shorter read). */
function trackedOnly(r: Registry): Registry {
  return Object.create(r, {
    socialSubjects: {
      value: (channel: string) => r.socialSubjects(channel).filter((s) => PROTOCOLS.includes(s.protocolId)),
    },
  }) as Registry;
}

describe('community end to end on the Discord and Reddit stand-ins', () => {
  let t: TestApp;
  let opened: TestSources;
  let discord: DiscordStandin;
  let reddit: RedditStandin;
  let run: (name: string) => Promise<string | undefined>;
  let firstPass: string | undefined;
  const tracked = trackedOnly(registry);

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    t = await testApp({ dialect: 'sqlite' });
    // The stand-ins started and their sources opened as `start` does (with their labels), tracking `PROTOCOLS` only.
    opened = await startTestSources({
      kinds: ['discord', 'reddit'],
      clock: t.clock,
      days: DAYS,
      overrides: {
        discord: { subjects: tracked.socialSubjects('discord') },
        reddit: { subjects: tracked.socialSubjects('reddit') },
      },
    });
    discord = opened.server('discord');
    reddit = opened.server('reddit');
    const env: AreaEnv = { config: opened.config, registry: tracked, book: EMPTY_BOOK, sources: opened.sources };
    run = areaRunner(communityArea, env, t.store, t.clock, () => t.sync()).run;
    firstPass = await run('community.ingest.discord');
    await run('community.ingest.reddit');
    await run('community.compute');
    await t.sync();
  }, 300_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  it('lists the tracked protocols of each channel with where they are read', async () => {
    const d = await get<Rec[]>('/scores/social/protocols/discord');
    expect(d.data.map((e) => e.protocol_id).sort()).toEqual(
      tracked
        .socialSubjects('discord')
        .map((s) => s.protocolId)
        .sort(),
    );
    for (const e of d.data) {
      expect(e).toMatchObject({ coverage: { readable: true, content_visible: true } });
      expect((e.source as Rec).guild_id).toEqual(expect.any(String));
      expect(((e.source as Rec).channels as string[]).length).toBeGreaterThan(0);
    }
    const r = await get<Rec[]>('/scores/social/protocols/reddit');
    for (const e of r.data) expect((e.source as Rec).subreddit).toEqual(expect.any(String));
  });

  it('counts Discord messages and users per UTC day as the rules say', async () => {
    const now = t.clock.nowMs();
    for (const s of tracked.socialSubjects('discord')) {
      const doc = await get<SocialDayRecord[]>(`/scores/social/discord/${s.protocolId}`);
      expect(doc.data).toHaveLength(7);
      expect(doc.meta.methodology).toBe('community.social@1.2.0');
      for (const rec of doc.data.slice(1)) {
        if (!rec.inputs.complete) continue;
        const from = Date.parse(`${rec.date}T00:00:00Z`);
        const counted = discord.world
          .guildMessages(s.protocolId, from, from + DAY_MS, now)
          .filter(
            (m) => !m.author.bot && !m.author.system && m.webhookId === undefined && (m.type === 0 || m.type === 19),
          );
        expect(rec.daily_message_count, `${s.protocolId} ${rec.date}`).toBe(counted.length);
        expect(rec.number_of_unique_users, `${s.protocolId} ${rec.date}`).toBe(
          new Set(counted.map((m) => m.author.id)).size,
        );
      }
      expect(doc.data.slice(1).filter((r) => r.inputs.complete).length, s.protocolId).toBeGreaterThan(0);
    }
  });

  it('counts Reddit posts and comments per UTC day as the rules say', async () => {
    const now = t.clock.nowMs();
    for (const s of tracked.socialSubjects('reddit')) {
      const doc = await get<SocialDayRecord[]>(`/scores/social/reddit/${s.protocolId}`);
      const profile = reddit.world.subreddit(subredditFor(s.protocolId))!;
      for (const rec of doc.data.slice(1)) {
        if (!rec.inputs.complete) continue;
        const truth = reddit.world.dayTruth(profile, dayOf(Date.parse(`${rec.date}T00:00:00Z`)), now);
        expect(
          { count: rec.daily_message_count, users: rec.number_of_unique_users, official: rec.official_posts },
          `${s.protocolId} ${rec.date}`,
        ).toEqual({ count: truth.counted, users: truth.uniqueAuthors, official: truth.official });
      }
      expect(doc.data.slice(1).filter((r) => r.inputs.complete).length, s.protocolId).toBeGreaterThan(0);
    }
  });

  it('agrees with the hidden labels on sentiment and topics (Discord)', async () => {
    const now = t.clock.nowMs();
    const served = { sentiment: new Map<string, number>(), topic: new Map<string, number>() };
    const truth = { sentiment: new Map<string, number>(), topic: new Map<string, number>() };
    const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);
    for (const s of tracked.socialSubjects('discord')) {
      const doc = await get<SocialDayRecord[]>(`/scores/social/discord/${s.protocolId}`);
      for (const rec of doc.data.slice(1)) {
        if (!rec.inputs.complete) continue;
        for (const d of rec.mid_level_topic_based_sentiment_distribution) {
          bump(served.sentiment, 'positive', d.positive_sentiment_count);
          bump(served.sentiment, 'neutral', d.neutral_sentiment_count);
          bump(served.sentiment, 'negative', d.negative_sentiment_count);
        }
        for (const f of rec.high_level_topic_frequency) bump(served.topic, f.topic, f.frequency);
        const from = Date.parse(`${rec.date}T00:00:00Z`);
        for (const m of discord.world.guildMessages(s.protocolId, from, from + DAY_MS, now)) {
          if (!m.label || m.label.spam || m.author.bot || m.webhookId !== undefined) continue;
          bump(truth.sentiment, m.label.sentiment);
          bump(truth.topic, m.label.category);
        }
      }
    }
    // Agreement of the distributions: the share of messages the served and the labelled counts have in common.
    const overlap = (a: Map<string, number>, b: Map<string, number>) => {
      const total = [...b.values()].reduce((x, y) => x + y, 0);
      let common = 0;
      for (const [k, n] of b) common += Math.min(n, a.get(k) ?? 0);
      return total ? common / total : 0;
    };
    const sentiment = overlap(served.sentiment, truth.sentiment);
    const topic = overlap(served.topic, truth.topic);
    console.log(`discord: sentiment agreement ${sentiment.toFixed(3)}, topic agreement ${topic.toFixed(3)}`);
    expect(sentiment).toBeGreaterThanOrEqual(0.8);
    expect(topic).toBeGreaterThanOrEqual(0.8);
  });

  it('scores each read day, and never a day it could not read completely', async () => {
    for (const channel of ['discord', 'reddit']) {
      for (const s of tracked.socialSubjects(channel)) {
        const doc = await get<SocialDayRecord[]>(`/scores/social/${channel}/${s.protocolId}`);
        for (const rec of doc.data) {
          if (!rec.inputs.complete) expect(rec.score, `${channel} ${s.protocolId} ${rec.date}`).toBeNull();
          expect(rec.gap_reason === null).toBe(rec.score !== null);
          expect(rec.mid_level_topic_based_sentiment_distrubution).toEqual(
            rec.mid_level_topic_based_sentiment_distribution,
          );
        }
        expect(doc.data[0]!.partial).toBe(true);
        expect(doc.data[0]!.timestamp).toBe(doc.meta.as_of);
      }
    }
  });

  it('a later pass reads only what is new: past days unchanged, nothing counted twice', async () => {
    const before = await get<SocialDayRecord[]>('/scores/social/discord/aave');
    expect(firstPass).toMatch(/^[1-9]\d* new messages/);
    t.clock.advance(600);
    const second = await run('community.ingest.discord');
    await run('community.ingest.reddit');
    await run('community.compute');
    await t.sync();
    const after = await get<SocialDayRecord[]>('/scores/social/discord/aave');
    expect(Number(second!.split(' ')[0])).toBeLessThan(Number(firstPass!.split(' ')[0]) / 10);
    const past = (d: SocialDayRecord[]) =>
      d.slice(1).map((r) => [r.date, r.daily_message_count, r.number_of_unique_users]);
    expect(past(after.data)).toEqual(past(before.data));
    expect(Date.parse(after.meta.as_of)).toBeGreaterThan(Date.parse(before.meta.as_of));
  });

  it('follows the vocabulary (docs/vocabulary.md) in every document', async () => {
    const rows = await t.store.db.selectFrom('datasets').selectAll().where('area', '=', 'community').execute();
    expect(rows.length).toBe(2 + tracked.socialSubjects('discord').length + tracked.socialSubjects('reddit').length);
    const modelPaths = modelPathsOf(readFileSync('docs/methodology/README.md', 'utf8'));
    for (const r of rows) {
      const meta = JSON.parse(r.meta) as { source: string; methodology?: string };
      const doc = {
        path: r.path,
        area: r.area,
        data: JSON.parse(r.payload),
        meta: { ...meta, as_of: isoSeconds(Number(r.as_of)) },
      };
      const def = rowOf(PATHS, 'community', r.path);
      expect(def, r.path).toBeDefined();
      // Each document names the one source its figures come from: Discord's `sandbox:discord`, Reddit's `sandbox:reddit`.
      const source = r.path.includes('/discord') ? 'sandbox:discord' : 'sandbox:reddit';
      expect(r.path.includes('/discord') !== r.path.includes('/reddit'), r.path).toBe(true);
      expect(checkDocument(doc, def, { source, modelPaths }), r.path).toEqual([]);
    }
  });
});

describe('community on a bot without the message-content intent and an unreadable subreddit', () => {
  let t: TestApp;
  let opened: TestSources;
  let discord: DiscordStandin;
  const tracked = trackedOnly(registry);

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    t = await testApp({ dialect: 'sqlite' });
    opened = await startTestSources({
      kinds: ['discord', 'reddit'],
      clock: t.clock,
      days: DAYS,
      overrides: {
        discord: { subjects: tracked.socialSubjects('discord') },
        reddit: { subjects: tracked.socialSubjects('reddit'), unavailable: { [subredditFor('aave')]: 'private' } },
      },
      // A bot without the message-content intent.
      keys: { DISCORD_BOT_TOKEN: SANDBOX_DISCORD_TOKEN_NO_CONTENT },
    });
    discord = opened.server('discord');
    const env: AreaEnv = { config: opened.config, registry: tracked, book: EMPTY_BOOK, sources: opened.sources };
    const run = areaRunner(communityArea, env, t.store, t.clock, () => t.sync()).run;
    await run('community.ingest.discord');
    await run('community.ingest.reddit');
    await run('community.compute');
    await t.sync();
  }, 300_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  it('counts without content, marks sentiment not available and publishes no score', async () => {
    const listing = await get<Rec[]>('/scores/social/protocols/discord');
    for (const e of listing.data) expect(e).toMatchObject({ coverage: { readable: true, content_visible: false } });
    const now = t.clock.nowMs();
    const doc = await get<SocialDayRecord[]>('/scores/social/discord/aave');
    expect(doc.meta.source).toBe('sandbox:discord');
    const day = doc.data[1]!;
    const from = Date.parse(`${day.date}T00:00:00Z`);
    const counted = discord.world
      .guildMessages('aave', from, from + DAY_MS, now)
      .filter((m) => !m.author.bot && !m.author.system && m.webhookId === undefined && (m.type === 0 || m.type === 19));
    expect(day).toMatchObject({
      daily_message_count: counted.length,
      average_sentiment_score: null,
      gap_reasons: { average_sentiment_score: 'no_data' },
      high_level_topic_frequency: [],
      score: null,
      gap_reason: 'insufficient_evidence',
    });
    expect(day.inputs.no_content).toBeGreaterThan(0);
  });

  it('lists a private subreddit as unreadable and scores none of its days', async () => {
    const listing = await get<Rec[]>('/scores/social/protocols/reddit');
    expect(listing.data.find((e) => e.protocol_id === 'aave')).toMatchObject({
      coverage: { readable: false, reason: 'private' },
    });
    const doc = await get<SocialDayRecord[]>('/scores/social/reddit/aave');
    for (const rec of doc.data) {
      expect(rec).toMatchObject({
        score: null,
        gap_reason: 'source_error',
        daily_message_count: null,
        gap_reasons: { daily_message_count: 'source_error' },
      });
    }
    const other = await get<SocialDayRecord[]>('/scores/social/reddit/uniswap');
    expect(other.data.some((r) => r.score !== null)).toBe(true);
  });
});
