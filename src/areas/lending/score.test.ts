import { describe, expect, it } from 'vitest';
import type { MarketSnapshot, PositionSnapshot, ReserveSnapshot } from './facts.js';
import { healthDistribution, scoreMarket, stressTest, utilisationPenalty } from './score.js';

const T = Date.UTC(2026, 10, 20, 12) / 1000;
const USDC = '0x00000000000000000000000000000000000000a1';
const WETH = '0x00000000000000000000000000000000000000e1';

function reserve(asset: string, symbol: string, over: Partial<ReserveSnapshot> = {}): ReserveSnapshot {
  return {
    asset,
    symbol,
    decimals: symbol === 'USDC' ? 6 : 18,
    totalSupplyRaw: '0',
    totalBorrowRaw: '0',
    priceUsd: symbol === 'USDC' ? 1 : 2000,
    supplyRate: 0.02,
    borrowRate: 0.04,
    ltv: 0.8,
    liquidationThreshold: 0.825,
    liquidationBonus: 0.05,
    reserveFactor: 0.1,
    supplyCap: 0,
    borrowCap: 0,
    borrowingEnabled: true,
    collateralEnabled: true,
    active: true,
    frozen: false,
    paused: false,
    optimalUtilisation: 0.8,
    aToken: null,
    debtToken: null,
    ...over,
  };
}

const e18 = (x: number) => (BigInt(Math.round(x * 1e6)) * 10n ** 12n).toString();
const e6 = (x: number) => BigInt(Math.round(x * 1e6)).toString();

/** A borrower with `eth` WETH collateral and `usdc` USDC debt; HF = eth·2000·0.825 / usdc. */
function borrower(account: string, eth: number, usdc: number): PositionSnapshot {
  const collateralUsd = eth * 2000;
  return {
    account,
    marketId: '',
    supplied: { [WETH]: e18(eth) },
    borrowed: { [USDC]: e6(usdc) },
    collateral: [WETH],
    thresholds: { [WETH]: 0.825 },
    bonuses: { [WETH]: 0.05 },
    eMode: 0,
    collateralUsd,
    debtUsd: usdc,
    healthFactor: (collateralUsd * 0.825) / usdc,
  };
}

function market(positions: PositionSnapshot[], utilisation = 0.5): MarketSnapshot {
  const debt = positions.reduce((s, p) => s + p.debtUsd, 0);
  const eth = positions.reduce((s, p) => s + Number(BigInt(p.supplied[WETH] ?? '0') / 10n ** 12n) / 1e6, 0);
  const lender: PositionSnapshot = {
    account: '0xlender',
    marketId: '',
    supplied: { [USDC]: e6(debt / utilisation) },
    borrowed: {},
    collateral: [],
    thresholds: {},
    bonuses: {},
    eMode: 0,
    collateralUsd: 0,
    debtUsd: 0,
    healthFactor: null,
  };
  return {
    chain: 'ethereum',
    pool: '0xpool',
    blockNumber: 100,
    timestamp: T,
    reserves: [
      reserve(USDC, 'USDC', { totalSupplyRaw: e6(debt / utilisation), totalBorrowRaw: e6(debt) }),
      reserve(WETH, 'WETH', { totalSupplyRaw: e18(eth) }),
    ],
    positions: [lender, ...positions],
  };
}

const deep = () => 1e12;

describe('health factor distribution', () => {
  it('puts each borrower’s debt in its band, lower bounds inclusive, and skips positions without debt', () => {
    const bands = healthDistribution([
      borrower('0xa', 1, 1700), // HF 0.97
      borrower('0xb', 1, 1650), // HF 1.0
      borrower('0xc', 1, 1000), // HF 1.65
      borrower('0xd', 10, 1000), // HF 16.5
    ]);
    expect(bands.map((b) => [b.band, b.positions, Math.round(b.debt_usd)])).toEqual([
      ['<1.0', 1, 1700],
      ['1.0-1.05', 1, 1650],
      ['1.05-1.1', 0, 0],
      ['1.1-1.25', 0, 0],
      ['1.25-1.5', 0, 0],
      ['1.5-2', 1, 1000],
      ['>2', 1, 1000],
    ]);
  });
});

describe('utilisation penalty', () => {
  it('is linear to m at the kink, steep above it and 1 at full utilisation', () => {
    expect(utilisationPenalty(0, 0.8)).toBe(0);
    expect(utilisationPenalty(0.4, 0.8)).toBeCloseTo(0.125, 9);
    expect(utilisationPenalty(0.8, 0.8)).toBeCloseTo(0.25, 9);
    expect(utilisationPenalty(0.9, 0.8)).toBeLessThan(0.3);
    expect(utilisationPenalty(0.99, 0.8)).toBeGreaterThan(0.6);
    expect(utilisationPenalty(1, 0.8)).toBeCloseTo(1, 9);
  });
});

describe('stress test', () => {
  it('liquidates the positions a shock pushes under 1 and asks the DEX for the seized collateral', () => {
    // WETH's shock is 15 %: HF 1.1 falls to 0.935 (< 0.95: whole debt), HF 2 stays above 1.
    const s = market([borrower('0xa', 1, 1500), borrower('0xb', 1, 825)]);
    const [weth] = stressTest(s, 'aave-v3', () => 1e9);
    expect(weth!.positions_liquidated).toBe(1);
    expect(weth!.debt_repaid_usd).toBeCloseTo(1500, 6);
    // Seized: min(collateral after the shock, debt · 1.05) = min(1700, 1575).
    expect(weth!.collateral_to_sell_usd).toBeCloseTo(1575, 6);
    expect(weth!.covered).toBe(1);
    const [thin] = stressTest(s, 'aave-v3', () => 787.5);
    expect(thin!.covered).toBeCloseTo(0.5, 9);
  });
});

describe('stress test shortfall', () => {
  it('repays only what the seized collateral covers and publishes the debt left uncovered as shortfall', () => {
    // 1 WETH (2000 USD, 1700 after the 15 % shock) against 1900 USDC: HF 0.87 → 0.74, liquidated in full; the
    // liquidator can seize at most the 1700 USD held, so it repays 1700 / 1.05 (its 5 % bonus comes out of the
    // collateral); the other 1900 − 1619.05 = 280.95 USD of debt is bad debt, not just the 200 the collateral lacks.
    const underwater = borrower('0xu', 1, 1900);
    const safe = borrower('0xs', 1, 1000);
    const [weth] = stressTest(market([underwater, safe]), 'aave-v3', () => 1e9);
    expect(weth!.positions_liquidated).toBe(1);
    expect(weth!.collateral_to_sell_usd).toBeCloseTo(1700, 6);
    expect(weth!.debt_repaid_usd).toBeCloseTo(1700 / 1.05, 6);
    expect(weth!.shortfall_usd).toBeCloseTo(1900 - 1700 / 1.05, 6);
    expect(weth!.positions_with_shortfall).toBe(1);
    // Debt repaid + shortfall = the debt: nothing is capped away unseen.
    expect(weth!.debt_repaid_usd! + weth!.shortfall_usd!).toBeCloseTo(1900, 6);
  });

  it('is zero when the collateral still covers the debt, and the score inputs carry it per asset and in total', () => {
    const [weth] = stressTest(market([borrower('0xa', 1, 1500)]), 'aave-v3', () => 1e9);
    expect(weth!.shortfall_usd).toBe(0);
    expect(weth!.positions_with_shortfall).toBe(0);
    const scored = scoreMarket(
      market([borrower('0xu', 1, 1900), borrower('0xb', 2, 1000)]),
      'aave-v3',
      () => 1e9,
      T,
      false,
    );
    const liquidity = scored.components.find((c) => c.name === 'liquidation_liquidity')!;
    const inputs = liquidity.inputs as { shortfall_usd: number; assets: { shortfall_usd: number }[] };
    expect(inputs.shortfall_usd).toBe(280.95);
    expect(inputs.assets.map((a) => a.shortfall_usd)).toEqual([280.95]);
  });
});

describe('stress test with E-mode', () => {
  it('uses the account’s own threshold: a looped position in E-mode survives a shock of both legs together', () => {
    // wstETH collateral (shock 35 %), WETH debt (15 %): shocking wstETH alone hits only the collateral leg.
    const WSTETH = '0x00000000000000000000000000000000000000f1';
    const looper: PositionSnapshot = {
      account: '0xl',
      marketId: '',
      supplied: { [WSTETH]: e18(10) },
      borrowed: { [WETH]: e18(9) },
      collateral: [WSTETH],
      thresholds: { [WSTETH]: 0.95 },
      bonuses: { [WSTETH]: 0.01 },
      eMode: 1,
      collateralUsd: 20000,
      debtUsd: 18000,
      healthFactor: (20000 * 0.95) / 18000,
    };
    const s: MarketSnapshot = {
      ...market([]),
      reserves: [
        reserve(WETH, 'WETH', { totalSupplyRaw: e18(20), totalBorrowRaw: e18(9) }),
        reserve(WSTETH, 'wstETH', { totalSupplyRaw: e18(10), liquidationThreshold: 0.81, liquidationBonus: 0.07 }),
      ],
      positions: [looper],
    };
    const asked: number[] = [];
    const [wsteth] = stressTest(s, 'aave-v3', (_a, impact) => {
      asked.push(impact);
      return 1e9;
    });
    // 35 % off the collateral: HF 1.056 → 0.686, liquidated in full (below 0.95), at the E-mode premium of 1 %.
    expect(wsteth!.positions_liquidated).toBe(1);
    expect(wsteth!.liquidation_bonus).toBeCloseTo(0.01, 9);
    expect(asked).toEqual([0.01]);
    // WETH is not collateral here, so it is not stressed.
    expect(stressTest(s, 'aave-v3', () => 1e9).map((x) => x.symbol)).toEqual(['wstETH']);
  });
});

describe('liquidity health score', () => {
  it('is high for a market of safe borrowers and falls as borrowers near liquidation', () => {
    const safe = scoreMarket(market([borrower('0xa', 10, 5000), borrower('0xb', 10, 6000)]), 'aave-v3', deep, T, true);
    const risky = scoreMarket(market([borrower('0xa', 1, 1600), borrower('0xb', 1, 1580)]), 'aave-v3', deep, T, true);
    const underwater = scoreMarket(
      market([borrower('0xa', 1, 1700), borrower('0xb', 1, 1750)]),
      'aave-v3',
      deep,
      T,
      true,
    );
    expect(safe.score!).toBeGreaterThan(0.8);
    expect(risky.score!).toBeLessThan(safe.score!);
    expect(underwater.score!).toBeLessThan(risky.score!);
    expect(underwater.components.find((c) => c.name === 'health_factor_distribution')!.value).toBe(0);
  });

  it('falls when the collateral a shock liquidates cannot be sold within the bonus', () => {
    const s = market([borrower('0xa', 1, 1500), borrower('0xb', 1, 1450)]);
    const liquid = scoreMarket(s, 'aave-v3', deep, T, false);
    const illiquid = scoreMarket(s, 'aave-v3', () => 0, T, false);
    expect(illiquid.score!).toBeLessThan(liquid.score!);
    expect(illiquid.components.find((c) => c.name === 'liquidation_liquidity')!.value).toBe(0);
  });

  it('penalises utilisation above the kink', () => {
    const positions = [borrower('0xa', 10, 5000)];
    const calm = scoreMarket(market(positions, 0.5), 'aave-v3', deep, T, false);
    const tight = scoreMarket(market(positions, 0.98), 'aave-v3', deep, T, false);
    expect(tight.score!).toBeLessThan(calm.score!);
  });

  it('publishes its inputs rounded: USD to cents, fractions to 4 decimals', () => {
    const r = scoreMarket(market([borrower('0xa', 1, 1500), borrower('0xb', 1, 1450)]), 'aave-v3', deep, T, false);
    const numbers: [string, number][] = [];
    const walk = (x: unknown, key: string) => {
      if (typeof x === 'number') numbers.push([key, x]);
      else if (Array.isArray(x)) for (const v of x) walk(v, key);
      else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) walk(v, k);
    };
    for (const c of r.components) walk(c.inputs, c.name);
    expect(numbers.length).toBeGreaterThan(20);
    for (const [key, x] of numbers) {
      const digits = key.endsWith('_usd') ? 2 : 4;
      expect(Math.abs(x * 10 ** digits - Math.round(x * 10 ** digits)), `${key} ${x}`).toBeLessThan(1e-6);
    }
  });

  it('has no score without positions, and says why', () => {
    const s: MarketSnapshot = { ...market([]), positions: [] };
    const r = scoreMarket(s, 'aave-v3', deep, T, true);
    expect(r.score).toBeNull();
    expect(r.gap_reason).toBe('no_positions');
  });
});
