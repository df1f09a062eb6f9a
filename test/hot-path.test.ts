import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenRepository } from '../src/store/tokens.js';
import { EXAMPLES } from './examples.js';
import { type TestApp, testApp } from './helpers.js';

/**
 * The hot path (src/http/hot.ts) answers repeat document requests before Fastify routes them. These tests hold
 * it to the full path's answers over real HTTP (inject() never reaches it): same status, headers and bytes, the
 * same rate limit, log line and metrics, and a fall-back to the full path for everything it does not own.
 */

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** Header names in the order they came. */
  names: string[];
  body: Buffer;
}

const pool = EXAMPLES.find((e) => e.def.id === 'dex.pool-analytics')!;
const pools = EXAMPLES.find((e) => e.def.id === 'dex.available-pools')!;

function get(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          names: res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Headers that legitimately differ from one request to the next. */
const VOLATILE = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'connection', 'keep-alive']);

function stable(headers: IncomingHttpHeaders | Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]): [string, string] => [k, String(v)])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

function decode(raw: Raw): string {
  const enc = raw.headers['content-encoding'];
  if (enc === 'br') return brotliDecompressSync(raw.body).toString('utf8');
  if (enc === 'gzip') return gunzipSync(raw.body).toString('utf8');
  if (enc === 'deflate') return inflateSync(raw.body).toString('utf8');
  return raw.body.toString('utf8');
}

describe('hot path', () => {
  let t: TestApp;
  let port: number;
  const hourly = Array.from({ length: 168 }, (_, i) => ({ hour: i, volume_usd: 1000 + i * 17.5, trades: i % 13 }));

  beforeAll(async () => {
    t = await testApp();
    await t.publish('test.hot', 'dex', [
      {
        path: pool.documentPath,
        data: { pool_address: pool.values.pool_address, hourly },
        asOf: Math.floor(t.clock.nowMs() / 1000) - 60,
        source: 'test',
        freshFor: 3600,
      },
      {
        path: pools.documentPath,
        data: Array.from({ length: 10 }, (_, i) => ({ pool_address: `0x${String(i).repeat(40)}`, tvl_usd: 100 - i })),
        asOf: Math.floor(t.clock.nowMs() / 1000) - 60,
        source: 'test',
        freshFor: 3600,
      },
    ]);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  const auth = () => ({ authorization: `Bearer ${t.token}` });

  it.each([
    ['identity', {}],
    ['br', { 'accept-encoding': 'br' }],
    ['gzip', { 'accept-encoding': 'gzip, deflate' }],
    ['deflate', { 'accept-encoding': 'deflate;q=1, br;q=0, gzip;q=0' }],
  ])('a repeat GET (%s) gets the full path answer, byte for byte', async (_name, extra) => {
    for (const ex of [pool, pools]) {
      const headers = { ...auth(), ...extra };
      const first = await get(port, ex.path, headers);
      expect(first.status).toBe(200);
      expect(t.app.hotPath.size).toBeGreaterThan(0);
      const reference = await t.app.inject({ method: 'GET', url: ex.path, headers }); // full path, always
      const served = t.app.hotPath.served;
      const second = await get(port, ex.path, headers);
      expect(t.app.hotPath.served).toBe(served + 1);
      expect(second.status).toBe(200);
      expect(stable(second.headers)).toEqual(stable(first.headers));
      expect(stable(second.headers)).toEqual(stable(reference.headers));
      expect(second.body.equals(first.body)).toBe(true);
      expect(second.body.equals(reference.rawPayload)).toBe(true);
      const json = JSON.parse(decode(second)) as { status: boolean; data: unknown };
      expect(json.status).toBe(true);
      expect(second.headers['x-ratelimit-limit']).toBe('600');
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 2);
      // The same headers in the same order, and the combined rate-limit header agreeing with the three others.
      expect(second.names).toEqual(first.names);
      for (const r of [first, second]) {
        const h = r.headers;
        expect(h.ratelimit).toBe(
          `limit=${h['x-ratelimit-limit']}, remaining=${h['x-ratelimit-remaining']}, reset=${h['x-ratelimit-reset']}`,
        );
      }
    }
  });

  it('compresses a document once per rendering and says so', async () => {
    const plain = await get(port, pool.path, auth());
    const br = await get(port, pool.path, { ...auth(), 'accept-encoding': 'gzip;q=0.5, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(decode(br)).toBe(plain.body.toString('utf8'));
    const none = await get(port, pool.path, { ...auth(), 'accept-encoding': 'identity, br;q=0' });
    expect(none.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD and a matching If-None-Match are answered like the full path', async () => {
    const full = await get(port, pool.path, auth());
    const served = t.app.hotPath.served;
    const head = await get(port, pool.path, auth(), 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(stable(head.headers)).toEqual(stable(full.headers));
    const etag = full.headers.etag!;
    const refHeaders = { ...auth(), 'if-none-match': etag };
    const reference = await t.app.inject({ method: 'GET', url: pool.path, headers: refHeaders });
    const notModified = await get(port, pool.path, refHeaders);
    expect(t.app.hotPath.served).toBe(served + 2);
    expect(reference.statusCode).toBe(304);
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(stable(notModified.headers)).toEqual(stable(reference.headers));
  });

  it('writes one log line per request with its request id, and counts it in /metrics', async () => {
    await get(port, pool.path, auth());
    const before = t.logs.lines.length;
    const res = await get(port, pool.path, { ...auth(), 'x-request-id': 'hot-path-check-1' });
    expect(res.headers['x-request-id']).toBe('hot-path-check-1');
    const lines = t.logs.lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      request_id: 'hot-path-check-1',
      method: 'GET',
      route: pool.def.template,
      path: pool.path,
      status: 200,
      msg: 'request',
    });
    expect(t.logs.text).not.toContain(t.token);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(
      new RegExp(
        `protoscore_http_requests_total\\{route="${pool.def.template.replace(/[<>/]/g, '.')}",method="GET",status="200"\\} \\d+`,
      ),
    );
  });

  it('leaves to the full path: query strings, unknown tokens, revoked tokens', async () => {
    await get(port, pool.path, auth());
    const served = t.app.hotPath.served;
    const query = await get(port, `${pool.path}?x=1`, auth());
    expect(query.status).toBe(200);
    const missing = await get(port, pool.path, {});
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body.toString()).error.code).toBe('missing_token');
    // The same id with a wrong secret: a 32-byte base64url secret never ends in 'B' (its last character carries 4
    // bits), whereas ending in 'AA' is a 1-in-1,024 chance.
    const wrong = await get(port, pool.path, { authorization: `Bearer ${t.token.slice(0, -1)}B` });
    expect(JSON.parse(wrong.body.toString()).error.code).toBe('invalid_token');
    expect(t.app.hotPath.served).toBe(served);

    const other = await t.createToken();
    expect((await get(port, pool.path, { authorization: `Bearer ${other.token}` })).status).toBe(200);
    expect((await get(port, pool.path, { authorization: `Bearer ${other.token}` })).status).toBe(200);
    await new TokenRepository(t.store.db).revoke(other.id, Math.floor(t.clock.nowMs() / 1000));
    await t.sync();
    const servedBefore = t.app.hotPath.served;
    const revoked = await get(port, pool.path, { authorization: `Bearer ${other.token}` });
    expect(t.app.hotPath.served).toBe(servedBefore);
    expect(revoked.status).toBe(401);
    expect(JSON.parse(revoked.body.toString()).error.code).toBe('revoked_token');
  });

  it('refuses over the limit with the full path 429', async () => {
    const limited = await t.createToken({ rateLimit: 3 });
    const headers = { authorization: `Bearer ${limited.token}` };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(port, pool.path, headers)).status);
    const served = t.app.hotPath.served;
    const refused = await get(port, pool.path, headers);
    expect(t.app.hotPath.served).toBe(served + 1);
    expect(statuses).toEqual([200, 200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(refused.body.toString()) as {
      status: boolean;
      error: { code: string; request_id: string };
    };
    expect(body.status).toBe(false);
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.request_id).toBe(refused.headers['x-request-id']);
  });

  it('follows a new publication: a replaced document is served new, a withdrawn one is no_data', async () => {
    const before = await get(port, pool.path, auth());
    await t.publish('test.hot', 'dex', [
      {
        path: pool.documentPath,
        data: { pool_address: pool.values.pool_address, hourly: hourly.slice(0, 24) },
        asOf: Math.floor(t.clock.nowMs() / 1000) - 30,
        source: 'test',
        freshFor: 3600,
      },
    ]);
    const first = await get(port, pool.path, auth());
    const second = await get(port, pool.path, auth());
    expect(first.headers.etag).not.toBe(before.headers.etag);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(JSON.parse(second.body.toString()).data.hourly).toHaveLength(24);
    const gone = await get(port, pools.path, auth());
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body.toString()).error.code).toBe('no_data');
  });
});
