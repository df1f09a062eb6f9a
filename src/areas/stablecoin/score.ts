/**
 * The stablecoin liquidity score (docs/methodology/stablecoin-liquidity.md): how easily a holder can leave the
 * stablecoin near $1 and how well the protocol absorbs a collateral crash. Pure: a day's figures in, a score record
 * out. Every constant names its reason.
 */
import type { GapReason } from '../../core/gaps.js';
import {
  type ComponentInput,
  clamp01,
  combineScore,
  methodologyId,
  roundTo,
  type ScoreRecord,
  saturating,
} from '../../core/score.js';

export const STABLECOIN_METHODOLOGY = methodologyId('stablecoin', 'liquidity', '1.9.0');

/** The peg band of the issue and of common depeg monitors: ±0.5 % around $1. */
export const PEG_BAND = 0.005;
/** A deviation this large counts as a broken peg (peg stability 0 on its own half): 5 %, ten times the band. */
export const PEG_BROKEN = 0.05;
/** The price move within which exit liquidity is measured: 2 %, four times the peg band (API.md depth moves 1/2/5 %). */
export const EXIT_MOVE = 0.02;
/**
 * Half-saturation of exit liquidity: when a tenth of the circulating supply can leave within `EXIT_MOVE` (DEX depth
 * plus the protocol's backstop), the component is 0.5. Our choice: a run on a tenth of the supply is a severe run.
 */
export const EXIT_HALF = 0.1;
/** A collateral ratio this far above the liquidation level (here: twice it) earns the full collateral buffer. */
export const BUFFER_FULL = 1;
/**
 * The collateral drop of the absorption stress: 35 %, Chaos Labs' extreme drop for assets of $2–20 B market cap
 * (reference/methodology.md), the band ETH-like collateral sits in at the low end.
 */
export const STRESS_DROP = 0.35;
/** The price drops of the liquidation tables (the 10/20/35/50 %). */
export const DROPS = [0.1, 0.2, 0.35, 0.5] as const;
/** Holders' concentration: the share of the holders' supply (pools and protocol contracts excluded) the 10 largest hold. */
export const TOP_HOLDERS = 10;

/**
 * Nominal weights (they sum to 1): the two ways out of the coin first, then the collateral's safety. Concentration
 * keeps its 0.15 of 1.8.0, split evenly between its two parts (issue 30 item 5): each part is a component of its own,
 * null with its own reason when its input is unknown, so that neither silently stands for both (holders are unknown
 * wherever the Transfer replay does not reach back to the token's deployment: mainnet).
 */
export const WEIGHTS = {
  peg_stability: 0.25,
  exit_liquidity: 0.25,
  collateral_buffer: 0.2,
  liquidation_absorption: 0.15,
  collateral_concentration: 0.075,
  holder_concentration: 0.075,
} as const;

type Gap<T> = { readonly value: T; readonly gap?: undefined } | { readonly value: null; readonly gap: GapReason };

export interface LiquidityScoreInputs {
  /** The day's hourly peg (hours with a price, hours outside the band, largest |price − 1|). */
  readonly peg: Gap<{ hoursPriced: number; hoursOutside: number; maxDeviation: number }>;
  /** DEX depth to move the price down by `EXIT_MOVE` (USD), the backstop usable within it (USD), circulating USD. */
  readonly exit: Gap<{ depthUsd: number; backstopUsd: number; circulatingUsd: number }>;
  /** The collateral ratio over crypto collateral (or Liquity's TCR at the market price) and its liquidation level. */
  readonly buffer: Gap<{ ratio: number; liquidationRatio: number; recoveryMode: boolean }>;
  /**
   * What must be absorbed under `STRESS_DROP` (Maker: the auctions' tab, debt × chop; Liquity: the debt liquidatable)
   * and what absorbs it (Maker: the auctions within the Dog's room and the pools' depth to the curve's lowest price;
   * Liquity: the Stability Pool).
   */
  readonly absorption: Gap<{ liquidatableUsd: number; absorbableUsd: number }>;
  /** HHI of collateral value by collateral asset (the types of one gem summed). */
  readonly collateralConcentration: Gap<{ collateralHhi: number }>;
  /** The `TOP_HOLDERS` largest holders' share of what holders hold. */
  readonly holderConcentration: Gap<{
    /** Among holders: pools and the protocol's own contracts excluded (what the score reads). */
    topHolderShare: number;
    /** Nothing excluded, over the whole supply (served beside it, not scored). */
    topHolderShareRaw?: number | null;
    excludedHolders?: number | null;
  }>;
}

const r4 = (x: number) => roundTo(x, 4);

function component(
  name: keyof typeof WEIGHTS,
  x: Gap<unknown>,
  value: () => { value: number; inputs: Record<string, unknown> },
): ComponentInput {
  if (x.value === null) return { name, value: null, weight: WEIGHTS[name], inputs: {}, gapReason: x.gap };
  const v = value();
  return { name, value: clamp01(v.value), weight: WEIGHTS[name], inputs: v.inputs };
}

export function liquidityComponents(x: LiquidityScoreInputs): ComponentInput[] {
  return [
    component('peg_stability', x.peg, () => {
      const p = x.peg.value!;
      const inside = 1 - p.hoursOutside / p.hoursPriced;
      return {
        value: 0.5 * inside + 0.5 * (1 - Math.min(1, p.maxDeviation / PEG_BROKEN)),
        inputs: {
          hours_priced: p.hoursPriced,
          hours_outside_band: p.hoursOutside,
          max_deviation: r4(p.maxDeviation),
          band: PEG_BAND,
        },
      };
    }),
    component('exit_liquidity', x.exit, () => {
      const e = x.exit.value!;
      const share = e.circulatingUsd > 0 ? (e.depthUsd + e.backstopUsd) / e.circulatingUsd : 1;
      return {
        value: saturating(share, EXIT_HALF),
        inputs: {
          dex_depth_usd: r4(e.depthUsd),
          backstop_usd: r4(e.backstopUsd),
          circulating_usd: r4(e.circulatingUsd),
          exit_share: r4(share),
          price_move: EXIT_MOVE,
        },
      };
    }),
    component('collateral_buffer', x.buffer, () => {
      const b = x.buffer.value!;
      const buffer = b.ratio / b.liquidationRatio - 1;
      // Recovery mode: the system itself is at its critical ratio; no buffer is left whatever the average says.
      return {
        value: b.recoveryMode ? 0 : buffer / BUFFER_FULL,
        inputs: {
          collateral_ratio: r4(b.ratio),
          liquidation_ratio: r4(b.liquidationRatio),
          buffer: r4(buffer),
          recovery_mode: b.recoveryMode,
        },
      };
    }),
    component('liquidation_absorption', x.absorption, () => {
      const a = x.absorption.value!;
      // Nothing liquidatable under the stress: nothing to absorb.
      const covered = a.liquidatableUsd > 0 ? a.absorbableUsd / a.liquidatableUsd : 1;
      return {
        value: covered,
        inputs: {
          price_drop: STRESS_DROP,
          liquidatable_usd: r4(a.liquidatableUsd),
          absorbable_usd: r4(a.absorbableUsd),
          coverage: r4(covered),
        },
      };
    }),
    component('collateral_concentration', x.collateralConcentration, () => {
      const c = x.collateralConcentration.value!;
      return { value: 1 - c.collateralHhi, inputs: { collateral_hhi: r4(c.collateralHhi) } };
    }),
    component('holder_concentration', x.holderConcentration, () => {
      const h = x.holderConcentration.value!;
      return {
        value: 1 - h.topHolderShare,
        inputs: {
          top_holder_share: r4(h.topHolderShare),
          top_holder_share_raw: h.topHolderShareRaw == null ? null : r4(h.topHolderShareRaw),
          excluded_holders: h.excludedHolders ?? null,
          top_holders: TOP_HOLDERS,
        },
      };
    }),
  ];
}

/** The score of one instant (weighted mean; a null component is dropped and the others rescaled). */
export function scoreLiquidity(x: LiquidityScoreInputs, at: number): ScoreRecord {
  return combineScore(liquidityComponents(x), { methodology: STABLECOIN_METHODOLOGY, at });
}
