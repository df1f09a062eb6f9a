import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../../test/helpers.js';
import { HOUR } from '../../../core/time.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import { DAY_MS, dayOf } from '../base/generate.js';
import { decimalString } from '../perps/decimal.js';
import { syntheticReferencePrices } from '../perps/prices.js';
import { type SynthetixStandin, startSynthetixStandin } from './server.js';

/**
 * The Synthetix info API stand-in: its envelopes, its actions as developers.synthetix.io documents them, its open
 * interest convention (`openInterest` = long + short, one side = `longOpenInterest`), the 30-day limit of funding
 * history, and day volume and trade count equal to the simulation's fills.
 */
const clock = new TestClock(Date.UTC(2026, 10, 20, 14, 30, 0));
let standin: SynthetixStandin;

beforeAll(async () => {
  const prices = syntheticReferencePrices(
    7,
    clock,
    (dayOf(clock.nowMs()) - 3) * (DAY_MS / 1000),
    Object.fromEntries(TOKEN_PLAN.map((t) => [t.symbol, t.initialPriceUsd])),
  );
  standin = await startSynthetixStandin({ seed: 7, clock, prices });
});
afterAll(async () => standin?.close());

async function info(params: Record<string, unknown>) {
  const res = await fetch(`${standin.url}/v1/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ params }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the answers' JSON field by field
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const DAY = Date.UTC(2026, 10, 19);

describe('the Synthetix info API stand-in', () => {
  it('answers in the success envelope, markets with their documented fields', async () => {
    const { status, body } = await info({ action: 'getMarkets' });
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.request_id).toMatch(/^[0-9a-f]{16}$/);
    expect(body.response.map((m: { symbol: string }) => m.symbol)).toEqual(standin.sim.markets.map((m) => m.id));
    expect(body.response[0]).toMatchObject({ baseAsset: 'BTC', quoteAsset: 'USDT', isOpen: true });
  });

  it('reports open interest as the exchange documents it: openInterest = long + short, one side each', async () => {
    const { body } = await info({ action: 'getOpenInterest' });
    const last = standin.sim.lastHour(clock.nowMs())!;
    for (const row of body.response) {
      const m = standin.sim.market(row.symbol)!;
      const side = decimalString(standin.sim.hour(m.id, last)!.openInterestEndSteps, m.stepDecimals);
      expect(row.longOpenInterest).toBe(side);
      expect(row.shortOpenInterest).toBe(side);
      expect(Number(row.openInterest)).toBeCloseTo(2 * Number(side), 9);
    }
    const prices = (await info({ action: 'getMarketPrices' })).body.response;
    expect(prices['ETH-USDT'].openInterest).toBe(body.response[1].openInterest);
  });

  it('gives a day’s hourly candles whose trades and quote volume are the simulation’s fills', async () => {
    const { body } = await info({
      action: 'getCandles',
      symbol: 'eth-usdt',
      interval: '1h',
      startTime: DAY,
      endTime: DAY + 86_400_000,
    });
    expect(body.response.candles).toHaveLength(24);
    const fills = standin.sim.fills('ETH-USDT', DAY, DAY + 86_400_000, clock.nowMs());
    const trades = body.response.candles.reduce((n: number, c: { tradeCount: number }) => n + c.tradeCount, 0);
    expect(trades).toBe(fills.length);
    const quote = body.response.candles.reduce((s: number, c: { quoteVolume: string }) => s + Number(c.quoteVolume), 0);
    const truth = fills.reduce((s, f) => s + Number(f.size) * Number(f.price), 0);
    expect(Math.abs(quote / truth - 1)).toBeLessThan(1e-9);
  });

  it('gives hourly funding within 30 days, and refuses a range reaching further back', async () => {
    const { body } = await info({
      action: 'getFundingRateHistory',
      symbol: 'BTC-USDT',
      startTime: DAY,
      endTime: DAY + 86_400_000 - 1,
    });
    expect(body.response.fundingRates).toHaveLength(24);
    for (const p of body.response.fundingRates) {
      expect(p.fundingRate).toBe(standin.sim.hour('BTC-USDT', p.fundingTime / 1000 - HOUR)!.funding.rate);
    }
    const old = await info({
      action: 'getFundingRateHistory',
      symbol: 'BTC-USDT',
      startTime: DAY - 40 * 86_400_000,
      endTime: DAY,
    });
    expect(old.status).toBe(400);
    expect(old.body).toMatchObject({ status: 'error', error: { code: 'INVALID_PARAMS' } });
  });

  it('answers unknown actions, symbols and rate limits in the error envelope', async () => {
    expect((await info({ action: 'nope' })).body).toMatchObject({
      status: 'error',
      error: { code: 'INVALID_REQUEST' },
    });
    expect((await info({ action: 'getCandles', symbol: 'NOPE', interval: '1h' })).status).toBe(400);
    standin.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 5 } });
    const limited = await info({ action: 'getMarkets' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('5');
    expect(limited.body).toMatchObject({ status: 'error', error: { code: 'RATE_LIMIT_EXCEEDED' } });
  });
});
