/**
 * Issue 13 (lending): Morpho priced from the other markets' prices and its own oracles, never scored from missing
 * evidence; history computed from what was known at each day; one price per figure; the rate invariant; E-mode
 * parameters used alike in the health distribution and the stress test.
 */
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { DAY, dailyHistoryInstants, HOUR } from '../../core/time.js';
import type { PoolFact, SyncFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import { aggregateScores, computeLending, type LendingInput, type MarketInput } from './compute.js';
import type { MarketSnapshot, MorphoMarketSnapshot, PositionSnapshot, ReserveSnapshot } from './facts.js';
import { morphoViewRates } from './ingest-snapshot-morpho.js';
import type { ChainDexFacts } from './prices.js';
import { AllMarketsEntry, AssetAnalytics, LendingScoreHistory, MarketAnalytics, MarketOverview } from './schema.js';
import { gapScore, healthDistribution, ownOraclePrices, stressTest, valuePositions } from './score.js';
import type { LendingMarketTarget } from './targets.js';

if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));
const errors = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.path} ${e.message}`);

const AS_OF = Date.UTC(2026, 10, 20, 12) / 1000;
const USDC = '0x00000000000000000000000000000000000000a1';
const WETH = '0x00000000000000000000000000000000000000e1';
const WSTETH = '0x00000000000000000000000000000000000000f1';
const POOL_WETH_USDC = '0x00000000000000000000000000000000000000c1';
const e18 = (x: number) => (BigInt(Math.round(x * 1e6)) * 10n ** 12n).toString();
const e6 = (x: number) => BigInt(Math.round(x * 1e6)).toString();

function reserve(asset: string, symbol: string, over: Partial<ReserveSnapshot> = {}): ReserveSnapshot {
  return {
    asset,
    symbol,
    decimals: symbol === 'USDC' ? 6 : 18,
    totalSupplyRaw: '0',
    totalBorrowRaw: '0',
    priceUsd: symbol === 'USDC' ? 1 : symbol === 'wstETH' ? 2400 : 2000,
    supplyRate: 0.02,
    borrowRate: 0.05,
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
    optimalUtilisation: 0.9,
    aToken: null,
    debtToken: null,
    ...over,
  };
}

const aaveTarget: LendingMarketTarget = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design: 'aave-v3',
  pool: '0x00000000000000000000000000000000000000b0',
  assets: [
    { address: USDC, symbol: 'USDC', decimals: 6 },
    { address: WETH, symbol: 'WETH', decimals: 18 },
  ],
};
const morphoTarget: LendingMarketTarget = {
  ...aaveTarget,
  protocol: 'morpho',
  version: 'V1',
  marketName: 'Morpho Blue USDC',
  design: 'morpho-blue',
  pool: '0x00000000000000000000000000000000000000b1',
  assets: [
    { address: USDC, symbol: 'USDC', decimals: 6 },
    { address: WETH, symbol: 'WETH', decimals: 18 },
    { address: WSTETH, symbol: 'wstETH', decimals: 18 },
  ],
};

function aaveSnapshot(timestamp: number, wethPrice = 2000): MarketSnapshot {
  const borrower: PositionSnapshot = {
    account: '0xa1',
    marketId: '',
    supplied: { [WETH]: e18(2) },
    borrowed: { [USDC]: e6(2000) },
    collateral: [WETH],
    thresholds: { [WETH]: 0.825 },
    bonuses: { [WETH]: 0.05 },
    eMode: 0,
    collateralUsd: 2 * wethPrice,
    debtUsd: 2000,
    healthFactor: (2 * wethPrice * 0.825) / 2000,
  };
  const lender: PositionSnapshot = {
    ...borrower,
    account: '0xa2',
    supplied: { [USDC]: e6(10_000) },
    borrowed: {},
    collateral: [],
    thresholds: {},
    bonuses: {},
    healthFactor: null,
    debtUsd: 0,
    collateralUsd: 0,
  };
  return {
    chain: 'ethereum',
    pool: aaveTarget.pool,
    blockNumber: Math.floor(timestamp / 12),
    timestamp,
    reserves: [
      reserve(USDC, 'USDC', { totalSupplyRaw: e6(10_000), totalBorrowRaw: e6(2000), supplyRate: 0.009 }),
      reserve(WETH, 'WETH', { totalSupplyRaw: e18(2), priceUsd: wethPrice, supplyRate: 0, borrowRate: 0.01 }),
    ],
    positions: [lender, borrower],
    oracle: '0x00000000000000000000000000000000000000fe',
  };
}

/**
 * A Morpho view as the issue found it: the loan token unpriced at ingestion (`priceUsd` null, positions' USD 0),
 * two isolated markets (WETH and wstETH collateral), the market oracle pricing wstETH at 1.2 WETH.
 */
function morphoSnapshot(timestamp: number, wethPrice = 2000): MarketSnapshot {
  const m1: MorphoMarketSnapshot = {
    id: '0x01',
    loanToken: USDC,
    collateralToken: WETH,
    lltv: 0.86,
    oracle: '0x00000000000000000000000000000000000000a0',
    irm: '0x00000000000000000000000000000000000000a9',
    oraclePrice: wethPrice,
    totalSupplyRaw: e6(30_000),
    totalBorrowRaw: e6(1000),
    totalCollateralRaw: e18(1),
    borrowRate: 0.1,
    supplyRate: (0.1 * 1000) / 30_000,
  };
  const m2: MorphoMarketSnapshot = {
    ...m1,
    id: '0x02',
    collateralToken: WSTETH,
    oracle: '0x00000000000000000000000000000000000000a2',
    oraclePrice: 1.2 * wethPrice,
    totalSupplyRaw: e6(2000),
    totalBorrowRaw: e6(1800),
    totalCollateralRaw: e18(1),
    borrowRate: 0.2,
    supplyRate: (0.2 * 1800) / 2000,
  };
  const position = (account: string, m: MorphoMarketSnapshot, debt: number, hf: number): PositionSnapshot => ({
    account,
    marketId: m.id,
    supplied: { [m.collateralToken]: e18(1) },
    borrowed: { [USDC]: e6(debt) },
    collateral: [m.collateralToken],
    thresholds: { [m.collateralToken]: m.lltv },
    bonuses: { [m.collateralToken]: 0.0438 },
    eMode: 0,
    collateralUsd: 0,
    debtUsd: 0,
    healthFactor: hf,
  });
  const lender: PositionSnapshot = {
    account: '0xm0',
    marketId: '0x01',
    supplied: { [USDC]: e6(30_000) },
    borrowed: {},
    collateral: [],
    thresholds: {},
    bonuses: {},
    eMode: 0,
    collateralUsd: 0,
    debtUsd: 0,
    healthFactor: null,
  };
  const rates = morphoViewRates([m1, m2]);
  return {
    chain: 'ethereum',
    pool: morphoTarget.pool,
    blockNumber: Math.floor(timestamp / 12),
    timestamp,
    reserves: [
      reserve(USDC, 'USDC', {
        totalSupplyRaw: e6(32_000),
        totalBorrowRaw: e6(2800),
        priceUsd: null,
        ...rates,
        liquidationThreshold: null,
        ltv: null,
        liquidationBonus: null,
        collateralEnabled: false,
      }),
      ...[m1, m2].map((m) =>
        reserve(m.collateralToken, m.collateralToken === WETH ? 'WETH' : 'wstETH', {
          totalSupplyRaw: m.totalCollateralRaw,
          priceUsd: null,
          borrowingEnabled: false,
          supplyRate: 0,
          borrowRate: null,
          ltv: m.lltv,
          liquidationThreshold: m.lltv,
          liquidationBonus: 0.0438,
        }),
      ),
    ],
    positions: [
      lender,
      position('0xm1', m1, 1000, (wethPrice * 0.86) / 1000),
      position('0xm2', m2, 1800, (1.2 * wethPrice * 0.86) / 1800),
    ],
    morphoMarkets: [m1, m2],
  };
}

function market(source: LendingMarketTarget, make: (t: number) => MarketSnapshot, over: Partial<MarketInput> = {}) {
  return {
    source,
    latest: make(AS_OF),
    daily: dailyHistoryInstants(AS_OF)
      .slice(1)
      .map((t, i) => (i === 5 ? undefined : make(t - 600))),
    liquidations: [],
    ...over,
  } satisfies MarketInput;
}

describe('Morpho is priced from the other markets’ prices and its own oracles (issue 13, item 1)', () => {
  it('values the loan token at the Aave oracle, a collateral without a feed at its market’s oracle, and fills the bands', () => {
    const out = computeLending({
      asOf: AS_OF,
      markets: [market(aaveTarget, (t) => aaveSnapshot(t)), market(morphoTarget, (t) => morphoSnapshot(t))],
    });
    const morpho = out.markets.find((m) => m.key.protocol === 'morpho')!.data;
    expect(errors(MarketAnalytics, morpho)).toEqual([]);
    const usdc = morpho.assets.find((a) => a.token_address === USDC)!;
    expect(usdc).toMatchObject({ total_supply_usd: 32_000, total_borrow_usd: 2800, price_source: 'oracle' });
    const wsteth = morpho.assets.find((a) => a.token_address === WSTETH)!;
    // No feed prices wstETH on this chain: its market's oracle (1.2 WETH · 2000 USD) does.
    expect(wsteth).toMatchObject({ price_usd: 2400, price_source: 'market_oracle', total_supply_usd: 2400 });
    const weth = morpho.assets.find((a) => a.token_address === WETH)!;
    expect(weth).toMatchObject({ price_usd: 2000, price_source: 'oracle' });
    // Supply is the lendable loan token only; the markets' collateral (WETH, wstETH) is served apart.
    expect(morpho.total_supply_usd).toBe(32_000);
    expect(morpho.total_collateral_only_usd).toBe(2000 + 2400);
    expect(morpho.total_borrow_usd).toBe(2800);
    expect(morpho.utilisation).toBeCloseTo(morpho.total_borrow_usd! / morpho.total_supply_usd!, 6);
    expect(morpho.health_factor_distribution.reduce((s, b) => s + b.positions, 0)).toBe(2);
    expect(morpho.health_factor_distribution.reduce((s, b) => s + b.debt_usd, 0)).toBe(2800);
    const score = out.scores.find((s) => s.key.protocol === 'morpho')!.data[0]!;
    expect(score.score).not.toBeNull();
    expect(score.components.every((c) => c.value !== null)).toBe(true);
    expect(score).toMatchObject({ chain: 'ethereum', protocol: 'morpho', version: 'V1', base_asset: 'USDC' });
  });

  it('leaves every USD figure of an unpriced market null with a reason, and its score null, never perfect', () => {
    const out = computeLending({ asOf: AS_OF, markets: [market(morphoTarget, (t) => morphoSnapshot(t))] });
    const morpho = out.markets[0]!.data;
    expect(errors(MarketAnalytics, morpho)).toEqual([]);
    for (const a of morpho.assets) {
      expect(a.total_supply_usd).toBeNull();
      expect(a.gap_reasons.total_supply_usd).toBe('no_price');
    }
    expect(morpho.total_supply_usd).toBeNull();
    expect(morpho.total_borrow_usd).toBeNull();
    expect(morpho.gap_reasons).toMatchObject({ total_supply_usd: 'no_price', total_borrow_usd: 'no_price' });
    expect(morpho.unpriced_borrowers).toBe(2);
    const overview = out.overviews[0]!.data;
    expect(overview.total_supply_usd).toBeNull();
    expect(errors(MarketOverview, overview)).toEqual([]);
    const history = out.scores[0]!.data;
    expect(errors(LendingScoreHistory, history)).toEqual([]);
    for (const r of history.slice(0, 6)) {
      expect(r.score).toBeNull();
      expect(r.gap_reason).toBe('insufficient_evidence');
      expect(r.evidence).toBeLessThan(0.6);
    }
  });

  it('ranks an unscored market after every scored one in all-markets', () => {
    const out = computeLending({
      asOf: AS_OF,
      markets: [
        market(morphoTarget, (t) => ({ ...morphoSnapshot(t), chain: 'base' }), {
          source: { ...morphoTarget, chain: 'base' },
        }),
        market(aaveTarget, (t) => aaveSnapshot(t)),
      ],
    });
    expect(out.all.map((x) => [x.protocol, x.score === null])).toEqual([
      ['aave', false],
      ['morpho', true],
    ]);
    for (const a of out.all) expect(errors(AllMarketsEntry, a)).toEqual([]);
  });
});

describe('protocol aggregation (core combineScore)', () => {
  const record = (score: number | null) => ({ ...gapScore(AS_OF, true, 'x'), score, gap_reason: null });
  it('weights markets by debt with rounded shares and publishes its evidence', () => {
    const r = aggregateScores(
      [
        { name: 'a', record: record(0.8), debtUsd: 1 },
        { name: 'b', record: record(0.5), debtUsd: 2 },
      ],
      AS_OF,
      true,
      'x',
    );
    expect(r.components.map((c) => c.weight)).toEqual([0.3333, 0.6667]);
    expect(r.score).toBe(0.6);
    expect(r.evidence).toBe(1);
    expect(r.protocol).toBe('x');
  });

  it('has no score when the markets holding most of the debt have none', () => {
    const r = aggregateScores(
      [
        { name: 'a', record: record(0.9), debtUsd: 1 },
        { name: 'b', record: record(null), debtUsd: 9 },
      ],
      AS_OF,
      true,
      'x',
    );
    expect(r.score).toBeNull();
    expect(r.evidence).toBe(0.1);
    expect(r.gap_reason).toBe('insufficient_evidence');
  });
});

/** A WETH/USDC V2 pool whose reserves halve on the crash day (3 days before as_of) and recover by as_of. */
function dexFacts(): ChainDexFacts {
  const pool: PoolFact = {
    chain: 'ethereum',
    address: POOL_WETH_USDC,
    protocol: 'uniswap',
    version: 'V2',
    design: 'uniswap-v2',
    factory: '0xf0',
    token0: USDC,
    token1: WETH,
    fee: 3000,
    tickSpacing: null,
    createdBlock: 1,
    createdAt: AS_OF - 30 * DAY,
  };
  const tokens: TokenFact[] = [
    { chain: 'ethereum', address: USDC, symbol: 'USDC', name: 'USDC', decimals: 6 },
    { chain: 'ethereum', address: WETH, symbol: 'WETH', name: 'WETH', decimals: 18 },
  ];
  const syncs: SyncFact[] = [];
  const prices: TokenPriceFact[] = [];
  for (let d = 8; d >= 0; d--) {
    const t = AS_OF - d * DAY - 2 * HOUR;
    const eth = d === 3 ? 200 : 400 + d;
    syncs.push({
      chain: 'ethereum',
      pool: POOL_WETH_USDC,
      blockNumber: Math.floor(t / 12),
      logIndex: 0,
      reserve0: BigInt(Math.round(eth * 2000)) * 10n ** 6n,
      reserve1: BigInt(eth) * 10n ** 18n,
      timestamp: t,
    });
    for (const [token, price] of [
      [USDC, 1],
      [WETH, 2000 + d],
    ] as const) {
      prices.push({
        chain: 'ethereum',
        token,
        hour: Math.floor(t / HOUR) * HOUR,
        priceUsd: price,
        source: 'pools:test',
        confidence: 0.9,
      });
    }
  }
  return { pools: [pool], tokens, snapshots: [], swaps: [], syncs, prices };
}

/** An Aave market whose borrowers a 15 % WETH drop liquidates, so the stress test asks the DEX for depth. */
function riskyAave(t: number): MarketSnapshot {
  const s = aaveSnapshot(t);
  return {
    ...s,
    positions: s.positions.map((p) =>
      p.account === '0xa1' ? { ...p, borrowed: { [USDC]: e6(3100) }, debtUsd: 3100 } : p,
    ),
  };
}

const liquidityInputs = (r: { components: { name: string; inputs: Record<string, unknown> }[] }) =>
  r.components.find((c) => c.name === 'liquidation_liquidity')!.inputs as {
    assets: { dex_depth_usd: number | null; price_usd: number | null; price_source: string | null }[];
  };

describe('score history is computed from what was known at each day (issue 13, item 2)', () => {
  const input = (): LendingInput => ({
    asOf: AS_OF,
    markets: [market(aaveTarget, riskyAave)],
    dex: { ethereum: dexFacts() },
  });

  it('rebuilds each day’s DEX depth from that day’s pool state (the crash day is thinner)', () => {
    const history = computeLending(input()).scores[0]!.data;
    const depths = history.slice(0, 6).map((r) => liquidityInputs(r).assets[0]!.dex_depth_usd);
    expect(depths.every((d) => d !== null && d > 0)).toBe(true);
    expect(new Set(depths).size).toBe(6);
    expect(depths[3]).toBeLessThan(depths[2]! / 1.5);
  });

  it('recomputes every past day from the facts up to that day only and gets the same record', () => {
    const full = computeLending(input());
    const instants = dailyHistoryInstants(AS_OF);
    for (let d = 1; d <= 5; d++) {
      const t = instants[d]!;
      const base = input();
      const m = base.markets[0]!;
      const facts = base.dex!.ethereum!;
      const upTo = <T extends { timestamp: number }>(xs: readonly T[]) => xs.filter((x) => x.timestamp <= t);
      const truncated: LendingInput = {
        asOf: t,
        markets: [{ ...m, latest: m.daily[d - 1], daily: m.daily.slice(d) }],
        dex: {
          ethereum: {
            ...facts,
            syncs: upTo(facts.syncs),
            swaps: upTo(facts.swaps),
            prices: facts.prices.filter((p) => p.hour <= t),
          },
        },
      };
      const past = computeLending(truncated).scores[0]!.data[0]!;
      const { partial: _a, ...expected } = full.scores[0]!.data[d]!;
      const { partial: _b, ...got } = past;
      expect(got, `day ${d}`).toEqual(expected);
    }
  });
});

describe('one price per figure (issue 13, item 3)', () => {
  it('values a collateral’s depth and its collateral at the same policy price, and publishes its source', () => {
    const facts = dexFacts();
    // The DEX prices WETH 10 % above the oracle: the oracle (fresh) wins, the disagreement is flagged.
    const skewed = { ...facts, prices: facts.prices.map((p) => (p.token === WETH ? { ...p, priceUsd: 2200 } : p)) };
    const out = computeLending({ asOf: AS_OF, markets: [market(aaveTarget, riskyAave)], dex: { ethereum: skewed } });
    const row = liquidityInputs(out.scores[0]!.data[0]!).assets[0]! as Record<string, unknown>;
    expect(row).toMatchObject({ price_usd: 2000, price_source: 'oracle', price_flagged: true });
    const weth = out.assets.find((a) => a.token === WETH)!.data;
    expect(weth).toMatchObject({
      price_usd: 2000,
      price_source: 'oracle',
      price_flagged: true,
      alternative_price_usd: 2200,
    });
    expect(errors(AssetAnalytics, weth)).toEqual([]);
    // Depth in tokens × the same 2000 USD the collateral is valued at.
    const again = computeLending({ asOf: AS_OF, markets: [market(aaveTarget, riskyAave)], dex: { ethereum: facts } });
    const plain = liquidityInputs(again.scores[0]!.data[0]!).assets[0]!;
    expect(row.dex_depth_usd).toBe(plain.dex_depth_usd);
  });
});

describe('rates invariant (issue 13, item 5)', () => {
  it('Morpho’s view keeps supply_rate ≤ borrow_rate × utilisation (it did not with borrow-weighted supply rates)', () => {
    const m = morphoSnapshot(AS_OF).morphoMarkets!;
    const { supplyRate, borrowRate } = morphoViewRates(m);
    const u = (1000 + 1800) / (30_000 + 2000);
    expect(supplyRate!).toBeLessThanOrEqual(borrowRate! * u * (1 + 1e-9));
    // The old aggregation (both borrow-weighted) gave a supply rate above borrow × utilisation.
    const old = (0.0033333 * 1000 + 0.18 * 1800) / 2800;
    expect(old).toBeGreaterThan(borrowRate! * u);
  });

  it('holds for every asset of the computed fixtures', () => {
    const out = computeLending({
      asOf: AS_OF,
      markets: [market(aaveTarget, (t) => aaveSnapshot(t)), market(morphoTarget, (t) => morphoSnapshot(t))],
    });
    for (const { data: a } of out.assets) {
      if (a.supply_rate === null || a.borrow_rate === null) continue;
      const supply = Number(BigInt(a.total_supply_raw));
      const u = supply > 0 ? Number(BigInt(a.total_borrow_raw)) / supply : 0;
      expect(a.supply_rate, `${a.protocol} ${a.symbol}`).toBeLessThanOrEqual(a.borrow_rate * u * (1 + 1e-9) + 1e-12);
    }
  });
});

describe('E-mode parameters (issue 13, item 7)', () => {
  // A wstETH looper in E-mode (threshold 0.93): healthy by E-mode (1.24), under water by the normal 0.81 (1.08·…).
  const looper: PositionSnapshot = {
    account: '0xl',
    marketId: '',
    supplied: { [WSTETH]: e18(10) },
    borrowed: { [WETH]: e18(11) },
    collateral: [WSTETH],
    thresholds: { [WSTETH]: 0.93 },
    bonuses: { [WSTETH]: 0.01 },
    eMode: 1,
    collateralUsd: 24_000,
    debtUsd: 22_000,
    // What Aave reported with a stale threshold: the distribution must not use it.
    healthFactor: 0.5,
  };
  const snapshot: MarketSnapshot = {
    ...aaveSnapshot(AS_OF),
    reserves: [
      reserve(WETH, 'WETH', { totalSupplyRaw: e18(20), totalBorrowRaw: e18(11) }),
      reserve(WSTETH, 'wstETH', { totalSupplyRaw: e18(10), liquidationThreshold: 0.81, liquidationBonus: 0.07 }),
    ],
    positions: [looper],
    eModeCategories: [
      {
        id: 1,
        label: 'ETH correlated',
        ltv: 0.9,
        liquidationThreshold: 0.93,
        liquidationBonus: 0.01,
        assets: [WETH, WSTETH],
      },
    ],
  };

  it('puts an E-mode position in the band of its E-mode health factor, the one the stress test uses', () => {
    const valued = valuePositions(snapshot, 'aave-v3', ownOraclePrices(snapshot));
    expect(valued[0]!.healthFactor).toBeCloseTo((24_000 * 0.93) / 22_000, 9);
    const bands = healthDistribution(valued);
    expect(bands.find((b) => b.positions === 1)!.band).toBe('1-1.05'.replace('1-', '1.0-'));
    // At no shock the stress test liquidates nothing: the same health factor, above 1.
    expect(stressTest(snapshot, 'aave-v3', () => 1e9, ownOraclePrices(snapshot), 0)[0]!.positions_liquidated).toBe(0);
  });

  it('publishes each position class’s parameters per asset', () => {
    const out = computeLending({
      asOf: AS_OF,
      markets: [market(aaveTarget, () => snapshot, { daily: [] })],
    });
    const wsteth = out.assets.find((a) => a.token === WSTETH)!.data;
    expect(wsteth.position_classes).toEqual([
      { class: 'normal', ltv: 0.8, liquidation_threshold: 0.81, liquidation_bonus: 0.07, positions: 0 },
      {
        class: 'emode:1:ETH correlated',
        ltv: 0.9,
        liquidation_threshold: 0.93,
        liquidation_bonus: 0.01,
        positions: 1,
      },
    ]);
  });
});

describe('risk tables (issue 13, additions)', () => {
  const out = computeLending({
    asOf: AS_OF,
    markets: [market(aaveTarget, riskyAave), market(morphoTarget, (t) => morphoSnapshot(t))],
  });
  const aave = out.markets.find((m) => m.key.protocol === 'aave')!.data;
  const morpho = out.markets.find((m) => m.key.protocol === 'morpho')!.data;

  it('lists what a 5 … 50 % drop of each collateral liquidates, growing with the drop', () => {
    const weth = aave.liquidations_at_risk.find((x) => x.asset === WETH)!;
    expect(weth.drops.map((d) => d.price_drop)).toEqual([0.05, 0.1, 0.2, 0.35, 0.5]);
    // 2 WETH at 2000 against 3100 USDC at a 0.825 threshold: HF 1.065, liquidated from a 10 % drop on.
    expect(weth.drops.map((d) => d.positions_liquidated)).toEqual([0, 1, 1, 1, 1]);
    const sells = weth.drops.map((d) => d.collateral_to_sell_usd!);
    expect(sells[0]).toBe(0);
    // −50 %: 2000 USD of collateral against 3100 of debt; the 5 % bonus is paid out of the collateral, which so
    // repays 2000 / 1.05: 3100 − 1904.761905 = 1195.238095 of bad debt (not 1100; USD to 6 decimals).
    expect(weth.drops[4]!.shortfall_usd).toBe(1195.238095);
    expect(errors(MarketAnalytics, aave)).toEqual([]);
    expect(errors(MarketAnalytics, morpho)).toEqual([]);
  });

  it('names the largest suppliers and borrowers with their shares', () => {
    expect(aave.top_borrowers).toEqual([{ account: '0xa1', usd: 3100, share: 1 }]);
    expect(aave.top_suppliers!.map((x) => x.account)).toEqual(['0xa2', '0xa1']);
    expect(aave.top_suppliers!.reduce((s, x) => s + x.share!, 0)).toBeCloseTo(1, 4);
  });

  it('describes each Morpho isolated market: id, LLTV, oracle, IRM, utilisation', () => {
    expect(morpho.morpho_markets.map((m) => [m.market_id, m.lltv, m.oracle, m.irm, m.utilisation])).toEqual([
      [
        '0x01',
        0.86,
        '0x00000000000000000000000000000000000000a0',
        '0x00000000000000000000000000000000000000a9',
        0.033333,
      ],
      ['0x02', 0.86, '0x00000000000000000000000000000000000000a2', '0x00000000000000000000000000000000000000a9', 0.9],
    ]);
    expect(morpho.morpho_markets[1]).toMatchObject({
      total_borrow_usd: 1800,
      total_collateral_usd: 2400,
      borrowers: 1,
    });
    expect(aave.morpho_markets).toEqual([]);
  });
});

describe('Morpho collateral’s own oracle price', () => {
  it('is published beside the policy price, through the loan token’s policy price', () => {
    const out = computeLending({
      asOf: AS_OF,
      markets: [market(aaveTarget, (t) => aaveSnapshot(t)), market(morphoTarget, (t) => morphoSnapshot(t))],
    });
    const wsteth = out.assets.find((a) => a.key.protocol === 'morpho' && a.token === WSTETH)!.data;
    // The market's oracle as it answers: 1.2 WETH-worth of USDC per wstETH (loan tokens per collateral token).
    expect(wsteth).toMatchObject({
      market_oracle_price: 2400,
      market_oracle_address: '0x00000000000000000000000000000000000000a2',
      market_oracle_disagreement: 0,
      market_oracle_flagged: false,
      price_usd: 2400,
      price_source: 'market_oracle',
    });
    // No feed prices wstETH: the field named oracle is empty, not the market oracle's product under its name.
    expect(wsteth.oracle_price_usd).toBeNull();
    expect(wsteth.gap_reasons.oracle_price_usd).toBe('no_data');
    expect(errors(AssetAnalytics, wsteth)).toEqual([]);
  });
});

describe('Morpho loan token’s oracle price (issue 26 item 7)', () => {
  // A Morpho snapshot stores its loan token at the DEX price of its hour (here 0.998): never an oracle's answer.
  const dexPriced = (t: number): MarketSnapshot => {
    const s = morphoSnapshot(t);
    return {
      ...s,
      reserves: s.reserves.map((r) => (r.asset === USDC ? { ...r, priceUsd: 0.998 } : r)),
    };
  };

  it('is the feed answer the policy takes, with its source, never the DEX price stored with the snapshot', () => {
    const out = computeLending({
      asOf: AS_OF,
      markets: [market(aaveTarget, (t) => aaveSnapshot(t)), market(morphoTarget, dexPriced)],
    });
    const usdc = out.assets.find((a) => a.key.protocol === 'morpho' && a.token === USDC)!.data;
    const aaveUsdc = out.assets.find((a) => a.key.protocol === 'aave' && a.token === USDC)!.data;
    expect(usdc.oracle_price_usd).toBe(1);
    expect(usdc.oracle_source_ref).toBe('0x00000000000000000000000000000000000000fe');
    expect(usdc).toMatchObject({ price_usd: 1, price_source: 'oracle' });
    // One price per token per instant: the two markets serve USDC alike.
    expect([usdc.price_usd, usdc.oracle_price_usd]).toEqual([aaveUsdc.price_usd, aaveUsdc.oracle_price_usd]);
    expect(errors(AssetAnalytics, usdc)).toEqual([]);
  });

  it('is null with its reason when no feed prices the loan token on the chain', () => {
    const out = computeLending({ asOf: AS_OF, markets: [market(morphoTarget, dexPriced)] });
    const usdc = out.assets.find((a) => a.token === USDC)!.data;
    expect(usdc.oracle_price_usd).toBeNull();
    expect(usdc.gap_reasons.oracle_price_usd).toBe('no_data');
  });
});

describe('USD precision (issue 26 item 10)', () => {
  it('a non-zero token amount is never $0: one USD precision with liquid staking (6 decimals, then significant digits)', () => {
    // 1,000 wei of WETH supplied at 2,000 USD: 2e-12 USD (in cents, as before, 0 beside total_supply_raw 1000).
    const dust = (t: number): MarketSnapshot => {
      const s = aaveSnapshot(t);
      return { ...s, reserves: s.reserves.map((r) => (r.asset === WETH ? { ...r, totalSupplyRaw: '1000' } : r)) };
    };
    const out = computeLending({ asOf: AS_OF, markets: [market(aaveTarget, dust)] });
    const weth = out.assets.find((a) => a.token === WETH)!.data;
    expect(weth.total_supply_raw).toBe('1000');
    expect(weth.total_supply_usd).toBe(2e-12);
    const usdc = out.assets.find((a) => a.token === USDC)!.data;
    expect(usdc.total_supply_usd).toBe(10_000);
  });
});
