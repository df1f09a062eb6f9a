import { afterEach, describe, expect, it } from 'vitest';
import { DailySeries, dayOf, stableId, streamRng, upperBound } from './generate.js';
import { paginate, parseLinkHeader } from './paginate.js';
import { HttpError, json, type Standin, type StandinDialect, startStandin } from './server.js';

/** A toy service on the base: what every stand-in gets for free. */
const dialect: StandinDialect = {
  defaultResource: 'core',
  commonHeaders: { 'content-type': 'application/json; charset=utf-8' },
  errorBody: (status, message) => ({ error: message, status }),
  identify: (headers) => {
    const auth = headers.authorization;
    if (auth === undefined) return undefined;
    if (!auth.startsWith('Bearer ')) throw new HttpError(401, 'bad credentials');
    return auth.slice(7);
  },
  rateLimitHeaders: (w) => ({
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(w.resetSeconds),
  }),
  primaryLimited: (w) => ({
    status: 429,
    body: { error: 'limited' },
    headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(w.resetSeconds) },
  }),
  secondaryLimited: (seconds) => ({
    status: 429,
    body: { error: 'slow down' },
    headers: { 'retry-after': String(seconds) },
  }),
};

const ITEMS = Array.from({ length: 7 }, (_, i) => ({ n: i + 1 }));

const service = {
  name: 'toy',
  dialect,
  routes: [
    {
      method: 'GET' as const,
      path: '/items',
      resource: 'core',
      handler: (req: Parameters<typeof paginate>[0]) => {
        const page = paginate(req, ITEMS, { defaultPerPage: 3, maxPerPage: 5 });
        return json(page.items, page.headers);
      },
    },
    {
      method: 'GET' as const,
      path: '/items/:n',
      resource: 'core',
      handler: (req: Parameters<typeof paginate>[0]) => {
        const item = ITEMS.find((i) => String(i.n) === req.params.n);
        if (!item) throw new HttpError(404, 'no such item');
        return json(item);
      },
    },
  ],
};

const clock = { t: Date.parse('2026-01-10T00:00:00Z'), nowMs: () => clock.t };
const auth = { authorization: 'Bearer abc' };
let standin: Standin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

describe('stand-in base', () => {
  it('paginates with RFC 8288 Link headers that keep the other query parameters', async () => {
    standin = await startStandin(service, { seed: 1, clock });
    const first = await fetch(`${standin.url}/items?sort=x`, { headers: auth });
    expect(await first.json()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const links = parseLinkHeader(first.headers.get('link'));
    expect(links).toEqual({
      next: `${standin.url}/items?sort=x&page=2`,
      last: `${standin.url}/items?sort=x&page=3`,
    });
    const last = await fetch(links.last!, { headers: auth });
    expect(await last.json()).toEqual([{ n: 7 }]);
    expect(parseLinkHeader(last.headers.get('link'))).toEqual({
      prev: `${standin.url}/items?sort=x&page=2`,
      first: `${standin.url}/items?sort=x&page=1`,
    });
    // per_page above the maximum is capped; one page needs no Link.
    const capped = await fetch(`${standin.url}/items?per_page=500&page=2`, { headers: auth });
    expect(await capped.json()).toEqual([{ n: 6 }, { n: 7 }]);
    const single = await fetch(`${standin.url}/items/2`, { headers: auth });
    expect(single.headers.get('link')).toBeNull();
  });

  it('answers If-None-Match with a 304 that costs no quota', async () => {
    standin = await startStandin(service, { seed: 1, clock });
    const a = await fetch(`${standin.url}/items`, { headers: auth });
    const etag = a.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    expect(a.headers.get('x-ratelimit-remaining')).toBe('4999');
    const b = await fetch(`${standin.url}/items`, { headers: { ...auth, 'if-none-match': etag } });
    expect(b.status).toBe(304);
    expect(await b.text()).toBe('');
    expect(b.headers.get('etag')).toBe(etag);
    expect(b.headers.get('x-ratelimit-remaining')).toBe('4999');
    expect(standin.stats.notModified).toBe(1);
    expect(standin.log.map((r) => r.counted)).toEqual([true, false]);
    // Another page is another body: no 304.
    const c = await fetch(`${standin.url}/items?page=2`, { headers: { ...auth, 'if-none-match': etag } });
    expect(c.status).toBe(200);
  });

  it('counts per client and window, refuses an exhausted one, and resets with the clock', async () => {
    standin = await startStandin(service, { seed: 1, clock, rateLimit: { limit: 2, windowSeconds: 60 } });
    const start = clock.t;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${standin.url}/items`, { headers: auth })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(standin.stats.violations).toBe(1);
    // Another token has its own window; anonymous clients have theirs.
    expect((await fetch(`${standin.url}/items`, { headers: { authorization: 'Bearer other' } })).status).toBe(200);
    expect((await fetch(`${standin.url}/items`)).status).toBe(200);
    expect((await fetch(`${standin.url}/items`, { headers: { authorization: 'Basic x' } })).status).toBe(401);
    clock.t = start + 60_000;
    const after = await fetch(`${standin.url}/items`, { headers: auth });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('1');
    clock.t = start;
  });

  it('injects scripted faults, and a secondary limit blocks the client for its retry-after', async () => {
    standin = await startStandin(service, { seed: 1, clock });
    standin.faults.inject(
      { fault: { kind: 'server-error', status: 502 }, pathIncludes: '/items/3' },
      { fault: { kind: 'secondary-limit', retryAfterSeconds: 30 } },
    );
    expect((await fetch(`${standin.url}/items/1`, { headers: auth })).status).toBe(429);
    const limited = await fetch(`${standin.url}/items/1`, { headers: auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(standin.stats.violations).toBe(1);
    const start = clock.t;
    clock.t += 30_000;
    expect((await fetch(`${standin.url}/items/3`, { headers: auth })).status).toBe(502);
    expect((await fetch(`${standin.url}/items/3`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${standin.url}/items/99`, { headers: auth })).status).toBe(404);
    expect(standin.faults.pending()).toBe(0);
    clock.t = start;
  });

  it('draws random faults from the seed: the same seed gives the same sequence', async () => {
    const run = async (seed: number) => {
      const s = await startStandin(service, {
        seed,
        clock,
        faults: { serverError: 0.3, secondaryLimit: 0.1, secondaryRetryAfterSeconds: 0 },
      });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await fetch(`${s.url}/items`, { headers: auth })).status);
      await s.close();
      return out;
    };
    const a = await run(5);
    expect(await run(5)).toEqual(a);
    expect(await run(6)).not.toEqual(a);
    expect(a.filter((s) => s >= 500).length).toBeGreaterThan(4);
  });
});

describe('generation helpers', () => {
  it('generates days in sequence, once, and only forward', () => {
    const seen: number[] = [];
    const series = new DailySeries(100, (day) => seen.push(day));
    series.advanceTo(102);
    series.advanceTo(101);
    series.advanceTo(103);
    expect(seen).toEqual([100, 101, 102, 103]);
    expect(series.generatedUntil).toBe(104);
  });

  it('derives stable ids and independent streams', () => {
    expect(stableId('repo:aave/protocol')).toBe(stableId('repo:aave/protocol'));
    expect(stableId('repo:aave/protocol')).not.toBe(stableId('repo:aave/interface'));
    expect(stableId('x', 20)).toBeLessThanOrEqual(2 ** 20);
    expect(streamRng(1, 'a', 3).nextUint32()).toBe(streamRng(1, 'a', 3).nextUint32());
    expect(streamRng(1, 'a', 3).nextUint32()).not.toBe(streamRng(1, 'a', 4).nextUint32());
    expect(dayOf(86_400_000 * 5 + 1)).toBe(5);
    expect(upperBound([1, 2, 2, 3], 2, (x) => x)).toBe(3);
  });
});
