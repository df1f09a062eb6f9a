import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { DAY_MS } from '../../sandbox/standins/base/generate.js';
import {
  type RedditStandin,
  SANDBOX_REDDIT_CLIENT_ID,
  SANDBOX_REDDIT_CLIENT_SECRET,
  startRedditStandin,
} from '../../sandbox/standins/reddit/server.js';
import {
  RedditAuthError,
  RedditError,
  RedditRateLimitError,
  RedditSchemaError,
  RedditSubredditError,
} from './client.js';
import { redditFromConfig } from './endpoint.js';
import {
  compareIds,
  incompleteDays,
  type RedditBatch,
  type RedditCheckpoint,
  type RedditListingKind,
  RedditSource,
} from './source.js';

const START = Date.parse('2026-03-10T12:00:00Z');
const SINCE = START / 1000 - 8 * 86_400;

/** One clock for the stand-in and the source; the source's sleep moves it, and records what it waited. */
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

let standin: RedditStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

async function setup(options: Partial<Parameters<typeof startRedditStandin>[0]> = {}) {
  const clock = testClock();
  const reddit = await startRedditStandin({ seed: 3, clock, ...options });
  standin = reddit;
  const source = (extra: Partial<ConstructorParameters<typeof RedditSource>[0]> = {}) =>
    new RedditSource({
      apiUrl: reddit.url,
      authUrl: reddit.authUrl,
      clientId: SANDBOX_REDDIT_CLIENT_ID,
      clientSecret: SANDBOX_REDDIT_CLIENT_SECRET,
      clock,
      sleep: clock.sleep,
      random: () => 0.5,
      ...extra,
    });
  const sub = (character: string) => reddit.world.subreddits.find((p) => p.character === character)!;
  /** What the world holds of a kind in [fromUtc, clock now], newest first. */
  const truth = (name: string, kind: 't3' | 't1', fromUtc: number, toMs = clock.t) =>
    reddit.world.things(reddit.world.subreddit(name)!, kind, fromUtc * 1000, toMs).reverse();
  return { clock, reddit, source, sub, truth };
}

async function readAll<K extends RedditListingKind>(gen: AsyncGenerator<RedditBatch<K>>) {
  const batches: RedditBatch<K>[] = [];
  for await (const b of gen) batches.push(b);
  return { batches, items: batches.flatMap((b) => b.items), last: batches.at(-1)! };
}

const names = (items: readonly { name: string }[]) => items.map((i) => i.name);

describe('Reddit source against the stand-in', () => {
  it('reads posts and comments page by page down to the start time, matching the ground truth', async () => {
    const { reddit, source, truth } = await setup();
    const src = source();
    expect((await src.about('ETHEREUM')).display_name).toBe('ethereum');
    for (const kind of ['posts', 'comments'] as const) {
      const before = reddit.stats.requests;
      const { batches, items, last } = await readAll(src.read('ethereum', kind, { sinceUtc: SINCE }));
      const expected = truth('ethereum', kind === 'posts' ? 't3' : 't1', SINCE);
      expect(expected.length).toBeGreaterThan(kind === 'posts' ? 40 : 200);
      expect(names(items)).toEqual(names(expected));
      // One request per page of 100, the last page being the one that reaches the start time.
      expect(reddit.stats.requests - before).toBe(Math.ceil((expected.length + 1) / 100));
      expect(batches.every((b, i) => b.done === (i === batches.length - 1))).toBe(true);
      expect(last.coverage).toEqual({ complete: true });
      expect(last.checkpoint).toEqual({ through: expected[0]!.name, throughUtc: expected[0]!.createdUtc });
    }
    expect(src.stats.tokenRequests).toBe(1);
    expect(reddit.stats.violations).toBe(0);
    expect(reddit.log.every((r) => /[?&]limit=100/.test(r.url) || r.url.endsWith('/about?raw_json=1'))).toBe(true);
  });

  it('handles the edges of paging: nothing new, exactly one page, the stop on a page boundary', async () => {
    const { reddit, clock, source, truth } = await setup();
    const src = source();
    const first = await readAll(src.read('ethereum', 'comments', { sinceUtc: SINCE }));
    // Nothing new: one request, no items, the checkpoint unchanged.
    let before = reddit.stats.requests;
    const again = await readAll(
      src.read('ethereum', 'comments', { checkpoint: first.last.checkpoint, sinceUtc: SINCE }),
    );
    expect(again.items).toEqual([]);
    expect(again.last.checkpoint).toEqual(first.last.checkpoint);
    expect(reddit.stats.requests - before).toBe(1);

    // A checkpoint exactly 100 items below the top: the first page is all new, the second's first item stops.
    const all = truth('ethereum', 't1', SINCE);
    const stop = all[100]!;
    before = reddit.stats.requests;
    const boundary = await readAll(
      src.read('ethereum', 'comments', { checkpoint: { through: stop.name, throughUtc: stop.createdUtc } }),
    );
    expect(names(boundary.items)).toEqual(names(all.slice(0, 100)));
    expect(reddit.stats.requests - before).toBe(2);
    expect(boundary.last.checkpoint.through).toBe(all[0]!.name);

    // Later: only what arrived since, newest first.
    clock.t += 5 * 3600_000;
    const later = await readAll(src.read('ethereum', 'comments', { checkpoint: first.last.checkpoint }));
    const arrived = truth('ethereum', 't1', all[0]!.createdUtc).filter((t) => compareIds(t.name, all[0]!.name) > 0);
    expect(arrived.length).toBeGreaterThan(0);
    expect(names(later.items)).toEqual(names(arrived));
  });

  it('reports the days the ~1,000-item listing cap kept it from reaching', async () => {
    const { reddit, source, truth } = await setup({ scale: 2.5 });
    const busy = reddit.world.subreddits.find((p) => p.character === 'busy')!;
    const expected = truth(busy.name, 't1', SINCE);
    expect(expected.length).toBeGreaterThan(1000);
    const { items, last } = await readAll(source().read(busy.name, 'comments', { sinceUtc: SINCE }));
    // Reddit stops the listing at 1,000 items: the newest 1,000 are read, the rest are out of reach.
    expect(names(items)).toEqual(names(expected.slice(0, 1000)));
    const oldest = items.at(-1)!.created_utc;
    expect(last.coverage).toEqual({ complete: false, missing: { fromUtc: SINCE, toUtc: oldest } });
    const missingDays = incompleteDays(last.coverage!);
    expect(missingDays[0]).toBe(new Date(SINCE * 1000).toISOString().slice(0, 10));
    expect(missingDays.at(-1)).toBe(new Date(oldest * 1000).toISOString().slice(0, 10));
    // Every later day was read completely.
    const read = new Set(names(items));
    const complete = expected.filter(
      (t) => !missingDays.includes(new Date(t.createdUtc * 1000).toISOString().slice(0, 10)),
    );
    expect(complete.length).toBeGreaterThan(0);
    expect(complete.every((t) => read.has(t.name))).toBe(true);
    // The pass still ends at the top: the next one starts there.
    expect(last.checkpoint).toEqual({ through: expected[0]!.name, throughUtc: expected[0]!.createdUtc });
  });

  it('resumes a pass after a restart without reading a page twice or losing an item', async () => {
    const { reddit, clock, source, truth } = await setup();
    const since = SINCE;
    const seen: string[] = [];
    let stored: RedditCheckpoint | undefined;
    // First process: stores two pages (items and checkpoint together), then stops.
    for await (const batch of source().read('ethereum', 'comments', { sinceUtc: since })) {
      seen.push(...names(batch.items));
      stored = batch.checkpoint;
      if (seen.length >= 200) break;
    }
    expect(stored?.pass).toBeDefined();
    expect(stored?.through).toBeUndefined();
    const top = seen[0]!;
    // New comments arrive while it is down.
    clock.t += 6 * 3600_000;
    const restarted = source();
    const resumed = await readAll(restarted.read('ethereum', 'comments', { checkpoint: stored!, sinceUtc: since }));
    seen.push(...names(resumed.items));
    expect(resumed.last.checkpoint.through).toBe(top);
    expect(resumed.last.coverage).toEqual({ complete: true });
    const next = await readAll(
      restarted.read('ethereum', 'comments', { checkpoint: resumed.last.checkpoint, sinceUtc: since }),
    );
    seen.push(...names(next.items));

    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(names(truth('ethereum', 't1', since))));
    // No page was asked for twice: every cursor sent is distinct.
    const cursors = reddit.log
      .filter((r) => r.url.includes('/comments?') && r.url.includes('after='))
      .map((r) => new URL(r.url, 'http://x').searchParams.get('after'));
    expect(new Set(cursors).size).toBe(cursors.length);
  });

  it('says what it lost when a restart comes back after the cap pushed its cursor out of reach', async () => {
    const { reddit, clock, source, truth } = await setup({ scale: 2.5 });
    const busy = reddit.world.subreddits.find((p) => p.character === 'busy')!;
    const since = START / 1000 - 2 * 86_400;
    let stored: RedditCheckpoint | undefined;
    for await (const batch of source().read(busy.name, 'comments', { sinceUtc: since })) {
      stored = batch.checkpoint;
      break;
    }
    const pass = stored!.pass!;
    // Down for a week: over a thousand comments arrive, the cursor is now beyond what the listing reaches.
    clock.t += 7 * DAY_MS;
    const arrived = truth(busy.name, 't1', START / 1000).filter((t) => compareIds(t.name, pass.top) > 0);
    expect(arrived.length).toBeGreaterThan(1000);
    const resumed = await readAll(source().read(busy.name, 'comments', { checkpoint: stored!, sinceUtc: since }));
    expect(resumed.items).toEqual([]);
    expect(resumed.last.coverage).toEqual({ complete: false, missing: { fromUtc: since, toUtc: pass.oldestUtc } });
    expect(resumed.last.checkpoint).toEqual({ through: pass.top, throughUtc: pass.topUtc });
    // The next pass reads the newest 1,000 and reports the rest as out of reach, from the old top on.
    const next = await readAll(source().read(busy.name, 'comments', { checkpoint: resumed.last.checkpoint }));
    expect(next.items.length).toBe(1000);
    expect(next.last.coverage).toMatchObject({ complete: false, missing: { fromUtc: pass.topUtc } });
  });

  it('waits for the window to reset when it is used up, and sends nothing meanwhile', async () => {
    const { reddit, source, clock, truth } = await setup({ rateLimit: { limit: 2, windowSeconds: 600 } });
    const src = source();
    const { items } = await readAll(src.read('ethereum', 'comments', { sinceUtc: SINCE }));
    const pages = Math.ceil((truth('ethereum', 't1', SINCE, START).length + 1) / 100);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(items.length).toBeGreaterThan(200);
    expect(src.stats.rateLimitWaits).toBe(Math.ceil(pages / 2) - 1);
    for (const wait of clock.sleeps) expect(wait).toBe(601_000);
    expect(reddit.stats.violations).toBe(0);
    expect(reddit.stats.byStatus[429]).toBeUndefined();
  });

  it('waits out a 429: the reset of a window another client spent, or Retry-After', async () => {
    const { reddit, source, clock } = await setup({ rateLimit: { limit: 1, windowSeconds: 120 } });
    await source().about('ethereum');
    const other = source();
    expect((await other.about('ethereum')).display_name).toBe('ethereum');
    expect(other.stats.limited).toBe(1);
    expect(clock.sleeps).toEqual([121_000]);
    expect(reddit.stats.violations).toBe(1);

    clock.sleeps.length = 0;
    reddit.limiter.configure({ limit: 1000 });
    clock.t += 122_000;
    reddit.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 30 }, pathIncludes: '/new' });
    const page = await other.page('ethereum', 'posts');
    expect(page.items.length).toBe(100);
    expect(clock.sleeps).toEqual([30_000]);

    reddit.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 2000 }, pathIncludes: '/new' });
    const err = await other.page('ethereum', 'posts').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedditRateLimitError);
    expect((err as RedditError).retryable).toBe(true);
  });

  it('retries 5xx with backoff, then gives up with a retryable error', async () => {
    const { reddit, source, clock } = await setup();
    reddit.faults.inject({ fault: { kind: 'server-error', status: 503 }, times: 2 });
    const src = source({ baseDelayMs: 1000 });
    expect((await src.about('ethereum')).display_name).toBe('ethereum');
    expect(clock.sleeps).toEqual([750, 1500]);
    reddit.faults.inject({ fault: { kind: 'server-error', status: 500 }, times: 10 });
    const err = await src.about('ethereum').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedditError);
    expect((err as RedditError).retryable).toBe(true);
  });

  it('names private, banned, quarantined and unknown subreddits, not retryable', async () => {
    const { source } = await setup({
      unavailable: { aave_official: 'private', UniSwap: 'banned', gmx: 'quarantined' },
    });
    const src = source();
    const cases = [
      ['Aave_Official', 'private', 403],
      ['uniswap', 'banned', 404],
      ['gmx', 'quarantined', 403],
      ['no_such_sub_here', 'not_found', 404],
    ] as const;
    for (const [name, reason, status] of cases) {
      for (const attempt of [() => src.about(name), () => readAll(src.read(name, 'comments'))]) {
        const err = await attempt().catch((e: unknown) => e);
        expect(err, name).toBeInstanceOf(RedditSubredditError);
        expect(err).toMatchObject({ subreddit: name, reason, status, retryable: false });
      }
    }
    // The others still read.
    expect((await src.page('ethereum', 'posts')).items.length).toBe(100);
  });

  it('renews its token before it expires, and at once when the API refuses it', async () => {
    const { reddit, source, clock } = await setup({ tokenLifetimeSeconds: 300 });
    const src = source();
    await src.about('ethereum');
    clock.t += 200_000;
    await src.about('ethereum');
    expect(reddit.tokensIssued()).toBe(1);
    // 260 s into a 300 s token: within the minute's margin, a new one is fetched before sending.
    clock.t += 60_000;
    await src.about('ethereum');
    expect(reddit.tokensIssued()).toBe(2);
    expect(reddit.stats.byStatus[401]).toBeUndefined();
    // Revoked early: the API answers 401 once, the client fetches a token and sends again.
    reddit.revokeTokens();
    await src.about('ethereum');
    expect(reddit.tokensIssued()).toBe(3);
    expect(src.stats.tokenRefusals).toBe(1);
    expect(reddit.stats.byStatus[401]).toBe(1);
  });

  it('refuses bad credentials before reading anything', async () => {
    const { reddit, source } = await setup();
    const err = await source({ clientSecret: 'wrong' })
      .about('ethereum')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedditAuthError);
    expect((err as RedditError).retryable).toBe(false);
    expect((err as Error).message).not.toContain('wrong');
    expect(reddit.stats.requests).toBe(0);
  });
});

describe('Reddit source boundaries', () => {
  const token = { access_token: 'abc', token_type: 'bearer', expires_in: 86400, scope: '*' };
  const fakeFetch = (listing: unknown): typeof fetch =>
    (async (url: string | URL | Request) =>
      new Response(JSON.stringify(String(url).includes('access_token') ? token : listing), {
        status: 200,
        headers: { 'x-ratelimit-remaining': '99.0', 'x-ratelimit-reset': '300', 'x-ratelimit-used': '1' },
      })) as typeof fetch;
  const item = (over: Partial<Record<string, unknown>>) => ({
    kind: 't1',
    data: {
      id: 'abc',
      name: 't1_abc',
      author: 'someone',
      created_utc: 1_700_000_000,
      body: 'hi',
      link_id: 't3_xyz',
      subreddit: 'ethereum',
      ...over,
    },
  });
  const listing = (children: unknown[]) => ({ kind: 'Listing', data: { after: null, children } });
  const source = (body: unknown) =>
    new RedditSource({ clientId: 'id', clientSecret: 'secret', fetch: fakeFetch(body), apiUrl: 'http://reddit.test' });

  it('rejects a payload that does not match the schema, naming the field', async () => {
    const err = await source(listing([item({ created_utc: '1700000000' })]))
      .page('ethereum', 'comments')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedditSchemaError);
    expect((err as Error).message).toContain('/data/children/0/data/created_utc');
    const mismatch = await source(listing([item({ name: 't1_other' })]))
      .page('ethereum', 'comments')
      .catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(RedditSchemaError);
    expect((await source(listing([item({})])).page('ethereum', 'comments')).items[0]!.author).toBe('someone');
  });

  it('orders base-36 ids by creation and names the days a coverage misses', () => {
    expect(compareIds('t1_zz', 't1_100')).toBeLessThan(0);
    expect(compareIds('t3_abc', 't3_abd')).toBeLessThan(0);
    expect(compareIds('t3_abc', 'abc')).toBe(0);
    expect(incompleteDays({ complete: true })).toEqual([]);
    const from = Date.parse('2026-03-02T23:00:00Z') / 1000;
    const to = Date.parse('2026-03-04T01:00:00Z') / 1000;
    expect(incompleteDays({ complete: false, missing: { fromUtc: from, toUtc: to } })).toEqual([
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
    ]);
  });

  it('is opened from the configuration: Reddit’s hosts by default, the subreddit mapping with its overrides', () => {
    expect(redditFromConfig(loadConfig({}))).toBeUndefined();
    const endpoint = redditFromConfig(
      loadConfig({ REDDIT_CLIENT_ID: 'id', REDDIT_CLIENT_SECRET: 's', REDDIT_SUBREDDITS: 'aave=AaveLovers' }),
    )!;
    expect(endpoint).toMatchObject({
      apiUrl: 'https://oauth.reddit.com',
      authUrl: 'https://www.reddit.com',
      clientId: 'id',
      clientSecret: 's',
    });
    expect(endpoint.userAgent).toMatch(/protoscore/);
    expect(endpoint.subredditFor('aave')).toBe('AaveLovers');
    expect(endpoint.subredditFor('uniswap')).toBe('UniSwap');
    expect(endpoint.subredditFor('morpho')).toBe('morpho');
  });
});
