import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/helpers.js';
import { startTestSources, type TestSources } from '../../../test/support/sources.js';
import { HOUR } from '../../core/time.js';
import { DYDX_INSURANCE_FUND, DYDX_SUBACCOUNTS_MODULE, DYDX_USDC_DENOM } from '../../sandbox/standins/dydx/render.js';
import { decimalString } from '../../sandbox/standins/perps/decimal.js';
import { DydxClient, DydxError, dydxRetryAfterMs } from './client.js';

/**
 * The dYdX source against the sandbox's stand-in, opened as `start` opens it: the day's volume and trade count by
 * paging the trades equal the daily candle and the simulation's fills; funding points equal the simulation's hours;
 * the balances are the module accounts'. Faults (429 with Retry-After in milliseconds, 5xx, a malformed body) are
 * retried; a bad ticker fails at once.
 */
const clock = new TestClock(Date.UTC(2026, 10, 20, 14, 30, 0));
let opened: TestSources;

beforeAll(async () => {
  opened = await startTestSources({ kinds: ['dydx'], clock, days: 3 });
});
afterAll(async () => opened?.close());

const endpoint = () => opened.sources.get('dydx')!;
const DAY = Date.UTC(2026, 10, 19);

describe('the dYdX source on the stand-in', () => {
  it('is opened from the stand-in’s keys and names itself sandbox:dydx', () => {
    expect(endpoint().source).toBe('sandbox:dydx');
    expect(opened.config.dydx.indexerUrl).toBe(opened.server('dydx').url);
    expect(opened.config.dydx.nodeRestUrl).toBe(opened.server('dydx').url);
  });

  it('lists every market with strings for numbers, its open interest the simulation’s (one side)', async () => {
    const markets = await endpoint().client.perpetualMarkets();
    const { sim } = opened.server('dydx');
    expect(Object.keys(markets)).toEqual(sim.markets.map((m) => m.id));
    const last = sim.lastHour(clock.nowMs())!;
    for (const m of sim.markets) {
      const h = sim.hour(m.id, last)!;
      expect(markets[m.id]!.openInterest).toBe(decimalString(h.openInterestEndSteps, m.stepDecimals));
      expect(markets[m.id]!.oraclePrice).toBe(decimalString(h.oracleCloseTicks, m.tickDecimals));
    }
  });

  it('pages a day of trades whose count and volume equal the daily candle and the simulation', async () => {
    const { sim } = opened.server('dydx');
    const client = new DydxClient({ indexerUrl: endpoint().indexerUrl, pageLimit: 50 });
    for (const ticker of ['ETH-USD', 'PEPE-USD']) {
      const trades = await client.tradesBetween(ticker, DAY, DAY + 24 * HOUR * 1000);
      const truth = sim.fills(ticker, DAY, DAY + 24 * HOUR * 1000, clock.nowMs());
      expect(trades.map((t) => t.id).sort()).toEqual(truth.map((f) => f.id).sort());
      const [candle] = await endpoint().client.candles(ticker, '1DAY', { fromMs: DAY, toMs: DAY + 1 });
      expect(candle!.startedAt).toBe(new Date(DAY).toISOString());
      expect(candle!.trades).toBe(trades.length);
      const volume = trades.reduce((s, t) => s + Number(t.size) * Number(t.price), 0);
      expect(Math.abs(Number(candle!.usdVolume) / volume - 1)).toBeLessThan(1e-9);
    }
  });

  it('pages hourly funding: one point an hour, equal to the simulation’s', async () => {
    const { sim } = opened.server('dydx');
    const client = new DydxClient({ indexerUrl: endpoint().indexerUrl, pageLimit: 7 });
    const points = await client.fundingBetween('BTC-USD', DAY + 1000 * HOUR, DAY + 24 * HOUR * 1000);
    expect(points).toHaveLength(24);
    for (const p of points) {
      const h = sim.hour('BTC-USD', Date.parse(p.effectiveAt) / 1000 - HOUR)!;
      expect(p.rate).toBe(h.funding.rate);
      expect(p.effectiveAtHeight).toBe(String(h.funding.height));
    }
  });

  it('reads the module accounts’ USDC, at a past height too', async () => {
    const server = opened.server('dydx');
    const { height } = await endpoint().client.height();
    const now = await endpoint().client.balance(DYDX_SUBACCOUNTS_MODULE, DYDX_USDC_DENOM);
    expect(now).toBe(server.balanceAt(DYDX_SUBACCOUNTS_MODULE, clock.nowMs() - (clock.nowMs() % 1000)));
    const past = await endpoint().client.balance(DYDX_INSURANCE_FUND, DYDX_USDC_DENOM, height - 86_400);
    expect(past).toBeGreaterThan(0n);
    expect(await endpoint().client.balance(DYDX_INSURANCE_FUND, 'adydx')).toBe(0n);
  });

  it('retries a 429 (Retry-After in milliseconds), a 5xx and a malformed body; fails at once on a bad ticker', async () => {
    const server = opened.server('dydx');
    server.faults.inject(
      { fault: { kind: 'secondary-limit', retryAfterSeconds: 3 }, pathIncludes: '/v4/height' },
      { fault: { kind: 'server-error', status: 502 }, pathIncludes: '/v4/height' },
    );
    const before = clock.nowMs();
    expect((await endpoint().client.height()).height).toBeGreaterThan(0);
    expect(clock.nowMs() - before).toBeGreaterThanOrEqual(3000);
    expect(clock.nowMs() - before).toBeLessThan(60_000);
    let calls = 0;
    const flaky = new DydxClient({
      indexerUrl: 'http://indexer.invalid',
      sleep: async () => {},
      fetch: async () => {
        calls++;
        return new Response(calls === 1 ? '{"height": "12' : '{"height":"12","time":"2026-11-20T14:30:00.000Z"}');
      },
    });
    expect((await flaky.height()).height).toBe(12);
    expect(calls).toBe(2);
    await expect(endpoint().client.trades('NOPE-USD')).rejects.toThrow(DydxError);
    await expect(endpoint().client.trades('NOPE-USD')).rejects.toThrow(/ticker must be a valid ticker/);
  });

  it('reads the wait of a 429 the way comlink writes it, and standard seconds from anyone else', () => {
    const comlink = new Headers({ 'ratelimit-limit': '100', 'ratelimit-reset': '1000', 'retry-after': '8734' });
    expect(dydxRetryAfterMs(comlink, 0)).toBe(8734);
    expect(dydxRetryAfterMs(new Headers({ 'ratelimit-limit': '100', 'ratelimit-reset': '5000' }), 1000)).toBe(4000);
    expect(dydxRetryAfterMs(new Headers({ 'retry-after': '7' }), 0)).toBe(7000);
    expect(dydxRetryAfterMs(new Headers({ 'retry-after': '600' }), 0)).toBe(60_000);
  });
});
