import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillTemplate } from '../src/paths/compile.js';
import { EXAMPLES } from './examples.js';
import { type TestApp, testApp } from './helpers.js';

const HOSTILE = [
  "' OR 1=1 --",
  '"; DROP TABLE datasets; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '..%2F..%2F',
  '%2e%2e',
  '%2F',
  '%00',
  '\u0000',
  '%E0%A4%A',
  '%',
  '%%',
  '%ZZ',
  '😀',
  'ｆｕｌｌ',
  'Ａave',
  '\u202e',
  '0x' + 'f'.repeat(400),
  'a'.repeat(5000),
  '{"$ne":null}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent literally
  '${7*7}',
  '__proto__',
  'constructor',
  ' ',
  '+',
  '?',
  '#',
];

/** A segment as a client might send it: raw, percent-encoded, or a hostile fragment. */
const segment = fc.oneof(
  fc.string({ maxLength: 80 }).map((s) => encodeURIComponent(s)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom(...HOSTILE).map((s) => (/%/.test(s) ? s : encodeURIComponent(s))),
  fc.constantFrom(...HOSTILE),
  fc.stringMatching(/^[A-Za-z0-9 _.-]{0,30}$/).map((s) => encodeURIComponent(s)),
);

let t: TestApp;
let auth: { authorization: string };
beforeAll(async () => {
  t = await testApp();
  // ~2,200 requests on a clock that never moves: a token of the default 600/min would turn all but the first 600
  // into 429s, and the properties would test the rate limiter instead of the routes.
  const { token } = await t.createToken({ rateLimit: 1_000_000 });
  auth = { authorization: `Bearer ${token}` };
});
afterAll(() => t?.close());

describe('hostile path segments never produce a 5xx or a non-JSON body', () => {
  it.each(EXAMPLES.map((e) => [e.def.template, e] as const))('%s', async (_template, example) => {
    const names = [...example.def.template.matchAll(/<([a-z0-9_]+)>/g)].map((m) => m[1]!);
    const arb = names.length
      ? fc.tuple(...names.map(() => segment))
      : fc.tuple(fc.constantFrom('', '/', '//', '/x', '?a=%', '%2F'));
    await fc.assert(
      fc.asyncProperty(arb, async (segments) => {
        let url: string;
        if (names.length) {
          const values = Object.fromEntries(names.map((n, i) => [n, segments[i] as string]));
          url = fillTemplate(example.def.template, values);
        } else {
          url = example.path + (segments[0] as string);
        }
        const res = await t.app.inject({ url, headers: auth });
        if (res.statusCode >= 500) throw new Error(`${res.statusCode} for ${url}: ${res.body}`);
        expect(res.statusCode, url).not.toBe(429);
        if (res.statusCode !== 304 && res.body !== '') {
          expect(res.headers['content-type'], url).toMatch(/^application\/json/);
          expect(() => JSON.parse(res.body), url).not.toThrow();
        }
      }),
      { numRuns: 40, seed: 20261122 },
    );
  });

  it('the same for whole hostile URLs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...HOSTILE),
        fc.constantFrom('/data/', '/scores/', '/score/', '/', '/data/liquidity/dex/'),
        async (h, prefix) => {
          const res = await t.app.inject({ url: prefix + h, headers: auth });
          expect(res.statusCode).toBeLessThan(500);
          expect(() => JSON.parse(res.body)).not.toThrow();
        },
      ),
      { numRuns: 100, seed: 1 },
    );
  });
});
