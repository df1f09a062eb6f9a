import { describe, expect, it } from 'vitest';
import { V3_TICK_SPACING } from '../protocols/uniswap/plan.js';
import {
  alignTick,
  fullRange,
  MAX_TICK,
  MIN_TICK,
  priceFromSqrtPriceX96,
  rawPrice,
  sqrtPriceX96FromPrice,
  tickFromPrice,
  tickRange,
  toRawAmount,
  v2AmountOut,
  v2ArbitrageAmountIn,
  v3AmountsForValue,
  v3AmountToTarget,
  v3SqrtAfterSwap,
} from './amm.js';

describe('AMM math', () => {
  it.each([1e-9, 3.3e-9, 1, 3000, 3.3e8, 6e4 * 1e10])('sqrtPriceX96 round-trips price %d', (price) => {
    expect(priceFromSqrtPriceX96(sqrtPriceX96FromPrice(price)) / price).toBeCloseTo(1, 10);
  });

  it('prices raw units by decimals', () => {
    // 1 WETH (18) = 3000 USDC (6): a raw wei buys 3000e6 / 1e18 raw USDC.
    expect(rawPrice(3000, 18, 1, 6)).toBeCloseTo(3000e-12, 20);
    expect(rawPrice(1, 6, 3000, 18) * rawPrice(3000, 18, 1, 6)).toBeCloseTo(1, 12);
  });

  it.each([
    [-887272, 60, 'up', -887220],
    [887272, 60, 'down', 887220],
    [-1, 10, 'down', -10],
    [-1, 10, 'up', 0],
    [123, 1, 'down', 123],
    [999_999, 200, 'up', 887200],
  ] as const)('alignTick(%d, %d, %s) = %d', (tick, spacing, direction, expected) => {
    expect(alignTick(tick, spacing, direction)).toBe(expected);
  });

  it('builds non-empty ranges of multiples of the spacing around the price', () => {
    for (const [fee, spacing] of Object.entries(V3_TICK_SPACING)) {
      for (const price of [1e-9, 1, 3000e-12, 2e4]) {
        for (const width of [0.0005, 0.01, 0.5]) {
          const [lower, upper] = tickRange(price, width, spacing);
          expect(Number.isInteger(lower / spacing), `fee ${fee}`).toBe(true);
          expect(Number.isInteger(upper / spacing)).toBe(true);
          expect(lower).toBeLessThan(upper);
          expect(lower).toBeLessThanOrEqual(tickFromPrice(price));
          expect(upper).toBeGreaterThan(tickFromPrice(price));
        }
      }
      const [lo, hi] = fullRange(spacing);
      expect(lo).toBeGreaterThanOrEqual(MIN_TICK);
      expect(hi).toBeLessThanOrEqual(MAX_TICK);
    }
  });

  it('splits a V3 position value between the tokens', () => {
    const price = 2.5;
    const [lower, upper] = tickRange(price, 0.2, 60);
    const { amount0, amount1 } = v3AmountsForValue(price, lower, upper, 1000);
    expect(amount0 * price + amount1).toBeCloseTo(1000, 6);
    expect(amount0).toBeGreaterThan(0);
    expect(amount1).toBeGreaterThan(0);
    // Out of range: all in one token.
    expect(v3AmountsForValue(price, upper, upper + 60, 1000)).toEqual({ amount0: 400, amount1: 0 });
    expect(v3AmountsForValue(price, lower - 60, lower, 1000)).toEqual({ amount0: 0, amount1: 1000 });
  });

  it('floors float amounts and maps nonsense to zero', () => {
    expect(toRawAmount(12.9)).toBe(12n);
    expect(toRawAmount(1e30)).toBe(BigInt(1e30));
    expect(toRawAmount(-3)).toBe(0n);
    expect(toRawAmount(Number.NaN)).toBe(0n);
    expect(toRawAmount(Number.POSITIVE_INFINITY)).toBe(0n);
  });
});

describe('arbitrage sizing', () => {
  it('V2: the computed input brings the constant-product price to the target', () => {
    for (const [r0, r1, target] of [
      [1e6, 3e9, 3100],
      [1e6, 3e9, 2900],
      [5e20, 1e12, 2.1e-9],
    ] as const) {
      const fee = 0.003;
      const { zeroForOne, amountIn } = v2ArbitrageAmountIn(r0, r1, target, fee);
      expect(zeroForOne).toBe(r1 / r0 > target);
      const input = amountIn * (1 - fee);
      const after = zeroForOne
        ? (r1 - (input * r1) / (r0 + input)) / (r0 + amountIn)
        : (r1 + amountIn) / (r0 - (input * r0) / (r1 + input));
      expect(after / target).toBeCloseTo(1, 2);
    }
  });

  it('V3: amounts to move within one range', () => {
    const q96 = 2n ** 96n;
    // √P from 1 to 2 with L = 1e18 takes L·Δ√P = 1e18 of token1; from 2 to 1 takes L·(1/1 − 1/2) of token0.
    expect(v3AmountToTarget(10n ** 18n, q96, 2n * q96)).toBe(10n ** 18n);
    expect(v3AmountToTarget(10n ** 18n, 2n * q96, q96)).toBe(5n * 10n ** 17n);
  });
});

describe('swap estimates', () => {
  it('v2AmountOut is the pair’s constant product net of the fee', () => {
    // 1,000 in against 1e6/2e6 at 0.3 %: 997 × 2e6 / (1e6 + 997).
    expect(v2AmountOut(1000, 1e6, 2e6, 0.003)).toBeCloseTo((997 * 2e6) / (1e6 + 997), 6);
    expect(v2AmountOut(0, 1e6, 2e6, 0.003)).toBe(0);
  });

  it('v3SqrtAfterSwap moves the price within the range as the pool does', () => {
    // L = 1e6 at √p = 1 (x = y = 1e6 virtual): 1e4 of token1 (no fee) → √p = 1.01; 1e4 of token0 → √p = 1/1.01.
    expect(v3SqrtAfterSwap(1, 1e6, false, 1e4, 0)).toBeCloseTo(1.01, 12);
    expect(v3SqrtAfterSwap(1, 1e6, true, 1e4, 0)).toBeCloseTo(1 / 1.01, 12);
    expect(v3SqrtAfterSwap(1, 0, true, 1e4, 0)).toBe(1);
  });
});
