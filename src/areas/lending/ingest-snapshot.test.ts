import { describe, expect, it } from 'vitest';
import { decodeReserveConfiguration } from './ingest-snapshot.js';

describe('decodeReserveConfiguration', () => {
  it("reads Aave V3's bitmap, the bonus as an exact fraction (10750 → 0.075, not 1.075 − 1)", () => {
    const word =
      8000n | // LTV
      (8250n << 16n) | // liquidation threshold
      (10750n << 32n) | // liquidation bonus
      (18n << 48n) | // decimals
      (1n << 56n) | // active
      (1n << 58n); // borrowing enabled
    expect(decodeReserveConfiguration(word)).toMatchObject({
      ltv: 0.8,
      liquidationThreshold: 0.825,
      liquidationBonus: 0.075,
      decimals: 18,
      active: true,
      frozen: false,
      borrowingEnabled: true,
      paused: false,
    });
    // Not collateral: no bonus configured.
    expect(decodeReserveConfiguration(18n << 48n).liquidationBonus).toBe(0);
  });

  it('reads isolation mode: the debt ceiling (USD, 2 decimals), borrowable in isolation and siloed borrowing', () => {
    const word = (18n << 48n) | (1n << 61n) | (1n << 62n) | (250_000_000n << 212n);
    expect(decodeReserveConfiguration(word)).toMatchObject({
      debtCeilingUsd: 2_500_000,
      borrowableInIsolation: true,
      siloedBorrowing: true,
    });
    expect(decodeReserveConfiguration(18n << 48n)).toMatchObject({
      debtCeilingUsd: 0,
      borrowableInIsolation: false,
      siloedBorrowing: false,
    });
  });
});
