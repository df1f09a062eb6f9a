/**
 * The two liquid staking score models (docs/methodology/liquid-staking-*.md). Pure: figures in, score records out.
 *
 * - `liquid-staking.dex-pool@1.2.0`: how well a DEX pool of a liquid staking token (LST) against its underlying
 *   serves as the exit for that token: price held at the exchange rate, depth against what lending liquidations
 *   would sell, balanced holdings, continuing volume.
 * - `liquid-staking.lending-exposure@1.3.0`: how safely a lending market carries LST collateral through a depeg:
 *   debt liquidated at 5 and 10 % depegs, health factors close to 1, loop concentration, and whether the DEX pools
 *   absorb the LST that liquidations would sell within the liquidation bonus.
 */
import {
  type ComponentInput,
  combineScore,
  methodologyId,
  piecewiseLinear,
  roundTo,
  scoreGapReason,
} from '../../core/score.js';
import { utcDate } from '../../core/time.js';
import { DEX_METHODOLOGY } from '../dex/public.js';
import type { LendingExposurePayload, LstScoreIdentity, LstScoreRecordEntry, PegHistoryEntry } from './schema.js';

export const DEX_POOL_METHODOLOGY = methodologyId('liquid-staking', 'dex-pool', '1.2.0');
export const EXPOSURE_METHODOLOGY = methodologyId('liquid-staking', 'lending-exposure', '1.3.0');

/**
 * Peg deviation |1 − pool price / exchange rate| → value: ≤ 0.5 % is 1 (stETH/ETH's ordinary range on Curve and
 * the fee and withdrawal-queue carry keep a healthy LST within it), 2 % is 0.5, ≥ 5 % is 0 (June 2022: stETH at
 * ~6 % below ETH was the stress that forced liquidations and deleveraging of loops).
 */
export const PEG_POINTS: readonly (readonly [number, number])[] = [
  [0.005, 1],
  [0.02, 0.5],
  [0.05, 0],
];
const pegMap = piecewiseLinear(PEG_POINTS);

/**
 * Depth coverage: USD the pool absorbs before the LST price falls 2 %, against 10 % of the LST collateral in the
 * tracked lending markets (the share a severe depeg liquidates in loop-heavy markets, cf. the 10 % depeg scenario).
 * Coverage 1 (the pool absorbs it within 2 %) → 1, linear below.
 */
export const DEPTH_MOVE = 0.02;
export const COLLATERAL_SHARE_TO_ABSORB = 0.1;

/** Imbalance |LST value − underlying value| / pool value: ≤ 0.2 (60/40) is 1, ≥ 0.8 (90/10) is 0. */
export const IMBALANCE_POINTS: readonly (readonly [number, number])[] = [
  [0.2, 1],
  [0.8, 0],
];
const imbalanceMap = piecewiseLinear(IMBALANCE_POINTS);

/**
 * Pool weights (sum 1), combined as a weighted geometric mean (a pool far off peg is a poor exit however deep):
 * peg 0.35, the direct observation of the market's confidence in redemption at the rate; depth coverage 0.25 and
 * volume continuity 0.25, whether the exit holds size and stays in use; balance 0.15, a leading indicator (sellers
 * fill the pool with LST before the price gives way) that V3 ranges blur.
 */
export const DEX_POOL_WEIGHTS = {
  peg_deviation: 0.35,
  depth_coverage: 0.25,
  balance: 0.15,
  volume_continuity: 0.25,
} as const;

export interface DexPoolScoreInput {
  readonly t: number;
  readonly partial: boolean;
  /** Null when the state at t is unknown (then the record is a gap). */
  readonly discount: number | null;
  readonly imbalance: number | null;
  /** USD of LST sold to move the price down DEPTH_MOVE; null without a price. */
  readonly depthUsd: number | null;
  /** The one policy price both depth_usd and lst_collateral_usd are valued at (one figure, one price). */
  readonly lstPriceUsd: number | null;
  /** `source` of that price (oracle, market_oracle, dex) or null. */
  readonly priceSource: string | null;
  readonly depthReachable: boolean;
  readonly lstCollateralUsd: number | null;
  /** The DEX area's volume continuity score of the pool at t (dex.volume-continuity), null when it has none. */
  readonly continuity: number | null;
  readonly blockNumber: number | null;
  readonly exchangeRate: number | null;
  readonly poolPrice: number | null;
  /** The record's entity (chain, protocol, version, pool_address, token_address). */
  readonly identity: LstScoreIdentity;
  /** Min/max discount over the UTC day and the 7 days ending at t; null without swaps or rates. */
  readonly pegHistory?: PegHistoryEntry | null;
}

function gap(
  t: number,
  partial: boolean,
  reason: string,
  methodology: string,
  identity: LstScoreIdentity,
): LstScoreRecordEntry {
  return { ...identity, ...combineScore([], { methodology, at: t }), date: utcDate(t), partial, gap_reason: reason };
}

export function scoreDexPool(x: DexPoolScoreInput): LstScoreRecordEntry {
  if (x.discount === null) return gap(x.t, x.partial, 'no_data', DEX_POOL_METHODOLOGY, x.identity);
  const reference = x.lstCollateralUsd === null ? null : x.lstCollateralUsd * COLLATERAL_SHARE_TO_ABSORB;
  const coverage = reference === null || x.depthUsd === null ? null : reference > 0 ? x.depthUsd / reference : null;
  const components: ComponentInput[] = [
    {
      name: 'peg_deviation',
      value: pegMap(Math.abs(x.discount)),
      weight: DEX_POOL_WEIGHTS.peg_deviation,
      inputs: {
        pool_price: x.poolPrice === null ? null : roundTo(x.poolPrice, 8),
        exchange_rate: x.exchangeRate === null ? null : roundTo(x.exchangeRate, 8),
        discount_pct: roundTo(x.discount * 100, 4),
        block: x.blockNumber,
        points: PEG_POINTS,
      },
    },
    {
      name: 'depth_coverage',
      value: coverage === null ? null : Math.min(1, coverage),
      weight: DEX_POOL_WEIGHTS.depth_coverage,
      inputs: {
        depth_usd: x.depthUsd === null ? null : roundTo(x.depthUsd, 2),
        lst_price_usd: x.lstPriceUsd === null ? null : roundTo(x.lstPriceUsd, 8),
        price_source: x.priceSource,
        price_move_pct: DEPTH_MOVE * 100,
        reachable: x.depthReachable,
        lst_collateral_in_lending_usd: x.lstCollateralUsd === null ? null : roundTo(x.lstCollateralUsd, 2),
        share_to_absorb: COLLATERAL_SHARE_TO_ABSORB,
        formula: 'min(1, depth_usd / (share_to_absorb × lst_collateral_in_lending_usd))',
      },
    },
    {
      name: 'balance',
      value: x.imbalance === null ? null : imbalanceMap(Math.abs(x.imbalance)),
      weight: DEX_POOL_WEIGHTS.balance,
      inputs: { imbalance: x.imbalance === null ? null : roundTo(x.imbalance, 4), points: IMBALANCE_POINTS },
    },
    {
      name: 'volume_continuity',
      value: x.continuity,
      weight: DEX_POOL_WEIGHTS.volume_continuity,
      inputs: { model: DEX_METHODOLOGY, score: x.continuity },
    },
  ];
  const record = combineScore(components, {
    methodology: DEX_POOL_METHODOLOGY,
    at: x.t,
    aggregation: 'weighted-geometric-mean',
  });
  return {
    ...x.identity,
    ...record,
    date: utcDate(x.t),
    partial: x.partial,
    gap_reason: scoreGapReason(record, 'no_data'),
    peg_history: x.pegHistory ?? null,
  };
}

/**
 * Lending exposure weights (sum 1), combined as a weighted mean: liquidations under depeg are the risk itself
 * (5 % 0.25, a repeat of 2022; 10 % 0.20, a tail), DEX absorption 0.30 (liquidations that cannot be sold within the
 * bonus leave bad debt and push the price further: the spiral), health distribution 0.15 (how close the rest is),
 * loop share 0.10 (loops borrow the underlying against the LST: the depeg is their only risk and it hits them all at
 * once; not applicable when the scope is the loops).
 */
export const EXPOSURE_WEIGHTS = {
  depeg_5pct: 0.25,
  depeg_10pct: 0.2,
  dex_absorption: 0.3,
  health_distribution: 0.15,
  looped_share: 0.1,
} as const;

/** Health factor under which a position counts as close to liquidation in `health_distribution`. */
export const NEAR_LIQUIDATION_HF = 1.1;

export interface ExposureScoreInput {
  readonly t: number;
  readonly partial: boolean;
  /** Undefined when the market has no snapshot at t. */
  readonly exposure: LendingExposurePayload | undefined;
  /**
   * USD of LST the DEX pools of the LST/underlying pair absorb before its price falls by the liquidation bonus;
   * null without pools or prices.
   */
  readonly dexDepthUsd: number | null;
  readonly dexPools: number;
  /** The record's entity (chain, protocol, version, base_asset, pool_address, token_address, looped_only). */
  readonly identity: LstScoreIdentity;
}

export function scoreExposure(x: ExposureScoreInput): LstScoreRecordEntry {
  const e = x.exposure;
  const id = x.identity;
  if (!e) return gap(x.t, x.partial, 'no_data', EXPOSURE_METHODOLOGY, id);
  if (!e.lst_listed) return gap(x.t, x.partial, 'not_listed', EXPOSURE_METHODOLOGY, id);
  if (e.position_count === 0) return gap(x.t, x.partial, 'no_positions', EXPOSURE_METHODOLOGY, id);
  // Every ratio over the debt is null when the debt is 0 or unknown (0/0 is no evidence, in every component), and
  // the depeg figures are absent when a position is unpriced.
  const debt = e.debt_usd !== null && e.debt_usd > 0 ? e.debt_usd : null;
  const at = (pct: number) => e.depeg_scenarios.find((s) => s.depeg_pct === pct);
  const d5 = at(5);
  const d10 = at(10);
  const debtValue = (s: typeof d5) => (debt === null || !s || s.share_of_debt === null ? null : 1 - s.share_of_debt);
  const nearBands = e.health_factor_distribution.filter(
    (b) => b.band === '<1.0' || b.band === '1.0-1.05' || b.band === '1.05-1.1',
  );
  const near = nearBands.some((b) => b.debt_usd === null) ? null : nearBands.reduce((s, b) => s + b.debt_usd!, 0);
  const nearShare = debt === null || near === null ? null : near / debt;
  const toSell = d10?.lst_liquidated_usd ?? null;
  // Nothing liquidated at 10 % from a priced, indebted scope: nothing to absorb (1). Unknown: null.
  const absorption =
    debt === null || toSell === null
      ? null
      : toSell <= 0
        ? 1
        : x.dexDepthUsd === null
          ? null
          : Math.min(1, x.dexDepthUsd / toSell);
  const components: ComponentInput[] = [
    {
      name: 'depeg_5pct',
      value: debtValue(d5),
      weight: EXPOSURE_WEIGHTS.depeg_5pct,
      inputs: {
        debt_at_risk_usd: d5?.debt_at_risk_usd ?? null,
        debt_usd: e.debt_usd,
        formula: '1 - debt_at_risk / debt',
      },
    },
    {
      name: 'depeg_10pct',
      value: debtValue(d10),
      weight: EXPOSURE_WEIGHTS.depeg_10pct,
      inputs: {
        debt_at_risk_usd: d10?.debt_at_risk_usd ?? null,
        debt_usd: e.debt_usd,
        formula: '1 - debt_at_risk / debt',
      },
    },
    {
      name: 'dex_absorption',
      value: absorption,
      weight: EXPOSURE_WEIGHTS.dex_absorption,
      inputs: {
        lst_liquidated_usd_at_10pct: toSell,
        dex_depth_usd_within_bonus: x.dexDepthUsd === null ? null : roundTo(x.dexDepthUsd, 2),
        liquidation_bonus: d10?.lst_liquidation_bonus ?? e.liquidation_bonus,
        lst_price_usd: e.lst_price_usd,
        price_source: e.lst_price?.source ?? null,
        dex_pools: x.dexPools,
        formula: 'min(1, dex_depth_usd_within_bonus / lst_liquidated_usd_at_10pct); 1 when nothing is liquidated',
      },
    },
    {
      name: 'health_distribution',
      value: nearShare === null ? null : 1 - nearShare,
      weight: EXPOSURE_WEIGHTS.health_distribution,
      inputs: {
        debt_below_hf_usd: near === null ? null : roundTo(near, 2),
        hf_threshold: NEAR_LIQUIDATION_HF,
        debt_usd: e.debt_usd,
        formula: '1 - debt(HF < 1.1) / debt',
      },
    },
    {
      name: 'looped_share',
      value: e.looped_only || e.looped_share === null ? null : 1 - e.looped_share,
      weight: EXPOSURE_WEIGHTS.looped_share,
      inputs: {
        looped_share: e.looped_share,
        applicable: !e.looped_only,
        formula: '1 - looped LST collateral / LST collateral (not applicable to the looped-only scope)',
      },
    },
  ];
  const record = combineScore(components, { methodology: EXPOSURE_METHODOLOGY, at: x.t, aggregation: 'weighted-mean' });
  return { ...id, ...record, date: utcDate(x.t), partial: x.partial, gap_reason: scoreGapReason(record, 'no_data') };
}
