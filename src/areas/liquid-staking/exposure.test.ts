import { describe, expect, it } from 'vitest';
import type { MarketSnapshot, PositionSnapshot, ReserveSnapshot } from '../lending/public.js';
import {
  applyDepeg,
  DEPEGS,
  type LendingMarketRef,
  type LstRef,
  lendingExposure,
  lstPositions,
  marketPriceBook,
  morphoIncentive,
} from './exposure.js';
import { scoreExposure } from './score.js';

const WSTETH = '0x00000000000000000000000000000000000057e7';
const WETH = '0x000000000000000000000000000000000000e7e7';
const USDC = '0x000000000000000000000000000000000000usdc';
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

const lst: LstRef = {
  chain: 'ethereum',
  protocol: 'lido',
  symbol: 'wstETH',
  token: WSTETH,
  decimals: 18,
  underlying: WETH,
  underlyingSymbol: 'WETH',
};

function reserve(
  asset: string,
  symbol: string,
  decimals: number,
  priceUsd: number,
  lt: number,
  bonus: number,
  totalSupplyRaw: bigint,
): ReserveSnapshot {
  return {
    asset,
    symbol,
    decimals,
    totalSupplyRaw: totalSupplyRaw.toString(),
    totalBorrowRaw: '0',
    priceUsd,
    supplyRate: 0.01,
    borrowRate: 0.02,
    ltv: lt - 0.1,
    liquidationThreshold: lt,
    liquidationBonus: bonus,
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
  };
}

function position(
  account: string,
  supplied: Record<string, bigint>,
  borrowed: Record<string, bigint>,
  collateral: string[],
  collateralUsd: number,
  debtUsd: number,
  healthFactor: number | null,
  marketId = '',
  own?: { thresholds: Record<string, number>; bonuses: Record<string, number>; eMode: number },
): PositionSnapshot {
  const str = (r: Record<string, bigint>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.toString()]));
  return {
    account,
    marketId,
    supplied: str(supplied),
    borrowed: str(borrowed),
    collateral,
    thresholds: own?.thresholds ?? {},
    bonuses: own?.bonuses ?? {},
    eMode: own?.eMode ?? 0,
    collateralUsd,
    debtUsd,
    healthFactor,
  };
}

// Prices: WETH $2000, wstETH $2360 (exchange rate 1.18), USDC $1. wstETH: threshold 0.795, bonus 7 %; USDC 0.78.
const hfA = (236_000 * 0.93) / 210_000; // a looper in E-mode (threshold 93 %): 100 wstETH, 105 WETH debt
const hfB = (118_000 * 0.795 + 10_000 * 0.78) / 50_000; // 50 wstETH + 10k USDC collateral, 50k USDC debt
const hfC = (23_600 * 0.795) / 17_000; // 10 wstETH, 17k USDC debt
const aave: MarketSnapshot = {
  chain: 'ethereum',
  pool: '0xpool',
  blockNumber: 1234,
  timestamp: 1_800_000_000,
  reserves: [
    reserve(USDC, 'USDC', 6, 1, 0.78, 0.045, 2_000_000n * E6),
    reserve(WETH, 'WETH', 18, 2000, 0.83, 0.05, 500n * E18),
    reserve(WSTETH, 'wstETH', 18, 2360, 0.795, 0.07, 165n * E18),
  ],
  positions: [
    position('0xa', { [WSTETH]: 100n * E18 }, { [WETH]: 105n * E18 }, [WSTETH], 236_000, 210_000, hfA),
    position(
      '0xb',
      { [WSTETH]: 50n * E18, [USDC]: 10_000n * E6 },
      { [USDC]: 50_000n * E6 },
      [WSTETH, USDC],
      128_000,
      50_000,
      hfB,
    ),
    position('0xc', { [WSTETH]: 10n * E18 }, { [USDC]: 17_000n * E6 }, [WSTETH], 23_600, 17_000, hfC),
    position('0xd', { [USDC]: 1_000_000n * E6 }, { [WETH]: 100n * E18 }, [USDC], 1_000_000, 200_000, 3.9),
    // Supplies wstETH without using it as collateral: not exposed.
    position('0xe', { [WSTETH]: 5n * E18 }, {}, [], 0, 0, null),
  ],
};
const aaveMarket: LendingMarketRef = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design: 'aave-v3',
  pool: '0xpool',
};

describe('lstPositions', () => {
  it('keeps positions posting the LST as collateral; infers the E-mode threshold of LST-only positions', () => {
    const ps = lstPositions(aave, aaveMarket, lst);
    expect(ps.map((p) => [p.account, p.looped])).toEqual([
      ['0xa', true],
      ['0xb', false],
      ['0xc', false],
    ]);
    expect(ps[0]!.lstThreshold).toBeCloseTo(0.93, 12);
    expect(ps[1]!.lstThreshold).toBe(0.795);
    expect(ps[2]!.lstThreshold).toBeCloseTo(0.795, 12);
    expect(ps[0]!.lstUsd).toBe(236_000);
    expect(ps[0]!.underlyingDebtUsd).toBe(210_000);
  });
});

describe('per-position thresholds and bonuses', () => {
  it('uses the snapshot’s own figures for the LST (E-mode) over the reserve’s and the inference', () => {
    const own = { thresholds: { [WSTETH]: 0.95, [USDC]: 0.78 }, bonuses: { [WSTETH]: 0.01, [USDC]: 0.045 }, eMode: 1 };
    const snap: MarketSnapshot = {
      ...aave,
      positions: [
        position('0xa', { [WSTETH]: 100n * E18 }, { [WETH]: 105n * E18 }, [WSTETH], 236_000, 210_000, hfA, '', own),
      ],
    };
    const [p] = lstPositions(snap, aaveMarket, lst);
    expect(p).toMatchObject({ lstThreshold: 0.95, lstBonus: 0.01 });
    const o = applyDepeg(p!, 0.05, 'aave-v3');
    expect(o.healthFactor).toBeCloseTo(hfA - (236_000 * 0.95 * 0.05) / 210_000, 9);
    expect(o.collateralSeizedUsd).toBeCloseTo(105_000 * 1.01, 6);
  });
});

describe('applyDepeg', () => {
  const [a, b, c] = lstPositions(aave, aaveMarket, lst);
  const table: {
    name: string;
    p: typeof a;
    d: number;
    hf: number;
    liquidatable: boolean;
    repaid: number;
    seized: number;
    /** Bad debt: the debt the collateral left no longer covers. */
    shortfall?: number;
  }[] = [
    {
      name: 'looper 1 %',
      p: a!,
      d: 0.01,
      hf: hfA - (236_000 * 0.93 * 0.01) / 210_000,
      liquidatable: false,
      repaid: 0,
      seized: 0,
    },
    // HF 0.993: half the debt, collateral = 105k × 1.07.
    {
      name: 'looper 5 %',
      p: a!,
      d: 0.05,
      hf: hfA - (236_000 * 0.93 * 0.05) / 210_000,
      liquidatable: true,
      repaid: 105_000,
      seized: 112_350,
    },
    // HF 0.941 < 0.95: all the debt, capped by the collateral left (236k × 0.9).
    {
      name: 'looper 10 %',
      p: a!,
      d: 0.1,
      hf: hfA - (236_000 * 0.93 * 0.1) / 210_000,
      liquidatable: true,
      repaid: 212_400 / 1.07,
      seized: 212_400,
    },
    // 20 %: the collateral left (236k × 0.8 = 188.8k) is worth less than the debt: 21.2k of bad debt.
    {
      name: 'looper 20 %: shortfall',
      p: a!,
      d: 0.2,
      hf: hfA - (236_000 * 0.93 * 0.2) / 210_000,
      liquidatable: true,
      repaid: 188_800 / 1.07,
      seized: 188_800,
      shortfall: 21_200,
    },
    {
      name: 'mixed collateral 10 %',
      p: b!,
      d: 0.1,
      hf: hfB - (118_000 * 0.795 * 0.1) / 50_000,
      liquidatable: false,
      repaid: 0,
      seized: 0,
    },
    {
      name: 'LST-only 5 %',
      p: c!,
      d: 0.05,
      hf: hfC - (23_600 * 0.795 * 0.05) / 17_000,
      liquidatable: false,
      repaid: 0,
      seized: 0,
    },
    {
      name: 'LST-only 10 %',
      p: c!,
      d: 0.1,
      hf: hfC - (23_600 * 0.795 * 0.1) / 17_000,
      liquidatable: true,
      repaid: 8_500,
      seized: 9_095,
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const o = applyDepeg(row.p!, row.d, 'aave-v3');
      expect(o.healthFactor).toBeCloseTo(row.hf, 9);
      expect(o.liquidatable).toBe(row.liquidatable);
      expect(o.debtRepaidUsd).toBeCloseTo(row.repaid, 6);
      expect(o.collateralSeizedUsd).toBeCloseTo(row.seized, 6);
      expect(o.lstSeizedUsd).toBeCloseTo(row.seized, 6);
      expect(o.shortfallUsd).toBeCloseTo(row.shortfall ?? 0, 6);
    });
  }

  it('a position without debt is never liquidatable', () => {
    const o = applyDepeg({ ...a!, debtUsd: 0, healthFactor: null }, 0.1, 'aave-v3');
    expect(o.liquidatable).toBe(false);
  });
});

describe('lendingExposure', () => {
  it('all LST collateral (flag false)', () => {
    const { payload: e } = lendingExposure(aave, aaveMarket, lst, false, 1.18);
    expect(e).toMatchObject({
      looped_only: false,
      lst_listed: true,
      exchange_rate: 1.18,
      lst_price_usd: 2360,
      underlying_price_usd: 2000,
      oracle_price_vs_peg: 1,
      liquidation_threshold: 0.795,
      liquidation_bonus: 0.07,
      total_lst_supplied_token: 165,
      total_lst_supplied_usd: 389_400,
      lst_collateral_token: 160,
      lst_collateral_usd: 377_600,
      market_collateral_usd: 1_387_600,
      looped_collateral_usd: 236_000,
      position_count: 3,
      borrowing_position_count: 3,
      looped_position_count: 1,
      debt_usd: 277_000,
      underlying_debt_usd: 210_000,
      snapshot_block: 1234,
      as_of: '2027-01-15T08:00:00Z',
    });
    expect(e.share_of_market_collateral).toBeCloseTo(377_600 / 1_387_600, 6);
    expect(e.looped_share).toBeCloseTo(0.625, 6);
    expect(e.health_factor_distribution.map((b) => [b.band, b.position_count, b.debt_usd])).toEqual([
      ['<1.0', 0, 0],
      ['1.0-1.05', 1, 210_000],
      ['1.05-1.1', 0, 0],
      ['1.1-1.25', 1, 17_000],
      ['1.25-1.5', 0, 0],
      ['1.5-2', 0, 0],
      ['>2', 1, 50_000],
    ]);
    expect(e.depeg_scenarios.map((s) => s.depeg_pct)).toEqual(DEPEGS.map((d) => d * 100));
    const [d1, d2, d5, d10] = e.depeg_scenarios;
    expect([d1!.positions_liquidatable, d2!.positions_liquidatable, d5!.positions_liquidatable]).toEqual([0, 0, 1]);
    expect(d5).toMatchObject({
      debt_at_risk_usd: 210_000,
      debt_repaid_usd: 105_000,
      collateral_liquidated_usd: 112_350,
    });
    expect(d10!.positions_liquidatable).toBe(2);
    expect(d10!.debt_at_risk_usd).toBe(227_000);
    expect(d10!.share_of_debt).toBeCloseTo(227_000 / 277_000, 6);
    expect(d10!.lst_liquidated_usd).toBeCloseTo(212_400 + 9_095, 4);
    expect(d10!.lst_liquidated_token).toBeCloseTo((212_400 + 9_095) / (2360 * 0.9), 6);
    expect(d10!.lst_liquidation_bonus).toBe(0.07);
    expect(d5!.lst_liquidation_bonus).toBe(0.07);
    expect(d1!.lst_liquidation_bonus).toBeNull();
    // Up to 10 % the collateral left still covers every liquidated debt: no bad debt.
    expect(e.depeg_scenarios.map((s) => s.shortfall_usd)).toEqual(e.depeg_scenarios.map(() => 0));
    expect(d10!.positions_with_shortfall).toBe(0);
  });

  it('looped positions only (flag true)', () => {
    const { payload: e } = lendingExposure(aave, aaveMarket, lst, true, 1.18);
    expect(e).toMatchObject({
      looped_only: true,
      position_count: 1,
      lst_collateral_usd: 236_000,
      debt_usd: 210_000,
      // The looped share describes the market, whatever the scope.
      looped_collateral_usd: 236_000,
    });
    expect(e.looped_share).toBeCloseTo(0.625, 6);
    expect(e.depeg_scenarios[3]!.debt_at_risk_usd).toBe(210_000);
    expect(e.depeg_scenarios[3]!.share_of_debt).toBe(1);
  });

  it('a market without the LST: not listed, nothing exposed', () => {
    const { payload: e } = lendingExposure(
      { ...aave, reserves: aave.reserves.filter((r) => r.asset !== WSTETH), positions: [aave.positions[3]!] },
      aaveMarket,
      lst,
      false,
      null,
    );
    // Unlisted: no market price of the token, so its USD figures are null with a reason (never 0).
    expect(e).toMatchObject({
      lst_listed: false,
      position_count: 0,
      lst_collateral_usd: null,
      oracle_price_vs_peg: null,
    });
    expect(e.gap_reasons).toMatchObject({ lst_price_usd: 'no_price', lst_collateral_usd: 'no_price' });
    expect(e.share_of_market_collateral).toBeNull();
    expect(e.looped_share).toBeNull();
  });

  it('Morpho: the view’s isolated markets only, LLTV as threshold, the incentive factor as bonus, full close', () => {
    const lltv = 0.945;
    const hf = (23_600 * lltv) / 22_000;
    const morpho: MarketSnapshot = {
      chain: 'ethereum',
      pool: '0xmorpho',
      blockNumber: 99,
      timestamp: 1_800_000_000,
      reserves: [aave.reserves[1]!, { ...aave.reserves[2]!, liquidationThreshold: null, liquidationBonus: null }],
      positions: [
        position('0xm', { [WSTETH]: 10n * E18 }, { [WETH]: 11n * E18 }, [WSTETH], 23_600, 22_000, hf, '0xm1'),
        position('0xn', { [WSTETH]: 10n * E18 }, { [USDC]: 1n * E6 }, [WSTETH], 23_600, 1, 10_000, '0xm2'),
      ],
      morphoMarkets: [
        {
          id: '0xm1',
          loanToken: WETH,
          collateralToken: WSTETH,
          lltv,
          oraclePrice: 1.18,
          totalSupplyRaw: '0',
          totalBorrowRaw: '0',
          totalCollateralRaw: '0',
          borrowRate: null,
          supplyRate: null,
        },
      ],
    };
    const market: LendingMarketRef = {
      ...aaveMarket,
      protocol: 'morpho',
      version: 'V1',
      baseAsset: 'WETH',
      design: 'morpho-blue',
      pool: '0xmorpho',
      morphoMarketIds: ['0xm1'],
    };
    // WETH by the chain's Aave-design market's feed at the instant (a Morpho snapshot holds no feed answer).
    const { payload: e } = lendingExposure(
      morpho,
      market,
      lst,
      false,
      1.18,
      marketPriceBook(morpho, market, undefined, [aave]),
    );
    const bonus = morphoIncentive(lltv);
    expect(bonus).toBeCloseTo(1 / (1 - 0.3 * (1 - lltv)) - 1, 12);
    expect(e).toMatchObject({ position_count: 1, looped_position_count: 1, liquidation_threshold: lltv });
    expect(e.liquidation_bonus).toBeCloseTo(bonus, 6);
    const d2 = e.depeg_scenarios[1]!;
    expect(d2.positions_liquidatable).toBe(1);
    // Morpho liquidates the whole debt: seized = min(collateral left, debt × (1 + bonus)).
    expect(d2.collateral_liquidated_usd).toBeCloseTo(Math.min(23_600 * 0.98, 22_000 * (1 + bonus)), 4);
    expect(d2.debt_repaid_usd).toBeCloseTo(22_000, 4);
  });

  it('issue 13: Morpho with an unpriced loan token: null figures with reasons (never 0), then priced by the policy', () => {
    const lltv = 0.945;
    // As lending ingests it when the loan token has no price: reserve prices null, position USD figures 0.
    const morpho: MarketSnapshot = {
      chain: 'ethereum',
      pool: '0xmorpho',
      blockNumber: 99,
      timestamp: 1_800_000_000,
      reserves: [
        { ...aave.reserves[1]!, priceUsd: null },
        { ...aave.reserves[2]!, priceUsd: null, liquidationThreshold: lltv, liquidationBonus: null },
      ],
      positions: [
        position('0xm', { [WSTETH]: 10n * E18 }, { [WETH]: 11n * E18 }, [WSTETH], 0, 0, 1.0138, '0xm1'),
        position('0xn', { [WSTETH]: 5n * E18 }, { [WETH]: 1n * E18 }, [WSTETH], 0, 0, 5.57, '0xm1'),
      ],
      morphoMarkets: [
        {
          id: '0xm1',
          loanToken: WETH,
          collateralToken: WSTETH,
          lltv,
          oraclePrice: 1.18,
          totalSupplyRaw: '0',
          totalBorrowRaw: '0',
          totalCollateralRaw: '0',
          borrowRate: null,
          supplyRate: null,
        },
      ],
    };
    const market: LendingMarketRef = {
      ...aaveMarket,
      protocol: 'morpho',
      version: 'V1',
      baseAsset: 'WETH',
      design: 'morpho-blue',
      pool: '0xmorpho',
      morphoMarketIds: ['0xm1'],
    };
    const id = {
      chain: 'ethereum',
      protocol: 'morpho',
      version: 'V1',
      pool_address: '0xmorpho',
      token_address: WSTETH,
    };
    const score = (e: typeof unpriced) =>
      scoreExposure({ t: morpho.timestamp, partial: true, exposure: e, dexDepthUsd: 1e9, dexPools: 1, identity: id });

    // The old code: lst_collateral_usd 0, debt 0, score 1.0 / A.
    const { payload: unpriced } = lendingExposure(morpho, market, lst, false, 1.18);
    expect(unpriced).toMatchObject({
      lst_collateral_token: 15,
      lst_collateral_usd: null,
      debt_usd: null,
      market_collateral_usd: null,
      lst_price_usd: null,
      depeg_scenarios: [],
      borrowing_position_count: 2,
    });
    expect(unpriced.gap_reasons).toMatchObject({
      lst_collateral_usd: 'no_price',
      debt_usd: 'no_price',
      depeg_scenarios: 'no_price',
    });
    // Every null figure has a reason.
    for (const [k, v] of Object.entries(unpriced)) if (v === null) expect(unpriced.gap_reasons[k], k).toBeTruthy();
    // Health factors do not need a price: both borrowers are in their bands (they were left out with debt 0).
    expect(unpriced.health_factor_distribution.reduce((n, b) => n + b.position_count, 0)).toBe(2);
    expect(score(unpriced)).toMatchObject({ score: null, grade: null, gap_reason: 'insufficient_evidence' });

    // The policy: WETH at its DEX price (the market has none), wstETH at the market's oracle × that price.
    const dex = { [WETH]: 2000, [WSTETH]: 2400 } as Record<string, number>;
    const book = marketPriceBook(morpho, market, (a) =>
      dex[a] === undefined ? null : { priceUsd: dex[a]!, confidence: 0.9, ref: `pools:${a}` },
    );
    const { payload: priced } = lendingExposure(morpho, market, lst, false, 1.18, book);
    expect(priced.lst_price).toMatchObject({
      price_usd: 2360,
      source: 'market_oracle',
      source_ref: '0xm1',
      alternative_price_usd: 2400,
      flagged: false,
    });
    expect(priced.underlying_price).toMatchObject({ price_usd: 2000, source: 'dex' });
    expect(priced).toMatchObject({
      lst_collateral_usd: 15 * 2360,
      debt_usd: 12 * 2000,
      market_collateral_usd: 15 * 2360,
    });
    expect(priced.depeg_scenarios).toHaveLength(4);
    expect(priced.gap_reasons).toEqual({});
    const s = score(priced);
    expect(s.score).not.toBeNull();
    // The 11-WETH borrower at HF 1.01 is liquidated at a 5 % depeg: far from a perfect score.
    expect(s.score!).toBeLessThan(0.8);
  });
});

describe('one price per token per instant with the lending area (issue 26 items 7 and 10)', () => {
  // A Morpho view whose snapshot stored its loan token (WETH) at the DEX price of its hour, 1990: not an oracle.
  const morpho: MarketSnapshot = {
    chain: 'ethereum',
    pool: '0xmorpho',
    blockNumber: 99,
    timestamp: 1_800_000_000,
    reserves: [
      { ...aave.reserves[1]!, priceUsd: 1990 },
      { ...aave.reserves[2]!, priceUsd: null },
    ],
    positions: [position('0xm', { [WSTETH]: 10n * E18 }, { [WETH]: 11n * E18 }, [WSTETH], 0, 0, 1.01, '0xm1')],
    morphoMarkets: [
      {
        id: '0xm1',
        loanToken: WETH,
        collateralToken: WSTETH,
        lltv: 0.945,
        oracle: '0xoracle',
        oraclePrice: 1.18,
        totalSupplyRaw: '0',
        totalBorrowRaw: '0',
        totalCollateralRaw: '0',
        borrowRate: null,
        supplyRate: null,
      },
    ],
  };
  const market: LendingMarketRef = {
    ...aaveMarket,
    protocol: 'morpho',
    version: 'V1',
    baseAsset: 'WETH',
    design: 'morpho-blue',
    pool: '0xmorpho',
    morphoMarketIds: ['0xm1'],
  };

  it('prices a Morpho loan token by the chain’s feed, as lending does, never by the DEX price stored as an oracle', () => {
    // The chain's Aave-design market at the instant, listing WETH (its feed) but not wstETH.
    const peer = { ...aave, reserves: aave.reserves.filter((r) => r.asset !== WSTETH) };
    const book = marketPriceBook(morpho, market, () => null, [peer]);
    expect(book(WETH)).toMatchObject({ price_usd: 2000, source: 'oracle', source_ref: '0xpool' });
    // The collateral: the market's own oracle × that price, labelled as the market's oracle.
    expect(book(WSTETH)).toMatchObject({ price_usd: 2360, source: 'market_oracle', source_ref: '0xoracle' });
    // Without a feed on the chain the stored DEX price is no oracle: unpriced (the DEX candidate would price it).
    expect(marketPriceBook(morpho, market)(WETH)).toBeNull();
  });

  it('labels an Aave reserve’s AaveOracle answer `oracle`, as lending does', () => {
    expect(marketPriceBook(aave, aaveMarket)(WSTETH)).toMatchObject({ price_usd: 2360, source: 'oracle' });
  });
});
