/**
 * Liquid staking token (LST) exposure in one lending market, from the market's state at one block
 * (`MarketSnapshot` of the lending area). Pure. docs/methodology/liquid-staking-exposure.md explains the model.
 *
 * Scope (`<flag>`, API.md): looped positions only (they post the LST as collateral AND borrow its underlying), or
 * every position that posts the LST as collateral. Depeg scenarios: the LST price falls by d relative to the
 * underlying (whose price is unchanged); each position's health factor is recomputed with its LST collateral worth
 * (1 − d) as much, and positions falling below 1 are liquidatable.
 */

import { toFloat } from '../../core/decimal.js';
import { choosePrice, type DexCandidate, type PolicyPrice, roundPriceUsd, roundUsd } from '../../core/price-policy.js';
import { roundTo } from '../../core/score.js';
import { isoSeconds } from '../../core/time.js';
import {
  feedCandidate,
  type MarketSnapshot,
  marketOracleCandidate,
  type PositionSnapshot,
  type ReserveSnapshot,
} from '../lending/public.js';
import type {
  DepegScenarioEntry,
  HealthBandEntry,
  LendingExposurePayload,
  LiquidStakingTokenInfoEntry,
} from './schema.js';

/** Depegs of the scenarios, as fractions (issue 4: 1, 2, 5 and 10 %). */
export const DEPEGS = [0.01, 0.02, 0.05, 0.1] as const;

/**
 * Aave V3 close factor: a liquidation may repay 50 % of the debt, or all of it once the health factor is below
 * 0.95 (Aave V3 `LiquidationLogic`: DEFAULT_LIQUIDATION_CLOSE_FACTOR 0.5, CLOSE_FACTOR_HF_THRESHOLD 0.95).
 */
export const AAVE_CLOSE_FACTOR = 0.5;
export const AAVE_FULL_CLOSE_BELOW_HF = 0.95;

/** Morpho Blue liquidation incentive factor: min(1.15, 1 / (1 − 0.3 · (1 − LLTV))) (Morpho Blue `ConstantsLib`). */
export const MORPHO_MAX_LIF = 1.15;
export const MORPHO_LIF_CURSOR = 0.3;
export function morphoIncentive(lltv: number): number {
  return Math.min(MORPHO_MAX_LIF, 1 / (1 - MORPHO_LIF_CURSOR * (1 - lltv))) - 1;
}

/** Health-factor bands (lower bound inclusive), the lending area's market analytics bands (issue 4). */
export const HF_BANDS: readonly { band: string; min: number; max: number }[] = [
  { band: '<1.0', min: Number.NEGATIVE_INFINITY, max: 1 },
  { band: '1.0-1.05', min: 1, max: 1.05 },
  { band: '1.05-1.1', min: 1.05, max: 1.1 },
  { band: '1.1-1.25', min: 1.1, max: 1.25 },
  { band: '1.25-1.5', min: 1.25, max: 1.5 },
  { band: '1.5-2', min: 1.5, max: 2 },
  { band: '>2', min: 2, max: Number.POSITIVE_INFINITY },
];

export interface LstRef {
  readonly chain: string;
  readonly protocol: string;
  readonly symbol: string;
  /** Lowercase. */
  readonly token: string;
  readonly decimals: number;
  readonly underlying: string;
  readonly underlyingSymbol: string;
}

export interface LendingMarketRef {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  readonly baseAsset: string;
  readonly marketName: string;
  readonly design: 'aave-v3' | 'morpho-blue';
  readonly pool: string;
  /** Morpho: the ids of the isolated markets of this view (positions of other markets are left out). */
  readonly morphoMarketIds?: readonly string[];
}

export function lstInfo(lst: LstRef): LiquidStakingTokenInfoEntry {
  return {
    protocol: lst.protocol,
    token_address: lst.token,
    symbol: lst.symbol,
    decimals: lst.decimals,
    underlying_address: lst.underlying,
    underlying_symbol: lst.underlyingSymbol,
  };
}

/** One position as the exposure model sees it. */
export interface LstPosition {
  readonly account: string;
  readonly marketId: string;
  readonly lstToken: number;
  /** Null: a price the figure needs is unknown (never 0). */
  readonly lstUsd: number | null;
  readonly looped: boolean;
  readonly collateralUsd: number | null;
  readonly debtUsd: number | null;
  readonly underlyingDebtUsd: number | null;
  /** Raw debt exists (whatever its price): a position with debt but no price is not a position without debt. */
  readonly hasDebt: boolean;
  readonly healthFactor: number | null;
  /** The liquidation threshold applied to the LST collateral of this position. */
  readonly lstThreshold: number;
  /** The liquidation bonus (premium) a liquidator gets seizing the LST. */
  readonly lstBonus: number;
}

export interface DepegOutcome {
  readonly healthFactor: number | null;
  readonly liquidatable: boolean;
  readonly debtRepaidUsd: number;
  readonly collateralSeizedUsd: number;
  readonly lstSeizedUsd: number;
  /** Bad debt: the debt the collateral left after the depeg no longer covers (0 when it does). */
  readonly shortfallUsd: number;
}

/**
 * A position after a depeg d: threshold-weighted collateral HF·debt loses lstUsd·LT·d (only the LST price moves),
 * so HF' = HF − lstUsd·LT·d / debt. Below 1 it is liquidatable: a liquidator repays the close factor's share of
 * the debt (Aave: 50 %, all below 0.95; Morpho: all) and seizes repaid × (1 + bonus), capped by the collateral
 * left; the LST is seized first (it is the collateral the scenario devalues and the one the bonus is set for).
 */
/** A position whose figures are all priced (the depeg scenarios need every one). */
export type PricedPosition = LstPosition & {
  readonly lstUsd: number;
  readonly collateralUsd: number;
  readonly debtUsd: number;
};

export const isPriced = (p: LstPosition): p is PricedPosition =>
  p.lstUsd !== null && p.collateralUsd !== null && p.debtUsd !== null;

export function applyDepeg(p: LstPosition, d: number, design: LendingMarketRef['design']): DepegOutcome {
  // Unpriced positions are never passed by `depegScenarios` (it publishes nothing then); here they change nothing.
  if (!isPriced(p) || p.healthFactor === null || p.debtUsd <= 0) {
    return {
      healthFactor: null,
      liquidatable: false,
      debtRepaidUsd: 0,
      collateralSeizedUsd: 0,
      lstSeizedUsd: 0,
      shortfallUsd: 0,
    };
  }
  const hf = p.healthFactor - (p.lstUsd * p.lstThreshold * d) / p.debtUsd;
  if (!(hf < 1))
    return {
      healthFactor: hf,
      liquidatable: false,
      debtRepaidUsd: 0,
      collateralSeizedUsd: 0,
      lstSeizedUsd: 0,
      shortfallUsd: 0,
    };
  const closeFactor = design === 'morpho-blue' || hf < AAVE_FULL_CLOSE_BELOW_HF ? 1 : AAVE_CLOSE_FACTOR;
  const collateralLeft = Math.max(0, p.collateralUsd - p.lstUsd * d);
  const lstLeft = p.lstUsd * (1 - d);
  const seized = Math.min(collateralLeft, p.debtUsd * closeFactor * (1 + p.lstBonus));
  // Repaid debt is what the seized collateral pays for, when the collateral runs out first.
  const repaid = Math.min(p.debtUsd * closeFactor, seized / (1 + p.lstBonus));
  return {
    healthFactor: hf,
    liquidatable: true,
    debtRepaidUsd: repaid,
    collateralSeizedUsd: seized,
    lstSeizedUsd: Math.min(lstLeft, seized),
    shortfallUsd: Math.max(0, p.debtUsd - collateralLeft),
  };
}

export interface LendingExposureResult {
  readonly payload: LendingExposurePayload;
  /** Positions in scope (for the score). */
  readonly positions: readonly LstPosition[];
}

/** The price of each asset of a market snapshot, by the one policy (core/price-policy); null: unpriced. */
export type PriceBook = (asset: string) => PolicyPrice | null;

/**
 * The prices of a market snapshot's assets by `choosePrice` at the snapshot's instant, as the lending area values
 * them (lending `feedCandidate`, `marketOracleCandidate`): a feed answer (Aave design: AaveOracle read at the
 * block, the snapshot's own or, for a Morpho view, the same chain's Aave-design markets' at that instant, `peers`)
 * wins as `oracle`; a Morpho collateral no feed prices takes its isolated market's oracle (collateral in loan token)
 * times the loan token's policy price, as `market_oracle`; the DEX price of the hour (`dex`) prices what neither
 * does and is published beside them, with the disagreement flagged above 2 %. A Morpho snapshot's stored loan-token
 * price is the DEX price of its hour, never an oracle's: it is not a candidate.
 */
export function marketPriceBook(
  snapshot: MarketSnapshot,
  market: Pick<LendingMarketRef, 'design' | 'pool' | 'morphoMarketIds'>,
  dex: (asset: string) => DexCandidate | null = () => null,
  peers: readonly (MarketSnapshot | undefined)[] = [],
): PriceBook {
  const cache = new Map<string, PolicyPrice | null>();
  const inView = (id: string) =>
    !market.morphoMarketIds || market.morphoMarketIds.some((x) => x.toLowerCase() === id.toLowerCase());
  const book: PriceBook = (asset) => {
    const a = asset.toLowerCase();
    if (cache.has(a)) return cache.get(a)!;
    cache.set(a, null); // no cycle through a market whose loan token is its own collateral
    let oracle = feedCandidate(snapshot, peers, a);
    if (!oracle && market.design === 'morpho-blue') {
      const m = (snapshot.morphoMarkets ?? []).find(
        (x) => x.collateralToken.toLowerCase() === a && x.oraclePrice !== null && inView(x.id),
      );
      if (m) oracle = marketOracleCandidate(m, book(m.loanToken.toLowerCase()), snapshot.timestamp);
    }
    const chosen = choosePrice(snapshot.timestamp, oracle, dex(a));
    cache.set(a, chosen);
    return chosen;
  };
  return book;
}

/** The market's own prices only (no DEX fallback): what the snapshot carries. */
export const snapshotPriceBook = (snapshot: MarketSnapshot, market: LendingMarketRef): PriceBook =>
  marketPriceBook(snapshot, market);

const rawOf = (balances: Readonly<Record<string, string>>, asset: string): bigint => {
  const v = balances[asset] ?? balances[asset.toLowerCase()];
  return v === undefined ? 0n : BigInt(v);
};

/** One USD precision with lending (core/price-policy `roundUsd`): never 0 beside a non-zero amount. */
const usd6 = roundUsd;
const usdOrNull = (x: number | null) => (x === null ? null : roundUsd(x));
const round6 = (x: number | null) => (x === null ? null : roundTo(x, 6));
/** A ratio of two known figures; 0/0 and anything over an unknown figure is null (never 0 or 1). */
const ratio = (num: number | null, den: number | null) =>
  num === null || den === null || !(den > 0) ? null : roundTo(num / den, 6);
/** A sum over parts of which any is unknown is unknown. */
function sumKnown<T>(xs: readonly T[], f: (x: T) => number | null): number | null {
  let s = 0;
  for (const x of xs) {
    const v = f(x);
    if (v === null) return null;
    s += v;
  }
  return s;
}

/** The positions of the market view (Morpho: only those of the view's isolated markets). */
export function viewPositions(snapshot: MarketSnapshot, market: LendingMarketRef): readonly PositionSnapshot[] {
  if (market.design !== 'morpho-blue' || !market.morphoMarketIds) return snapshot.positions;
  const ids = new Set(market.morphoMarketIds.map((x) => x.toLowerCase()));
  return snapshot.positions.filter((p) => ids.has(p.marketId.toLowerCase()));
}

function decimalsOf(snapshot: MarketSnapshot, asset: string, lst: LstRef): number | null {
  if (asset === lst.token) return lst.decimals;
  return snapshot.reserves.find((r) => r.asset === asset)?.decimals ?? null;
}

/** USD of raw balances at the book's prices; null when one asset is unpriced. */
function balancesUsd(
  balances: Readonly<Record<string, string>>,
  assets: readonly string[],
  snapshot: MarketSnapshot,
  lst: LstRef,
  book: PriceBook,
): number | null {
  let s = 0;
  for (const a of assets) {
    const raw = rawOf(balances, a);
    if (raw === 0n) continue;
    const price = book(a.toLowerCase());
    const decimals = decimalsOf(snapshot, a.toLowerCase(), lst);
    if (!price || decimals === null) return null;
    s += toFloat(raw, decimals) * price.price_usd;
  }
  return s;
}

/**
 * A position's collateral and debt in USD. Aave: the protocol's own figures (getUserAccountData, at AaveOracle's
 * prices, which are the market-oracle prices the book chooses). Morpho: its balances at the book's prices (the
 * snapshot's USD figures are 0 where the loan token had no price; a missing price is never a zero).
 */
function positionUsd(
  p: PositionSnapshot,
  snapshot: MarketSnapshot,
  market: LendingMarketRef,
  lst: LstRef,
  book: PriceBook,
): { collateralUsd: number | null; debtUsd: number | null } {
  if (market.design !== 'morpho-blue') return { collateralUsd: p.collateralUsd, debtUsd: p.debtUsd };
  return {
    collateralUsd: balancesUsd(p.supplied, p.collateral, snapshot, lst, book),
    debtUsd: balancesUsd(p.borrowed, Object.keys(p.borrowed), snapshot, lst, book),
  };
}

/** Every position posting the LST as collateral, with the figures the model needs. */
export function lstPositions(
  snapshot: MarketSnapshot,
  market: LendingMarketRef,
  lst: LstRef,
  book: PriceBook = snapshotPriceBook(snapshot, market),
): LstPosition[] {
  const reserve = snapshot.reserves.find((r) => r.asset === lst.token);
  const underlying = snapshot.reserves.find((r) => r.asset === lst.underlying);
  const lstPrice = book(lst.token)?.price_usd ?? null;
  const underlyingPrice = book(lst.underlying)?.price_usd ?? null;
  const morpho = new Map((snapshot.morphoMarkets ?? []).map((m) => [m.id.toLowerCase(), m]));
  const out: LstPosition[] = [];
  for (const p of viewPositions(snapshot, market)) {
    const raw = rawOf(p.supplied, lst.token);
    if (raw <= 0n || !p.collateral.some((a) => a.toLowerCase() === lst.token)) continue;
    const lstToken = toFloat(raw, lst.decimals);
    const underlyingDebtRaw = rawOf(p.borrowed, lst.underlying);
    const hasDebt = Object.values(p.borrowed).some((v) => BigInt(v) > 0n);
    const { collateralUsd, debtUsd } = positionUsd(p, snapshot, market, lst, book);
    // The position's own threshold and bonus for the LST (E-mode category or Morpho LLTV/incentive) when the
    // snapshot carries them; snapshots written before they existed fall back to the market's figures.
    let threshold = p.thresholds?.[lst.token];
    let bonus = p.bonuses?.[lst.token];
    if (threshold === undefined || bonus === undefined) {
      if (market.design === 'morpho-blue') {
        const m = morpho.get(p.marketId.toLowerCase());
        threshold ??= m?.lltv ?? reserve?.liquidationThreshold ?? 0;
        bonus ??= morphoIncentive(threshold);
      } else {
        bonus ??= reserve?.liquidationBonus ?? 0;
        if (threshold === undefined) {
          threshold = reserve?.liquidationThreshold ?? 0;
          // A position whose only collateral is the LST shows its effective threshold in its own figures
          // (HF · debt / collateral): this catches E-mode without the per-position figures.
          const onlyLst = p.collateral.every((a) => a.toLowerCase() === lst.token || rawOf(p.supplied, a) === 0n);
          if (onlyLst && p.healthFactor !== null && p.debtUsd > 0 && p.collateralUsd > 0) {
            threshold = (p.healthFactor * p.debtUsd) / p.collateralUsd;
          }
        }
      }
    }
    out.push({
      account: p.account,
      marketId: p.marketId,
      lstToken,
      lstUsd: lstPrice === null ? null : lstToken * lstPrice,
      looped: underlyingDebtRaw > 0n,
      collateralUsd,
      debtUsd,
      hasDebt,
      underlyingDebtUsd:
        underlyingDebtRaw === 0n
          ? 0
          : underlyingPrice === null
            ? null
            : toFloat(underlyingDebtRaw, underlying?.decimals ?? 18) * underlyingPrice,
      healthFactor: hasDebt ? p.healthFactor : null,
      lstThreshold: threshold,
      lstBonus: bonus,
    });
  }
  return out.sort((a, b) =>
    a.account < b.account ? -1 : a.account > b.account ? 1 : a.marketId < b.marketId ? -1 : 1,
  );
}

function bandOf(hf: number): string {
  return HF_BANDS.find((b) => hf >= b.min && hf < b.max)!.band;
}

export function healthBands(positions: readonly LstPosition[]): HealthBandEntry[] {
  return HF_BANDS.map(({ band }) => {
    const members = positions.filter((p) => p.healthFactor !== null && bandOf(p.healthFactor) === band);
    return {
      band,
      position_count: members.length,
      debt_usd: usdOrNull(sumKnown(members, (p) => p.debtUsd)),
      lst_collateral_usd: usdOrNull(sumKnown(members, (p) => p.lstUsd)),
    };
  });
}

/**
 * The depeg scenarios. Every figure needs every position priced: when one is not, the scenarios are not published
 * (the caller publishes the gap reason) rather than computed over the priced part.
 */
export function depegScenarios(
  positions: readonly LstPosition[],
  design: LendingMarketRef['design'],
  lstPriceUsd: number | null,
): DepegScenarioEntry[] {
  if (lstPriceUsd === null || !positions.every(isPriced)) return [];
  const priced = positions as readonly PricedPosition[];
  const debt = priced.reduce((s, p) => s + p.debtUsd, 0);
  return DEPEGS.map((d) => {
    let count = 0;
    let atRisk = 0;
    let repaid = 0;
    let seized = 0;
    let lstSeized = 0;
    let bonusWeighted = 0;
    let shortfall = 0;
    let withShortfall = 0;
    for (const p of priced) {
      const o = applyDepeg(p, d, design);
      if (!o.liquidatable) continue;
      count++;
      atRisk += p.debtUsd;
      repaid += o.debtRepaidUsd;
      seized += o.collateralSeizedUsd;
      lstSeized += o.lstSeizedUsd;
      bonusWeighted += o.lstSeizedUsd * p.lstBonus;
      shortfall += o.shortfallUsd;
      if (o.shortfallUsd > 0) withShortfall++;
    }
    const postPrice = lstPriceUsd * (1 - d);
    return {
      depeg_pct: roundTo(d * 100, 4),
      positions_liquidatable: count,
      debt_at_risk_usd: usd6(atRisk),
      share_of_debt: ratio(atRisk, debt),
      debt_repaid_usd: usd6(repaid),
      collateral_liquidated_usd: usd6(seized),
      lst_liquidated_usd: usd6(lstSeized),
      lst_liquidated_token: postPrice > 0 ? roundTo(lstSeized / postPrice, 9) : 0,
      lst_liquidation_bonus: lstSeized > 0 ? roundTo(bonusWeighted / lstSeized, 6) : null,
      shortfall_usd: usd6(shortfall),
      positions_with_shortfall: withShortfall,
      gap_reasons: {
        ...(debt > 0 ? {} : { share_of_debt: 'no_positions' }),
        ...(lstSeized > 0 ? {} : { lst_liquidation_bonus: 'not_applicable' }),
      },
    };
  });
}

/** A policy price as the payloads publish it (4-decimal confidence and gap are already rounded by the policy). */
export const publishedPrice = (p: PolicyPrice | null): PolicyPrice | null =>
  p === null
    ? null
    : {
        ...p,
        price_usd: roundPriceUsd(p.price_usd),
        alternative_price_usd: p.alternative_price_usd === null ? null : roundPriceUsd(p.alternative_price_usd),
      };

/**
 * LST analytics in a lending market at the snapshot's block. `exchangeRate`: underlying per LST at that block
 * (null when it could not be read). `book`: the policy prices of the snapshot's assets (default: the market's own).
 */
export function lendingExposure(
  snapshot: MarketSnapshot,
  market: LendingMarketRef,
  lst: LstRef,
  loopedOnly: boolean,
  exchangeRate: number | null,
  book: PriceBook = snapshotPriceBook(snapshot, market),
): LendingExposureResult {
  const reserve: ReserveSnapshot | undefined = snapshot.reserves.find((r) => r.asset === lst.token);
  const all = lstPositions(snapshot, market, lst, book);
  const scope = loopedOnly ? all.filter((p) => p.looped) : all;
  const looped = all.filter((p) => p.looped);
  const tokens = (xs: readonly LstPosition[]) => xs.reduce((s, p) => s + p.lstToken, 0);
  const lstPolicy = book(lst.token);
  const underlyingPolicy = book(lst.underlying);
  const lstPrice = lstPolicy?.price_usd ?? null;
  const underlyingPrice = underlyingPolicy?.price_usd ?? null;
  const viewAll = viewPositions(snapshot, market);
  const marketCollateral = sumKnown(viewAll, (p) => positionUsd(p, snapshot, market, lst, book).collateralUsd);
  const lstCollateralToken = tokens(scope);
  const lstCollateralUsd = lstPrice === null ? null : lstCollateralToken * lstPrice;
  const morphoLltv = (snapshot.morphoMarkets ?? []).find(
    (m) =>
      m.collateralToken.toLowerCase() === lst.token &&
      (!market.morphoMarketIds || market.morphoMarketIds.some((id) => id.toLowerCase() === m.id.toLowerCase())),
  )?.lltv;
  const threshold = market.design === 'morpho-blue' ? (morphoLltv ?? null) : (reserve?.liquidationThreshold ?? null);
  const bonus =
    market.design === 'morpho-blue'
      ? morphoLltv === undefined
        ? null
        : roundTo(morphoIncentive(morphoLltv), 6)
      : (reserve?.liquidationBonus ?? null);
  const totalSupplied = reserve ? toFloat(BigInt(reserve.totalSupplyRaw), reserve.decimals) : null;
  const debtUsd = sumKnown(scope, (p) => p.debtUsd);
  const underlyingDebtUsd = sumKnown(scope, (p) => p.underlyingDebtUsd);
  const loopedUsd = lstPrice === null ? null : tokens(looped) * lstPrice;
  const scenarios = depegScenarios(scope, market.design, lstPrice);
  const gaps: Record<string, string> = {};
  const noPrice = (field: string, v: unknown) => {
    if (v === null) gaps[field] = 'no_price';
  };
  if (!reserve) {
    for (const f of ['lst_price_usd', 'total_lst_supplied_token', 'total_lst_supplied_usd']) gaps[f] = 'not_listed';
  }
  noPrice('lst_price_usd', lstPrice);
  noPrice('underlying_price_usd', underlyingPrice);
  if (exchangeRate === null) gaps.exchange_rate = 'no_data';
  const pegView =
    lstPrice !== null && underlyingPrice && exchangeRate ? lstPrice / (underlyingPrice * exchangeRate) : null;
  if (pegView === null) gaps.oracle_price_vs_peg = gaps.exchange_rate ?? 'no_price';
  const totalSuppliedUsd = totalSupplied !== null && lstPrice !== null ? usd6(totalSupplied * lstPrice) : null;
  if (reserve) noPrice('total_lst_supplied_usd', totalSuppliedUsd);
  noPrice('lst_collateral_usd', lstCollateralUsd);
  noPrice('market_collateral_usd', marketCollateral);
  const share = ratio(lstCollateralUsd, marketCollateral);
  if (share === null)
    gaps.share_of_market_collateral = gaps.lst_collateral_usd ?? gaps.market_collateral_usd ?? 'no_positions';
  noPrice('looped_collateral_usd', loopedUsd);
  // The loop share is a share of one token's amounts: no price needed (one figure, one price: here none).
  const loopedShare = ratio(tokens(looped), tokens(all));
  if (loopedShare === null) gaps.looped_share = 'no_positions';
  noPrice('debt_usd', debtUsd);
  noPrice('underlying_debt_usd', underlyingDebtUsd);
  if (scope.length && !scenarios.length) gaps.depeg_scenarios = 'no_price';
  const payload: LendingExposurePayload = {
    chain: market.chain,
    protocol: market.protocol,
    version: market.version,
    base_asset_symbol: market.baseAsset,
    pool_address: market.pool,
    design: market.design,
    looped_only: loopedOnly,
    liquid_staking_token: lstInfo(lst),
    snapshot_block: snapshot.blockNumber,
    lst_listed: reserve !== undefined,
    exchange_rate: exchangeRate,
    lst_price_usd: lstPrice === null ? null : roundPriceUsd(lstPrice),
    lst_price: publishedPrice(lstPolicy),
    underlying_price_usd: underlyingPrice === null ? null : roundPriceUsd(underlyingPrice),
    underlying_price: publishedPrice(underlyingPolicy),
    oracle_price_vs_peg: pegView === null ? null : roundTo(pegView, 6),
    ltv: round6(market.design === 'morpho-blue' ? threshold : (reserve?.ltv ?? null)),
    liquidation_threshold: round6(threshold),
    liquidation_bonus: round6(bonus),
    total_lst_supplied_token: totalSupplied,
    total_lst_supplied_usd: totalSuppliedUsd,
    lst_collateral_token: roundTo(lstCollateralToken, 9),
    lst_collateral_usd: usdOrNull(lstCollateralUsd),
    market_collateral_usd: usdOrNull(marketCollateral),
    share_of_market_collateral: share,
    looped_collateral_usd: usdOrNull(loopedUsd),
    looped_share: loopedShare,
    position_count: scope.length,
    borrowing_position_count: scope.filter((p) => p.hasDebt).length,
    looped_position_count: looped.length,
    debt_usd: usdOrNull(debtUsd),
    underlying_debt_usd: usdOrNull(underlyingDebtUsd),
    health_factor_distribution: healthBands(scope),
    depeg_scenarios: scenarios,
    gap_reasons: gaps,
    as_of: isoSeconds(snapshot.timestamp),
  };
  // Every null figure has a reason: the ones above, else the LST is not listed (its reserve figures) or unknown.
  if (payload.health_factor_distribution.some((b) => b.debt_usd === null || b.lst_collateral_usd === null)) {
    gaps.health_factor_distribution = 'no_price';
  }
  for (const [field, value] of Object.entries(payload)) {
    if (value === null && !gaps[field]) gaps[field] = reserve ? 'no_data' : 'not_listed';
  }
  return { payload, positions: scope };
}
