import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS, PATHS } from '../src/areas/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { GAP_REASONS as GAP_REASONS_DOC } from '../src/core/gaps.js';
import { isoSeconds } from '../src/core/time.js';
import type { PathDef } from '../src/paths/types.js';
import { type Registry, registry } from '../src/registry/index.js';
import { type TestApp, testApp } from './helpers.js';
import { runAreas } from './support/areas.js';
import { type LendingTestWorld, lendingWorld } from './support/lending-world.js';
import { priceDisagreements, publishedPrices } from './support/one-price.js';
import { startTestSources, type TestSources } from './support/sources.js';
import {
  checkDocument,
  groupViolations,
  hasFloatNoise,
  modelPathsOf,
  type PublishedDocument,
  rowOf,
  significantDecimals,
  type Violation,
} from './support/vocabulary.js';

/**
 * "One vocabulary" (issue 13, docs/vocabulary.md) on every document a sandbox run publishes: every area of `AREAS`
 * on one world (DEX, lending, liquid staking, oracles, stablecoins and the EVM chain on its chain) and the stand-ins
 * (development on GitHub's, Bitcoin on Bitcoin Core's, community on Discord's and Reddit's), opened as `start` opens
 * them and run in `dependsOn` order, every document of the store walked by `checkDocument`. A failure lists the departures grouped by rule, path row and
 * field (also written to $VOCABULARY_REPORT when set).
 */

const ROW: PathDef = {
  id: 'dex.x-score',
  area: 'dex',
  template: '/scores/x/<chain>/<protocol>',
  shape: 'score-history',
  summary: 'x',
  methodology: 'dex.volume-continuity',
  entity: () => undefined,
};
const AS_OF = '2026-11-20T14:00:00Z';
const record = (over: Record<string, unknown> = {}) => ({
  chain: 'ethereum',
  protocol: 'uniswap',
  score: 0.8,
  grade: 'A',
  components: [{ name: 'depth', value: 0.8, weight: 1, inputs: { depth_usd: 1234567.891, raw: '123456789012345678' } }],
  methodology: 'dex.volume-continuity@1.0.0',
  timestamp: AS_OF,
  evidence: 1,
  date: '2026-11-20',
  partial: true,
  gap_reason: null,
  ...over,
});
const history = (first: Record<string, unknown> = {}) => [
  record(first),
  ...Array.from({ length: 6 }, (_, i) =>
    record({ date: `2026-11-${19 - i}`, partial: false, timestamp: `2026-11-${19 - i}T23:59:59Z` }),
  ),
];
const doc = (data: unknown, meta: Partial<PublishedDocument['meta']> = {}): PublishedDocument => ({
  path: '/scores/x/ethereum/uniswap',
  area: 'dex',
  data,
  meta: { as_of: AS_OF, source: 'sandbox:ethereum:31337', methodology: 'dex.volume-continuity@1.0.0', ...meta },
});
const check = (d: PublishedDocument, def: PathDef | undefined = ROW) =>
  checkDocument(d, def, { source: 'sandbox:ethereum:31337' }).map((v) => `${v.rule} ${v.field}`);

describe('the vocabulary checker', () => {
  it('hasFloatNoise: more than 10 significant decimals in the shortest representation', () => {
    expect(hasFloatNoise(0.29999999999999993)).toBe(true);
    expect(hasFloatNoise(0.1 + 0.2)).toBe(true);
    expect(hasFloatNoise(12.000000000000002)).toBe(true);
    expect(hasFloatNoise(1 / 3)).toBe(true);
    for (const ok of [
      0.3, 0, 1, 42, 0.1234, 1234567.891, 1e21, 1e-7, 0.0000012345, 1425906.1234567, -0.25, 0.1234567891,
    ])
      expect(hasFloatNoise(ok), String(ok)).toBe(false);
    expect(significantDecimals(1.2345678901234e-7)).toBe(14);
    expect(significantDecimals(0.000123)).toBe(3);
  });

  it('accepts a history that follows every rule', () => {
    expect(check(doc(history()))).toEqual([]);
  });

  it('finds each departure: source, methodology, partial, as_of, gap reason, identifiers, noise, silent nulls', () => {
    expect(check(doc(history(), { source: 'chain logs (eth_getLogs)' }))).toEqual(['meta.source meta.source']);
    expect(check(doc(history(), { methodology: undefined as never }))).toEqual(['meta.methodology meta.methodology']);
    expect(check(doc(history({ partial: false })))).toEqual(['partial $[0].partial']);
    expect(check(doc(history({ timestamp: '2026-11-20T14:01:00Z' })))).toEqual(['as_of $[0].timestamp']);
    expect(check(doc(history({ score: null, grade: null })))).toEqual([
      'score-record $[0].gap_reason',
      'null-reason $[0].score',
      'null-reason $[0].grade',
    ]);
    expect(check(doc(history({ gap_reason: 'no_data' })))).toEqual(['score-record $[0].gap_reason']);
    expect(check(doc(history({ score: null, grade: null, gap_reason: 'because' })))).toEqual([
      'gap-reason-word $[0].gap_reason',
    ]);
    expect(check(doc(history().map((r) => ({ ...r, protocol: 'curve' }))))).toEqual(
      Array.from({ length: 7 }, (_, i) => `identifiers $[${i}].protocol`),
    );
    expect(check(doc(history({ evidence: undefined })))).toEqual(['score-record $[0].evidence']);
    const noisy = [{ name: 'depth', value: 0.8, weight: 0.29999999999999993, inputs: { share: 0.1 + 0.2 } }];
    expect(check(doc(history({ components: noisy })))).toEqual([
      'float-noise $[0].components[0].weight',
      'float-noise $[0].components[0].inputs.share',
    ]);
    const silent = [{ name: 'depth', value: null, weight: 0, inputs: { depth_usd: null } }];
    expect(check(doc(history({ components: silent })))).toEqual([
      'null-reason $[0].components[0].value',
      'null-reason $[0].components[0].inputs.depth_usd',
    ]);
  });

  it('takes a null as explained by its record, a per-field reason or a reasons object; labels need none', () => {
    const def: PathDef = { ...ROW, id: 'dex.x', shape: 'snapshot', methodology: undefined, template: '/data/x' };
    const snapshot = (data: unknown) => ({
      ...doc(data),
      path: '/data/x',
      meta: { as_of: AS_OF, source: 'sandbox:ethereum:31337' },
    });
    expect(check(snapshot({ tvl_usd: null, gap_reason: 'no_price' }), def)).toEqual([]);
    expect(check(snapshot({ tvl_usd: null, tvl_usd_gap_reason: 'no_price' }), def)).toEqual([]);
    expect(check(snapshot({ tvl_usd: null, gap_reasons: { tvl_usd: 'no_price' } }), def)).toEqual([]);
    expect(check(snapshot({ oracle: { price_usd: null }, gap_reasons: { oracle: 'no_price' } }), def)).toEqual([]);
    expect(check(snapshot({ tvl_usd: null, gap_reasons: { volume_usd: 'no_price' } }), def)).toEqual([
      'null-reason $.tvl_usd',
    ]);
    expect(
      check(
        snapshot([
          { date: '2026-11-20', partial: true },
          { date: '2026-11-19', partial: true },
        ]),
        def,
      ),
    ).toEqual(['partial $[1].partial']);
    // Several entities' days in one list (repositories), one day of several entities (a listing of current scores).
    const day = (repository: string, date: string, partial: boolean) => ({ repository, date, partial, commits: 1 });
    const days = [day('a/x', '2026-11-20', true), day('a/x', '2026-11-19', false), day('a/y', '2026-11-20', true)];
    expect(check(snapshot(days), def)).toEqual([]);
    expect(check(snapshot([...days, day('a/y', '2026-11-19', true)]), def)).toEqual(['partial $[3].partial']);
    expect(
      check(
        snapshot({
          bands: [
            { min: 1, max: 2 },
            { min: 2, max: null },
          ],
        }),
        def,
      ),
    ).toEqual([]);
    expect(check(snapshot([{ date: '2026-11-20' }]), def)).toEqual(['partial $[0].partial']);
    // With the payload's schema a null label (a string place) is no figure.
    const typed: PathDef = {
      ...def,
      payload: {
        type: 'object',
        properties: { license: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      } as never,
    };
    expect(check(snapshot({ license: null, stars: null }), typed)).toEqual(['null-reason $.stars']);
  });

  it('reads the data paths each model computes from the methodology index', () => {
    const paths = modelPathsOf(
      '| `liquid-staking.dex-pool` | [x](x.md) | `/scores/liquidity/liquid-staking/dex-pool-scores/*`, `/data/liquidity/liquid-staking/pool-analytics-in-dex/*` |\n| Oracle feeds (not a score) | [o](o.md) | `/data/oracle/*` |',
    );
    expect(paths.map((p) => p.model)).toEqual(['liquid-staking.dex-pool']);
    const def: PathDef = { ...ROW, id: 'dex.x', shape: 'snapshot', methodology: undefined };
    const lst = { ...doc({}), path: '/data/liquidity/liquid-staking/pool-analytics-in-dex/0xabc' };
    const meta = { as_of: AS_OF, source: 'sandbox:ethereum:31337' };
    const opts = { source: 'sandbox:ethereum:31337', modelPaths: paths };
    expect(checkDocument({ ...lst, meta }, def, opts).map((x) => x.rule)).toEqual(['meta.methodology']);
    const scored = { ...meta, methodology: 'liquid-staking.dex-pool@1.0.0' };
    expect(checkDocument({ ...lst, meta: scored }, def, opts)).toEqual([]);
  });

  it('docs/vocabulary.md lists exactly the gap reasons of src/core/gaps.ts, with the same meanings', () => {
    const text = readFileSync(new URL('../docs/vocabulary.md', import.meta.url), 'utf8');
    const rows = [...text.matchAll(/^ {2}\| `([a-z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(Object.entries(GAP_REASONS_DOC));
  });

  it('one price per token per instant: finds two unflagged prices of a token at one instant, in any area', () => {
    const WETH = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
    const at = (area: string, path: string, data: unknown): PublishedDocument => ({ ...doc(data), area, path });
    const lending = at('lending', '/a', { token_address: WETH, price_usd: 2459.81177474, timestamp: AS_OF });
    const stable = (price: number, flagged = false) =>
      at('stablecoin', '/s', {
        as_of: AS_OF,
        collateral_assets: [{ collateral_token_address: WETH, price_usd: price, price_flagged: flagged }],
      });
    const lst = (price: number) =>
      at('liquid-staking', '/l', {
        as_of: AS_OF,
        liquid_staking_token: { token_address: '0x4b6ab5f819a515382b0deb6935d793817bb4af28', underlying_address: WETH },
        underlying_price: { price_usd: price, source: 'oracle', flagged: false },
      });
    // Rounded alike (6 against 8 decimals): one price.
    expect(priceDisagreements(publishedPrices([lending, stable(2459.811775), lst(2459.81177474)]))).toEqual([]);
    // Liquity's own feed (2449.70) and a Morpho snapshot's DEX price (2458.38) under the policy's name: two more.
    const found = priceDisagreements(publishedPrices([lending, stable(2449.704262), lst(2458.38084382)]));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`${WETH} @ ${AS_OF}: 2459.81177474 in /a $.price_usd | 2449.704262 in /s`);
    // A record that shows the disagreement (flagged, both sources beside) is not a second price.
    expect(priceDisagreements(publishedPrices([lending, stable(2300, true)]))).toEqual([]);
    // Another instant is another price; the DEX area publishes its own DEX prices only (the policy's candidate).
    const later = at('lending', '/b', { token_address: WETH, price_usd: 2500, timestamp: '2026-11-20T15:00:00Z' });
    const dex = at('dex', '/d', { token_address: WETH, price_usd: 2458.2, timestamp: AS_OF });
    expect(priceDisagreements(publishedPrices([lending, later, dex]))).toEqual([]);
  });

  it('finds the path-table row of a document path', () => {
    expect(rowOf(PATHS, 'dex', '/scores/liquidity/dex/protocol-overview/uniswap')?.id).toBe(
      'dex.protocol-overview-score',
    );
    expect(rowOf(PATHS, 'dex', '/data/liquidity/dex/available-pools/ethereum/uniswap/v3')?.id).toBe(
      'dex.available-pools',
    );
    expect(rowOf(PATHS, 'development', '/data/development/aave/stats')?.id).toBe('development.stats');
  });
});

const SUBJECTS = ['protocol:aave', 'protocol:uniswap', 'chain:ethereum'];
/** The protocols the community area reads on Discord and Reddit here (a shorter read than every tracked one). */
const SOCIAL = ['aave', 'uniswap'];

describe('one vocabulary on every published document of a sandbox run', () => {
  let w: LendingTestWorld;
  let t: TestApp;
  let opened: TestSources;
  let docs: PublishedDocument[] = [];
  let summaries: { job: string; summary: string | null }[] = [];

  beforeAll(async () => {
    w = await lendingWorld({ stablecoins: true });
    t = await testApp();
    opened = await startTestSources({
      kinds: ['github', 'bitcoin', 'discord', 'reddit', 'dydx', 'coingecko'],
      // CoinGecko quotes the world: its prices and the chain's supplies and swaps (the tokenomics market figures).
      world: w.world.view(),
      chains: new Map([['ethereum', w.rpcUrl]]),
      clock: t.clock,
      seed: 11,
      days: 2,
      githubSubjects: SUBJECTS,
      maxRetries: 1,
    });
    // The Bitcoin stand-in builds its chain on a thread and answers -28 (warming up) meanwhile; the clients' retry
    // waits advance the test clock, not the wall clock, so a loaded machine would exhaust them: wait for the node.
    await opened.server('bitcoin').ready;
    const social: Registry = Object.create(registry, {
      socialSubjects: {
        value: (channel: string) => registry.socialSubjects(channel).filter((s) => SOCIAL.includes(s.protocolId)),
      },
    });
    let sources = w.env.sources;
    for (const kind of opened.sources.kinds()) sources = sources.with(kind, opened.sources.get(kind) as never);
    const env: AreaEnv = { ...w.env, registry: social, sources };
    // Every job of every area run once, areas in dependsOn order, its summary kept (what /status shows).
    summaries = await runAreas(AREAS, env, t.store, t.clock, () => t.sync());
    const rows = await t.store.db.selectFrom('datasets').selectAll().execute();
    docs = rows.map((r) => {
      const meta = JSON.parse(r.meta) as { source: string; methodology?: string };
      return {
        path: r.path,
        area: r.area,
        data: JSON.parse(r.payload),
        meta: { ...meta, as_of: isoSeconds(Number(r.as_of)) },
      };
    });
  }, 600_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
    await w?.close();
  });

  it('job summaries (shown on /status) name instants in ISO, never as Unix seconds', () => {
    expect(summaries.filter((r) => r.summary !== null).length).toBeGreaterThan(10);
    const unix = summaries.filter((r) => r.summary !== null && /\b1[6-9]\d{8}\b/.test(r.summary));
    expect(unix.map((r) => `${r.job}: ${r.summary}`)).toEqual([]);
  });

  it('publishes documents of every built area', () => {
    const areas = new Set(docs.map((d) => d.area));
    expect([...areas].sort()).toEqual([
      'blockchain',
      'community',
      'derivatives',
      'development',
      'dex',
      'lending',
      'liquid-staking',
      'oracles',
      'stablecoin',
      'tokenomics',
    ]);
    for (const d of docs) expect(rowOf(PATHS, d.area, d.path), d.path).toBeDefined();
    // Bitcoin's documents as well as the EVM chain's.
    expect(docs.map((d) => d.path)).toEqual(
      expect.arrayContaining(['/data/blockchain/bitcoin', '/data/blockchain/ethereum']),
    );
  });

  it('no record is newer than its payload’s as_of (issue 26)', () => {
    // The instants a record is stamped with: its `timestamp`, the sample it was read from, a nested `as_of`.
    const STAMPS = new Set(['timestamp', 'sampled_at', 'as_of']);
    const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
    const late: string[] = [];
    const walk = (x: unknown, where: string, asOf: number, path: string): void => {
      if (Array.isArray(x)) {
        for (const [i, v] of x.entries()) walk(v, `${where}[${i}]`, asOf, path);
      } else if (x !== null && typeof x === 'object') {
        for (const [k, v] of Object.entries(x)) {
          if (STAMPS.has(k) && typeof v === 'string' && ISO_SECONDS.test(v) && Date.parse(v) > asOf)
            late.push(`${path} ${where}.${k} = ${v} > as_of ${new Date(asOf).toISOString()}`);
          walk(v, `${where}.${k}`, asOf, path);
        }
      }
    };
    let stamped = 0;
    for (const d of docs) {
      walk(d.data, '$', Date.parse(d.meta.as_of), d.path);
      if (JSON.stringify(d.data).match(/"(timestamp|sampled_at)":"/)) stamped++;
    }
    expect(stamped).toBeGreaterThan(5);
    expect(late).toEqual([]);
  });

  it('one price per token per instant across every published document (issue 26 item 7)', () => {
    const prices = publishedPrices(docs);
    // Lending, liquid staking and the stablecoins each publish prices of the world's tokens (WETH among them).
    expect([...new Set(prices.map((p) => p.area))].sort()).toEqual(
      expect.arrayContaining(['lending', 'liquid-staking', 'stablecoin']),
    );
    expect(prices.some((p) => p.where.includes('peg_quote_price_usd'))).toBe(true);
    expect(priceDisagreements(prices)).toEqual([]);
  });

  it('every document follows the rules of one vocabulary', () => {
    const modelPaths = modelPathsOf(readFileSync('docs/methodology/README.md', 'utf8'));
    expect(modelPaths.length).toBeGreaterThan(2);
    const sourceOf = (d: PublishedDocument) => {
      if (d.area === 'development') return 'sandbox:github';
      // A community document names its own channel's source only.
      if (d.area === 'community') return d.path.includes('/discord') ? 'sandbox:discord' : 'sandbox:reddit';
      if (d.path.startsWith('/data/blockchain/bitcoin')) return 'sandbox:bitcoin:regtest';
      // dYdX's documents name its indexer's stand-in (GMX needs the Arbitrum chain, which this world has not).
      if (d.area === 'derivatives') return 'sandbox:dydx';
      return `sandbox:${w.manifest.chain}:${w.manifest.chainId}`;
    };
    const violations: Violation[] = docs.flatMap((d) =>
      checkDocument(d, rowOf(PATHS, d.area, d.path), { source: sourceOf(d), modelPaths }),
    );
    const grouped = groupViolations(PATHS, docs, violations);
    if (process.env.VOCABULARY_REPORT) {
      writeFileSync(process.env.VOCABULARY_REPORT, `${docs.length} documents\n${grouped.join('\n')}\n`);
    }
    expect(grouped).toEqual([]);
  });
});
