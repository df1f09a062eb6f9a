import { describe, expect, it } from 'vitest';
import { type LiquidityScoreInputs, STABLECOIN_METHODOLOGY, scoreLiquidity, WEIGHTS } from './score.js';

const AT = Date.UTC(2026, 10, 20, 12) / 1000;

const healthy: LiquidityScoreInputs = {
  peg: { value: { hoursPriced: 24, hoursOutside: 0, maxDeviation: 0.001 } },
  exit: { value: { depthUsd: 5_000_000, backstopUsd: 45_000_000, circulatingUsd: 100_000_000 } },
  buffer: { value: { ratio: 3, liquidationRatio: 1.5, recoveryMode: false } },
  absorption: { value: { liquidatableUsd: 1_000_000, absorbableUsd: 2_000_000 } },
  collateralConcentration: { value: { collateralHhi: 0.5 } },
  holderConcentration: { value: { topHolderShare: 0.3, topHolderShareRaw: 0.8, excludedHolders: 2 } },
};

/** Liquity on mainnet: one collateral (ETH), holders unknown (the replay does not reach back to LUSD's deployment). */
const liquityMainnet: LiquidityScoreInputs = {
  ...healthy,
  collateralConcentration: { value: { collateralHhi: 1 } },
  holderConcentration: { value: null, gap: 'partial_history' },
};

const value = (x: LiquidityScoreInputs, name: keyof typeof WEIGHTS) =>
  scoreLiquidity(x, AT).components.find((c) => c.name === name)!.value;

describe('scoreLiquidity', () => {
  it('weights sum to 1 and name the methodology', () => {
    expect(Object.values(WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const s = scoreLiquidity(healthy, AT);
    expect(s.methodology).toBe('stablecoin.liquidity@1.9.0');
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
    ['collateral HHI 0.5', healthy, 'collateral_concentration', 0.5],
    ['top holders hold 30 % of what holders hold', healthy, 'holder_concentration', 0.7],
    ['one collateral: its concentration is 0 whatever the holders', liquityMainnet, 'collateral_concentration', 0],
    [
      'holders known, collateral unpriced: the holder part keeps its value',
      { ...healthy, collateralConcentration: { value: null, gap: 'no_price' } },
      'holder_concentration',
      0.7,
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

  describe('concentration: two components, each with one meaning whatever the data (issue 30 item 5)', () => {
    const components = (x: LiquidityScoreInputs) => scoreLiquidity(x, AT).components;
    const byName = (x: LiquidityScoreInputs, name: keyof typeof WEIGHTS) => components(x).find((c) => c.name === name)!;
    const nominal = (names: (keyof typeof WEIGHTS)[]) => names.reduce((a, n) => a + WEIGHTS[n], 0);

    it('keeps 1.8.0’s concentration weight, split evenly', () => {
      expect(WEIGHTS.collateral_concentration + WEIGHTS.holder_concentration).toBeCloseTo(0.15, 12);
      expect(WEIGHTS.collateral_concentration).toBe(WEIGHTS.holder_concentration);
      expect(components(healthy).map((c) => c.name)).toEqual(Object.keys(WEIGHTS));
    });

    it.each([
      // [case, inputs, collateral component, holder component, evidence]
      [
        'both parts known',
        healthy,
        { value: 0.5, weight: 0.075, inputs: { collateral_hhi: 0.5 } },
        {
          value: 0.7,
          weight: 0.075,
          inputs: { top_holder_share: 0.3, top_holder_share_raw: 0.8, excluded_holders: 2, top_holders: 10 },
        },
        1,
      ],
      [
        'holders unknown (mainnet): the holder part is null with its reason, the collateral part unchanged',
        { ...healthy, holderConcentration: { value: null, gap: 'partial_history' } },
        { value: 0.5, inputs: { collateral_hhi: 0.5 } },
        { value: null, weight: 0, gap_reason: 'partial_history', inputs: {} },
        0.925,
      ],
      [
        'Liquity, one collateral, holders unknown: collateral 0, holders null, never a 0 standing for both',
        liquityMainnet,
        { value: 0, inputs: { collateral_hhi: 1 } },
        { value: null, weight: 0, gap_reason: 'partial_history' },
        0.925,
      ],
      [
        'collateral unpriced: the collateral part is null with no_price, the holder part unchanged',
        { ...healthy, collateralConcentration: { value: null, gap: 'no_price' } },
        { value: null, weight: 0, gap_reason: 'no_price' },
        { value: 0.7, inputs: { top_holder_share: 0.3 } },
        0.925,
      ],
      [
        'no holder outside pools and protocol contracts: no_members',
        { ...healthy, holderConcentration: { value: null, gap: 'no_members' } },
        { value: 0.5 },
        { value: null, weight: 0, gap_reason: 'no_members' },
        0.925,
      ],
    ] as const)('%s', (_case, inputs, collateral, holders, evidence) => {
      const x = inputs as LiquidityScoreInputs;
      const s = scoreLiquidity(x, AT);
      expect(byName(x, 'collateral_concentration')).toMatchObject(collateral);
      expect(byName(x, 'holder_concentration')).toMatchObject(holders);
      expect(s.evidence).toBe(evidence);
      // The other components are rescaled over the weight that has a value, and the score is their weighted mean.
      const known = s.components.filter((c) => c.value !== null).map((c) => c.name as keyof typeof WEIGHTS);
      for (const c of s.components) {
        const expected = c.value === null ? 0 : WEIGHTS[c.name as keyof typeof WEIGHTS] / nominal(known);
        // Published weights are rounded to 4 decimals (largest remainder): within 1e-4 of the exact share.
        expect(Math.abs(c.weight - expected), c.name).toBeLessThanOrEqual(1e-4);
      }
      const mean = s.components.reduce((a, c) => a + c.weight * (c.value ?? 0), 0);
      expect(s.score).toBeCloseTo(mean, 4);
    });

    it('holders unknown lowers no score by standing in as 0: the score is the mean over what is known', () => {
      const unknown = scoreLiquidity(liquityMainnet, AT).score!;
      // A 0 for holders (what a silent collateral-only concentration of a single collateral amounted to) scores lower.
      const zero = scoreLiquidity({ ...liquityMainnet, holderConcentration: { value: { topHolderShare: 1 } } }, AT)
        .score!;
      expect(zero).toBeLessThan(unknown);
      const others = healthy;
      const knownMean = (
        ['peg_stability', 'exit_liquidity', 'collateral_buffer', 'liquidation_absorption'] as const
      ).reduce((a, n) => a + WEIGHTS[n] * value(others, n)!, 0);
      // Within the rounding of the published weights (4 decimals each).
      expect(Math.abs(unknown - knownMean / (1 - WEIGHTS.holder_concentration))).toBeLessThan(5e-4);
    });
  });
});
