import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommunityIngest, DISCORD_CHANNELS_AT_ONCE } from '../src/areas/community/ingest.js';
import { CommunityRepository } from '../src/areas/community/repo.js';
import type { CommunityTables } from '../src/areas/community/tables.js';
import { communityTargets } from '../src/areas/community/targets.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import type { JobContext } from '../src/jobs/types.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { type Registry, registry } from '../src/registry/index.js';
import type { DiscordStandin } from '../src/sandbox/standins/discord/index.js';
import type { DiscordSource } from '../src/sources/discord/index.js';
import { runWithStop } from '../src/sources/http.js';
import { type TestApp, testApp } from './helpers.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * A first read of a guild that is stopped part-way continues where it stopped (issue 30 item 7): the ingest stores
 * its facts every `FLUSH` messages with each channel's cursor, leaving the coverage unset until the read ends; the
 * next run reads on from those cursors. Checked against the stand-in: after the resumed run the store holds exactly
 * the guild's messages of the window, and the second run asks again only the pages that were in flight (not taken) when the first stopped.
 */
const PROTOCOL = 'aave';
/** Messages per store write (the production value is 5,000; small here so that the stop falls after several). */
const FLUSH = 150;
/** The first run is stopped after this many pages. */
const STOP_AFTER_PAGES = 6;

function trackedOnly(r: Registry): Registry {
  return Object.create(r, {
    socialSubjects: {
      value: (channel: string) => r.socialSubjects(channel).filter((s) => s.protocolId === PROTOCOL),
    },
  }) as Registry;
}

describe('a first read of a guild, stopped and resumed', () => {
  let t: TestApp;
  let opened: TestSources;
  let discord: DiscordStandin;
  let ingest: CommunityIngest;
  const tracked = trackedOnly(registry);

  const context = (signal: AbortSignal): JobContext => ({
    store: t.store,
    clock: t.clock,
    log: pino({ level: 'warn' }),
    signal,
    attempt: 1,
    notifyPublished: async () => {},
  });
  const stored = async () =>
    (
      await t.store.db
        .withTables<CommunityTables>()
        .selectFrom('social_messages')
        .select('message_id')
        .where('subject', '=', PROTOCOL)
        .execute()
    )
      .map((r) => r.message_id)
      .sort();
  /** The message requests sent since `from`, as `channel?after=cursor`. */
  const messageRequests = (from: number) =>
    discord.log
      .slice(from)
      .map((r) => /^\/channels\/(\d+)\/messages\?.*after=(\d+)/.exec(r.url))
      .filter((m) => m !== null)
      .map((m) => `${m[1]}?after=${m[2]}`);

  beforeAll(async () => {
    t = await testApp({ dialect: 'sqlite' });
    opened = await startTestSources({
      kinds: ['discord'],
      clock: t.clock,
      days: 8,
      overrides: { discord: { subjects: tracked.socialSubjects('discord') } },
    });
    discord = opened.server('discord');
    const env: AreaEnv = { config: opened.config, registry: tracked, book: EMPTY_BOOK, sources: opened.sources };
    const targets = communityTargets(env)!;
    ingest = new CommunityIngest({ discord: targets.discord!, all: targets.all }, { flushMessages: FLUSH });
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  it('keeps what it read with the cursors, publishes no coverage, and continues from its cursors', async () => {
    const repo = new CommunityRepository(t.store.db);
    const source = opened.sources.get('discord')!.client as DiscordSource;
    const pages = source.messagePages.bind(source);
    const stop = new AbortController();
    let seen = 0;
    source.messagePages = async function* (channelId, options) {
      for await (const page of pages(channelId, options)) {
        yield page;
        if (++seen === STOP_AFTER_PAGES) stop.abort();
      }
    };
    const first = discord.log.length;
    await runWithStop(stop.signal, () => ingest.run(context(stop.signal)));
    source.messagePages = pages;

    const partial = await repo.state('discord', PROTOCOL);
    const kept = await stored();
    expect(kept.length).toBeGreaterThanOrEqual(FLUSH);
    expect(partial).toMatchObject({ readable: true, coveredFrom: null, coveredTo: null });
    expect(Object.keys(partial!.cursors as object).length).toBeGreaterThan(0);
    const firstRequests = messageRequests(first);

    const second = discord.log.length;
    const startedAt = Math.floor(t.clock.nowMs() / 1000);
    const live = new AbortController();
    await runWithStop(live.signal, () => ingest.run(context(live.signal)));
    const done = (await repo.state('discord', PROTOCOL))!;
    // Covered up to the start of the read that finished (after its first requests: the bot and its guilds).
    expect(done.coveredTo).toBeGreaterThanOrEqual(startedAt);
    expect(done.coveredTo).toBeLessThanOrEqual(Math.floor(t.clock.nowMs() / 1000));
    const secondRequests = messageRequests(second);
    // Only the pages in flight on the other channels read at once when the stop came are asked again (they were
    // never taken, so never stored).
    const repeated = secondRequests.filter((r) => firstRequests.includes(r));
    expect(repeated.length).toBeLessThanOrEqual(DISCORD_CHANNELS_AT_ONCE - 1);
    expect(secondRequests.length).toBeGreaterThan(repeated.length);

    // Everything of the window, each once: what the first run kept and what the second read.
    const all = await stored();
    const truth = discord.world
      .guildMessages(PROTOCOL, done.coveredFrom! * 1000, done.coveredTo! * 1000, t.clock.nowMs())
      .map((m) => m.id);
    expect(all.filter((id) => truth.includes(id)).length).toBe(truth.length);
    expect(kept.length).toBeLessThan(all.length);
  });
});
