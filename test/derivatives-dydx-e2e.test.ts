import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativesArea } from '../src/areas/derivatives/index.js';
import { PATHS } from '../src/areas/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { isoSeconds } from '../src/core/time.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { registry } from '../src/registry/index.js';
import { DYDX_INSURANCE_FUND, DYDX_SUBACCOUNTS_MODULE } from '../src/sandbox/standins/dydx/render.js';
import type { DydxStandin } from '../src/sandbox/standins/dydx/server.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { startTestSources, type TestSources } from './support/sources.js';
import { checkDocument, modelPathsOf, rowOf } from './support/vocabulary.js';

/**
 * The derivatives area's dYdX part end to end on the dYdX stand-in (one start, a 3-day world): its jobs read the
 * stand-in through the source as in production, and the served figures are recomputed from the stand-in's own
 * simulation (its fills, open interest, oracle and module balances) and its answers (daily candles, historical
 * funding, the market list), never from the part's tables. Counts exact, amounts within 1e-9 relative.
 */
const DAY_MS = 86_400_000;
type Rec = Record<string, unknown> & { gap_reasons: Record<string, string> };
interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown>;
}

const close = (got: unknown, want: number, what: string) => {
  expect(typeof got, what).toBe('number');
  const g = got as number;
  expect(Math.abs(g - want) <= 1e-9 * Math.max(Math.abs(want), 1e-12), `${what}: ${g} vs ${want}`).toBe(true);
};

describe('derivatives: dYdX v4 end to end on the stand-in', () => {
  let t: TestApp;
  let opened: TestSources;
  let dydx: DydxStandin;
  let run: (name: string) => Promise<string | undefined>;
  let indexer: string;
  const ingestRuns: string[] = [];

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as Envelope<T>;
  };
  const standin = async <T>(path: string) => (await (await fetch(`${indexer}${path}`)).json()) as T;

  beforeAll(async () => {
    t = await testApp({ dialect: 'sqlite' });
    t.clock.ms = Date.UTC(2026, 10, 20, 14, 30, 0);
    opened = await startTestSources({ kinds: ['dydx'], clock: t.clock, days: 3 });
    dydx = opened.server('dydx');
    indexer = opened.config.dydx.indexerUrl!;
    const env: AreaEnv = { config: opened.config, registry, book: EMPTY_BOOK, sources: opened.sources };
    run = areaRunner(derivativesArea, env, t.store, t.clock, () => t.sync()).run;
    await run('derivatives.dydx.markets');
    // A first run reads 7 days back, 48 hours per run.
    for (let i = 0; i < 8; i++) {
      const summary = (await run('derivatives.dydx.ingest')) ?? '';
      ingestRuns.push(summary);
      if (summary.includes('up to date')) break;
    }
    await run('derivatives.dydx.compute');
    await t.sync();
  }, 300_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  const YESTERDAY = Date.UTC(2026, 10, 19);

  it('catches up in runs of at most 48 hours, then reads nothing until the next hour closes', async () => {
    expect(ingestRuns.at(-1)).toContain('up to date');
    expect(ingestRuns.length).toBeGreaterThan(2);
    const before = dydx.stats.requests;
    expect(await run('derivatives.dydx.ingest')).toContain('up to date');
    expect(await run('derivatives.dydx.compute')).toContain('up to date');
    expect(dydx.stats.requests).toBe(before);
    // The market list did not move within the hour: one request, nothing written, nothing to publish.
    expect(await run('derivatives.dydx.markets')).toContain('0 changed');
    expect(dydx.stats.requests).toBe(before + 1);
    expect(await run('derivatives.dydx.compute')).toContain('up to date');
  });

  it('serves a past day’s volume, trade count, skew and liquidations as the stand-in’s fills add up', async () => {
    const markets = dydx.sim.markets;
    const doc = await get<Rec[]>('/data/derivatives/dydx/BTC-USD');
    expect(doc.meta.source).toBe('sandbox:dydx');
    expect(doc.meta.methodology).toBe('derivatives.perpetuals@1.0.0');
    const rec = doc.data.find((r) => r.date === '2026-11-19')!;
    const fills = dydx.sim.fills('BTC-USD', YESTERDAY, YESTERDAY + DAY_MS, t.clock.nowMs());
    expect(fills.length).toBeGreaterThan(100);
    const usd = (f: (typeof fills)[number]) => Number(f.size) * Number(f.price);
    const volume = fills.reduce((s, f) => s + usd(f), 0);
    const buy = fills.filter((f) => f.side === 'BUY').reduce((s, f) => s + usd(f), 0);
    const sell = volume - buy;
    const liquidations = fills.filter((f) => f.type === 'LIQUIDATED');
    // The stand-in's own daily candle agrees with its fills, and the served record with both.
    const { candles } = await standin<{ candles: { usdVolume: string; trades: number }[] }>(
      `/v4/candles/perpetualMarkets/BTC-USD?resolution=1DAY&fromISO=2026-11-19T00:00:00.000Z&toISO=2026-11-20T00:00:00.000Z`,
    );
    expect(candles).toHaveLength(1);
    close(Number(candles[0]!.usdVolume), volume, 'candle usdVolume');
    expect(candles[0]!.trades).toBe(fills.length);
    close(rec.volume_usd, volume, 'volume_usd');
    expect(rec.trade_count).toBe(fills.length);
    close(rec.long_short_skew, (buy - sell) / (buy + sell), 'long_short_skew');
    expect(rec.skew_method).toBe('taker_flow');
    expect(rec.liquidation_count).toBe(liquidations.length);
    if (liquidations.length)
      close(
        rec.liquidations_usd,
        liquidations.reduce((s, f) => s + usd(f), 0),
        'liquidations',
      );
    else expect(rec.liquidations_usd).toBe(0);
    expect(rec.fees_usd).toBeNull();
    expect(rec.gap_reasons.fees_usd).toBe('no_data');
    expect(markets.length).toBe(12);
  });

  it('paging the stand-in’s taker fills over HTTP recounts the day’s volume and trades: equal to its daily candle and to the served record', async () => {
    type Fill = { id: string; size: string; price: string; createdAt: string };
    const end = YESTERDAY + DAY_MS;
    const seen = new Map<string, Fill>();
    // Newest first, `createdBeforeOrAt` inclusive: each page restarts at the oldest fill of the previous one (the
    // fills sharing its instant come again and are counted once, by id).
    let before = new Date(end).toISOString();
    for (let page = 0; page < 1000; page++) {
      const { trades } = await standin<{ trades: Fill[] }>(
        `/v4/trades/perpetualMarket/BTC-USD?limit=200&createdBeforeOrAt=${before}`,
      );
      let fresh = 0;
      for (const f of trades) {
        if (seen.has(f.id)) continue;
        seen.set(f.id, f);
        fresh++;
      }
      const oldest = trades.at(-1);
      if (!oldest || fresh === 0 || Date.parse(oldest.createdAt) < YESTERDAY) break;
      expect(trades.length, 'a page holds more than one instant').toBeGreaterThan(1);
      before = oldest.createdAt;
    }
    const day = [...seen.values()].filter((f) => {
      const at = Date.parse(f.createdAt);
      return at >= YESTERDAY && at < end;
    });
    expect(day.length).toBeGreaterThan(100);
    const volume = day.reduce((a, f) => a + Number(f.size) * Number(f.price), 0);
    const { candles } = await standin<{ candles: { usdVolume: string; trades: number }[] }>(
      `/v4/candles/perpetualMarkets/BTC-USD?resolution=1DAY&fromISO=2026-11-19T00:00:00.000Z&toISO=2026-11-20T00:00:00.000Z`,
    );
    expect(candles[0]!.trades).toBe(day.length);
    close(Number(candles[0]!.usdVolume), volume, 'candle usdVolume vs paged fills');
    const rec = (await get<Rec[]>('/data/derivatives/dydx/BTC-USD')).data.find((r) => r.date === '2026-11-19')!;
    expect(rec.trade_count).toBe(day.length);
    close(rec.volume_usd, volume, 'served volume_usd vs paged fills');
  });

  it('serves open interest one side at the day’s end, valued at the oracle price then', async () => {
    const doc = await get<Rec[]>('/data/derivatives/dydx/ETH-USD');
    const rec = doc.data.find((r) => r.date === '2026-11-19')!;
    const m = dydx.sim.market('ETH-USD')!;
    const end = YESTERDAY + DAY_MS;
    const tokens = dydx.sim.openInterestAt('ETH-USD', end)! / 10 ** m.stepDecimals;
    const price = dydx.sim.oracleTicksAt('ETH-USD', end)! / 10 ** m.tickDecimals;
    close(rec.long_open_interest_tokens, tokens, 'tokens');
    close(rec.open_interest_usd, tokens * price, 'open_interest_usd');
    expect(rec.long_open_interest_usd).toBe(rec.open_interest_usd);
    expect(rec.short_open_interest_usd).toBe(rec.open_interest_usd);
    expect(rec.oi_convention).toBe('order_book_one_side');
  });

  it('serves the running day’s open interest and oracle from the market list', async () => {
    const { markets } = await standin<{ markets: Record<string, { openInterest: string; oraclePrice: string }> }>(
      '/v4/perpetualMarkets',
    );
    const doc = await get<Rec[]>('/data/derivatives/dydx/BTC-USD');
    const today = doc.data[0]!;
    expect(today.partial).toBe(true);
    const btc = markets['BTC-USD']!;
    close(today.open_interest_usd, Number(btc.openInterest) * Number(btc.oraclePrice), 'running open_interest_usd');
    close(today.oracle_price, Number(btc.oraclePrice), 'oracle_price');
    const protocol = await get<Rec[]>('/data/derivatives/dydx');
    const sum = Object.values(markets).reduce((s, m) => s + Number(m.openInterest) * Number(m.oraclePrice), 0);
    close(protocol.data[0]!.open_interest_usd, sum, 'protocol open interest: every market, one side each');
    expect(protocol.data[0]!.number_of_pairs).toBe(Object.keys(markets).length);
  });

  it('serves funding points equal to the indexer’s historicalFunding, already hourly', async () => {
    const { historicalFunding } = await standin<{ historicalFunding: { rate: string; effectiveAt: string }[] }>(
      '/v4/historicalFunding/SOL-USD?effectiveBeforeOrAt=2026-11-19T23:59:59.999Z&limit=100',
    );
    const day = historicalFunding
      .filter((f) => Date.parse(f.effectiveAt) >= YESTERDAY)
      .map((f) => ({ time: f.effectiveAt.replace('.000Z', 'Z'), rate_1h: Number(f.rate) }))
      .reverse();
    expect(day).toHaveLength(24);
    const rec = (await get<Rec[]>('/data/derivatives/dydx/SOL-USD')).data.find((r) => r.date === '2026-11-19')!;
    const served = rec.funding_rate_history as { time: string; rate_1h: number }[];
    expect(served.map((p) => p.time)).toEqual(day.map((p) => p.time));
    for (const [i, p] of served.entries()) close(p.rate_1h, day[i]!.rate_1h, `funding ${p.time}`);
    const mean = day.reduce((s, p) => s + p.rate_1h, 0) / day.length;
    close((rec.funding as Rec).rate_1h_mean, mean, 'rate_1h_mean');
    close((rec.funding as Rec).annualised, mean * 8760, 'annualised');
    expect((rec.funding as Rec).source_interval).toBe('1h');
  });

  it('serves TVL and the insurance fund as the module accounts’ USDC at the day’s end', async () => {
    const rec = (await get<Rec[]>('/data/derivatives/dydx')).data.find((r) => r.date === '2026-11-19')!;
    const end = YESTERDAY + DAY_MS;
    close(rec.tvl_usd, Number(dydx.balanceAt(DYDX_SUBACCOUNTS_MODULE, end)) / 1e6, 'tvl_usd');
    close(rec.insurance_fund_usd, Number(dydx.balanceAt(DYDX_INSURANCE_FUND, end)) / 1e6, 'insurance_fund_usd');
    close((rec.risk as Rec).oi_to_tvl, (rec.open_interest_usd as number) / (rec.tvl_usd as number), 'oi_to_tvl');
  });

  it('lists the served pairs with their tickers; a pair the indexer does not list is not_listed', async () => {
    const doc = await get<Rec>('/data/derivatives/dydx/pairs');
    expect(doc.data).toMatchObject({ protocol: 'dydx', chain: 'dydx', version: 'V4', venue_design: 'dydx-v4' });
    const markets = doc.data.markets as { pair: string; status: string; markets: Rec[] }[];
    expect(markets.find((m) => m.pair === 'BTC-USD')).toMatchObject({
      status: 'active',
      markets: [{ venue: 'dydx-v4', ticker: 'BTC-USD', venue_status: 'ACTIVE' }],
    });
    expect(markets.find((m) => m.pair === 'CRV-USD')).toMatchObject({ status: 'not_listed', markets: [] });
    const crv = await get<Rec[]>('/data/derivatives/dydx/CRV-USD');
    expect(crv.data.every((r) => r.gap_reason === 'not_listed')).toBe(true);
    // Days before the world began have no data.
    const btc = await get<Rec[]>('/data/derivatives/dydx/BTC-USD');
    expect(btc.data.at(-1)!.gap_reason).not.toBeNull();
  });

  it('follows the vocabulary (docs/vocabulary.md) in every document', async () => {
    const rows = await t.store.db.selectFrom('datasets').selectAll().where('area', '=', 'derivatives').execute();
    // The listing, the protocol and one document per served pair.
    expect(rows.length).toBe(2 + registry.protocol('dydx')!.derivatives!.pairs.length);
    const modelPaths = modelPathsOf(readFileSync('docs/methodology/README.md', 'utf8'));
    for (const r of rows) {
      const meta = JSON.parse(r.meta) as { source: string; methodology?: string };
      const doc = {
        path: r.path,
        area: r.area,
        data: JSON.parse(r.payload),
        meta: { ...meta, as_of: isoSeconds(Number(r.as_of)) },
      };
      const def = rowOf(PATHS, 'derivatives', r.path);
      expect(def, r.path).toBeDefined();
      expect(checkDocument(doc, def, { source: 'sandbox:dydx', modelPaths }), r.path).toEqual([]);
    }
  });

  // Last: it moves the clock an hour on.
  it('a failed hourly read writes nothing and leaves the documents as published; the next run reads the hour', async () => {
    const published = async () =>
      (await t.store.db.selectFrom('datasets').select(['path', 'payload']).where('area', '=', 'derivatives').execute())
        .map((r) => `${r.path} ${r.payload}`)
        .sort();
    const before = await published();
    const readTo = async () =>
      Number(
        (
          await t.store.db
            .selectFrom('checkpoints')
            .select('value')
            .where('key', '=', 'derivatives.dydx.hourly:dydx')
            .executeTakeFirstOrThrow()
        ).value.match(/"readTo":(\d+)/)![1],
      );
    const was = await readTo();
    t.clock.ms += 3_600_000;
    // SOL's fills answer 503 on every attempt of this run; another market's a 429 and a 502 once (retried).
    dydx.faults.inject(
      { fault: { kind: 'server-error', status: 503 }, pathIncludes: '/v4/trades/perpetualMarket/SOL-USD', times: 6 },
      { fault: { kind: 'secondary-limit', retryAfterSeconds: 1 }, pathIncludes: '/v4/trades/perpetualMarket/BTC-USD' },
      { fault: { kind: 'server-error', status: 502 }, pathIncludes: '/v4/historicalFunding/ETH-USD' },
    );
    await expect(run('derivatives.dydx.ingest')).rejects.toThrow(/SOL-USD/);
    expect(await readTo()).toBe(was);
    expect(await run('derivatives.dydx.compute')).toContain('up to date');
    expect(await published()).toEqual(before);
    // The next run reads the hour, for every market.
    expect(await run('derivatives.dydx.ingest')).toContain('12 markets');
    expect(await readTo()).toBe(was + 3600);
    expect(await run('derivatives.dydx.compute')).toMatch(/^published/);
    await t.sync();
    const today = Date.UTC(2026, 10, 20);
    const fills = dydx.sim.fills('SOL-USD', today, (was + 3600) * 1000, t.clock.nowMs());
    const usd = (f: (typeof fills)[number]) => Number(f.size) * Number(f.price);
    const buy = fills.filter((f) => f.side === 'BUY').reduce((s, f) => s + usd(f), 0);
    const sell = fills.filter((f) => f.side === 'SELL').reduce((s, f) => s + usd(f), 0);
    const rec = (await get<Rec[]>('/data/derivatives/dydx/SOL-USD')).data[0]!;
    close(rec.long_short_skew, (buy - sell) / (buy + sell), 'running day skew after recovery');
  });
});
