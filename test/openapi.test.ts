import net from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PATHS } from '../src/areas/index.js';
import { injectSettled, type TestApp, testApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t?.close());

it('/openapi.json is a valid OpenAPI 3.1 document under an independent validator', async () => {
  const res = await injectSettled(t.app, { url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json();
  expect(doc.openapi).toBe('3.1.0');
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
});

it('documents every spec path (the two blockchain chain paths share one URL shape)', async () => {
  const doc = (await injectSettled(t.app, { url: '/openapi.json' })).json();
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
  const page = await injectSettled(t.app, { url: '/docs/' });
  const html =
    page.statusCode === 302 || page.statusCode === 301
      ? (await injectSettled(t.app, { url: page.headers.location as string })).body
      : page.body;
  expect(html).toMatch(/<html/i);
  const external = [...html.matchAll(/(?:src|href)=["'](https?:)?\/\/[^"']+/g)].map((m) => m[0]);
  expect(external).toEqual([]);
  const bundle = await injectSettled(t.app, { url: '/docs/static/swagger-ui-bundle.js' });
  expect(bundle.statusCode).toBe(200);
});

it('/docs loads the same document as /openapi.json (Swagger UI reads /docs/json)', async () => {
  const init = await injectSettled(t.app, { url: '/docs/static/swagger-initializer.js' });
  expect(init.statusCode).toBe(200);
  expect(init.body).toContain("url: resolveUrl('./json')");
  const fromDocs = await injectSettled(t.app, { url: '/docs/json' });
  expect(fromDocs.statusCode).toBe(200);
  expect(fromDocs.json()).toEqual((await injectSettled(t.app, { url: '/openapi.json' })).json());
});

it('a request that is not HTTP, or with headers over the limit, gets the error envelope (documented 400 and 431)', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as net.AddressInfo;
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      let answer = '';
      socket.on('data', (d) => {
        answer += d;
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  const cases = [
    [`GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`, 400],
    [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ] as const;
  const doc = (await injectSettled(t.app, { url: '/openapi.json' })).json();
  for (const [request, status] of cases) {
    const answer = await raw(request);
    expect(answer.split('\r\n')[0]).toBe(
      `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Request Header Fields Too Large'}`,
    );
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ status: false, error: { code: 'invalid_request' } });
    expect(doc.paths['/health'].get.responses[String(status)].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
  }
});
