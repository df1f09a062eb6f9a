import { describe, expect, it } from 'vitest';
import { type LiquidityScoreInputs, STABLECOIN_METHODOLOGY, scoreLiquidity, WEIGHTS } from './score.js';

const AT = Date.UTC(2026, 10, 20, 12) / 1000;

const healthy: LiquidityScoreInputs = {
  peg: { value: { hoursPriced: 24, hoursOutside: 0, maxDeviation: 0.001 } },
  exit: { value: { depthUsd: 5_000_000, backstopUsd: 45_000_000, circulatingUsd: 100_000_000 } },
  buffer: { value: { ratio: 3, liquidationRatio: 1.5, recoveryMode: false } },
  absorption: { value: { liquidatableUsd: 1_000_000, absorbableUsd: 2_000_000 } },
  concentration: { value: { collateralHhi: 0.5, topHolderShare: 0.3 } },
};

const value = (x: LiquidityScoreInputs, name: keyof typeof WEIGHTS) =>
  scoreLiquidity(x, AT).components.find((c) => c.name === name)!.value;

describe('scoreLiquidity', () => {
  it('weights sum to 1 and name the methodology', () => {
    expect(Object.values(WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const s = scoreLiquidity(healthy, AT);
    expect(s.methodology).toBe('stablecoin.liquidity@1.8.0');
    expect(STABLECOIN_METHODOLOGY).toBe(s.methodology);
    expect(s.timestamp).toBe('2026-11-20T12:00:00Z');
    expect(s.evidence).toBe(1);
  });

  it.each([
    // [case, inputs, component, expected value]
    ['peg inside the band all day', healthy, 'peg_stability', 0.99],
    [
      'peg outside the band 6 of 24 hours, 2.5 % at worst',
      { ...healthy, peg: { value: { hoursPriced: 24, hoursOutside: 6, maxDeviation: 0.025 } } },
      'peg_stability',
      0.625,
    ],
    [
      'a broken peg (≥ 5 %) all day',
      { ...healthy, peg: { value: { hoursPriced: 10, hoursOutside: 10, maxDeviation: 0.08 } } },
      'peg_stability',
      0,
    ],
    ['half the supply exits within 2 % (PSM + DEX)', healthy, 'exit_liquidity', 0.8333],
    [
      'nothing exits (no depth, no backstop)',
      { ...healthy, exit: { value: { depthUsd: 0, backstopUsd: 0, circulatingUsd: 1e6 } } },
      'exit_liquidity',
      0,
    ],
    ['collateral at twice the liquidation level', healthy, 'collateral_buffer', 1],
    [
      'collateral 30 % above the liquidation level',
      { ...healthy, buffer: { value: { ratio: 1.95, liquidationRatio: 1.5, recoveryMode: false } } },
      'collateral_buffer',
      0.3,
    ],
    [
      'recovery mode: no buffer left whatever the ratio says',
      { ...healthy, buffer: { value: { ratio: 1.45, liquidationRatio: 1.5, recoveryMode: true } } },
      'collateral_buffer',
      0,
    ],
    ['absorbers cover twice the stressed debt', healthy, 'liquidation_absorption', 1],
    [
      'absorbers cover a quarter of it',
      { ...healthy, absorption: { value: { liquidatableUsd: 4e6, absorbableUsd: 1e6 } } },
      'liquidation_absorption',
      0.25,
    ],
    [
      'nothing liquidatable under the stress',
      { ...healthy, absorption: { value: { liquidatableUsd: 0, absorbableUsd: 0 } } },
      'liquidation_absorption',
      1,
    ],
    ['collateral HHI 0.5, top holders 30 %', healthy, 'concentration', 0.6],
    [
      'one collateral, holders unknown',
      { ...healthy, concentration: { value: { collateralHhi: 1, topHolderShare: null } } },
      'concentration',
      0,
    ],
  ] as const)('%s', (_case, inputs, name, expected) => {
    expect(value(inputs as LiquidityScoreInputs, name)).toBeCloseTo(expected, 4);
  });

  it('a component without data is dropped with its reason and the others rescaled', () => {
    const s = scoreLiquidity({ ...healthy, peg: { value: null, gap: 'no_price' } }, AT);
    const peg = s.components.find((c) => c.name === 'peg_stability')!;
    expect(peg).toMatchObject({ value: null, weight: 0, gap_reason: 'no_price' });
    expect(s.evidence).toBe(0.75);
    expect(s.components.reduce((a, c) => a + c.weight, 0)).toBeCloseTo(1, 10);
    const expected = s.components.reduce((a, c) => a + c.weight * (c.value ?? 0), 0);
    expect(s.score).toBeCloseTo(expected, 4);
  });

  it('too little evidence: a null score, never a perfect one', () => {
    const s = scoreLiquidity(
      {
        ...healthy,
        peg: { value: null, gap: 'no_price' },
        exit: { value: null, gap: 'no_price' },
      },
      AT,
    );
    expect(s.evidence).toBe(0.5);
    expect(s.score).toBeNull();
    expect(s.grade).toBeNull();
  });

  it('concentration with neither part known is dropped as no_data', () => {
    const s = scoreLiquidity(
      { ...healthy, concentration: { value: { collateralHhi: null, topHolderShare: null } } },
      AT,
    );
    expect(s.components.find((c) => c.name === 'concentration')).toMatchObject({ value: null, gap_reason: 'no_data' });
  });
});
