/** Liquity v1's state figures from a TroveManager snapshot (pure): troves, the Stability Pool and redemptions. */
import { toFloat } from '../../core/decimal.js';
import type { GapReason } from '../../core/gaps.js';
import type { LiquitySnapshot, StableEventFact } from './facts.js';
import {
  distribution,
  kindShares,
  latestEvent,
  liquidatable,
  type PositionRow,
  r,
  rn,
  type StateFigures,
} from './figures.js';
import { collateralPriceFields, type Prices } from './market.js';
import type { CollateralEntry } from './schema.js';
import { EXIT_MOVE, STRESS_DROP } from './score.js';

export function liquityFigures(
  s: LiquitySnapshot,
  events: readonly StableEventFact[],
  prices: Prices,
  stableUsdPrice: number | null,
): StateFigures {
  const t = s.timestamp;
  const good = latestEvent(
    events,
    t,
    (e): e is StableEventFact => e.event.source === 'event' && e.event.kind === 'last_good_price',
  );
  const own = {
    priceUsd: toFloat(s.price, 18),
    updatedAt: good?.timestamp ?? 0,
    ref: s.addresses.priceFeed ?? s.troveManager,
  };
  const price = prices.price(s.collateralToken, t, own);
  const priced = collateralPriceFields(price, own);
  const coll = toFloat(s.systemColl, 18);
  const debt = toFloat(s.systemDebt, 18);
  const usd = price === null ? null : coll * price.price_usd;
  const mcr = toFloat(s.mcr, 18);
  const ccr = toFloat(s.ccr, 18);
  const positions: PositionRow[] = s.troves.map((x) => ({
    debt: toFloat(x.debt, 18),
    collateral: toFloat(x.coll, 18),
  }));
  const trovesDebt = s.troves.reduce((a, x) => a + x.debt, 0n);
  // Redistribution rewards are rounded per trove: the troves read are all of them when their debts sum to the
  // system's within a billionth.
  const diff = trovesDebt > s.systemDebt ? trovesDebt - s.systemDebt : s.systemDebt - trovesDebt;
  const complete = s.systemDebt === 0n ? trovesDebt === 0n : diff * 1_000_000_000n <= s.systemDebt;
  const gaps: Record<string, GapReason> = { debt_ceiling: 'not_applicable', stability_fee: 'not_applicable' };
  let dist: CollateralEntry['distribution'] = [];
  let liq: CollateralEntry['liquidatable'] = [];
  let stress: StateFigures['stress'] = null;
  let stressGap: GapReason | null = null;
  if (!complete) stressGap = 'no_data';
  else if (price === null) stressGap = 'no_price';
  else {
    dist = distribution(positions, price.price_usd);
    // Liquity v1: below MCR a trove is liquidated; in recovery mode (TCR < CCR at the dropped price) every trove
    // below the TCR (and below CCR) is too.
    liq = liquidatable(positions, price.price_usd, (drop) => {
      const tcr = debt > 0 ? (coll * price.price_usd * (1 - drop)) / debt : Number.POSITIVE_INFINITY;
      return tcr < ccr ? Math.max(mcr, tcr) : mcr;
    });
    const stressed = liq.find((l) => l.price_drop === STRESS_DROP)!;
    // The Stability Pool absorbs liquidated debt with its LUSD.
    stress = { liquidatable: stressed.debt, absorbableUsd: toFloat(s.spDeposits, 18) * (stableUsdPrice ?? 1) };
  }
  if (stressGap) {
    gaps.distribution = stressGap;
    gaps.liquidatable = stressGap;
    gaps.positions = 'no_data';
  }
  if (price === null) {
    gaps.price_usd = 'no_price';
    gaps.collateral_usd = 'no_price';
    gaps.collateralization = 'no_price';
  }
  const collateral: CollateralEntry = {
    name: 'Ether',
    symbol: 'ETH',
    kind: 'crypto',
    collateral_token_address: s.collateralToken,
    amount: r(coll),
    ...priced.fields,
    collateral_usd: rn(usd, 2),
    debt: r(debt),
    collateralization: usd === null || debt <= 0 ? null : r(usd / debt),
    min_collateralization: r(mcr),
    critical_collateralization: r(ccr),
    // A trove liquidated at the minimum ratio loses the collateral above its debt: at most MCR − 1.
    liquidation_penalty: r(mcr - 1),
    debt_ceiling: null,
    stability_fee: null,
    borrowing_rate: r(toFloat(s.borrowingRate, 18)),
    positions: complete ? positions.filter((p) => p.debt > 0).length : null,
    distribution: dist,
    liquidatable: liq,
    gap_reasons: { ...priced.gaps, ...gaps },
  };
  if (debt <= 0) collateral.gap_reasons.collateralization = 'no_positions';
  const circulatingRaw = s.totalSupply - s.protocolHeld;
  // Redemptions give $1 of ETH per LUSD minus a fee that grows with the amount: the backstop is what can be
  // redeemed within the exit move's cost by the protocol's own formula at this block, not the whole debt.
  const redeemable = liquityRedeemableWithin(s, EXIT_MOVE);
  return {
    collaterals: [collateral],
    kindShares: kindShares([{ kind: 'crypto', debt, usd }], debt),
    totalSupply: toFloat(s.totalSupply, 18),
    circulating: toFloat(circulatingRaw, 18),
    circulatingRaw,
    totalDebt: debt,
    backedDebt: debt,
    systemDebt: null,
    surplusBuffer: null,
    totalCollateralUsd: usd,
    collateralRatio: usd === null || debt <= 0 ? null : usd / debt,
    collateralRatioGap: usd === null ? 'no_price' : debt <= 0 ? 'no_positions' : null,
    liquidationRatio: ccr,
    positionsOwners: s.troves.filter((x) => x.debt > 0n).length,
    psmHoldingsUsd: null,
    psmFees: [],
    stress,
    stressGap,
    backstopUsd: redeemable === null ? null : redeemable * (stableUsdPrice ?? 1),
    backstopGap: redeemable === null ? 'no_data' : null,
    redeemableWithinExit: redeemable,
    liquity: s,
    exclude: new Set(Object.values(s.addresses)),
  };
}

/**
 * Liquity v1's redemption backstop: the LUSD one redemption can take at a fee of at most `cost`. A redemption of x
 * LUSD first raises the base rate by x / (system debt × BETA) and then charges floor + base rate on all of it
 * (TroveManager `_updateBaseRateFromRedemption`, then `_calcRedemptionFee`), so the fee stays within `cost` while
 * x ≤ (cost − rate now) × BETA × system debt, where the rate now is `getRedemptionRateWithDecay`. At most the
 * circulating LUSD; 0 while redemptions are closed (TCR below MCR). Null when the snapshot predates the formula's
 * fields.
 */
export function liquityRedeemableWithin(s: LiquitySnapshot, cost: number): number | null {
  if (s.redemptionRateWithDecay === undefined || s.redemptionBeta === undefined) return null;
  if (s.tcr < s.mcr) return 0;
  const headroom = cost - toFloat(s.redemptionRateWithDecay, 18);
  if (headroom <= 0) return 0;
  const circulating = toFloat(s.totalSupply - s.protocolHeld, 18);
  return Math.min(headroom * Number(s.redemptionBeta) * toFloat(s.systemDebt, 18), circulating);
}
