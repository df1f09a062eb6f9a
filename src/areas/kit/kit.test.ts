import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../test/helpers.js';
import { loadConfig } from '../../config/index.js';
import type { JobContext } from '../../jobs/types.js';
import type { PathDef } from '../../paths/types.js';
import { EMPTY_BOOK } from '../../registry/address-book.js';
import { registry } from '../../registry/index.js';
import { openDiscord } from '../../sources/discord/endpoint.js';
import { EvmChains } from '../../sources/evm/chains.js';
import { openGithub } from '../../sources/github/endpoint.js';
import { SourceMap } from '../../sources/index.js';
import { openReddit } from '../../sources/reddit/endpoint.js';
import { computeJob } from './compute-job.js';
import { DocumentSet } from './documents.js';
import { type AreaEnv, defineArea } from './module.js';
import { isSandboxSource, sourceLabel } from './source-label.js';

const evm = new EvmChains([{ id: 'ethereum', rpcUrl: 'http://127.0.0.1:1', finalityDepth: 2 }], {
  log: pino({ level: 'silent' }),
});
const env = (over: Partial<AreaEnv> = {}): AreaEnv => ({
  config: loadConfig({}),
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
});

const paths: PathDef[] = [
  { id: 'dex.x', area: 'dex', template: '/data/x', shape: 'snapshot', summary: 'x', entity: () => undefined },
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
  const docs = () => new DocumentSet(paths, { asOf: 1, source: 'chain logs', freshFor: 60 });

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

  it('meta.source is the label of the sources the area took, not its description', async () => {
    const area = defineArea({
      id: 'dex',
      title: 'x',
      paths,
      dependsOn: [],
      computations: ['dex.compute'],
      jobs: (e) =>
        e.sources.get('evm')
          ? [
              computeJob({
                name: 'dex.compute',
                area: 'dex',
                description: 'x',
                inputs: async () => ({ n: 1 }),
                load: async () => 1,
                compute: (n: number) => n,
                documents: (n) =>
                  new DocumentSet(paths, { asOf: 1, source: 'chain logs', freshFor: 60 }).add('dex.x', {}, { n })
                    .documents,
              }),
            ]
          : [],
    });
    const s = testStore();
    cleanup = s.cleanup;
    await s.store.migrate();
    const ctx: JobContext = {
      store: s.store,
      clock: new TestClock(),
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      attempt: 1,
      notifyPublished: async () => undefined,
    };
    const [job] = area.jobs(env({ book: sandboxBook }));
    expect(await job!.run(ctx)).toMatch(/^published 1 documents/);
    const rows = await s.store.db.selectFrom('datasets').select(['path', 'meta']).execute();
    expect(rows.map((r) => [r.path, JSON.parse(r.meta).source])).toEqual([['/data/x', 'sandbox:ethereum:31337']]);
  });
});
