import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { communityArea } from '../src/areas/community/index.js';
import { FIRST_READ_SECONDS } from '../src/areas/community/ingest.js';
import type { ChannelListingEntry, SocialDayRecord } from '../src/areas/community/schema.js';
import { PATHS } from '../src/areas/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { isoSeconds } from '../src/core/time.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { type Registry, registry } from '../src/registry/index.js';
import { dayOf } from '../src/sandbox/standins/base/generate.js';
import type { RedditStandin } from '../src/sandbox/standins/reddit/index.js';
import { LISTING_CAP } from '../src/sandbox/standins/reddit/world.js';
import { subredditFor } from '../src/sources/reddit/subreddits.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { startTestSources, type TestSources } from './support/sources.js';
import { checkDocument, modelPathsOf, rowOf } from './support/vocabulary.js';

/**
 * A subreddit past Reddit's listing cap (issue 30 item 7): the stand-in's subreddit is scaled so that its first
 * read's window (9 days) holds `POSTS_IN_WINDOW` posts (and five times as many comments), while its listings end
 * after 1,000 items as Reddit's do. The area reads what the listings reach (bounded: 10 pages of each), records the
 * span out of reach from the window's start to the oldest item read, and publishes it: the listing's
 * `coverage.unread`, each cut day's `inputs.unread` with its counts, sentiment and topics null or empty
 * (`listing_cap`), never an undercount; every day after the span is counted exactly.
 */
const POSTS_IN_WINDOW = 3000;
const PROTOCOL = 'aave';
const SEED = 7;
const DAYS = 8;

type Rec = Record<string, unknown>;
interface Envelope<T> {
  data: T;
  meta: Rec & { as_of: string };
}

function trackedOnly(r: Registry): Registry {
  return Object.create(r, {
    socialSubjects: {
      value: (channel: string) => r.socialSubjects(channel).filter((s) => s.protocolId === PROTOCOL),
    },
  }) as Registry;
}

describe(`a subreddit of ${POSTS_IN_WINDOW} posts in a first read's window, past the listing cap`, () => {
  let t: TestApp;
  let opened: TestSources;
  let reddit: RedditStandin;
  let readAtMs: number;
  let requests: number;
  const tracked = trackedOnly(registry);
  const subjects = tracked.socialSubjects('reddit');

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    t = await testApp({ dialect: 'sqlite' });
    // The same world at its own scale first, to scale it to `POSTS_IN_WINDOW` posts in the first read's window.
    const window = (r: RedditStandin) => {
      const profile = r.world.subreddit(subredditFor(PROTOCOL))!;
      return r.world.things(profile, 't3', t.clock.nowMs() - FIRST_READ_SECONDS * 1000, t.clock.nowMs()).length;
    };
    const probe = await startTestSources({
      kinds: ['reddit'],
      clock: t.clock,
      seed: SEED,
      days: DAYS,
      overrides: { reddit: { subjects } },
    });
    const scale = POSTS_IN_WINDOW / window(probe.server('reddit'));
    await probe.close();
    opened = await startTestSources({
      kinds: ['reddit'],
      clock: t.clock,
      seed: SEED,
      days: DAYS,
      overrides: { reddit: { subjects, scale } },
    });
    reddit = opened.server('reddit');
    const env: AreaEnv = { config: opened.config, registry: tracked, book: EMPTY_BOOK, sources: opened.sources };
    const run = areaRunner(communityArea, env, t.store, t.clock, () => t.sync()).run;
    readAtMs = t.clock.nowMs();
    await run('community.ingest.reddit');
    requests = reddit.stats.requests;
    await run('community.compute');
    await t.sync();
  }, 300_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  const profile = () => reddit.world.subreddit(subredditFor(PROTOCOL))!;
  /** The oldest item each listing reached: its 1,000th, newest first, at the read's instant. */
  const oldestReached = (kind: 't3' | 't1') => reddit.world.listing(profile(), kind, readAtMs)[LISTING_CAP - 1]!;

  it('is past the cap: the window holds more than a listing reaches', () => {
    const from = readAtMs - FIRST_READ_SECONDS * 1000;
    const posts = reddit.world.things(profile(), 't3', from, readAtMs).length;
    expect(posts).toBeGreaterThan(0.8 * POSTS_IN_WINDOW);
    expect(reddit.world.things(profile(), 't1', from, readAtMs).length).toBeGreaterThan(posts);
    // Bounded: the token, `about`, and 10 pages of 100 of each listing (the 11th answers nothing: after = null).
    expect(requests).toBeLessThanOrEqual(1 + 1 + 2 * (LISTING_CAP / 100 + 1));
    expect(reddit.stats.violations).toBe(0);
  });

  it('reports the unread span: from the window’s start to the oldest item the listings reached', async () => {
    const listing = await get<ChannelListingEntry[]>('/scores/social/protocols/reddit');
    const entry = listing.data.find((e) => e.protocol_id === PROTOCOL)!;
    const to = Math.max(oldestReached('t3').createdUtc, oldestReached('t1').createdUtc);
    expect(entry.coverage.readable).toBe(true);
    expect(entry.coverage.unread).toEqual([{ from: entry.coverage.covered_from, to: isoSeconds(to) }]);
  });

  it('publishes the cut days as unknown with listing_cap, and counts every later day exactly', async () => {
    const doc = await get<SocialDayRecord[]>(`/scores/social/reddit/${PROTOCOL}`);
    const to = Math.max(oldestReached('t3').createdUtc, oldestReached('t1').createdUtc);
    const cutDay = isoSeconds(to).slice(0, 10);
    let cut = 0;
    let counted = 0;
    for (const rec of doc.data) {
      if (rec.date <= cutDay) {
        cut++;
        expect(rec, rec.date).toMatchObject({
          daily_message_count: null,
          number_of_unique_users: null,
          average_sentiment_score: null,
          high_level_topic_frequency: [],
          score: null,
          gap_reason: 'listing_cap',
          gap_reasons: { daily_message_count: 'listing_cap', average_sentiment_score: 'listing_cap' },
          inputs: { complete: false },
        });
        const span = rec.inputs.unread;
        expect(span).toHaveLength(1);
        expect(span[0]!.to).toBe(rec.date === cutDay ? isoSeconds(to) : `${rec.date}T23:59:59Z`);
        continue;
      }
      counted++;
      expect(rec.inputs).toMatchObject({ complete: true, unread: [] });
      const truth = reddit.world.dayTruth(profile(), dayOf(Date.parse(`${rec.date}T00:00:00Z`)), readAtMs);
      expect({ count: rec.daily_message_count, users: rec.number_of_unique_users }, rec.date).toEqual({
        count: truth.counted,
        users: truth.uniqueAuthors,
      });
    }
    expect(cut).toBeGreaterThan(0);
    expect(cut + counted).toBe(7);
  });

  it('follows the vocabulary (docs/vocabulary.md)', async () => {
    const rows = await t.store.db.selectFrom('datasets').selectAll().where('area', '=', 'community').execute();
    expect(rows.length).toBe(2);
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
      expect(checkDocument(doc, def, { source: 'sandbox:reddit', modelPaths }), r.path).toEqual([]);
    }
  });
});
