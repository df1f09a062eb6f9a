import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativesArea } from '../src/areas/derivatives/index.js';
import type { DerivativesPairRecordT, DerivativesProtocolRecordT } from '../src/areas/derivatives/schema.js';
import { PATHS } from '../src/areas/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { isoSeconds } from '../src/core/time.js';
import { EMPTY_BOOK } from '../src/registry/address-book.js';
import { registry } from '../src/registry/index.js';
import { decimalString } from '../src/sandbox/standins/perps/decimal.js';
import type { PerpVenueSimulation } from '../src/sandbox/standins/perps/sim.js';
import type { SynthetixStandin } from '../src/sandbox/standins/synthetix/server.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { startTestSources, type TestSources } from './support/sources.js';
import { checkDocument, modelPathsOf, rowOf } from './support/vocabulary.js';

/**
 * The derivatives area's Synthetix part end to end on the sandbox's Synthetix stand-in: its jobs read the info API
 * through the source as in production, and the served records are held to the stand-in's own simulation (its fills,
 * open interest and hourly funding), recounted here without the pipeline: per pair and day the volume and trade
 * count of the fills in the day's window, the running day's open interest (one side) valued at the oracle, and the
 * day's 1-hour funding rates; the protocol's sums over every market the exchange lists.
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

type Rec = Record<string, unknown>;
interface Envelope<T> {
  data: T;
  meta: Rec & { as_of: string; methodology?: string; source: string };
}

/** a equals b within 1e-9 relative (the agreement for amounts). */
const near = (a: number | null | undefined, b: number, what: string) => {
  expect(a, what).not.toBeNull();
  expect(Math.abs((a as number) - b), `${what}: ${a} vs ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(Math.abs(b), 1e-12));
};

/** What the stand-in's fills and funding say about one market in [fromMs, toMs] (truth, not the pipeline). */
function truth(sim: PerpVenueSimulation, symbol: string, fromMs: number, toMs: number, nowMs: number) {
  const m = sim.market(symbol)!;
  // The hourly candles opening in the window hold the fills of whole hours from the window's start.
  const endMs = Math.floor(toMs / HOUR_MS) * HOUR_MS + (toMs % HOUR_MS === 0 ? 0 : HOUR_MS);
  const a = sim.aggregate(symbol, fromMs, Math.min(endMs, fromMs + DAY_MS), nowMs);
  const rates: number[] = [];
  for (let h = fromMs - HOUR_MS; h <= toMs; h += HOUR_MS) {
    const hour = sim.hour(symbol, h / 1000);
    const at = hour?.funding.effectiveAtMs;
    if (hour && at !== undefined && at >= fromMs && at <= toMs && h / 1000 <= sim.lastHour(nowMs)!) {
      rates.push(Number(hour.funding.rate));
    }
  }
  return {
    volumeUsd: Number(decimalString(a.notionalUnits, m.stepDecimals + m.tickDecimals)),
    trades: a.trades,
    rates,
  };
}

describe('derivatives: Synthetix end to end on its stand-in', () => {
  let t: TestApp;
  let opened: TestSources;
  let standin: SynthetixStandin;
  let run: (name: string) => Promise<string | undefined>;
  const summaries: (string | undefined)[] = [];

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as Envelope<T>;
  };

  beforeAll(async () => {
    t = await testApp({ dialect: 'sqlite' });
    t.clock.advance(1800);
    opened = await startTestSources({ kinds: ['synthetix'], clock: t.clock, days: 9 });
    standin = opened.server('synthetix');
    const env: AreaEnv = { config: opened.config, registry, book: EMPTY_BOOK, sources: opened.sources };
    run = areaRunner(derivativesArea, env, t.store, t.clock, () => t.sync()).run;
    summaries.push(await run('derivatives.synthetix.markets'));
    summaries.push(await run('derivatives.synthetix.history'));
    summaries.push(await run('derivatives.synthetix.compute'));
    await t.sync();
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
    await t?.close();
  });

  const lastHourEnd = () => (standin.sim.lastHour(t.clock.nowMs())! + 3600) * 1000;

  it('lists the registry’s pairs with the exchange’s symbols, from the stand-in', async () => {
    expect(summaries[2]).toMatch(/^published 5 documents/);
    const doc = await get<Rec>('/data/derivatives/synthetix/pairs');
    expect(doc.meta.source).toBe('sandbox:synthetix');
    expect(doc.meta.methodology).toBe('derivatives.perpetuals@1.0.0');
    expect(doc.data).toMatchObject({
      protocol: 'synthetix',
      chain: 'ethereum',
      version: 'V4',
      pairs: ['BTC-USD', 'ETH-USD', 'SOL-USD'],
      venue_design: 'synthetix-exchange',
    });
    expect(doc.data.markets).toEqual(
      ['BTC', 'ETH', 'SOL'].map((base) => ({
        pair: `${base}-USD`,
        status: 'active',
        display_name: `${base}/USD`,
        markets: [{ venue: 'synthetix-exchange', symbol: `${base}-USDT`, venue_status: 'open' }],
      })),
    );
    expect(Date.parse(doc.meta.as_of)).toBe(lastHourEnd());
  });

  it('serves each pair’s volume, trades, open interest and funding as the stand-in’s own data recount them', async () => {
    const sim = standin.sim;
    const nowMs = t.clock.nowMs();
    for (const base of ['BTC', 'ETH', 'SOL']) {
      const symbol = `${base}-USDT`;
      const doc = await get<DerivativesPairRecordT[]>(`/data/derivatives/synthetix/${base}-USD`);
      expect(doc.data).toHaveLength(7);
      for (const [i, rec] of doc.data.entries()) {
        const what = `${base} ${rec.date}`;
        const fromMs = Date.parse(`${rec.date}T00:00:00Z`);
        const toMs = Date.parse(rec.as_of);
        const want = truth(sim, symbol, fromMs, toMs, nowMs);
        // Every day of the window has fills and its hourly points (the world started 9 days back).
        expect(want.trades, what).toBeGreaterThan(0);
        expect(want.rates.length, what).toBe(i === 0 ? (toMs - fromMs) / HOUR_MS + 1 : 24);
        expect(rec.trade_count, what).toBe(want.trades);
        near(rec.volume_usd, want.volumeUsd, `${what} volume`);
        expect(rec.funding.source_interval).toBe('1h');
        expect(rec.funding_rate_history.map((p) => p.rate_1h).length, what).toBe(want.rates.length);
        near(rec.funding.rate_1h_last, want.rates.at(-1)!, `${what} funding last`);
        near(rec.funding.rate_1h_mean, want.rates.reduce((s, r) => s + r, 0) / want.rates.length, `${what} mean`);
        expect(rec.oi_convention).toBe('order_book_one_side');
        if (i === 0) {
          const hour = sim.hour(symbol, sim.lastHour(nowMs)!)!;
          const m = sim.market(symbol)!;
          const tokens = Number(decimalString(hour.openInterestEndSteps, m.stepDecimals));
          const price = Number(decimalString(hour.oracleCloseTicks, m.tickDecimals));
          near(rec.long_open_interest_tokens, tokens, `${what} OI tokens`);
          near(rec.open_interest_usd, tokens * price, `${what} OI usd`);
          expect(rec.long_open_interest_usd).toBe(rec.open_interest_usd);
          expect(rec.short_open_interest_usd).toBe(rec.open_interest_usd);
          near(rec.index_price, price, `${what} index`);
        } else {
          // The API keeps no history of open interest: a day this service did not watch has none.
          expect(rec.open_interest_usd, what).toBeNull();
          expect(rec.gap_reasons.open_interest_usd, what).toBe('no_data');
        }
        expect(rec.fees_usd).toBeNull();
        expect(rec.long_short_skew).toBeNull();
      }
    }
  });

  it('a past day’s volume and trades, asked of the info API over HTTP (getCandles, 1h), equal the served record', async () => {
    const date = '2026-11-19';
    const fromMs = Date.parse(`${date}T00:00:00Z`);
    const res = await fetch(`${standin.url}/v1/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        params: {
          action: 'getCandles',
          symbol: 'ETH-USDT',
          interval: '1h',
          startTime: fromMs,
          endTime: fromMs + DAY_MS - 1,
        },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      response: { candles: { openTime: number; quoteVolume: string; tradeCount: number }[] };
    };
    expect(body.status).toBe('ok');
    const candles = body.response.candles.filter((c) => c.openTime >= fromMs && c.openTime < fromMs + DAY_MS);
    expect(candles).toHaveLength(24);
    const rec = (await get<DerivativesPairRecordT[]>('/data/derivatives/synthetix/ETH-USD')).data.find(
      (r) => r.date === date,
    )!;
    expect(rec.trade_count).toBe(candles.reduce((a, c) => a + c.tradeCount, 0));
    near(
      rec.volume_usd,
      candles.reduce((a, c) => a + Number(c.quoteVolume), 0),
      'ETH-USD volume from getCandles',
    );
  });

  it('sums every market the exchange lists into the protocol’s records', async () => {
    const sim = standin.sim;
    const nowMs = t.clock.nowMs();
    const doc = await get<DerivativesProtocolRecordT[]>('/data/derivatives/synthetix');
    expect(doc.data).toHaveLength(7);
    const today = doc.data[0]!;
    expect(today.number_of_pairs).toBe(sim.markets.length);
    for (const rec of doc.data) {
      const fromMs = Date.parse(`${rec.date}T00:00:00Z`);
      const toMs = Date.parse(rec.as_of);
      const all = sim.markets.map((m) => truth(sim, m.id, fromMs, toMs, nowMs));
      expect(rec.trade_count, rec.date).toBe(all.reduce((s, x) => s + x.trades, 0));
      near(
        rec.volume_usd,
        all.reduce((s, x) => s + x.volumeUsd, 0),
        `${rec.date} volume`,
      );
    }
    const oi = sim.markets.reduce((s, m) => {
      const hour = sim.hour(m.id, sim.lastHour(nowMs)!)!;
      const tokens = Number(decimalString(hour.openInterestEndSteps, m.stepDecimals));
      return s + tokens * Number(decimalString(hour.oracleCloseTicks, m.tickDecimals));
    }, 0);
    near(today.open_interest_usd, oi, 'protocol OI');
  });

  it('follows the vocabulary (docs/vocabulary.md) in every document', async () => {
    const rows = await t.store.db.selectFrom('datasets').selectAll().where('area', '=', 'derivatives').execute();
    expect(rows.length).toBe(5);
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
      expect(checkDocument(doc, def, { source: 'sandbox:synthetix', modelPaths }), r.path).toEqual([]);
    }
  });

  it('reads nothing again within the hour and publishes nothing when nothing moved', async () => {
    const before = standin.stats.requests;
    expect(await run('derivatives.synthetix.history')).toMatch(/up to date/);
    expect(standin.stats.requests).toBe(before);
    expect(await run('derivatives.synthetix.compute')).toMatch(/up to date/);
  });
  it('reads again only the market whose read failed, and then serves complete figures', async () => {
    t.clock.advance(3600);
    expect(await run('derivatives.synthetix.markets')).toMatch(/5 new observations/);
    // The first market read (AAVE-USDT, by symbol) meets more 503s than the client retries.
    standin.faults.inject({ fault: { kind: 'server-error', status: 503 }, times: 5 });
    await expect(run('derivatives.synthetix.history')).rejects.toThrow(/1 of 5 failed \(AAVE-USDT/);
    // What was read is published meanwhile (AAVE-USDT's last hour missing) …
    expect(await run('derivatives.synthetix.compute')).toMatch(/^published 5 documents/);
    const before = standin.stats.requests;
    expect(await run('derivatives.synthetix.history')).toMatch(/1 markets read/);
    // Its candles and funding: two requests, and none for the markets already read this hour.
    expect(standin.stats.requests - before).toBe(2);
    // … and published again once it is read, though no market's newest candle or funding point moved (after the
    // configuration's least interval between publications).
    t.clock.advance(60);
    expect(await run('derivatives.synthetix.compute')).toMatch(/^published 5 documents/);
    await t.sync();
    const sim = standin.sim;
    const nowMs = t.clock.nowMs();
    const doc = await get<DerivativesProtocolRecordT[]>('/data/derivatives/synthetix');
    const today = doc.data[0]!;
    expect(Date.parse(today.as_of)).toBe(lastHourEnd());
    const fromMs = Date.parse(`${today.date}T00:00:00Z`);
    const all = sim.markets.map((m) => truth(sim, m.id, fromMs, Date.parse(today.as_of), nowMs));
    expect(today.trade_count).toBe(all.reduce((s, x) => s + x.trades, 0));
    near(
      today.volume_usd,
      all.reduce((s, x) => s + x.volumeUsd, 0),
      'protocol volume after the failure',
    );
  });
});
