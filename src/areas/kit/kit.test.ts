import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../test/helpers.js';
import { loadConfig } from '../../config/index.js';
import { nowSeconds } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import type { PathDef } from '../../paths/types.js';
import { EMPTY_BOOK } from '../../registry/address-book.js';
import { registry } from '../../registry/index.js';
import { openDiscord } from '../../sources/discord/endpoint.js';
import { EvmChains } from '../../sources/evm/chains.js';
import { openGithub } from '../../sources/github/endpoint.js';
import { openGmxOracle } from '../../sources/gmx-oracle/endpoint.js';
import { SourceMap } from '../../sources/index.js';
import { openReddit } from '../../sources/reddit/endpoint.js';
import { openSynthetix } from '../../sources/synthetix/endpoint.js';
import { writeCheckpoint } from '../../store/checkpoints.js';
import { computedKey, computeJob, publishedAs, publishingEvery } from './compute-job.js';
import { DEFAULT_FRESH_FOR_SECONDS, DocumentSet } from './documents.js';
import { type AreaEnv, defineArea, definePart } from './module.js';
import { isSandboxSource, sourceLabel } from './source-label.js';

const evm = new EvmChains([{ id: 'ethereum', rpcUrl: 'http://127.0.0.1:1', finalityDepth: 2 }], {
  log: pino({ level: 'silent' }),
});
const env = (over: Partial<AreaEnv> = {}): AreaEnv => ({
  config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
  registry,
  book: EMPTY_BOOK,
  sources: new SourceMap({ evm }),
  ...over,
});
const sandboxBook = { origin: 'sandbox' as const, chains: { ethereum: { chainId: 31337, tokens: {}, entries: {} } } };

describe('sourceLabel (meta.source)', () => {
  it('names the chain and its id, sandbox first when the world serves it', () => {
    expect(sourceLabel(env(), ['evm'])).toBe('ethereum:1');
    expect(sourceLabel(env({ book: sandboxBook }), ['evm'])).toBe('sandbox:ethereum:31337');
    // The sandbox's layer-2 chains are configured too, but its book names only the world's chain.
    const l2 = new EvmChains(
      [
        { id: 'ethereum', rpcUrl: 'http://127.0.0.1:1', finalityDepth: 2 },
        { id: 'optimism', rpcUrl: 'http://127.0.0.1:2', finalityDepth: 2 },
      ],
      { log: pino({ level: 'silent' }) },
    );
    expect(sourceLabel(env({ book: sandboxBook, sources: new SourceMap({ evm: l2 }) }), ['evm'])).toBe(
      'sandbox:ethereum:31337',
    );
    expect(sourceLabel(env({ sources: new SourceMap({ evm: l2 }) }), ['evm'])).toBe('ethereum:1, optimism:10');
    expect(isSandboxSource('sandbox:ethereum:31337')).toBe(true);
    expect(isSandboxSource('ethereum:1')).toBe(false);
  });

  it('in the sandbox, names the chains whose book has the area’s entries (GMX on Arbitrum is not the DEX’s)', () => {
    const entry = { address: '0x0000000000000000000000000000000000000001' } as never;
    const book = {
      origin: 'sandbox' as const,
      chains: {
        ethereum: { chainId: 31337, tokens: {}, entries: { 'dex/uniswap/V3': entry } },
        arbitrum: { chainId: 42161, tokens: {}, entries: { 'derivatives/gmx/DataStore': entry } },
      },
    };
    const evm = new EvmChains(
      [
        { id: 'ethereum', rpcUrl: 'http://127.0.0.1:1', finalityDepth: 2 },
        { id: 'arbitrum', rpcUrl: 'http://127.0.0.1:2', finalityDepth: 2 },
      ],
      { log: pino({ level: 'silent' }) },
    );
    const e = env({ book, sources: new SourceMap({ evm }) });
    expect(sourceLabel(e, ['evm'], 'dex')).toBe('sandbox:ethereum:31337');
    expect(sourceLabel(e, ['evm'], 'derivatives')).toBe('sandbox:arbitrum:42161');
    // An area without entries of its own (the blockchain area) names every chain of the book.
    expect(sourceLabel(e, ['evm'], 'blockchain')).toBe('sandbox:ethereum:31337, sandbox:arbitrum:42161');
  });

  it('names GitHub, and its stand-in as sandbox', () => {
    const settings = { baseUrl: 'https://api.github.com', token: undefined };
    const github = openGithub(settings);
    expect(sourceLabel(env({ sources: new SourceMap({ github }) }), ['github'])).toBe('github');
    const standin = openGithub(settings, { label: 'sandbox GitHub stand-in (REST API v3)' });
    expect(sourceLabel(env({ sources: new SourceMap({ github: standin }) }), ['github'])).toBe('sandbox:github');
    expect(sourceLabel(env(), [])).toBeUndefined();
  });

  it('names Discord and Reddit, and their stand-ins as sandbox, in the order read', () => {
    const discord = openDiscord({ baseUrl: 'https://discord.com/api/v10', token: 't', guilds: new Map() });
    const reddit = openReddit(
      {
        apiUrl: 'https://oauth.reddit.com',
        authUrl: 'https://www.reddit.com',
        clientId: 'id',
        clientSecret: 'secret',
        userAgent: 'test',
        subredditFor: (id) => id,
      },
      { label: 'sandbox Reddit stand-in (OAuth API)' },
    );
    const sources = new SourceMap({ discord, reddit });
    expect(sourceLabel(env({ sources }), ['discord', 'reddit'])).toBe('discord, sandbox:reddit');
    expect(sourceLabel(env({ sources }), ['reddit'])).toBe('sandbox:reddit');
  });

  it('names the later sources (GMX oracle keeper, Synthetix) after the first ones, by kind', () => {
    const gmx_oracle = openGmxOracle('https://arbitrum-api.gmxinfra.io');
    const synthetix = openSynthetix('http://127.0.0.1:1', { label: 'sandbox Synthetix stand-in' });
    const sources = new SourceMap({ evm, gmx_oracle, synthetix });
    expect(sourceLabel(env({ sources }), ['synthetix', 'gmx_oracle', 'evm'])).toBe(
      'ethereum:1, gmx_oracle, sandbox:synthetix',
    );
    expect(sourceLabel(env({ sources }), ['synthetix'])).toBe('sandbox:synthetix');
  });
});

const paths: PathDef[] = [
  { id: 'dex.x', area: 'dex', template: '/data/x', shape: 'snapshot', summary: 'x', entity: () => undefined },
  {
    id: 'dex.x-plain',
    area: 'dex',
    template: '/data/x-plain',
    shape: 'snapshot',
    summary: 'x',
    entity: () => undefined,
  },
  {
    id: 'dex.x-score',
    area: 'dex',
    template: '/data/x-score',
    shape: 'score-history',
    summary: 'x',
    methodology: 'dex.volume-continuity',
    entity: () => undefined,
  },
];

describe('DocumentSet', () => {
  const docs = () => new DocumentSet(paths, { asOf: 1, freshFor: 60 });

  it('refuses a score path document without the methodology of its row', () => {
    expect(() => docs().add('dex.x-score', {}, [])).toThrow(/needs its methodology/);
    expect(() => docs().add('dex.x-score', {}, [], { methodology: 'dex.other@1.0.0' })).toThrow(/not the row's model/);
    const ok = docs().add('dex.x-score', {}, [], { methodology: 'dex.volume-continuity@1.0.0' });
    expect(ok.documents[0]).toMatchObject({ path: '/data/x-score', methodology: 'dex.volume-continuity@1.0.0' });
    expect(docs().add('dex.x', {}, {}).documents[0]).not.toHaveProperty('methodology');
  });
});

describe('defineArea labels what its compute jobs publish', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => cleanup?.());

  /** A compute job publishing one document on `pathId`, with `source` as its own `meta.source` when given. */
  const oneDocument = (name: string, pathId: string, source?: string) =>
    computeJob({
      name,
      area: 'dex',
      description: 'x',
      inputs: async () => ({ n: 1 }),
      load: async () => 1,
      compute: (n: number) => n,
      documents: (n) =>
        new DocumentSet(paths, { asOf: 1, ...(source ? { source } : {}) }).add(pathId, {}, { n }).documents,
    });

  async function context(): Promise<JobContext> {
    const s = testStore();
    cleanup = s.cleanup;
    await s.store.migrate();
    return {
      store: s.store,
      clock: new TestClock(),
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      attempt: 1,
      notifyPublished: async () => undefined,
    };
  }
  it('meta.source is the label of the sources the area took; freshness the kit default', async () => {
    const area = defineArea({
      id: 'dex',
      title: 'x',
      paths,
      dependsOn: [],
      computations: ['dex.compute'],
      jobs: (e) => (e.sources.get('evm') ? [oneDocument('dex.compute', 'dex.x')] : []),
    });
    expect(area.parts).toEqual([]);
    const ctx = await context();
    const [job] = area.jobs(env({ book: sandboxBook }));
    expect(await job!.run(ctx)).toMatch(/^published 1 documents/);
    const row = await ctx.store.db
      .selectFrom('datasets')
      .select(['path', 'meta', 'fresh_for'])
      .executeTakeFirstOrThrow();
    expect([row.path, JSON.parse(row.meta).source, Number(row.fresh_for)]).toEqual([
      '/data/x',
      'sandbox:ethereum:31337',
      DEFAULT_FRESH_FOR_SECONDS,
    ]);
  });

  it('each part is labelled with the sources it took, and a document naming its own source keeps it', async () => {
    const github = openGithub({ baseUrl: 'https://api.github.com', token: undefined });
    const chainPart = definePart({
      id: 'chains',
      computations: ['dex.chains'],
      jobs: (e) => (e.sources.get('evm') ? [oneDocument('dex.chains', 'dex.x', 'ethereum:1 (own)')] : []),
    });
    const githubPart = definePart({
      id: 'repos',
      computations: ['dex.repos'],
      jobs: (e) => (e.sources.get('github') ? [oneDocument('dex.repos', 'dex.x-plain')] : []),
    });
    const area = defineArea({ id: 'dex', title: 'x', paths, dependsOn: [], parts: [chainPart, githubPart] });
    expect(area.parts).toEqual(['chains', 'repos']);
    expect(area.computations).toEqual(['dex.chains', 'dex.repos']);
    const ctx = await context();
    const jobs = area.jobs(env({ sources: new SourceMap({ evm, github }) }));
    for (const job of jobs) expect(await job.run(ctx)).toMatch(/^published 1 documents/);
    // Not `ethereum:1, github` on both: the GitHub part's label names GitHub alone, the chain part's documents theirs.
    const rows = await ctx.store.db.selectFrom('datasets').select(['path', 'meta']).orderBy('path').execute();
    expect(rows.map((r) => [r.path, JSON.parse(r.meta).source])).toEqual([
      ['/data/x', 'ethereum:1 (own)'],
      ['/data/x-plain', 'github'],
    ]);
    expect(() => defineArea({ id: 'dex', title: 'x', paths, dependsOn: [], parts: [githubPart, githubPart] })).toThrow(
      /twice/,
    );
    expect(() => definePart({ id: 'Bad/part', computations: [], jobs: () => [] })).toThrow(/folder/);
  });

  it('PUBLISH_EVERY_SECONDS: inputs that keep moving publish at most once per interval, the first at once', async () => {
    let block = 1;
    let loads = 0;
    const moving = computeJob({
      name: 'dex.compute',
      area: 'dex',
      description: 'x',
      inputs: async () => ({ block }),
      load: async () => {
        loads++;
        return block;
      },
      compute: (n: number) => n,
      documents: (n) => new DocumentSet(paths, { asOf: n }).add('dex.x', {}, { n }).documents,
    });
    const area = defineArea({
      id: 'dex',
      title: 'x',
      paths,
      dependsOn: [],
      computations: ['dex.compute'],
      jobs: (e) => (e.sources.get('evm') ? [moving] : []),
    });
    const ctx = await context();
    const clock = ctx.clock as TestClock;
    const [job] = area.jobs(env({ config: loadConfig({ PUBLISH_EVERY_SECONDS: '60' }), book: sandboxBook }));
    expect(await job!.run(ctx)).toMatch(/^published 1 documents \(version 1\)/);
    expect(await job!.run(ctx)).toMatch(/^up to date/);
    block = 2;
    clock.advance(5);
    expect(await job!.run(ctx)).toBe('inputs moved; the next publication in 55 s (at most one every 60 s)');
    block = 3;
    clock.advance(54);
    expect(await job!.run(ctx)).toMatch(/next publication in 1 s/);
    expect(loads).toBe(1); // a held-back run loads nothing
    clock.advance(1);
    expect(await job!.run(ctx)).toMatch(/^published 1 documents \(version 2\)/);
    const doc = await ctx.store.db.selectFrom('datasets').select(['payload', 'as_of']).executeTakeFirstOrThrow();
    expect([JSON.parse(doc.payload), Number(doc.as_of)]).toEqual([{ n: 3 }, 3]);
    // 0: every change publishes (what tests that run computations on demand use).
    const [eager] = area.jobs(env({ book: sandboxBook }));
    block = 4;
    expect(await eager!.run(ctx)).toMatch(/^published 1 documents \(version 3\)/);
    // The job keeps its label when paced: the documents name the sandbox's chain.
    const meta = await ctx.store.db.selectFrom('datasets').select(['meta']).executeTakeFirstOrThrow();
    expect(JSON.parse(meta.meta).source).toBe('sandbox:ethereum:31337');
  });

  it('PUBLISH_EVERY_SECONDS: inputs that cover more of the history than the last publication are not held back', async () => {
    let inputs: unknown = { block: 1, days: 1 };
    const covering = computeJob({
      name: 'dex.compute',
      area: 'dex',
      description: 'x',
      inputs: async () => inputs as { block: number; days: number },
      load: async (_ctx, i) => i.block,
      compute: (n: number) => n,
      documents: (n) => new DocumentSet(paths, { asOf: n }).add('dex.x', {}, { n }).documents,
      coverage: (i) => i.days,
    });
    const ctx = await context();
    const clock = ctx.clock as TestClock;
    const job = publishingEvery(publishedAs(covering, 'sandbox'), 60);
    expect(await job.run(ctx)).toMatch(/\(version 1\)/);
    // The head moved, the coverage did not: paced.
    inputs = { block: 2, days: 1 };
    clock.advance(5);
    expect(await job.run(ctx)).toMatch(/^inputs moved; the next publication in 55 s/);
    // A backfilled day: published at once, then the pacing counts from it.
    inputs = { block: 3, days: 2 };
    clock.advance(1);
    expect(await job.run(ctx)).toMatch(/\(version 2\)/);
    inputs = { block: 4, days: 2 };
    clock.advance(1);
    expect(await job.run(ctx)).toMatch(/next publication in 59 s/);
    // Less coverage (a day pruned) is no reason to publish early either.
    inputs = { block: 5, days: 1 };
    expect(await job.run(ctx)).toMatch(/next publication in 59 s/);
    // Inputs of another shape in the checkpoint (an earlier release's) read as no more coverage: paced as before.
    await writeCheckpoint(ctx.store.db, computedKey('dex.compute'), { heads: [] }, nowSeconds(ctx.clock));
    inputs = { block: 6, days: 3 };
    expect(await job.run(ctx)).toMatch(/next publication in 60 s/);
  });

  it('a document without a source, from jobs that took none, is refused', async () => {
    const ctx = await context();
    await expect(oneDocument('dex.compute', 'dex.x').run(ctx)).rejects.toThrow(/has no meta.source/);
  });
});
