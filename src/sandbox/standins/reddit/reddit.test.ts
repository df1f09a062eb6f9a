import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../../test/support/temp-dirs.js';
import { configWith, loadConfig } from '../../../config/index.js';
import { registry } from '../../../registry/index.js';
import { redditFromConfig } from '../../../sources/reddit/endpoint.js';
import { RedditSource } from '../../../sources/reddit/source.js';
import { subredditFor } from '../../../sources/reddit/subreddits.js';
import { DAY_MS, dayOf } from '../base/generate.js';
import type { ThingRecord } from './records.js';
import {
  type RedditStandin,
  SANDBOX_REDDIT_CLIENT_ID,
  SANDBOX_REDDIT_CLIENT_SECRET,
  startRedditStandin,
} from './server.js';
import { AUTOMODERATOR } from './world.js';

const START = Date.parse('2026-03-10T12:00:00Z');
const EPOCH = dayOf(START) - 8;

const standins: RedditStandin[] = [];
afterEach(async () => {
  await Promise.all(standins.splice(0).map((s) => s.close()));
});

async function start(options: Partial<Parameters<typeof startRedditStandin>[0]> = {}) {
  const clock = { t: START, nowMs: () => clock.t };
  const standin = await startRedditStandin({ seed: 11, clock, epochDay: EPOCH, days: 8, ...options });
  standins.push(standin);
  return { standin, clock, world: standin.world };
}

/** A client written from Reddit's documentation, not the source: token, then raw pages with `after`. */
async function token(standin: RedditStandin): Promise<string> {
  const basic = Buffer.from(`${SANDBOX_REDDIT_CLIENT_ID}:${SANDBOX_REDDIT_CLIENT_SECRET}`).toString('base64');
  const res = await fetch(`${standin.authUrl}/api/v1/access_token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

type Wire = {
  name: string;
  author: string;
  author_fullname?: string;
  created_utc: number;
  distinguished: string | null;
  stickied: boolean;
  removed_by_category?: string | null;
  body?: string;
  selftext?: string;
};

async function pageAll(standin: RedditStandin, bearer: string, sub: string, endpoint: 'new' | 'comments') {
  const out: Wire[] = [];
  let after: string | null = null;
  do {
    const url = `${standin.url}/r/${sub}/${endpoint}?limit=100${after ? `&after=${after}` : ''}`;
    const res = await fetch(url, { headers: { authorization: `bearer ${bearer}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { after: string | null; children: { data: Wire }[] } };
    out.push(...body.data.children.map((c) => c.data));
    after = body.data.after;
  } while (after);
  return out;
}

/** The issue's counting rule, applied to what the API shows. */
function recount(items: readonly (Wire & { kind: 't3' | 't1' })[], day: number) {
  const inDay = items.filter((i) => dayOf(i.created_utc * 1000) === day);
  const counted = inDay.filter(
    (i) =>
      i.author !== AUTOMODERATOR &&
      i.author !== '[deleted]' &&
      !i.removed_by_category &&
      i.body !== '[removed]' &&
      i.selftext !== '[removed]',
  );
  return {
    counted: counted.length,
    official: counted.filter((i) => i.kind === 't3' && (i.distinguished === 'moderator' || i.stickied)).length,
    uniqueAuthors: new Set(counted.map((i) => i.author_fullname)).size,
  };
}

describe('Reddit stand-in', () => {
  it('has a subreddit per tracked protocol, named as the source maps them, with every character and event', async () => {
    const { world } = await start();
    const subjects = registry.socialSubjects('reddit');
    expect(world.subreddits.length).toBe(32);
    expect(world.subreddits.map((s) => s.name)).toEqual(subjects.map((s) => subredditFor(s.protocolId)));
    const count = (c: string) => world.subreddits.filter((s) => s.character === c).length;
    expect([count('busy'), count('steady'), count('quiet'), count('declining')]).toEqual([6, 12, 9, 5]);
    const exploits = world.subreddits.filter((s) => s.exploitDay !== null);
    const raids = world.subreddits.filter((s) => s.raidDay !== null);
    expect(exploits.length).toBe(3);
    expect(raids.length).toBe(2);
    for (const s of [...exploits, ...raids]) {
      const day = (s.exploitDay ?? s.raidDay)!;
      expect(day).toBeGreaterThanOrEqual(EPOCH + 2);
      expect(day).toBeLessThan(EPOCH + 8);
      expect(s.character).not.toBe('quiet');
    }
  });

  it('plays the scenario: an exploit day, a raid, a decline, and the items the rule leaves out', async () => {
    const { world } = await start();
    const dayItems = (s: (typeof world.subreddits)[number], day: number) => [
      ...world.things(s, 't3', day * DAY_MS, day * DAY_MS + DAY_MS - 1),
      ...world.things(s, 't1', day * DAY_MS, day * DAY_MS + DAY_MS - 1),
    ];
    const securityShare = (items: ThingRecord[]) => {
      const labelled = items.filter((t) => t.role === 'member' && t.label);
      return labelled.filter((t) => t.label!.category === 'Scams and Security').length / labelled.length;
    };
    for (const s of world.subreddits.filter((x) => x.exploitDay !== null)) {
      const spike = dayItems(s, s.exploitDay!);
      const before = dayItems(s, s.exploitDay! - 1);
      expect(spike.length).toBeGreaterThan(1.5 * before.length);
      expect(securityShare(spike)).toBeGreaterThan(0.5);
      expect(securityShare(before)).toBeLessThan(0.25);
    }
    for (const s of world.subreddits.filter((x) => x.raidDay !== null)) {
      const raid = dayItems(s, s.raidDay!).filter((t) => t.raid);
      const accounts = new Set(raid.map((t) => t.writer));
      expect(accounts.size).toBeGreaterThanOrEqual(12);
      expect(new Set(raid.map((t) => t.text)).size).toBe(1);
      const times = raid.map((t) => t.createdUtc);
      expect(Math.max(...times) - Math.min(...times)).toBeLessThan(3600);
      expect(raid.some((t) => t.fate === 'removed')).toBe(true);
      expect(raid.some((t) => t.counted)).toBe(true);
      expect(raid.every((t) => t.label?.kind === 'spam' || t.label?.kind === 'scam')).toBe(true);
    }
    for (const s of world.subreddits.filter((x) => x.character === 'declining')) {
      const early = dayItems(s, EPOCH).filter((t) => t.counted).length;
      const late = dayItems(s, EPOCH + 7).filter((t) => t.counted).length;
      expect(late).toBeLessThan(early / 2);
    }
    const week = world.subreddits.flatMap((s) => [0, 1, 2, 3, 4, 5, 6, 7].flatMap((d) => dayItems(s, EPOCH + d)));
    const automod = week.filter((t) => t.role === 'automoderator');
    expect(automod.length).toBeGreaterThan(100);
    expect(automod.every((t) => t.kind === 't1' && t.distinguished === 'moderator' && !t.counted)).toBe(true);
    for (const fate of ['account-deleted', 'deleted', 'removed'] as const) {
      expect(week.filter((t) => t.fate === fate).length, fate).toBeGreaterThan(20);
    }
    const official = week.filter((t) => t.official);
    expect(official.some((t) => t.stickied && t.text.startsWith('Weekly discussion thread'))).toBe(true);
    expect(official.some((t) => t.label?.kind === 'announcement' && !t.text.startsWith('Weekly'))).toBe(true);
    // Every counted item carries the phrase bank's hidden labels.
    expect(week.filter((t) => t.counted).every((t) => t.label !== null)).toBe(true);
    expect(week.filter((t) => t.kind === 't1').every((t) => t.linkId?.startsWith('t3_'))).toBe(true);
  });

  it('serves what the rule recounts, per UTC day: the API paged as any client equals the world', async () => {
    const { standin, world } = await start();
    const bearer = await token(standin);
    const picks = [
      world.subreddits.find((s) => s.raidDay !== null)!,
      world.subreddits.find((s) => s.exploitDay !== null)!,
      world.subreddits.find((s) => s.character === 'quiet')!,
    ];
    for (const s of picks) {
      const items = [
        ...(await pageAll(standin, bearer, s.name, 'new')).map((i) => ({ ...i, kind: 't3' as const })),
        ...(await pageAll(standin, bearer, s.name, 'comments')).map((i) => ({ ...i, kind: 't1' as const })),
      ];
      for (let day = EPOCH + 1; day <= dayOf(START); day++) {
        const truth = world.dayTruth(s, day, START);
        expect(recount(items, day), `${s.name} day ${day}`).toEqual({
          counted: truth.counted,
          official: truth.official,
          uniqueAuthors: truth.uniqueAuthors,
        });
      }
      // The text served is the text written, and its labels are the world's.
      const counted = items.find((i) => i.author !== '[deleted]' && i.author !== AUTOMODERATOR && i.kind === 't1')!;
      expect(world.thing(counted.name)?.text).toBe(counted.body);
    }
    expect(standin.stats.violations).toBe(0);
  });

  it('advances with the clock: a later instant only adds, and the same seed gives the same bytes', async () => {
    const a = await start();
    const b = await start();
    const bearerA = await token(a.standin);
    const bearerB = await token(b.standin);
    const get = async (s: RedditStandin, bearer: string, path: string) =>
      (await fetch(`${s.url}${path}`, { headers: { authorization: `bearer ${bearer}` } })).text();
    expect(await get(a.standin, bearerA, '/r/ethereum/comments?limit=100')).toBe(
      await get(b.standin, bearerB, '/r/ethereum/comments?limit=100'),
    );
    const sub = a.world.subreddit('ethereum')!;
    const earlier = a.world.listing(sub, 't1', START);
    a.clock.t += 2 * DAY_MS;
    const later = a.world.listing(sub, 't1', a.clock.t);
    expect(later.length).toBe(1000);
    const newer = later.filter((t) => t.createdUtc * 1000 > START);
    expect(newer.length).toBeGreaterThan(0);
    // What was shown before is still there, unchanged, below what arrived.
    expect(later.slice(newer.length, newer.length + 100)).toEqual(earlier.slice(0, 100));
  });

  it('speaks Reddit: tokens, errors, limits and rate-limit headers', async () => {
    const { standin } = await start({ unavailable: { ethereum: 'private', bitcoin: 'banned' } });
    const post = (auth: string, body: string) =>
      fetch(`${standin.authUrl}/api/v1/access_token`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const bad = await post(
      `Basic ${Buffer.from('sandbox-reddit-app:nope').toString('base64')}`,
      'grant_type=client_credentials',
    );
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ message: 'Unauthorized', error: 401 });
    const grant = await post(
      `Basic ${Buffer.from(`${SANDBOX_REDDIT_CLIENT_ID}:${SANDBOX_REDDIT_CLIENT_SECRET}`).toString('base64')}`,
      'grant_type=password',
    );
    expect(await grant.json()).toEqual({ error: 'unsupported_grant_type' });
    // The API host issues no tokens, and refuses requests without one.
    expect((await fetch(`${standin.url}/api/v1/access_token`, { method: 'POST' })).status).toBe(401);
    const anonymous = await fetch(`${standin.url}/r/UniSwap/new`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('invalid_token');

    const bearer = await token(standin);
    const get = (path: string) => fetch(`${standin.url}${path}`, { headers: { authorization: `bearer ${bearer}` } });
    const res = await get('/r/UniSwap/new');
    const page = (await res.json()) as { kind: string; data: { after: string; dist: number; children: unknown[] } };
    expect(page.kind).toBe('Listing');
    expect(page.data.children.length).toBe(25);
    expect(page.data.after).toMatch(/^t3_/);
    expect(res.headers.get('x-ratelimit-used')).toBe('1');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('999.0');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(600);
    // A cursor beyond the 1,000 reachable items gives an empty page.
    const all = standin.world.listing(standin.world.subreddit('UniSwap')!, 't3', START);
    const beyond = await (await get(`/r/UniSwap/new?limit=100&after=${all.at(-1)!.name}`)).json();
    expect(beyond).toMatchObject({ data: { after: null, children: [] } });
    expect(await (await get('/r/ethereum/about')).json()).toEqual({
      reason: 'private',
      message: 'Forbidden',
      error: 403,
    });
    expect((await get('/r/bitcoin/comments')).status).toBe(404);
    expect(await (await get('/r/bitcoin/new')).json()).toEqual({ reason: 'banned', message: 'Not Found', error: 404 });
    expect(await (await get('/r/nonexistent_sub/about')).json()).toEqual({ message: 'Not Found', error: 404 });
  });
});

describe('the stand-in in the sandbox', () => {
  it('answers with the production keys, and keeps its scenario on the same days across restarts', async () => {
    const { STANDINS } = await import('../index.js');
    const dir = makeTempDir('reddit-standin');
    try {
      const entry = STANDINS.find((s) => s.kind === 'reddit')!;
      const first = await entry.start({ seed: 4, clock: { nowMs: () => START }, dataDir: dir.path, days: 8 });
      try {
        expect(first).toMatchObject({
          service: 'reddit',
          info: { url: first.url, client_id: SANDBOX_REDDIT_CLIENT_ID, client_secret: SANDBOX_REDDIT_CLIENT_SECRET },
        });
        const config = configWith(loadConfig({}), first.config);
        // Opened from the configuration as in production, it reads the stand-in.
        const endpoint = redditFromConfig(config)!;
        expect(endpoint.authUrl).toBe(first.info.auth_url);
        const src = new RedditSource({ ...endpoint, clock: { nowMs: () => START } });
        const about = await src.about(endpoint.subredditFor('uniswap'));
        expect(about.display_name).toBe('UniSwap');
      } finally {
        await first.close();
      }
      // Three days later, a restart: the exploit and raid days stay where they were.
      const later = START + 3 * DAY_MS;
      const again = await entry.start({ seed: 4, clock: { nowMs: () => later }, dataDir: dir.path, days: 8 });
      await again.close();
      const world = (epochDay: number) =>
        startRedditStandin({ seed: 4, clock: { nowMs: () => later }, epochDay, days: 8 }).then(async (s) => {
          await s.close();
          return s.world.subreddits.map((p) => [p.exploitDay, p.raidDay]);
        });
      const { readFile } = await import('node:fs/promises');
      const saved = JSON.parse(await readFile(`${dir.path}/sandbox/reddit.json`, 'utf8')) as { epoch_day: number };
      expect(saved.epoch_day).toBe(dayOf(START) - 8);
      expect(await world(saved.epoch_day)).not.toEqual(await world(dayOf(later) - 8));
    } finally {
      dir.remove();
    }
  });
});
