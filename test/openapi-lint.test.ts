import { afterAll, beforeAll, expect, it } from 'vitest';
import { injectSettled, type TestApp, testApp } from './helpers.js';
import { formatProblems, redoclyProblems, spectralProblems } from './support/openapi-lint.js';

/**
 * Outcome 7 of issue 12: `/openapi.json` holds up outside the project. Two independent linters, each at its
 * recommended rules (Redocly `recommended`, Spectral `spectral:oas`), find no problem of any severity, with the
 * default `servers` and with `PUBLIC_URL` set.
 */

const fetchDocument = async (app: TestApp) => {
  const res = await injectSettled(app.app, { url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.body;
};

// The documents are fetched before any linting.
let t: TestApp;
let behindProxy: TestApp;
let documents: Map<TestApp, string>;
beforeAll(async () => {
  t = await testApp();
  behindProxy = await testApp({ env: { PUBLIC_URL: 'https://api.example.org/protoscore/' } });
  documents = new Map([
    [t, await fetchDocument(t)],
    [behindProxy, await fetchDocument(behindProxy)],
  ]);
});
afterAll(async () => {
  await t?.close();
  await behindProxy?.close();
});

const served = async (app: TestApp) => documents.get(app)!;

it('Redocly (recommended) and Spectral (spectral:oas) find no problem, errors or warnings', async () => {
  for (const app of [t, behindProxy]) {
    const source = await served(app);
    const problems = [...(await redoclyProblems(source)), ...(await spectralProblems(source))];
    expect(problems, formatProblems(problems)).toEqual([]);
  }
}, 60_000);

it('the linters are live: a document without servers or operationIds is reported by both', async () => {
  const doc = JSON.parse(await served(t));
  delete doc.servers;
  delete doc.paths['/health'].get.operationId;
  const source = JSON.stringify(doc);
  const redocly = (await redoclyProblems(source)).map((p) => p.rule);
  const spectral = (await spectralProblems(source)).map((p) => p.rule);
  expect(redocly).toEqual(expect.arrayContaining(['no-empty-servers', 'operation-operationId']));
  expect(spectral).toEqual(expect.arrayContaining(['oas3-api-servers', 'operation-operationId']));
}, 60_000);

it('servers: the origin that served the document, or PUBLIC_URL (without its trailing slash)', async () => {
  expect(JSON.parse(await served(t)).servers.map((s: { url: string }) => s.url)).toEqual(['/']);
  expect(JSON.parse(await served(behindProxy)).servers.map((s: { url: string }) => s.url)).toEqual([
    'https://api.example.org/protoscore',
  ]);
});

it('every tag used is defined with a description; every operation has a unique operationId', async () => {
  const doc = JSON.parse(await served(t));
  const defined = new Map<string, string>(
    doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]),
  );
  const ids: string[] = [];
  for (const item of Object.values<Record<string, { tags: string[]; operationId: string }>>(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const tag of op.tags) expect(defined.get(tag), tag).toMatch(/\w/);
      ids.push(op.operationId);
    }
  }
  expect(new Set(ids).size).toBe(ids.length);
  expect(defined.get('dex')).toMatch(/^Decentralized exchanges: \d+ dataset paths and \d+ score paths$/);
});

it('public system paths say they need no token; the shared shapes are named components', async () => {
  const doc = JSON.parse(await served(t));
  for (const path of ['/health', '/ready', '/status', '/metrics']) expect(doc.paths[path].get.security).toEqual([]);
  expect(doc.paths['/authorization'].get.security).toEqual([{ bearer: [] }]);
  expect(Object.keys(doc.components.schemas).sort()).toEqual([
    'Error',
    'ErrorEnvelope',
    'Meta',
    'PagedMeta',
    'Redirect',
  ]);
  const pool = doc.paths['/data/liquidity/dex/pool-analytics/{pool_address}'].get.responses;
  expect(pool['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
  expect(pool['200'].content['application/json'].schema.properties.meta).toEqual({ $ref: '#/components/schemas/Meta' });
});
