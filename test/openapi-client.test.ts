import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { developmentArea } from '../src/areas/development/index.js';
import { dexArea } from '../src/areas/dex/index.js';
import { PATHS } from '../src/areas/index.js';
import { oraclesArea } from '../src/areas/oracles/index.js';
import { injectSettled, type TestApp, testApp } from './helpers.js';
import { areaRunner, githubEnv } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * Outcome 7 of issue 12: a client generated from the served `/openapi.json` (openapi-typescript) type-checks against
 * the payloads the service really serves. A small sandbox world feeds the DEX and oracle areas, the GitHub stand-in the
 * development area; one served document of every path with published data, the system paths and the error, redirect
 * and not-ready answers are assigned, as object literals, to the generated response types, and the TypeScript compiler
 * must find nothing (excess or missing fields, wrong types, unknown error codes). Controls (a real payload with a
 * required field removed, an unknown error code, a wrong type) must each fail, so the check cannot pass vacuously.
 */

type OpenApiDoc = {
  paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }>;
};

interface Served {
  readonly key: string;
  readonly status: number;
  readonly url: string;
  readonly body: unknown;
}

const DEVELOPMENT_SUBJECTS = ['protocol:aave', 'chain:ethereum'];

let w: TestWorld;
let t: TestApp;
let github: TestSources;
let dir: string;

beforeAll(async () => {
  w = await smallWorld({ days: 2, scale: 0.1 });
  t = await testApp();
  await areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync()).all();
  await areaRunner(oraclesArea, w.env, t.store, t.clock, () => t.sync()).all();
  github = await startTestSources({
    kinds: ['github'],
    clock: t.clock,
    seed: 11,
    githubSubjects: DEVELOPMENT_SUBJECTS,
    maxRetries: 1,
  });
  const env = githubEnv(github.sources.get('github')!);
  const development = areaRunner(developmentArea, env, t.store, t.clock, () => t.sync());
  await development.run('development.ingest');
  await development.run('development.compute');
  await t.sync();
  dir = mkdtempSync(path.join(tmpdir(), 'protoscore-client-'));
}, 240_000);

afterAll(async () => {
  await github?.close();
  await t?.close();
  await w?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The document's path template a concrete URL falls under: the one with the most literal segments. */
function templateOf(doc: OpenApiDoc, url: string): string | undefined {
  const matching = Object.keys(doc.paths).filter((key) =>
    new RegExp(`^${key.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`).test(url),
  );
  const literals = (key: string) => key.split('/').filter((s) => s && !s.startsWith('{')).length;
  return matching.sort((a, b) => literals(b) - literals(a))[0];
}

async function get(url: string, auth = true): Promise<{ status: number; body: unknown }> {
  const res = await injectSettled(t.app, {
    url,
    headers: auth ? { authorization: `Bearer ${t.token}` } : {},
  });
  return { status: res.statusCode, body: res.json() };
}

/** One served document of every document path template with published data (paged listings: their first page). */
async function servedDocuments(doc: OpenApiDoc): Promise<Served[]> {
  const rows = await t.store.db.selectFrom('datasets').select('path').orderBy('path').execute();
  const seen = new Set<string>();
  const out: Served[] = [];
  for (const { path: documentPath } of rows) {
    for (const url of [documentPath, `${documentPath}/500/0`]) {
      const key = templateOf(doc, url);
      if (!key || seen.has(key)) continue;
      const res = await get(url);
      if (res.status !== 200) continue;
      seen.add(key);
      out.push({ key, url, ...res });
    }
  }
  return out;
}

/** Served answers of the system paths and of the errors, redirects and waits a client must handle. */
async function servedOthers(doc: OpenApiDoc, dex: { chain: string; protocol: string; version: string }) {
  const cases: [string, boolean][] = [
    ['/health', false],
    ['/ready', false],
    ['/status', false],
    ['/authorization', true],
    ['/data/liquidity/dex/available-dexes', false],
    [`/data/liquidity/dex/pool-analytics/0x${'0'.repeat(39)}1`, true],
    ['/data/liquidity/dex/pool-analytics/0x123', true],
    [`/data/liquidity/dex/protocol-overview/${dex.protocol.toUpperCase()}`, true],
    ['/data/oracle/chainlink/BTC-XYZ', true],
  ];
  const out: Served[] = [];
  for (const [url, auth] of cases) {
    const res = await get(url, auth);
    out.push({ key: templateOf(doc, url)!, status: res.status, url, body: res.body });
  }
  return out;
}

const HEADER = `import type { paths } from './api';

type Body<P extends keyof paths, S extends number> = paths[P] extends {
  get: { responses: { [K in S]: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;
`;

function assignments(served: readonly Served[], prefix: string): string {
  return served
    .map(
      (s, i) =>
        `export const ${prefix}${i}: Body<${JSON.stringify(s.key)}, ${s.status}> = ${JSON.stringify(s.body)}; // ${s.url}`,
    )
    .join('\n');
}

function typeCheck(files: readonly string[]): readonly ts.Diagnostic[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program);
}

function describeDiagnostic(d: ts.Diagnostic): string {
  const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 1500);
  return `${d.file ? path.basename(d.file.fileName) : ''}:${where ? where.line + 1 : '?'} ${text}`;
}

it('a client generated from /openapi.json type-checks against the payloads the service serves', async () => {
  const docRes = await injectSettled(t.app, { url: '/openapi.json' });
  expect(docRes.statusCode).toBe(200);
  const doc = docRes.json() as OpenApiDoc;
  writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(doc as never)));

  const documents = await servedDocuments(doc);
  // Three areas, each with several paths, all with the area's own payload schema (not the generic placeholder).
  const defOf = new Map(PATHS.map((p) => [p.template.replace(/<([a-z0-9_]+)>/g, '{$1}'), p]));
  const areas = new Set(documents.map((d) => defOf.get(d.key)?.area));
  expect([...areas]).toEqual(expect.arrayContaining(['development', 'dex', 'oracles']));
  expect(documents.length).toBeGreaterThanOrEqual(12);
  for (const d of documents) expect(defOf.get(d.key)?.payload, d.key).toBeDefined();

  const dexListing = documents.find((d) => d.key === '/data/liquidity/dex/available-dexes')!;
  const firstDex = (dexListing.body as { data: { chain: string; protocol: string; version: string }[] }).data[0]!;
  const others = await servedOthers(doc, firstDex);
  expect(others.map((o) => o.status)).toEqual([200, expect.any(Number), 200, 200, 401, 404, 400, 308, 404]);

  const payloads = path.join(dir, 'payloads.ts');
  writeFileSync(payloads, `${HEADER}\n${assignments(documents, 'document')}\n${assignments(others, 'other')}\n`);

  // Controls, one a line: each must fail to type-check (a missing field, a field the schema does not name, an
  // unknown error code, a wrong type).
  const poolKey = '/data/liquidity/dex/pool-analytics/{pool_address}';
  const pool = documents.find((d) => d.key === poolKey)!;
  const itemSchema = doc.paths[poolKey]!.get.responses['200']!.content!['application/json']!.schema as {
    properties: { data: { required?: string[]; items?: { required: string[] } } };
  };
  const required = itemSchema.properties.data.items?.required ?? itemSchema.properties.data.required!;
  const mutilated = structuredClone(pool.body) as { data: Record<string, unknown> | Record<string, unknown>[] };
  delete (Array.isArray(mutilated.data) ? mutilated.data[0]! : mutilated.data)[required[0]!];
  const extended = structuredClone(pool.body) as { data: Record<string, unknown> | Record<string, unknown>[] };
  (Array.isArray(extended.data) ? extended.data[0]! : extended.data).not_in_the_schema = 1;
  const unauthorised = others.find((o) => o.status === 401)!;
  const controls = [
    { ...pool, body: mutilated },
    { ...pool, body: extended },
    {
      ...unauthorised,
      body: { ...(unauthorised.body as object), error: { code: 'no_such_code', message: 'm', request_id: 'r' } },
    },
    { ...others[0]!, body: { status: true, data: { status: 'ok', uptime_seconds: 'a while' } } },
  ];
  const controlFile = path.join(dir, 'controls.ts');
  writeFileSync(controlFile, `${HEADER}\n${assignments(controls, 'control')}\n`);

  const diagnostics = typeCheck([payloads, controlFile]);
  const inPayloads = diagnostics.filter((d) => d.file?.fileName !== controlFile);
  expect(inPayloads.map(describeDiagnostic).join('\n\n')).toBe('');
  const controlLines = new Set(
    diagnostics
      .filter((d) => d.file?.fileName === controlFile && d.start !== undefined)
      .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line),
  );
  const firstControlLine = HEADER.split('\n').length;
  expect([...controlLines].sort((a, b) => a - b)).toEqual(controls.map((_, i) => firstControlLine + i));
}, 240_000);
