/**
 * The liquidity health score of lending markets, `lending.liquidity-health@1.4.0`
 * (docs/methodology/lending-liquidity-health.md). Pure: a market snapshot, its tokens' policy prices and a DEX depth
 * function (both as known at the snapshot's instant) in, a score record out.
 */
import type { PolicyPrice } from '../../core/price-policy.js';
import { type ComponentInput, combineScore, methodologyId, roundTo, scoreGapReason } from '../../core/score.js';
import { hhi } from '../../core/stats.js';
import { utcDate } from '../../core/time.js';
import type { MarketSnapshot, PositionSnapshot, ReserveSnapshot } from './facts.js';
import type { HealthBandEntry, LendingScoreEntry } from './schema.js';
import { toUnits } from './units.js';

export const LENDING_METHODOLOGY = methodologyId('lending', 'liquidity-health', '1.4.0');

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

/** A token's policy price in a snapshot (null: unpriced). */
export type PriceOf = (asset: string) => PolicyPrice | null;

/** USD depth of `asset` within `maxImpact`, valued at `priceUsd` (the same price as the collateral it absorbs). */
export type DepthUsd = (asset: string, maxImpact: number, priceUsd: number) => number | null;

/**
 * Policy prices from the snapshot's own oracle answers alone (fresh at the snapshot: Aave reads them at its block).
 * What a market without other evidence is valued at; compute passes the chain-wide policy prices instead.
 */
export function ownOraclePrices(snapshot: MarketSnapshot): PriceOf {
  const prices = new Map(
    snapshot.reserves.map((r): [string, PolicyPrice | null] => [
      r.asset,
      r.priceUsd !== null && r.priceUsd > 0
        ? {
            price_usd: r.priceUsd,
            source: 'oracle',
            source_ref: snapshot.oracle ?? snapshot.pool,
            confidence: 0.95,
            alternative_price_usd: null,
            disagreement: null,
            flagged: false,
          }
        : null,
    ]),
  );
  return (asset) => prices.get(asset) ?? null;
}

/** A position valued at policy prices: null USD figures when one of its tokens is unpriced. */
export interface ValuedPosition {
  readonly account: string;
  readonly marketId: string;
  readonly eMode: number;
  readonly collateralUsd: number | null;
  readonly debtUsd: number | null;
  /**
   * Σ collateral_usd × the position's own liquidation threshold (E-mode category's, Morpho LLTV) / debt_usd: the
   * formula of the protocols and of the stress test at no shock, so the distribution and the stress test agree.
   */
  readonly healthFactor: number | null;
}

/** The threshold of a collateral for a position: its own (E-mode aware, Morpho LLTV), else the reserve's. */
function thresholdOf(
  p: PositionSnapshot,
  asset: string,
  r: ReserveSnapshot,
  design: 'aave-v3' | 'morpho-blue',
  morphoLltv: ReadonlyMap<string, number>,
): number {
  return (
    p.thresholds[asset] ??
    (design === 'morpho-blue' ? (morphoLltv.get(p.marketId) ?? 0) : (r.liquidationThreshold ?? 0))
  );
}

/** Every position valued with the snapshot's policy prices, its health factor recomputed with its own thresholds. */
export function valuePositions(
  snapshot: MarketSnapshot,
  design: 'aave-v3' | 'morpho-blue',
  priceOf: PriceOf,
  shock: { asset: string; drop: number } | null = null,
): ValuedPosition[] {
  const reserves = new Map(snapshot.reserves.map((r) => [r.asset, r]));
  const morphoLltv = new Map((snapshot.morphoMarkets ?? []).map((m) => [m.id, m.lltv]));
  const value = (asset: string, raw: string): number | null => {
    const r = reserves.get(asset);
    const p = priceOf(asset);
    if (!r) return 0;
    if (BigInt(raw) === 0n) return 0;
    if (!p) return null;
    return toUnits(BigInt(raw), r.decimals) * p.price_usd * (shock && shock.asset === asset ? 1 - shock.drop : 1);
  };
  return snapshot.positions.map((p) => {
    let collateral: number | null = 0;
    let weighted: number | null = 0;
    for (const c of p.collateral) {
      const r = reserves.get(c);
      const raw = p.supplied[c];
      if (!r || !raw) continue;
      const v = value(c, raw);
      collateral = v === null || collateral === null ? null : collateral + v;
      weighted = v === null || weighted === null ? null : weighted + v * thresholdOf(p, c, r, design, morphoLltv);
    }
    let debt: number | null = 0;
    for (const [d, raw] of Object.entries(p.borrowed)) {
      const v = value(d, raw);
      debt = v === null || debt === null ? null : debt + v;
    }
    return {
      account: p.account,
      marketId: p.marketId,
      eMode: p.eMode,
      collateralUsd: collateral,
      debtUsd: debt,
      healthFactor: debt === null || weighted === null || !(debt > 0) ? null : weighted / debt,
    };
  });
}

/** Borrowers' debt by health-factor band; positions with debt that could not be valued are counted apart. */
export function healthDistribution(
  positions: readonly { healthFactor: number | null; debtUsd: number | null }[],
): HealthBandEntry[] {
  const rows: HealthBandEntry[] = HEALTH_BANDS.map((b) => ({
    band: b.band,
    min: b.min,
    max: Number.isFinite(b.max) ? b.max : null,
    debt_usd: 0,
    positions: 0,
  }));
  for (const p of positions) {
    if (p.healthFactor === null || p.debtUsd === null || !(p.debtUsd > 0)) continue;
    const i = HEALTH_BANDS.findIndex((b) => p.healthFactor! >= b.min && p.healthFactor! < b.max);
    const row = rows[i === -1 ? rows.length - 1 : i]!;
    row.debt_usd += p.debtUsd;
    row.positions += 1;
  }
  return rows;
}

/** Positions whose debt or collateral has no price: their health is unknown. */
export function unpricedBorrowers(snapshot: MarketSnapshot, valued: readonly ValuedPosition[]): number {
  return valued.filter(
    (v, i) =>
      (v.debtUsd === null || v.collateralUsd === null) &&
      Object.values(snapshot.positions[i]!.borrowed).some((x) => BigInt(x) > 0n),
  ).length;
}

/** The utilisation penalty in [0, 1] for utilisation u and a kink. */
export function utilisationPenalty(u: number, kink: number): number {
  const x = Math.min(Math.max(u, 0), 1);
  if (x <= kink) return (UTILISATION_M * x) / kink;
  const span = Math.expm1(UTILISATION_K * (1 - kink));
  return UTILISATION_M + ((1 - UTILISATION_M) * Math.expm1(UTILISATION_K * (x - kink))) / span;
}

/** Per account, USD supplied and borrowed over the market's reserves (null: a balance without a price). */
export function accountTotals(
  snapshot: MarketSnapshot,
  priceOf: PriceOf,
): {
  supplied: Map<string, number>;
  borrowed: Map<string, number>;
  unpriced: boolean;
} {
  const reserves = new Map(snapshot.reserves.map((r) => [r.asset, r]));
  const supplied = new Map<string, number>();
  const borrowed = new Map<string, number>();
  let unpriced = false;
  const add = (to: Map<string, number>, account: string, asset: string, raw: string) => {
    const r = reserves.get(asset);
    if (!r || BigInt(raw) === 0n) return;
    const p = priceOf(asset);
    if (!p) {
      unpriced = true;
      return;
    }
    to.set(account, (to.get(account) ?? 0) + toUnits(BigInt(raw), r.decimals) * p.price_usd);
  };
  for (const p of snapshot.positions) {
    for (const [asset, raw] of Object.entries(p.supplied)) add(supplied, p.account, asset, raw);
    for (const [asset, raw] of Object.entries(p.borrowed)) add(borrowed, p.account, asset, raw);
  }
  return { supplied, borrowed, unpriced };
}

export interface StressAsset {
  asset: string;
  symbol: string;
  shock: number;
  /** The one price the asset's collateral and its DEX depth are valued at (core/price-policy). */
  price_usd: number | null;
  price_source: PolicyPrice['source'] | null;
  price_confidence: number | null;
  price_flagged: boolean;
  liquidation_bonus: number;
  positions_liquidated: number;
  /** Debt the liquidators repay: what the position's close factor allows, at most what the seized asset covers. */
  debt_repaid_usd: number | null;
  /**
   * Bad debt: of the liquidated positions, the debt their whole (shocked) collateral no longer covers. No
   * liquidation recovers it; it falls on the market's suppliers (or its reserve).
   */
  shortfall_usd: number | null;
  /** Liquidated positions left with a shortfall. */
  positions_with_shortfall: number;
  collateral_to_sell_usd: number | null;
  dex_depth_usd: number | null;
  covered: number | null;
  /** Why the row's figures are null (`no_price`: a token of the positions it shocks has no price). */
  gap_reason: string | null;
  /** Why a single figure is null: `dex_depth_usd` `not_applicable` (nothing to sell) or `no_liquidity` (no pool). */
  gap_reasons: Record<string, string>;
}

/**
 * The stress test: each collateral asset alone drops by its tier's shock; positions whose recomputed health factor
 * falls below 1 are liquidated (Aave: half the debt, all below 0.95; Morpho: all), the seized collateral is that
 * asset (what a liquidator sells in a crash), and it must be sold on the indexed DEX pools with a price impact
 * below the liquidation bonus. Collateral and depth of an asset are valued at one price, its policy price
 * (`priceOf`); `depthUsd(asset, impact, price)` is the USD value of the asset sellable within that impact.
 */
export function stressTest(
  snapshot: MarketSnapshot,
  design: 'aave-v3' | 'morpho-blue',
  depthUsd: DepthUsd,
  priceOf: PriceOf = ownOraclePrices(snapshot),
  shocks: Readonly<Record<string, number>> | number = SHOCK_TIERS,
): StressAsset[] {
  const reserves = new Map(snapshot.reserves.map((r) => [r.asset, r]));
  const collateralAssets = [...new Set(snapshot.positions.flatMap((p) => p.collateral))].sort();
  const out: StressAsset[] = [];
  for (const asset of collateralAssets) {
    const reserve = reserves.get(asset);
    if (!reserve) continue;
    const shock = typeof shocks === 'number' ? shocks : (shocks[reserve.symbol] ?? DEFAULT_SHOCK);
    const bonus = reserve.liquidationBonus ?? 0;
    const price = priceOf(asset);
    const valued = valuePositions(snapshot, design, priceOf, { asset, drop: shock });
    let debtRepaid = 0;
    let toSell = 0;
    let liquidated = 0;
    let premiumWeighted = 0;
    let shortfall = 0;
    let withShortfall = 0;
    let unpriced = price === null;
    snapshot.positions.forEach((p, i) => {
      if (!p.collateral.includes(asset) || !Object.values(p.borrowed).some((x) => BigInt(x) > 0n)) return;
      const v = valued[i]!;
      if (v.debtUsd === null || v.collateralUsd === null || price === null) {
        unpriced = true;
        return;
      }
      const debt = v.debtUsd;
      if (!(debt > 0) || v.healthFactor === null || v.healthFactor >= 1) return;
      const raw = p.supplied[asset];
      const collateralOfAsset = raw ? toUnits(BigInt(raw), reserve.decimals) * price.price_usd * (1 - shock) : 0;
      const closeFactor = design === 'morpho-blue' || v.healthFactor < CLOSE_FACTOR_HF_THRESHOLD ? 1 : 0.5;
      const premium = p.bonuses[asset] ?? bonus;
      // As Aave's liquidationCall (and Morpho's liquidate): the seizure is capped by the collateral held, and the
      // debt repaid is then only what that collateral covers at the premium.
      const seized = Math.min(collateralOfAsset, debt * closeFactor * (1 + premium));
      liquidated += 1;
      debtRepaid += seized / (1 + premium);
      toSell += seized;
      premiumWeighted += seized * premium;
      // Bad debt once every collateral is seized: the liquidator's bonus is paid out of the collateral, so the
      // collateral covers debt only up to collateral / (1 + premium); below that the rest is never repaid.
      const covered = v.collateralUsd / (1 + premium);
      if (debt > covered) {
        shortfall += debt - covered;
        withShortfall += 1;
      }
    });
    // The sale must fit in the premium the liquidators earn (E-mode positions earn less than the reserve's bonus).
    const premium = toSell > 0 ? premiumWeighted / toSell : bonus;
    const depth =
      unpriced || price === null ? null : toSell > 0 && premium > 0 ? depthUsd(asset, premium, price.price_usd) : null;
    out.push({
      asset,
      symbol: reserve.symbol,
      shock,
      price_usd: price?.price_usd ?? null,
      price_source: price?.source ?? null,
      price_confidence: price?.confidence ?? null,
      price_flagged: price?.flagged ?? false,
      liquidation_bonus: premium,
      positions_liquidated: liquidated,
      debt_repaid_usd: unpriced ? null : debtRepaid,
      shortfall_usd: unpriced ? null : shortfall,
      positions_with_shortfall: withShortfall,
      collateral_to_sell_usd: unpriced ? null : toSell,
      dex_depth_usd: toSell > 0 && premium > 0 ? depth : null,
      covered: unpriced ? null : toSell > 0 ? Math.min(1, (depth ?? 0) / toSell) : 1,
      gap_reason: unpriced ? 'no_price' : null,
      gap_reasons: unpriced
        ? {}
        : toSell > 0 && premium > 0 && depth === null
          ? { dex_depth_usd: 'no_liquidity' }
          : depth === null
            ? { dex_depth_usd: 'not_applicable' }
            : {},
    });
  }
  return out;
}

/** Component inputs as published: USD to cents, fractions to 4 decimals (as the DEX and development scores). */
const usd = (x: number) => roundTo(x, 2);
const usdOrNull = (x: number | null) => (x === null ? null : roundTo(x, 2));
const frac = (x: number | null) => (x === null ? null : roundTo(x, 4));

/** The identifiers of the market a score record is about (API.md: score records name their entity). */
export interface ScoreIdentity {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  readonly base_asset: string;
}

export function gapScore(
  t: number,
  partial: boolean,
  reason: string,
  identity?: ScoreIdentity | { protocol: string },
): LendingScoreEntry {
  return {
    ...identity,
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
  depthUsd: DepthUsd,
  t: number,
  partial: boolean,
  priceOf: PriceOf = ownOraclePrices(snapshot),
  identity?: ScoreIdentity,
): LendingScoreEntry {
  const valued = valuePositions(snapshot, design, priceOf);
  const unpricedPositions = unpricedBorrowers(snapshot, valued);
  const bands = healthDistribution(valued);
  const totalDebt = bands.reduce((s, b) => s + b.debt_usd, 0);
  const riskShare =
    totalDebt > 0 && unpricedPositions === 0
      ? bands.reduce((s, b, i) => s + b.debt_usd * HEALTH_BANDS[i]!.risk, 0) / totalDebt
      : null;
  const health: ComponentInput = {
    name: 'health_factor_distribution',
    value: riskShare === null ? null : Math.max(0, 1 - riskShare / HEALTH_ZERO_AT),
    weight: WEIGHTS.health_factor_distribution,
    inputs: {
      total_debt_usd: unpricedPositions ? null : usd(totalDebt),
      risk_weighted_share: frac(riskShare),
      unpriced_positions: unpricedPositions,
      bands: bands.map((b) => ({ band: b.band, debt_usd: usd(b.debt_usd), positions: b.positions })),
      gap_reason: unpricedPositions ? 'no_price' : totalDebt > 0 ? null : 'no_positions',
    },
  };

  let utilNum = 0;
  let utilDen = 0;
  let utilUnpriced = false;
  const perReserve: Record<string, unknown>[] = [];
  for (const r of snapshot.reserves) {
    if (!r.borrowingEnabled) continue;
    const supply = toUnits(BigInt(r.totalSupplyRaw), r.decimals);
    if (!(supply > 0)) continue;
    const u = toUnits(BigInt(r.totalBorrowRaw), r.decimals) / supply;
    const kink = r.optimalUtilisation ?? DEFAULT_KINK;
    const value = 1 - utilisationPenalty(u, kink);
    const price = priceOf(r.asset);
    if (!price) utilUnpriced = true;
    const weight = price ? supply * price.price_usd : null;
    perReserve.push({
      asset: r.asset,
      symbol: r.symbol,
      utilisation: frac(u),
      kink: frac(kink),
      value: frac(value),
      supply_usd: usdOrNull(weight),
      price_source: price?.source ?? null,
    });
    if (weight !== null) {
      utilNum += value * weight;
      utilDen += weight;
    }
  }
  const utilisation: ComponentInput = {
    name: 'utilisation',
    value: utilDen > 0 && !utilUnpriced ? utilNum / utilDen : null,
    weight: WEIGHTS.utilisation,
    inputs: {
      m: UTILISATION_M,
      k: UTILISATION_K,
      reserves: perReserve,
      gap_reason: utilUnpriced ? 'no_price' : utilDen > 0 ? null : 'no_positions',
    },
  };

  const { supplied, borrowed, unpriced } = accountTotals(snapshot, priceOf);
  const concentration = (name: string, weight: number, amounts: Map<string, number>): ComponentInput => {
    const values = [...amounts.values()].filter((x) => x > 0);
    const h = unpriced ? null : hhi(values);
    return {
      name,
      value: h === null ? null : 1 - h,
      weight,
      inputs: {
        accounts: values.length,
        hhi: frac(h),
        gap_reason: unpriced ? 'no_price' : h === null ? 'no_positions' : null,
      },
    };
  };

  const stress = stressTest(snapshot, design, depthUsd, priceOf);
  const stressUnknown = stress.some((x) => x.gap_reason !== null);
  const toSell = stressUnknown ? null : stress.reduce((s, x) => s + x.collateral_to_sell_usd!, 0);
  const liquidity: ComponentInput = {
    name: 'liquidation_liquidity',
    value:
      stress.length === 0 || toSell === null
        ? null
        : toSell > 0
          ? stress.reduce((s, x) => s + x.collateral_to_sell_usd! * x.covered!, 0) / toSell
          : 1,
    weight: WEIGHTS.liquidation_liquidity,
    inputs: {
      collateral_to_sell_usd: usdOrNull(toSell),
      // Each asset is shocked alone: the total is the sum of those scenarios, as collateral_to_sell_usd.
      shortfall_usd: stressUnknown ? null : usd(stress.reduce((s, x) => s + x.shortfall_usd!, 0)),
      gap_reason: stressUnknown ? 'no_price' : stress.length === 0 ? 'no_positions' : null,
      assets: stress.map((x) => ({
        ...x,
        price_confidence: frac(x.price_confidence),
        liquidation_bonus: frac(x.liquidation_bonus),
        debt_repaid_usd: usdOrNull(x.debt_repaid_usd),
        shortfall_usd: usdOrNull(x.shortfall_usd),
        collateral_to_sell_usd: usdOrNull(x.collateral_to_sell_usd),
        dex_depth_usd: usdOrNull(x.dex_depth_usd),
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
  return {
    ...identity,
    ...record,
    date: utcDate(t),
    partial,
    // Nothing held at all: the market's own reason rather than insufficient evidence.
    gap_reason:
      record.score === null &&
      !snapshot.positions.some((p) => Object.keys(p.supplied).length || Object.keys(p.borrowed).length)
        ? 'no_positions'
        : scoreGapReason(record, 'no_positions'),
  };
}
