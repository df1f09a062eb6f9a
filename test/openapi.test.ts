import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PATHS } from '../src/areas/index.js';
import { type TestApp, testApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t?.close());

it('/openapi.json is a valid OpenAPI 3.1 document under an independent validator', async () => {
  const res = await t.app.inject({ url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json();
  expect(doc.openapi).toBe('3.1.0');
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
});

it('documents every spec path (the two blockchain chain paths share one URL shape)', async () => {
  const doc = (await t.app.inject({ url: '/openapi.json' })).json();
  const documented = Object.keys(doc.paths);
  for (const def of PATHS) {
    const url = def.template.replace(/<(l[12]_chain)>$/, '{chain}').replace(/<([a-z0-9_]+)>/g, '{$1}');
    expect(documented, def.template).toContain(url);
    expect(doc.paths[url].get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths[url].post).toBeUndefined();
  }
  for (const system of ['/authorization', '/health', '/ready', '/status', '/metrics'])
    expect(documented).toContain(system);
});

it('/docs renders the reference with no request to another host', async () => {
  const page = await t.app.inject({ url: '/docs/' });
  const html =
    page.statusCode === 302 || page.statusCode === 301
      ? (await t.app.inject({ url: page.headers.location as string })).body
      : page.body;
  expect(html).toMatch(/<html/i);
  const external = [...html.matchAll(/(?:src|href)=["'](https?:)?\/\/[^"']+/g)].map((m) => m[0]);
  expect(external).toEqual([]);
  const bundle = await t.app.inject({ url: '/docs/static/swagger-ui-bundle.js' });
  expect(bundle.statusCode).toBe(200);
});
