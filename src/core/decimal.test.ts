import { describe, expect, it } from 'vitest';
import {
  absBig,
  formatUnits,
  pow10,
  Q96,
  ratioToFloat,
  reservesToPrice,
  sqrtPriceX96ToPrice,
  toFloat,
  v3VirtualReserves,
} from './decimal.js';

describe('decimal', () => {
  it.each([
    [0n, 6, '0'],
    [1n, 6, '0.000001'],
    [1_234_500n, 6, '1.2345'],
    [-1_234_500n, 6, '-1.2345'],
    [10n ** 18n, 18, '1'],
    [123n, 0, '123'],
    [100_000_000n, 8, '1'],
    [2n ** 256n - 1n, 18, '115792089237316195423570985008687907853269984665640564039457.584007913129639935'],
  ])('formatUnits(%s, %s) = %s', (raw, decimals, text) => {
    expect(formatUnits(raw, decimals)).toBe(text);
  });

  it.each([
    [1_500_000n, 6, 1.5],
    [123_456_789n, 8, 1.23456789],
    [3n * 10n ** 17n, 18, 0.3],
    [-25n, 1, -2.5],
  ])('toFloat(%s, %s) = %s (nearest float)', (raw, decimals, value) => {
    expect(toFloat(raw, decimals)).toBe(value);
  });

  it('pow10 and absBig', () => {
    expect(pow10(0)).toBe(1n);
    expect(pow10(18)).toBe(10n ** 18n);
    expect(() => pow10(-1)).toThrow(RangeError);
    expect(absBig(-5n)).toBe(5n);
    expect(absBig(5n)).toBe(5n);
  });

  it.each([
    [1n, 3n, 1 / 3],
    [-2n, 3n, -2 / 3],
    [10n ** 40n, 10n ** 20n, 1e20],
    [1n, 10n ** 30n, 1e-30],
    [2n ** 200n, 1n, 2 ** 200],
    [0n, 7n, 0],
  ])('ratioToFloat(%s, %s)', (num, den, value) => {
    expect(ratioToFloat(num, den)).toBe(value);
  });

  it('ratioToFloat rejects a zero denominator', () => {
    expect(() => ratioToFloat(1n, 0n)).toThrow(RangeError);
  });

  // USDC (6 decimals) as token0, WETH (18) as token1, ETH at $2500: 1 USDC = 0.0004 WETH.
  // Raw price = 0.0004 × 10^18 / 10^6 = 4e8, whose square root 20000 is exact, so sqrtPriceX96 = 20000 × 2^96.
  it('V3 price from sqrtPriceX96, adjusted by decimals (exact)', () => {
    expect(sqrtPriceX96ToPrice(20_000n * Q96, 6, 18)).toBe(0.0004);
    expect(sqrtPriceX96ToPrice(Q96, 18, 18)).toBe(1);
    // WBTC (8) / USDC (6) at $40,000: raw price 4e4 × 10^6 / 10^8 = 400 = 20².
    expect(sqrtPriceX96ToPrice(20n * Q96, 8, 6)).toBe(40_000);
  });

  it('V2 price from reserves, adjusted by decimals (exact)', () => {
    // 1,000,000 USDC and 400 WETH: 1 USDC = 0.0004 WETH.
    expect(reservesToPrice(1_000_000n * 10n ** 6n, 400n * 10n ** 18n, 6, 18)).toBe(0.0004);
    // 2 WBTC and 80,000 USDC: 1 WBTC = 40,000 USDC.
    expect(reservesToPrice(2n * 10n ** 8n, 80_000n * 10n ** 6n, 8, 6)).toBe(40_000);
    expect(reservesToPrice(0n, 5n, 18, 18)).toBeNull();
  });

  it('V3 virtual reserves: x = L/√P, y = L·√P', () => {
    const { reserve0, reserve1 } = v3VirtualReserves(10n ** 18n, 4n * Q96);
    expect(reserve0).toBe(25n * 10n ** 16n);
    expect(reserve1).toBe(4n * 10n ** 18n);
    // Their ratio is the price (√P)² = 16.
    expect(Number(reserve1) / Number(reserve0)).toBe(16);
    expect(v3VirtualReserves(0n, Q96)).toEqual({ reserve0: 0n, reserve1: 0n });
  });
});
