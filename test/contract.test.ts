import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../src/areas/index.js';
import { compilePath, fillTemplate } from '../src/paths/compile.js';
import type { ParamKind } from '../src/paths/params.js';
import { EXAMPLES } from './examples.js';
import { type TestApp, testApp } from './helpers.js';

/** A malformed value of each kind of segment (the 400 cases of API.md). */
const MALFORMED: Record<ParamKind, string[]> = {
  protocol: ['aa$ve', 'a'.repeat(65)],
  chain: ['eth$', 'eth--x'],
  l1_chain: ['bit%coin'],
  l2_chain: ['arb.itrum'],
  oracle: ['chain link!'],
  channel: ['dis/cord'],
  version: ['X3', 'V', 'V1000'],
  base_asset: ['US$C', 'A'.repeat(17)],
  token_address: ['0x123', 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', `0x${'g'.repeat(40)}`],
  pool_address: ['0xabc', `0x${'0'.repeat(41)}`],
  pair: ['ETH$USD', 'ETH-'],
  page_size: ['0', '501', '-1', '1.5', '01'],
  page_skip: ['-1', 'x', '01'],
  flag: ['yes', 'TRUE', '1'],
};

/** A recognisable non-canonical form, for the kinds that redirect. */
function nonCanonical(kind: ParamKind, canonical: string): string | undefined {
  switch (kind) {
    case 'protocol':
      return canonical.length > 1 ? `${canonical[0]!.toUpperCase()}${canonical.slice(1)}` : canonical.toUpperCase();
    case 'chain':
    case 'l1_chain':
    case 'l2_chain':
    case 'oracle':
    case 'channel':
      return canonical.toUpperCase();
    case 'version':
    case 'base_asset':
      return canonical === canonical.toUpperCase() ? canonical.toLowerCase() : canonical.toUpperCase();
    case 'pair':
      return canonical.toLowerCase();
    default:
      return undefined;
  }
}

let t: TestApp;
let auth: { authorization: string };

beforeAll(async () => {
  t = await testApp();
  auth = { authorization: `Bearer ${t.token}` };
});
afterAll(() => t?.close());

it('the table has the 52 spec paths, each exactly once', () => {
  expect(PATHS).toHaveLength(52);
  expect(new Set(PATHS.map((p) => p.template)).size).toBe(52);
  expect(new Set(PATHS.map((p) => p.id)).size).toBe(52);
});

describe.each(EXAMPLES.map((e) => [e.def.template, e] as const))('%s', (_template, example) => {
  const compiled = compilePath(example.def);

  it('401 missing_token without a token, invalid_token with a bad one', async () => {
    const none = await t.app.inject({ url: example.path });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(none.json().error.code).toBe('missing_token');
    const bad = await t.app.inject({ url: example.path, headers: { authorization: 'Bearer ps_000000000000_xyz' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error.code).toBe('invalid_token');
  });

  it('400 naming each malformed segment', async () => {
    for (const kind of compiled.params) {
      for (const bad of MALFORMED[kind]) {
        const url = fillTemplate(example.def.template, { ...example.values, [kind]: encodeURIComponent(bad) });
        const res = await t.app.inject({ url, headers: auth });
        // A malformed value may make the URL match another spec path (e.g. `/pairs`): only then is it not a 400.
        expect(res.statusCode, `${url}`).toBe(400);
        const body = res.json();
        expect(body.status).toBe(false);
        expect(body.error.code).toBe('invalid_parameter');
        expect(body.error.message).toContain(`<${kind}>`);
      }
    }
  });

  it('308 from each non-canonical segment to the canonical path', async () => {
    for (const kind of compiled.params) {
      const variant = nonCanonical(kind, example.values[kind]!);
      if (variant === undefined || variant === example.values[kind]) continue;
      const url = fillTemplate(example.def.template, { ...example.values, [kind]: variant });
      const res = await t.app.inject({ url, headers: auth });
      expect(res.statusCode, url).toBe(308);
      expect(res.headers.location).toBe(example.path);
    }
  });

  it('405 for other methods, 404 JSON for an unknown route below it', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await t.app.inject({ method, url: example.path, headers: auth, payload: { a: 1 } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json().error.code).toBe('method_not_allowed');
    }
    const unknown = await t.app.inject({ url: `${example.path}/no-such-thing/x`, headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('unknown_route');
  });

  it('404 no_data before a document is published, then 200 with the envelope, ETag and 304', async () => {
    const before = await t.app.inject({ url: example.path, headers: auth });
    expect(before.statusCode).toBe(404);
    expect(before.json().error.code).toBe('no_data');

    const data =
      example.def.shape === 'snapshot'
        ? { marker: example.def.id }
        : [{ marker: example.def.id }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }];
    const asOf = Math.floor(t.clock.nowMs() / 1000) - 60;
    await t.publish(`test.${example.def.id}`, example.def.area, [
      {
        path: example.documentPath,
        data,
        asOf,
        source: 'test',
        freshFor: 3600,
        methodology: example.def.methodology ? `${example.def.methodology}@1` : undefined,
      },
    ]);
    const res = await t.app.inject({ url: example.path, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.status).toBe(true);
    expect(body.meta.as_of).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(body.meta.stale).toBe(false);
    expect(body.meta.source).toBe('test');
    if (example.def.shape === 'paged') {
      // page_size 3, page_skip 1: items 4 and 5 of 5.
      expect(body.data).toEqual([{ n: 4 }, { n: 5 }]);
      expect(body.meta).toMatchObject({ total: 5, page_size: 3, page_skip: 1, next: null });
    } else {
      expect(body.data).toEqual(data);
    }
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);

    const again = await t.app.inject({ url: example.path, headers: { ...auth, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const head = await t.app.inject({ method: 'HEAD', url: example.path, headers: auth });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });
});

describe('unknown entities', () => {
  it.each(EXAMPLES.filter((e) => compilePath(e.def).params.length > 0).map((e) => [e.def.template, e] as const))(
    '%s: 404 unknown_entity naming valid values or the listing path',
    async (_template, example) => {
      const compiled = compilePath(example.def);
      const kind = compiled.params.find((k) => !['page_size', 'page_skip', 'flag'].includes(k));
      if (!kind) return;
      const unknownValue =
        kind === 'token_address' || kind === 'pool_address'
          ? `0x${'9'.repeat(40)}`
          : kind === 'pair'
            ? 'NOPE-USD'
            : kind === 'version'
              ? example.def.letterCase === 'lower'
                ? 'v99'
                : 'V99'
              : kind === 'base_asset'
                ? example.def.letterCase === 'lower'
                  ? 'nope'
                  : 'NOPE'
                : 'nosuch';
      const url = fillTemplate(example.def.template, { ...example.values, [kind]: unknownValue });
      const res = await t.app.inject({ url, headers: auth });
      expect(res.statusCode, url).toBe(404);
      const body = res.json();
      expect(body.error.code).toBe('unknown_entity');
      expect(body.error.message).toMatch(/supported: |see \//);
    },
  );
});

describe('paging', () => {
  it('pages by whole pages, with next links, stable order as published', async () => {
    const example = EXAMPLES.find((e) => e.def.shape === 'paged')!;
    const items = Array.from({ length: 7 }, (_, i) => ({ i }));
    await t.publish('test.paging', 'dex', [
      {
        path: example.documentPath,
        data: items,
        asOf: Math.floor(t.clock.nowMs() / 1000),
        source: 'test',
        freshFor: 3600,
      },
    ]);
    const page = (size: number, skip: number) =>
      t.app.inject({
        url: fillTemplate(example.def.template, {
          ...example.values,
          page_size: String(size),
          page_skip: String(skip),
        }),
        headers: auth,
      });
    const first = (await page(3, 0)).json();
    expect(first.data).toEqual(items.slice(0, 3));
    expect(first.meta.next).toBe(`${example.documentPath}/3/1`);
    const last = (await page(3, 2)).json();
    expect(last.data).toEqual(items.slice(6));
    expect(last.meta.next).toBeNull();
    const beyond = (await page(3, 9)).json();
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.total).toBe(7);
  });
});

describe('staleness', () => {
  it('marks a document stale once older than its freshness budget', async () => {
    const example = EXAMPLES.find((e) => e.def.id === 'oracles.pairs')!;
    const now = Math.floor(t.clock.nowMs() / 1000);
    await t.publish('test.stale', 'oracles', [
      { path: example.documentPath, data: [], asOf: now - 100, source: 'test', freshFor: 200 },
    ]);
    const fresh = await t.app.inject({ url: example.path, headers: auth });
    expect(fresh.json().meta.stale).toBe(false);
    t.clock.advance(150);
    const stale = await t.app.inject({ url: example.path, headers: auth });
    expect(stale.json().meta.stale).toBe(true);
    expect(stale.headers.etag).not.toBe(fresh.headers.etag);
  });
});
