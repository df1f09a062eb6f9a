import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/helpers.js';
import { startTestSources, type TestSources } from '../../../test/support/sources.js';

/**
 * The Synthetix source against the sandbox's stand-in, opened as `start` opens it (the stand-in's STANDINS entry and
 * its keys): every action the client sends is answered in a shape its schemas accept, and what it reads is the
 * simulation's (markets, open interest as the total of both sides, the day's hourly funding, candles).
 */
const clock = new TestClock(Date.UTC(2026, 10, 20, 14, 30, 0));
let opened: TestSources;

beforeAll(async () => {
  opened = await startTestSources({ kinds: ['synthetix'], clock, days: 3 });
});
afterAll(async () => opened?.close());

const endpoint = () => opened.sources.get('synthetix')!;
const HOUR_MS = 3_600_000;

describe('the Synthetix source on the stand-in', () => {
  it('is opened from the stand-in’s key and names itself sandbox:synthetix', () => {
    expect(endpoint().source).toBe('sandbox:synthetix');
    expect(endpoint().baseUrl).toBe(opened.server('synthetix').url);
  });

  it('reads the simulation’s markets and their open interest, both sides summed', async () => {
    const sim = opened.server('synthetix').sim;
    const markets = await endpoint().client.markets();
    expect(markets.map((m) => m.symbol).sort()).toEqual(sim.markets.map((m) => m.id).sort());
    const oi = await endpoint().client.openInterest();
    expect(oi.map((o) => o.symbol).sort()).toEqual(sim.markets.map((m) => m.id).sort());
    for (const o of oi) {
      expect(Number(o.openInterest)).toBeCloseTo(Number(o.longOpenInterest) + Number(o.shortOpenInterest), 9);
      // An order book: every long faces a short.
      expect(o.longOpenInterest).toBe(o.shortOpenInterest);
    }
  });

  it('reads a day of hourly funding and candles of a market', async () => {
    const sim = opened.server('synthetix').sim;
    const market = sim.markets[0]!.id;
    const end = Math.floor(clock.nowMs() / HOUR_MS) * HOUR_MS;
    const start = end - 24 * HOUR_MS;
    const funding = await endpoint().client.fundingRateHistory(market, start, end);
    expect(funding.length).toBeGreaterThanOrEqual(23);
    expect(funding.every((f) => f.fundingTime >= start && f.fundingTime <= end)).toBe(true);
    const candles = await endpoint().client.candles(market, '1h', start, end);
    expect(candles.length).toBeGreaterThanOrEqual(23);
    expect(candles.reduce((a, c) => a + c.tradeCount, 0)).toBeGreaterThan(0);
  });
});
