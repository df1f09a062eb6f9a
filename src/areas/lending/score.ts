/**
 * The liquidity health score of lending markets, `lending.liquidity-health@1.1.0`
 * (docs/methodology/lending-liquidity-health.md). Pure: a market snapshot and a DEX depth function in, a score
 * record out.
 */
import { type ComponentInput, combineScore, methodologyId, roundTo } from '../../core/score.js';
import { hhi } from '../../core/stats.js';
import { utcDate } from '../../core/time.js';
import type { MarketSnapshot, PositionSnapshot, ReserveSnapshot } from './facts.js';
import type { HealthBandEntry, LendingScoreEntry } from './schema.js';
import { toUnits } from './units.js';

export const LENDING_METHODOLOGY = methodologyId('lending', 'liquidity-health', '1.1.0');

/** Health-factor bands of the market analytics (lower bound inclusive), and each band's risk weight in the score. */
export const HEALTH_BANDS: readonly {
  readonly band: string;
  readonly min: number;
  readonly max: number;
  readonly risk: number;
}[] = [
  { band: '<1.0', min: 0, max: 1, risk: 1 },
  { band: '1.0-1.05', min: 1, max: 1.05, risk: 0.7 },
  { band: '1.05-1.1', min: 1.05, max: 1.1, risk: 0.4 },
  { band: '1.1-1.25', min: 1.1, max: 1.25, risk: 0.15 },
  { band: '1.25-1.5', min: 1.25, max: 1.5, risk: 0.05 },
  { band: '1.5-2', min: 1.5, max: 2, risk: 0 },
  { band: '>2', min: 2, max: Number.POSITIVE_INFINITY, risk: 0 },
];

/** The debt-weighted risk share at which the health component reaches 0: a third of the debt at full risk. */
export const HEALTH_ZERO_AT = 1 / 3;

/** Utilisation penalty (reference/methodology.md, after Block Analitica): linear to m at the kink, then exponential. */
export const UTILISATION_M = 0.25;
export const UTILISATION_K = 32;
/** The kink when the reserve's rate curve does not name one. */
export const DEFAULT_KINK = 0.8;

/**
 * Stress test price drops by asset tier (reference/methodology.md, after Chaos Labs: 15 % above $20B market cap and
 * stablecoins, 35 % for $2–20B, 50 % below $2B). The tiers are a fixed table by symbol (market caps of 2026).
 */
export const SHOCK_TIERS: Readonly<Record<string, number>> = {
  USDC: 0.15,
  USDT: 0.15,
  DAI: 0.15,
  WETH: 0.15,
  ETH: 0.15,
  WBTC: 0.15,
  wstETH: 0.35,
  stETH: 0.35,
  rETH: 0.35,
  cbETH: 0.35,
  LINK: 0.35,
};
export const DEFAULT_SHOCK = 0.5;

/** Aave V3's close factor: half the debt, all of it below this health factor. */
export const CLOSE_FACTOR_HF_THRESHOLD = 0.95;

/** Nominal weights (sum 1), combined as a weighted geometric mean. */
export const WEIGHTS = {
  health_factor_distribution: 0.35,
  liquidation_liquidity: 0.25,
  utilisation: 0.2,
  supplier_concentration: 0.1,
  borrower_concentration: 0.1,
} as const;

export function healthDistribution(positions: readonly PositionSnapshot[]): HealthBandEntry[] {
  const rows: HealthBandEntry[] = HEALTH_BANDS.map((b) => ({
    band: b.band,
    min: b.min,
    max: Number.isFinite(b.max) ? b.max : null,
    debt_usd: 0,
    positions: 0,
  }));
  for (const p of positions) {
    if (p.healthFactor === null || !(p.debtUsd > 0)) continue;
    const i = HEALTH_BANDS.findIndex((b) => p.healthFactor! >= b.min && p.healthFactor! < b.max);
    const row = rows[i === -1 ? rows.length - 1 : i]!;
    row.debt_usd += p.debtUsd;
    row.positions += 1;
  }
  return rows;
}

/** The utilisation penalty in [0, 1] for utilisation u and a kink. */
export function utilisationPenalty(u: number, kink: number): number {
  const x = Math.min(Math.max(u, 0), 1);
  if (x <= kink) return (UTILISATION_M * x) / kink;
  const span = Math.expm1(UTILISATION_K * (1 - kink));
  return UTILISATION_M + ((1 - UTILISATION_M) * Math.expm1(UTILISATION_K * (x - kink))) / span;
}

const reserveUsd = (r: ReserveSnapshot, raw: string) => toUnits(BigInt(raw), r.decimals) * (r.priceUsd ?? 0);

/** Per account, USD supplied and borrowed over the market's reserves. */
export function accountTotals(snapshot: MarketSnapshot): {
  supplied: Map<string, number>;
  borrowed: Map<string, number>;
} {
  const reserves = new Map(snapshot.reserves.map((r) => [r.asset, r]));
  const supplied = new Map<string, number>();
  const borrowed = new Map<string, number>();
  for (const p of snapshot.positions) {
    for (const [asset, raw] of Object.entries(p.supplied)) {
      const r = reserves.get(asset);
      if (r) supplied.set(p.account, (supplied.get(p.account) ?? 0) + reserveUsd(r, raw));
    }
    for (const [asset, raw] of Object.entries(p.borrowed)) {
      const r = reserves.get(asset);
      if (r) borrowed.set(p.account, (borrowed.get(p.account) ?? 0) + reserveUsd(r, raw));
    }
  }
  return { supplied, borrowed };
}

export interface StressAsset {
  asset: string;
  symbol: string;
  shock: number;
  liquidation_bonus: number;
  positions_liquidated: number;
  /** Debt the liquidators repay: what the position's close factor allows, at most what the seized asset covers. */
  debt_repaid_usd: number;
  /**
   * Bad debt: of the liquidated positions, the debt their whole (shocked) collateral no longer covers. No
   * liquidation recovers it; it falls on the market's suppliers (or its reserve).
   */
  shortfall_usd: number;
  /** Liquidated positions left with a shortfall. */
  positions_with_shortfall: number;
  collateral_to_sell_usd: number;
  dex_depth_usd: number | null;
  covered: number;
}

/**
 * The stress test: each collateral asset alone drops by its tier's shock; positions whose recomputed health factor
 * falls below 1 are liquidated (Aave: half the debt, all below 0.95; Morpho: all), the seized collateral is that
 * asset (what a liquidator sells in a crash), and it must be sold on the indexed DEX pools with a price impact
 * below the liquidation bonus. `depthUsd(asset, impact)` is the USD value of the asset sellable within that impact.
 */
export function stressTest(
  snapshot: MarketSnapshot,
  design: 'aave-v3' | 'morpho-blue',
  depthUsd: (asset: string, maxImpact: number) => number | null,
): StressAsset[] {
  const reserves = new Map(snapshot.reserves.map((r) => [r.asset, r]));
  const morphoLltv = new Map((snapshot.morphoMarkets ?? []).map((m) => [m.id, m.lltv]));
  const collateralAssets = [...new Set(snapshot.positions.flatMap((p) => p.collateral))].sort();
  const out: StressAsset[] = [];
  for (const asset of collateralAssets) {
    const reserve = reserves.get(asset);
    if (!reserve) continue;
    const shock = SHOCK_TIERS[reserve.symbol] ?? DEFAULT_SHOCK;
    const bonus = reserve.liquidationBonus ?? 0;
    let debtRepaid = 0;
    let toSell = 0;
    let liquidated = 0;
    let premiumWeighted = 0;
    let shortfall = 0;
    let withShortfall = 0;
    for (const p of snapshot.positions) {
      if (!p.collateral.includes(asset) || !(p.debtUsd > 0)) continue;
      let weighted = 0;
      let collateralOfAsset = 0;
      let collateralTotal = 0;
      for (const c of p.collateral) {
        const r = reserves.get(c);
        const raw = p.supplied[c];
        if (!r || !raw) continue;
        const value = reserveUsd(r, raw) * (c === asset ? 1 - shock : 1);
        const lt =
          p.thresholds[c] ??
          (design === 'morpho-blue' ? (morphoLltv.get(p.marketId) ?? 0) : (r.liquidationThreshold ?? 0));
        weighted += value * lt;
        collateralTotal += value;
        if (c === asset) collateralOfAsset = value;
      }
      let debt = 0;
      for (const [d, raw] of Object.entries(p.borrowed)) {
        const r = reserves.get(d);
        if (r) debt += reserveUsd(r, raw) * (d === asset ? 1 - shock : 1);
      }
      if (!(debt > 0)) continue;
      const hf = weighted / debt;
      if (hf >= 1) continue;
      const closeFactor = design === 'morpho-blue' || hf < CLOSE_FACTOR_HF_THRESHOLD ? 1 : 0.5;
      const premium = p.bonuses[asset] ?? bonus;
      // As Aave's liquidationCall (and Morpho's liquidate): the seizure is capped by the collateral held, and the
      // debt repaid is then only what that collateral covers at the premium.
      const seized = Math.min(collateralOfAsset, debt * closeFactor * (1 + premium));
      const repaid = seized / (1 + premium);
      liquidated += 1;
      debtRepaid += repaid;
      toSell += seized;
      premiumWeighted += seized * premium;
      if (debt > collateralTotal) {
        shortfall += debt - collateralTotal;
        withShortfall += 1;
      }
    }
    // The sale must fit in the premium the liquidators earn (E-mode positions earn less than the reserve's bonus).
    const premium = toSell > 0 ? premiumWeighted / toSell : bonus;
    const depth = toSell > 0 && premium > 0 ? depthUsd(asset, premium) : toSell > 0 ? 0 : null;
    out.push({
      asset,
      symbol: reserve.symbol,
      shock,
      liquidation_bonus: premium,
      positions_liquidated: liquidated,
      debt_repaid_usd: debtRepaid,
      shortfall_usd: shortfall,
      positions_with_shortfall: withShortfall,
      collateral_to_sell_usd: toSell,
      dex_depth_usd: depth,
      covered: toSell > 0 ? Math.min(1, (depth ?? 0) / toSell) : 1,
    });
  }
  return out;
}

/** Component inputs as published: USD to cents, fractions to 4 decimals (as the DEX and development scores). */
const usd = (x: number) => roundTo(x, 2);
const frac = (x: number | null) => (x === null ? null : roundTo(x, 4));

export function gapScore(t: number, partial: boolean, reason: string): LendingScoreEntry {
  return {
    ...combineScore([], { methodology: LENDING_METHODOLOGY, at: t, aggregation: 'weighted-geometric-mean' }),
    date: utcDate(t),
    partial,
    gap_reason: reason,
  };
}

/** The liquidity health score of one market at the snapshot's instant `t`. */
export function scoreMarket(
  snapshot: MarketSnapshot,
  design: 'aave-v3' | 'morpho-blue',
  depthUsd: (asset: string, maxImpact: number) => number | null,
  t: number,
  partial: boolean,
): LendingScoreEntry {
  const bands = healthDistribution(snapshot.positions);
  const totalDebt = bands.reduce((s, b) => s + b.debt_usd, 0);
  const riskShare =
    totalDebt > 0 ? bands.reduce((s, b, i) => s + b.debt_usd * HEALTH_BANDS[i]!.risk, 0) / totalDebt : null;
  const health: ComponentInput = {
    name: 'health_factor_distribution',
    value: riskShare === null ? null : Math.max(0, 1 - riskShare / HEALTH_ZERO_AT),
    weight: WEIGHTS.health_factor_distribution,
    inputs: {
      total_debt_usd: usd(totalDebt),
      risk_weighted_share: frac(riskShare),
      bands: bands.map((b) => ({ band: b.band, debt_usd: usd(b.debt_usd), positions: b.positions })),
    },
  };

  let utilNum = 0;
  let utilDen = 0;
  const perReserve: Record<string, unknown>[] = [];
  for (const r of snapshot.reserves) {
    if (!r.borrowingEnabled) continue;
    const supply = toUnits(BigInt(r.totalSupplyRaw), r.decimals);
    if (!(supply > 0)) continue;
    const u = toUnits(BigInt(r.totalBorrowRaw), r.decimals) / supply;
    const kink = r.optimalUtilisation ?? DEFAULT_KINK;
    const value = 1 - utilisationPenalty(u, kink);
    const weight = supply * (r.priceUsd ?? 0);
    perReserve.push({
      asset: r.asset,
      symbol: r.symbol,
      utilisation: frac(u),
      kink: frac(kink),
      value: frac(value),
      supply_usd: usd(weight),
    });
    utilNum += value * weight;
    utilDen += weight;
  }
  const utilisation: ComponentInput = {
    name: 'utilisation',
    value: utilDen > 0 ? utilNum / utilDen : null,
    weight: WEIGHTS.utilisation,
    inputs: { m: UTILISATION_M, k: UTILISATION_K, reserves: perReserve },
  };

  const { supplied, borrowed } = accountTotals(snapshot);
  const concentration = (name: string, weight: number, amounts: Map<string, number>): ComponentInput => {
    const values = [...amounts.values()].filter((x) => x > 0);
    const h = hhi(values);
    return { name, value: h === null ? null : 1 - h, weight, inputs: { accounts: values.length, hhi: frac(h) } };
  };

  const stress = stressTest(snapshot, design, depthUsd);
  const toSell = stress.reduce((s, x) => s + x.collateral_to_sell_usd, 0);
  const liquidity: ComponentInput = {
    name: 'liquidation_liquidity',
    value:
      stress.length === 0
        ? null
        : toSell > 0
          ? stress.reduce((s, x) => s + x.collateral_to_sell_usd * x.covered, 0) / toSell
          : 1,
    weight: WEIGHTS.liquidation_liquidity,
    inputs: {
      collateral_to_sell_usd: usd(toSell),
      // Each asset is shocked alone: the total is the sum of those scenarios, as collateral_to_sell_usd.
      shortfall_usd: usd(stress.reduce((s, x) => s + x.shortfall_usd, 0)),
      assets: stress.map((x) => ({
        ...x,
        liquidation_bonus: frac(x.liquidation_bonus),
        debt_repaid_usd: usd(x.debt_repaid_usd),
        shortfall_usd: usd(x.shortfall_usd),
        collateral_to_sell_usd: usd(x.collateral_to_sell_usd),
        dex_depth_usd: x.dex_depth_usd === null ? null : usd(x.dex_depth_usd),
        covered: frac(x.covered),
      })),
    },
  };

  const record = combineScore(
    [
      health,
      liquidity,
      utilisation,
      concentration('supplier_concentration', WEIGHTS.supplier_concentration, supplied),
      concentration('borrower_concentration', WEIGHTS.borrower_concentration, borrowed),
    ],
    { methodology: LENDING_METHODOLOGY, at: t, aggregation: 'weighted-geometric-mean' },
  );
  return { ...record, date: utcDate(t), partial, gap_reason: record.score === null ? 'no_positions' : null };
}
