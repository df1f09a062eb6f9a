import { describe, expect, it } from 'vitest';
import { advancePrices, applyMarketEvents } from './market.js';
import { depegDiscount, MARKET_EVENTS, TOKEN_PLAN } from './plan.js';
import { Rng } from './random.js';

describe('price model', () => {
  const tokens = TOKEN_PLAN.map((t) => ({ symbol: t.symbol, volatility: t.volatility, plan: t }));
  const initial = Object.fromEntries(TOKEN_PLAN.map((t) => [t.symbol, t.initialPriceUsd]));

  it('realises each volatile token’s volatility, keeps stablecoins on the peg and correlates with the market', () => {
    const rng = Rng.fromSeed(1, 'prices');
    let prices = initial;
    const returns: Record<string, number[]> = {};
    for (let h = 0; h < 24 * 365; h++) {
      const next = advancePrices(prices, tokens, 3600, rng);
      for (const t of TOKEN_PLAN) {
        returns[t.symbol] ??= [];
        returns[t.symbol]!.push(Math.log(next[t.symbol]! / prices[t.symbol]!));
      }
      for (const t of TOKEN_PLAN.filter((x) => x.stable)) expect(Math.abs(next[t.symbol]! - 1)).toBeLessThan(0.006);
      prices = next;
    }
    const sd = (xs: number[]) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
    };
    // The liquid staking token has no walk of its own (applyMarketEvents prices it from WETH).
    for (const t of TOKEN_PLAN.filter((x) => !x.stable && !x.liquidStaking)) {
      expect((sd(returns[t.symbol]!) * Math.sqrt(24 * 365)) / t.volatility, t.symbol).toBeCloseTo(1, 1);
    }
    const corr = (a: number[], b: number[]) => {
      const ma = a.reduce((x, y) => x + y, 0) / a.length;
      const mb = b.reduce((x, y) => x + y, 0) / b.length;
      let cov = 0;
      for (let i = 0; i < a.length; i++) cov += (a[i]! - ma) * (b[i]! - mb);
      return cov / (a.length - 1) / (sd(a) * sd(b));
    };
    // ρ(WETH, WBTC) = 0.85 × 0.75 under the one-factor model.
    expect(corr(returns.WETH!, returns.WBTC!)).toBeCloseTo(0.85 * 0.75, 1);
  });

  it('puts the scheduled crash and depeg on top of the walk, and prices the liquid staking token from WETH', () => {
    const g = 1_700_000_000;
    const at = (h: number) => g + h * 3600;
    // The crash: WETH −14 % over hours 30–33, WBTC by its correlation's share, stablecoins untouched.
    let prices: Record<string, number> = { ...initial };
    for (let h = 29; h < 34; h++) prices = applyMarketEvents(prices, tokens, g, at(h), at(h + 1));
    expect(prices.WETH! / initial.WETH!).toBeCloseTo(1 - MARKET_EVENTS.ethCrash.drop, 10);
    expect(prices.WBTC! / initial.WBTC!).toBeCloseTo(1 - (MARKET_EVENTS.ethCrash.drop * 0.75) / 0.85, 10);
    expect(prices.USDC).toBe(initial.USDC);
    // wstETH = WETH × the exchange rate (1.18, +3.5 %/yr per whole day) × (1 − the depeg discount).
    const rateOn = (day: number) => 1.18 * (1 + (0.035 * day) / 365);
    expect(prices.wstETH! / prices.WETH!).toBeCloseTo(rateOn(1), 12);
    const inDepeg = applyMarketEvents(prices, tokens, g, at(81), at(82));
    expect(depegDiscount(82)).toBe(MARKET_EVENTS.depeg.discount);
    expect(inDepeg.wstETH! / inDepeg.WETH!).toBeCloseTo(rateOn(3) * (1 - MARKET_EVENTS.depeg.discount), 12);
    const after = applyMarketEvents(prices, tokens, g, at(119), at(120));
    expect(after.wstETH! / after.WETH!).toBeCloseTo(rateOn(5), 12);
    expect(depegDiscount(70)).toBe(0);
    expect(depegDiscount(78)).toBeGreaterThan(0);
    expect(depegDiscount(78)).toBeLessThan(MARKET_EVENTS.depeg.discount);
  });

  it('repeats the crash every 96 hours as a deeper shock that recovers over 48, so every published week holds one', () => {
    const g = 1_700_000_000;
    const at = (h: number) => g + h * 3600;
    const { repeatDrop: drop, startHour, repeatHours, recoverHours, hours } = MARKET_EVENTS.ethCrash;
    const walk = (from: number, to: number) => {
      let prices: Record<string, number> = { ...initial };
      for (let h = from; h < to; h++) prices = applyMarketEvents(prices, tokens, g, at(h), at(h + 1));
      return prices;
    };
    // Nothing moves between the first crash and the second (hours 33–126): five-day worlds are as before.
    expect(walk(34, startHour + repeatHours).WETH).toBeCloseTo(initial.WETH!, 10);
    const second = startHour + repeatHours;
    expect(second).toBe(126);
    // Down by `repeatDrop` over its three hours, back over the next 48, on top of the first crash's level.
    expect(walk(second, second + hours).WETH! / initial.WETH!).toBeCloseTo(1 - drop, 10);
    expect(walk(second, second + hours + recoverHours).WETH! / initial.WETH!).toBeCloseTo(1, 10);
    expect(walk(second, second + hours + 24).WETH! / initial.WETH!).toBeCloseTo(1 - drop / 2, 10);
    expect(walk(second - 1, second + 1).WBTC! / initial.WBTC!).toBeCloseTo(1 - (drop * 0.75) / 0.85 / 3, 10);
    expect(walk(second, second + hours).USDC).toBe(initial.USDC);
    // Every 7-day span after the first crash's day holds a crash's start.
    for (let h = 24; h + 168 <= 1000; h += 1) {
      const starts = [startHour, ...Array.from({ length: 12 }, (_, k) => startHour + (k + 1) * repeatHours)];
      expect(
        starts.some((s) => s >= h && s + hours <= h + 168),
        `the week from hour ${h}`,
      ).toBe(true);
    }
  });

  it('does not depend on how the span is cut when only the grid is the same', () => {
    const a = advancePrices(initial, tokens, 3600, Rng.fromSeed(2, 'prices'));
    expect(advancePrices(initial, tokens, 3600, Rng.fromSeed(2, 'prices'))).toEqual(a);
  });
});
