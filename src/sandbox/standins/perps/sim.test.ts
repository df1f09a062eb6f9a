import { describe, expect, it } from 'vitest';
import { HOUR } from '../../../core/time.js';
import { decimalString } from './decimal.js';
import { DYDX_MARKETS, SYNTHETIX_MARKETS } from './markets.js';
import { type ReferencePrices, worldReferencePrices } from './prices.js';
import { heightAt, PerpVenueSimulation, timeOfHeight } from './sim.js';

const T0 = Date.UTC(2026, 10, 1) / 1000;
const HOURS = 72;

/** Reference prices of a world: flat, then ETH crashes 30 % in hour 40, the rest follow a little. */
function prices(lastHour = T0 + (HOURS - 1) * HOUR): ReferencePrices {
  const initial: Record<string, number> = { WETH: 3000, WBTC: 60000, LINK: 15, UNI: 8, AAVE: 150, PEPE: 0.00001 };
  return {
    close(symbol, hour) {
      if (hour < T0 || hour > lastHour || initial[symbol] === undefined) return undefined;
      const i = (hour - T0) / HOUR;
      const crash = symbol === 'WETH' && i >= 40 ? 0.7 : 1;
      return initial[symbol]! * (1 + 0.001 * Math.sin(i)) * crash;
    },
    lastHour: () => lastHour,
    firstHour: () => T0,
    initial: (symbol) => initial[symbol],
  };
}

const venue = (p = prices()) => new PerpVenueSimulation({ seed: 7, venue: 'dydx', markets: DYDX_MARKETS, prices: p });
const NOW = (T0 + HOURS * HOUR) * 1000;

describe('decimalString', () => {
  it.each([
    [12345n, 2, '123.45'],
    [12300, 2, '123'],
    [5, 3, '0.005'],
    [-5, 3, '-0.005'],
    [7, -5, '700000'],
    [0, 4, '0'],
  ])('%s × 10^-%s is %s', (units, decimals, text) => {
    expect(decimalString(units, decimals)).toBe(text);
  });
});

describe('the perpetuals venue simulation', () => {
  it('is a pure function of (seed, venue, market, hour, prices): a new instance, another order, the same hour', () => {
    const a = venue();
    const b = venue();
    b.hour('BTC-USD', T0 + 10 * HOUR);
    expect(a.hour('ETH-USD', T0 + 20 * HOUR)).toEqual(b.hour('ETH-USD', T0 + 20 * HOUR));
    const other = new PerpVenueSimulation({
      seed: 7,
      venue: 'synthetix',
      markets: SYNTHETIX_MARKETS,
      prices: prices(),
    });
    expect(other.hour('ETH-USDT', T0 + 20 * HOUR)!.fills).not.toEqual(a.hour('ETH-USD', T0 + 20 * HOUR)!.fills);
  });

  it('moves open interest (one side) exactly by the fills that open and close, hour to hour, never below zero', () => {
    const sim = venue();
    for (const market of DYDX_MARKETS) {
      for (let i = 0; i < HOURS; i++) {
        const h = sim.hour(market.id, T0 + i * HOUR)!;
        const moved = h.fills.reduce((sum, f) => sum + f.openInterestDeltaSteps, 0);
        expect(h.openInterestStartSteps + moved).toBe(h.openInterestEndSteps);
        expect(h.openInterestStartSteps).toBeGreaterThan(0);
        for (const f of h.fills)
          expect(Math.abs(f.openInterestDeltaSteps) === f.sizeSteps || f.openInterestDeltaSteps === 0).toBe(true);
        if (i + 1 < HOURS)
          expect(sim.hour(market.id, T0 + (i + 1) * HOUR)!.openInterestStartSteps).toBe(h.openInterestEndSteps);
      }
    }
  });

  it('liquidates longs in the crash hour (taker sells, type LIQUIDATED, closing) and cuts open interest after it', () => {
    const sim = venue();
    const crash = sim.hour('ETH-USD', T0 + 40 * HOUR)!;
    const liquidations = crash.fills.filter((f) => f.type === 'LIQUIDATED');
    expect(liquidations.length).toBeGreaterThan(0);
    for (const f of liquidations) {
      expect(f.side).toBe('SELL');
      expect(f.openInterestDeltaSteps).toBe(-f.sizeSteps);
    }
    const calm = sim.hour('BTC-USD', T0 + 40 * HOUR)!;
    expect(calm.fills.some((f) => f.type === 'LIQUIDATED')).toBe(false);
    expect(sim.openInterestTarget(DYDX_MARKETS[1]!, T0 + 42 * HOUR)).toBeLessThan(crash.openInterestStartSteps);
  });

  it('trades near the oracle, in whole ticks and steps, ascending, with unique event ids at their block', () => {
    const sim = venue();
    const ids = new Set<string>();
    for (let i = 0; i < HOURS; i++) {
      const h = sim.hour('BTC-USD', T0 + i * HOUR)!;
      let previous = 0;
      for (const f of h.fills) {
        expect(f.timeMs).toBeGreaterThanOrEqual(previous);
        previous = f.timeMs;
        expect(f.height).toBe(heightAt(f.timeMs));
        expect(timeOfHeight(f.height)).toBe(Math.floor(f.timeMs / 1000) * 1000);
        expect(Number.parseInt(f.id.slice(0, 8), 16)).toBe(f.height);
        ids.add(f.id);
        const oracle = sim.oracleTicksAt('BTC-USD', f.timeMs)!;
        expect(Math.abs(f.priceTicks / oracle - 1)).toBeLessThan(0.01);
        expect(Number(f.price)).toBe(f.priceTicks);
      }
    }
    const all = Array.from({ length: HOURS }, (_, i) => sim.hour('BTC-USD', T0 + i * HOUR)!.fills.length);
    expect(ids.size).toBe(all.reduce((a, b) => a + b, 0));
  });

  it('funds hourly: a 1-hour rate at each hour’s end, capped, with the oracle price then', () => {
    const sim = venue();
    for (let i = 0; i < HOURS; i++) {
      const h = sim.hour('SOL-USD', T0 + i * HOUR)!;
      expect(h.funding.effectiveAtMs).toBe((h.hour + HOUR) * 1000);
      expect(Math.abs(Number(h.funding.rate))).toBeLessThanOrEqual(0.0004);
      expect(h.funding.price).toBe(decimalString(h.oracleCloseTicks, 2));
    }
  });

  it('shows only hours the world has closed and the clock has passed', () => {
    const sim = venue(prices(T0 + 10 * HOUR));
    expect(sim.hour('ETH-USD', T0 + 11 * HOUR)).toBeUndefined();
    expect(sim.lastHour(NOW)).toBe(T0 + 10 * HOUR);
    expect(sim.lastHour((T0 + 5 * HOUR + 30) * 1000)).toBe(T0 + 4 * HOUR);
    expect(
      sim.fills('ETH-USD', T0 * 1000, NOW, (T0 + 3 * HOUR) * 1000).every((f) => f.timeMs < (T0 + 3 * HOUR) * 1000),
    ).toBe(true);
  });

  it('aggregates fills exactly (notional in units of both decimals)', () => {
    const sim = venue();
    const fills = sim.fills('LINK-USD', T0 * 1000, (T0 + 24 * HOUR) * 1000, NOW);
    const agg = sim.aggregate('LINK-USD', T0 * 1000, (T0 + 24 * HOUR) * 1000, NOW);
    expect(agg.trades).toBe(fills.length);
    const usd = fills.reduce((s, f) => s + Number(f.size) * Number(f.price), 0);
    expect(Number(decimalString(agg.notionalUnits, 4)) / usd - 1).toBeLessThan(1e-9);
  });
});

describe('the world’s reference prices', () => {
  it('are each closed hour’s close, the manifest’s initial prices the anchors, nothing before or after', () => {
    const hours = [0, 1, 2].map((i) => ({
      hour: T0 + i * HOUR,
      prices: { WETH: 3000 + i, WBTC: 60000 - i },
      dex: { swaps: 1, liquidityChanges: 0, transactions: 1 },
    }));
    const view = {
      hours: () => hours,
      hour: (h: number) => hours.find((x) => x.hour === h),
      manifests: new Map([['ethereum', { tokens: [{ symbol: 'WETH', initialPriceUsd: 2900 }] }]]),
    } as unknown as Parameters<typeof worldReferencePrices>[0];
    const prices = worldReferencePrices(view);
    expect(prices.close('WETH', T0 + HOUR)).toBe(3001);
    expect(prices.close('WETH', T0 + 3 * HOUR)).toBeUndefined();
    expect([prices.firstHour(), prices.lastHour()]).toEqual([T0, T0 + 2 * HOUR]);
    expect(prices.initial('WETH')).toBe(2900);
    const sim = new PerpVenueSimulation({ seed: 7, venue: 'dydx', markets: DYDX_MARKETS, prices });
    expect(sim.hour('ETH-USD', T0 + 2 * HOUR)!.oracleCloseTicks).toBe(30020);
    expect(sim.lastHour(NOW)).toBe(T0 + 2 * HOUR);
  });
});
