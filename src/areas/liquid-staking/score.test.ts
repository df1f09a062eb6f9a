import { describe, expect, it } from 'vitest';
import type { LendingExposurePayload } from './schema.js';
import { DEX_POOL_WEIGHTS, type DexPoolScoreInput, EXPOSURE_WEIGHTS, scoreDexPool, scoreExposure } from './score.js';

const T = 1_800_000_000;

const pool = (over: Partial<DexPoolScoreInput>): DexPoolScoreInput => ({
  t: T,
  partial: true,
  discount: 0.002,
  imbalance: 0.1,
  depthUsd: 1_000_000,
  lstPriceUsd: 2000,
  priceSource: 'market_oracle',
  depthReachable: true,
  lstCollateralUsd: 5_000_000,
  continuity: 0.9,
  blockNumber: 1,
  exchangeRate: 1.18,
  poolPrice: 1.177,
  identity: { chain: 'ethereum', protocol: 'uniswap', version: 'V3', pool_address: '0xp', token_address: '0xl' },
  ...over,
});
const ID = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  base_asset: 'USDC',
  pool_address: '0xpool',
  token_address: '0xl',
  looped_only: false,
};

describe('liquid-staking.dex-pool', () => {
  it('weights sum to 1', () => {
    expect(Object.values(DEX_POOL_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  const table: { name: string; input: DexPoolScoreInput; peg: number; depth: number | null; balance: number }[] = [
    { name: 'at peg, deep, balanced', input: pool({}), peg: 1, depth: 1, balance: 1 },
    { name: '2 % discount', input: pool({ discount: 0.02 }), peg: 0.5, depth: 1, balance: 1 },
    { name: 'premium counts like a discount', input: pool({ discount: -0.035 }), peg: 0.25, depth: 1, balance: 1 },
    { name: '6 % depeg', input: pool({ discount: 0.06 }), peg: 0, depth: 1, balance: 1 },
    { name: 'half the depth needed', input: pool({ depthUsd: 250_000 }), peg: 1, depth: 0.5, balance: 1 },
    { name: 'lopsided (imbalance 0.5)', input: pool({ imbalance: -0.5 }), peg: 1, depth: 1, balance: 0.5 },
    {
      name: 'no lending exposure: depth dropped',
      input: pool({ lstCollateralUsd: null }),
      peg: 1,
      depth: null,
      balance: 1,
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const r = scoreDexPool(row.input);
      const value = (n: string) => r.components.find((c) => c.name === n)!.value;
      expect(value('peg_deviation')).toBeCloseTo(row.peg, 4);
      expect(value('depth_coverage') === null ? null : value('depth_coverage')).toBe(
        row.depth === null ? null : row.depth,
      );
      expect(value('balance')).toBeCloseTo(row.balance, 4);
      expect(r.aggregation).toBe('weighted-geometric-mean');
      expect(r.methodology).toBe('liquid-staking.dex-pool@1.2.0');
      expect(r.gap_reason).toBeNull();
    });
  }

  it('the score falls as the discount grows', () => {
    const scores = [0, 0.01, 0.02, 0.04, 0.06].map((d) => scoreDexPool(pool({ discount: d })).score!);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeLessThan(scores[i - 1]!);
    // A failed peg caps the score: 0.01^0.35 ≈ 0.2.
    expect(scores[4]!).toBeLessThan(0.2);
  });

  it('unknown state: a gap', () => {
    const r = scoreDexPool(pool({ discount: null, partial: false }));
    expect(r).toMatchObject({ score: null, grade: null, gap_reason: 'no_data', partial: false, date: '2027-01-15' });
  });
});

function exposure(
  over: Partial<LendingExposurePayload> = {},
  atRisk5 = 0,
  atRisk10 = 0,
  lst10 = 0,
): LendingExposurePayload {
  const scenario = (pct: number, debt: number, lstUsd: number) => ({
    depeg_pct: pct,
    positions_liquidatable: debt > 0 ? 1 : 0,
    debt_at_risk_usd: debt,
    share_of_debt: debt / 100_000,
    debt_repaid_usd: debt / 2,
    collateral_liquidated_usd: lstUsd,
    lst_liquidated_usd: lstUsd,
    lst_liquidated_token: lstUsd / 2000,
    lst_liquidation_bonus: lstUsd > 0 ? 0.07 : null,
    shortfall_usd: 0,
    positions_with_shortfall: 0,
    gap_reasons: {},
  });
  const band = (b: string, debt: number) => ({
    band: b,
    position_count: debt ? 1 : 0,
    debt_usd: debt,
    lst_collateral_usd: 0,
  });
  return {
    chain: 'ethereum',
    protocol: 'aave',
    version: 'V3',
    base_asset_symbol: 'USDC',
    pool_address: '0xpool',
    design: 'aave-v3',
    looped_only: false,
    liquid_staking_token: {
      protocol: 'lido',
      token_address: '0xl',
      symbol: 'wstETH',
      decimals: 18,
      underlying_address: '0xu',
      underlying_symbol: 'WETH',
    },
    snapshot_block: 1,
    lst_listed: true,
    exchange_rate: 1.18,
    lst_price_usd: 2360,
    lst_price: null,
    underlying_price_usd: 2000,
    underlying_price: null,
    oracle_price_vs_peg: 1,
    gap_reasons: {},
    ltv: 0.69,
    liquidation_threshold: 0.795,
    liquidation_bonus: 0.07,
    total_lst_supplied_token: 100,
    total_lst_supplied_usd: 236_000,
    lst_collateral_token: 100,
    lst_collateral_usd: 236_000,
    market_collateral_usd: 1_000_000,
    share_of_market_collateral: 0.236,
    looped_collateral_usd: 59_000,
    looped_share: 0.25,
    position_count: 3,
    borrowing_position_count: 3,
    looped_position_count: 1,
    debt_usd: 100_000,
    underlying_debt_usd: 20_000,
    health_factor_distribution: [
      band('<1.0', 0),
      band('1.0-1.05', 0),
      band('1.05-1.1', 10_000),
      band('1.1-1.25', 20_000),
      band('1.25-1.5', 0),
      band('1.5-2', 0),
      band('>2', 70_000),
    ],
    depeg_scenarios: [scenario(1, 0, 0), scenario(2, 0, 0), scenario(5, atRisk5, 0), scenario(10, atRisk10, lst10)],
    as_of: '2027-01-15T08:00:00Z',
    ...over,
  };
}

describe('liquid-staking.lending-exposure', () => {
  it('weights sum to 1', () => {
    expect(Object.values(EXPOSURE_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('components from the exposure figures', () => {
    const r = scoreExposure({
      t: T,
      partial: true,
      exposure: exposure({}, 20_000, 40_000, 30_000),
      dexDepthUsd: 15_000,
      dexPools: 1,
      identity: ID,
    });
    const value = (n: string) => r.components.find((c) => c.name === n)!.value;
    expect(value('depeg_5pct')).toBeCloseTo(0.8, 6);
    expect(value('depeg_10pct')).toBeCloseTo(0.6, 6);
    expect(value('dex_absorption')).toBeCloseTo(0.5, 6);
    expect(value('health_distribution')).toBeCloseTo(0.9, 6);
    expect(value('looped_share')).toBeCloseTo(0.75, 6);
    const expected = 0.25 * 0.8 + 0.2 * 0.6 + 0.3 * 0.5 + 0.15 * 0.9 + 0.1 * 0.75;
    expect(r.score).toBeCloseTo(expected, 4);
    expect(r.methodology).toBe('liquid-staking.lending-exposure@1.3.0');
  });

  it('nothing liquidated: full absorption even without pools; looped scope drops the loop share', () => {
    const r = scoreExposure({
      t: T,
      partial: true,
      exposure: exposure({ looped_only: true }),
      dexDepthUsd: null,
      dexPools: 0,
      identity: ID,
    });
    const c = (n: string) => r.components.find((x) => x.name === n)!;
    expect(c('dex_absorption').value).toBe(1);
    expect(c('looped_share')).toMatchObject({ value: null, weight: 0 });
  });

  it('more debt at risk, lower score', () => {
    const s = (d5: number, d10: number) =>
      scoreExposure({
        t: T,
        partial: true,
        exposure: exposure({}, d5, d10, d10),
        dexDepthUsd: 50_000,
        dexPools: 1,
        identity: ID,
      }).score!;
    expect(s(0, 0)).toBeGreaterThan(s(0, 30_000));
    expect(s(0, 30_000)).toBeGreaterThan(s(30_000, 60_000));
  });

  it('gaps: no snapshot, token not listed, no positions', () => {
    const g = (e: LendingExposurePayload | undefined) =>
      scoreExposure({ t: T, partial: false, exposure: e, dexDepthUsd: null, dexPools: 0, identity: ID }).gap_reason;
    expect(g(undefined)).toBe('no_data');
    expect(g(exposure({ lst_listed: false }))).toBe('not_listed');
    expect(g(exposure({ position_count: 0 }))).toBe('no_positions');
  });

  it('issue 13: an unpriced exposure (Morpho: debt and collateral 0 for want of a price) is no evidence, not a perfect score', () => {
    // What the old model did with Morpho: debt 0, nothing at risk → depeg 1 and absorption 1, health null → 1.0 / A.
    const unpriced = exposure({ debt_usd: 0, lst_collateral_usd: 0 }, 0, 0, 0);
    const r = scoreExposure({
      t: T,
      partial: true,
      exposure: unpriced,
      dexDepthUsd: 50_000,
      dexPools: 1,
      identity: ID,
    });
    const v = (n: string) => r.components.find((c) => c.name === n)!.value;
    // 0/0 is null in every component (it was 1 in depeg_* and dex_absorption, null in health_distribution).
    expect([v('depeg_5pct'), v('depeg_10pct'), v('dex_absorption'), v('health_distribution')]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(r).toMatchObject({ score: null, grade: null, gap_reason: 'insufficient_evidence', evidence: 0.1 });
    // Unknown figures (null, with the reasons the analytics publish) likewise.
    const missing = exposure(
      { debt_usd: null, lst_collateral_usd: null, depeg_scenarios: [], gap_reasons: { debt_usd: 'no_price' } },
      0,
      0,
      0,
    );
    const m = scoreExposure({ t: T, partial: true, exposure: missing, dexDepthUsd: 1, dexPools: 1, identity: ID });
    expect(m).toMatchObject({ score: null, gap_reason: 'insufficient_evidence' });
  });

  it('score records carry their entity and a gap reason', () => {
    const r = scoreExposure({
      t: T,
      partial: false,
      exposure: undefined,
      dexDepthUsd: null,
      dexPools: 0,
      identity: ID,
    });
    expect(r).toMatchObject({ ...ID, gap_reason: 'no_data', evidence: 0 });
    expect(scoreDexPool(pool({ discount: null }))).toMatchObject({ chain: 'ethereum', pool_address: '0xp' });
  });
});
