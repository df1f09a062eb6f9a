/**
 * The state figures every design computes from a snapshot (pure): the shape the Maker and Liquity figures fill in, and
 * the pieces they share (position distribution, liquidatable debt under a price drop, debt by collateral kind).
 */
import type { GapReason } from '../../core/gaps.js';
import { roundTo } from '../../core/score.js';
import type { CollateralKind, LiquitySnapshot, StableEventFact } from './facts.js';
import type { CollateralEntry, KindShareEntry } from './schema.js';
import { DROPS } from './score.js';

export const r = (x: number, d = 6) => roundTo(x, d);
export const rn = (x: number | null, d = 6) => (x === null ? null : roundTo(x, d));

/** Collateral-ratio bands of the position distribution (lower bound inclusive). */
export const RATIO_BANDS = [0, 1.1, 1.3, 1.5, 1.75, 2, 3] as const;

export interface PositionRow {
  /** Debt (stablecoin units) and collateral (token units) of one position. */
  readonly debt: number;
  readonly collateral: number;
}

export function distribution(rows: readonly PositionRow[], price: number) {
  const bands = RATIO_BANDS.map((min, i) => {
    const max = RATIO_BANDS[i + 1] ?? null;
    // Labelled as the lending area labels its health-factor bands ('<1.1', '1.1-1.3', '>3').
    const band = max === null ? `>${min}` : min === 0 ? `<${max}` : `${min}-${max}`;
    return { band, min: min as number, max: max as number | null, positions: 0, debt: 0 };
  });
  for (const p of rows) {
    if (p.debt <= 0) continue;
    const ratio = (p.collateral * price) / p.debt;
    const band = [...bands].reverse().find((b) => ratio >= b.min)!;
    band.positions++;
    band.debt += p.debt;
  }
  return bands.map((b) => ({ ...b, debt: r(b.debt) }));
}

/** Positions liquidatable after each drop: collateral × price × (1 − drop) < debt × threshold(drop). */
export function liquidatable(rows: readonly PositionRow[], price: number, threshold: (drop: number) => number) {
  return DROPS.map((drop) => {
    let debt = 0;
    let positions = 0;
    const limit = threshold(drop);
    for (const p of rows) {
      if (p.debt <= 0) continue;
      if (p.collateral * price * (1 - drop) < p.debt * limit) {
        debt += p.debt;
        positions++;
      }
    }
    return { price_drop: drop, debt: r(debt), positions };
  });
}

export interface StateFigures {
  readonly collaterals: CollateralEntry[];
  readonly kindShares: KindShareEntry[];
  readonly totalSupply: number;
  readonly circulating: number;
  readonly circulatingRaw: bigint;
  readonly totalDebt: number;
  /** Debt positions owe against collateral (Maker: Σ Art × rate; Liquity: the system debt). */
  readonly backedDebt: number;
  /** Maker: debt no collateral backs (Vat.vice); Liquity: null (not applicable). */
  readonly systemDebt: number | null;
  /** Maker: the Vow's DAI less its sin (null: not read); Liquity: null (not applicable). */
  readonly surplusBuffer: number | null;
  readonly totalCollateralUsd: number | null;
  readonly collateralRatio: number | null;
  readonly collateralRatioGap: GapReason | null;
  readonly liquidationRatio: number | null;
  readonly positionsOwners: number | null;
  readonly psmHoldingsUsd: number | null;
  readonly psmFees: { ilk: string; tin: number | null; tout: number | null }[];
  /**
   * What must be absorbed under STRESS_DROP (stablecoin units: Maker the auctions' tab, Liquity the debt) and what
   * absorbs it (USD).
   */
  readonly stress: { liquidatable: number; absorbableUsd: number } | null;
  readonly stressGap: GapReason | null;
  readonly backstopUsd: number | null;
  /** Why the backstop is unknown. */
  readonly backstopGap: GapReason | null;
  /** Liquity: LUSD redeemable at once within the exit move's fee (null: the snapshot lacks the fee formula). */
  readonly redeemableWithinExit: number | null;
  readonly liquity: LiquitySnapshot | null;
  readonly exclude: ReadonlySet<string>;
}

/** Latest event of a kind up to `t` matching `pred`. */
export function latestEvent<T extends StableEventFact>(
  events: readonly StableEventFact[],
  t: number,
  pred: (e: StableEventFact) => e is T,
): T | undefined {
  let out: T | undefined;
  for (const e of events) if (e.timestamp <= t && pred(e)) out = e;
  return out;
}

/**
 * Debt by collateral kind, with shares of the total. Maker adds a `system` row, the debt no collateral backs
 * (Vat.vice), so that the shares sum to one (Liquity has none: `system` undefined).
 */
export function kindShares(
  rows: readonly { kind: CollateralKind; debt: number; usd: number | null }[],
  total: number,
  system?: number,
): KindShareEntry[] {
  const kinds: CollateralKind[] = ['crypto', 'psm', 'rwa', 'credit-line'];
  const backed = kinds
    .map((kind) => {
      const mine = rows.filter((x) => x.kind === kind);
      const debt = mine.reduce((s, x) => s + x.debt, 0);
      const usd = mine.some((x) => x.usd === null) ? null : mine.reduce((s, x) => s + (x.usd ?? 0), 0);
      return { kind, debt: r(debt), debt_share: total > 0 ? r(debt / total, 6) : null, collateral_usd: rn(usd, 2) };
    })
    .filter((k, i) => i === 0 || k.debt > 0 || rows.some((x) => x.kind === k.kind));
  if (system === undefined) return backed;
  return [
    ...backed,
    { kind: 'system', debt: r(system), debt_share: total > 0 ? r(system / total, 6) : null, collateral_usd: 0 },
  ];
}
