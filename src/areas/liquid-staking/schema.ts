/**
 * Payload schemas of the liquid staking paths (DESIGN.md convention 3). `compute.ts` and `score.ts` produce exactly
 * these shapes (`Static<…>`); routes set them as `payload`, so OpenAPI documents them.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Count, DailyScoreRecord, Iso, Nullable, ScoreHistory } from '../kit/schema.js';

const Num = (description: string) => Type.Number({ description });
const NullableNum = (description: string) => Nullable(Type.Number({ description }));

/** A price chosen by the one policy (core/price-policy `choosePrice`), published beside the figures it prices. */
export const PolicyPriceSchema = Type.Object({
  price_usd: Num('USD price of one whole token'),
  source: Type.Union([Type.Literal('oracle'), Type.Literal('dex'), Type.Literal('market_oracle')], {
    description:
      'oracle: a fresh price feed; market_oracle: the lending market’s own oracle (Aave: AaveOracle; Morpho: the isolated market’s oracle × the loan token’s price); dex: the DEX price of the hour',
  }),
  source_ref: Type.String({
    description: 'What was read: the market (Aave pool, `morpho-market:<id>`) or the DEX price’s pools',
  }),
  confidence: Num('In (0, 1]: halved when the two sources disagree by more than 2 %; 0.2375 for a stale feed'),
  alternative_price_usd: NullableNum('The other source’s price, when there is one'),
  disagreement: NullableNum('|chosen / alternative − 1|, when both exist'),
  flagged: Type.Boolean({ description: 'True when the two sources differ by more than 2 %' }),
});

/** Per-field reasons of the null figures of a partly known record (`no_price`, `no_data`, `not_listed`, `no_positions`). */
export const GapReasons = Type.Record(Type.String(), Type.String(), {
  description:
    'Why each null figure of the record is null (field → reason): no_price, no_data, not_listed, no_positions',
});

export const LstToken = Type.Object({
  token_address: Type.String({ description: 'Lowercase 0x address' }),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
});

export const LiquidStakingTokenInfo = Type.Object({
  protocol: Type.String({ description: 'Registry id of the liquid staking protocol (lido)' }),
  token_address: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
  underlying_address: Type.String({ description: 'The token the exchange rate is expressed in (WETH on chain)' }),
  underlying_symbol: Type.String(),
});

export const AvailableLendingExposure = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset_symbol: Type.String({ description: 'The market base asset (legacy name); `<base_asset>` of the paths' }),
  market_name: Type.String(),
  pool_address: Type.String({ description: 'The market contract (Aave Pool, Morpho singleton)' }),
  design: Type.String(),
  liquid_staking_token: LiquidStakingTokenInfo,
  flags: Type.Array(Type.Boolean(), { description: 'Values of `<flag>`: true = looped positions only, false = all' }),
});

export const AvailableDexExposure = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  exchange_name: Type.String(),
  pool_addresses: Type.Array(Type.String(), { description: 'Pools holding a liquid staking token, lowercase' }),
  number_of_pools: Count(),
  liquid_staking_tokens: Type.Array(LiquidStakingTokenInfo),
});

export const DepthSide = Type.Object({
  token_in: NullableNum('Tokens sold into the pool (normalised), gross of fee'),
  token_out: NullableNum('Tokens received (normalised)'),
  usd: NullableNum('token_in × its USD price; null without a price'),
  reachable: Type.Boolean({
    description: 'False when the pool cannot move that far (V3: the balance of the token received runs out first)',
  }),
});

export const DepthEntry = Type.Object({
  price_move_pct: Num('Size of the move of the liquid staking token price in the underlying, in percent'),
  down: Type.Composite([Type.Object({ sells: Type.Literal('lst') }), DepthSide], {
    description: 'Selling the liquid staking token until its pool price falls by price_move_pct',
  }),
  up: Type.Composite([Type.Object({ sells: Type.Literal('underlying') }), DepthSide], {
    description: 'Selling the underlying until the liquid staking token price rises by price_move_pct',
  }),
});

export const LstPoolAnalytics = Type.Object({
  pool_address: Type.String(),
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  design: Type.String(),
  fee_tier: Type.Integer({ description: 'Hundredths of a basis point (100 = 0.01 %)' }),
  liquid_staking_token: LiquidStakingTokenInfo,
  lst_is_token0: Type.Boolean(),
  snapshot_block: Type.Integer({ description: 'Block of the pool state and of the exchange rate read' }),
  lst_balance: Num('Liquid staking tokens held by the pool, normalised'),
  underlying_balance: Num('Underlying tokens held by the pool, normalised'),
  lst_balance_raw: Type.String(),
  underlying_balance_raw: Type.String(),
  lst_balance_usd: NullableNum('lst_balance × the token USD price of the hour'),
  underlying_balance_usd: NullableNum('underlying_balance × its USD price of the hour'),
  tvl_usd: NullableNum('Sum of both; null without both prices'),
  lst_share_of_value: NullableNum('LST value (at the exchange rate) / pool value, both in underlying'),
  imbalance: NullableNum(
    '(LST value − underlying value) / pool value, in underlying at the exchange rate: −1…1, 0 balanced, > 0 the pool holds more LST',
  ),
  exchange_rate: Num('Underlying per liquid staking token: stEthPerToken() / 1e18 at snapshot_block'),
  exchange_rate_raw: Type.String({ description: 'stEthPerToken() as read, 1e18 scale' }),
  pool_price: NullableNum('Underlying per liquid staking token in the pool (V3: sqrtPriceX96; V2: reserves)'),
  price_vs_peg: NullableNum('pool_price / exchange_rate (1 = at peg)'),
  discount_pct: NullableNum('(1 − price_vs_peg) × 100: positive when the token trades below its exchange rate'),
  lst_price_usd: NullableNum(
    'USD price of the liquid staking token by the one price policy (lst_price: a lending market’s oracle, else the DEX price of the hour)',
  ),
  underlying_price_usd: NullableNum(
    'USD price of the underlying by the one price policy (underlying_price: the lending exposure’s at as_of, else the DEX price of the hour)',
  ),
  depth: Type.Array(DepthEntry, {
    description:
      'Depth to move the price by 1, 2 and 5 % each way (core/depth: V2 exact, V3 constant active liquidity)',
  }),
  volume_24h_usd: Num('One side per swap (input token, else output) × its USD price of the hour'),
  volume_7d_usd: Num('As volume_24h_usd over 7 days'),
  volume_24h_lst: Num('Σ |LST amount| of the 24 h swaps'),
  volume_7d_lst: Num('Σ |LST amount| of the 7 d swaps'),
  swap_count_24h: Count(),
  swap_count_7d: Count(),
  unpriced_swap_count_7d: Count('Swaps without a price on either side (not in USD volume)'),
  lst_collateral_in_lending_token: NullableNum(
    'LST posted as collateral in all the tracked lending markets (the latest snapshots), tokens; null when one market is unknown',
  ),
  lst_collateral_in_lending_usd: NullableNum(
    'lst_collateral_in_lending_token × lst_price_usd: what liquidations could sell',
  ),
  lst_price: Nullable(PolicyPriceSchema),
  underlying_price: Nullable(PolicyPriceSchema),
  as_of: Iso('Block time of snapshot_block: the end of the volume windows'),
  gap_reasons: GapReasons,
});

export const HealthBand = Type.Object({
  band: Type.String({ description: 'Health-factor band: <1.0, 1.0-1.05, 1.05-1.1, 1.1-1.25, 1.25-1.5, 1.5-2, >2' }),
  position_count: Count(),
  debt_usd: NullableNum('Debt of the positions in the band; null when one of them is unpriced'),
  lst_collateral_usd: NullableNum('LST collateral of the positions in the band; null without the LST price'),
});

export const DepegScenario = Type.Object({
  depeg_pct: Num('The LST price falls by this percent against the underlying (the underlying price unchanged)'),
  positions_liquidatable: Count('Positions whose recomputed health factor falls below 1'),
  debt_at_risk_usd: Num('Whole debt of those positions'),
  share_of_debt: NullableNum('debt_at_risk_usd / debt_usd of the positions in scope'),
  debt_repaid_usd: Num(
    'Debt a liquidator may repay at once (Aave: close factor 50 %, 100 % below HF 0.95; Morpho: all)',
  ),
  collateral_liquidated_usd: Num('debt_repaid_usd × (1 + liquidation bonus), capped by the collateral, post-depeg USD'),
  lst_liquidated_usd: Num('The part of collateral_liquidated_usd seized in the LST (it is seized first)'),
  lst_liquidated_token: Num('lst_liquidated_usd in tokens at the post-depeg price'),
  lst_liquidation_bonus: NullableNum(
    'Mean liquidation bonus of the LST seized, weighted by it (positions in E-mode get their category bonus); null when none',
  ),
  shortfall_usd: Num(
    'Bad debt: of the liquidatable positions, the debt that their collateral left after the depeg no longer covers',
  ),
  positions_with_shortfall: Count('Liquidatable positions left with a shortfall'),
  gap_reasons: Type.Record(Type.String(), Type.String(), {
    description:
      'Why a figure is null: share_of_debt `no_positions` (no debt in scope), lst_liquidation_bonus `not_applicable` (no LST seized)',
  }),
});

export const LendingExposureAnalytics = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset_symbol: Type.String(),
  pool_address: Type.String(),
  design: Type.String(),
  looped_only: Type.Boolean({
    description: '`<flag>`: true = looped positions only (LST collateral + underlying debt)',
  }),
  liquid_staking_token: LiquidStakingTokenInfo,
  snapshot_block: Type.Integer(),
  lst_listed: Type.Boolean({ description: 'Whether the market lists the token' }),
  exchange_rate: NullableNum('Underlying per LST at snapshot_block (stEthPerToken() / 1e18)'),
  lst_price_usd: NullableNum(
    'USD price of the LST by the one price policy (lst_price): the market’s own oracle, else the DEX price; every USD figure of the LST here uses it',
  ),
  lst_price: Nullable(PolicyPriceSchema),
  underlying_price_usd: NullableNum('USD price of the underlying by the one price policy (underlying_price)'),
  underlying_price: Nullable(PolicyPriceSchema),
  oracle_price_vs_peg: NullableNum(
    'lst_price_usd / (underlying_price_usd × exchange_rate): the market’s view of the peg',
  ),
  ltv: NullableNum('LST loan-to-value (fraction)'),
  liquidation_threshold: NullableNum('LST liquidation threshold (fraction; Morpho: the LLTV)'),
  liquidation_bonus: NullableNum('LST liquidation bonus (premium, 0.07 = 7 %)'),
  total_lst_supplied_token: NullableNum('Everything supplied in the LST reserve, collateral or not'),
  total_lst_supplied_usd: NullableNum('total_lst_supplied_token × lst_price_usd'),
  lst_collateral_token: Num('LST posted as collateral by the positions in scope'),
  lst_collateral_usd: NullableNum('lst_collateral_token × lst_price_usd; null (never 0) without a price'),
  market_collateral_usd: NullableNum(
    'Collateral of every position of the market (Aave: the protocol’s own figure; Morpho: balances at the policy prices); null when one is unpriced',
  ),
  share_of_market_collateral: NullableNum('lst_collateral_usd / market_collateral_usd'),
  looped_collateral_usd: NullableNum('LST collateral of looped positions (whatever the flag)'),
  looped_share: NullableNum('looped LST collateral / all LST collateral, in tokens (whatever the flag)'),
  position_count: Count('Positions in scope'),
  borrowing_position_count: Count('Positions in scope with debt'),
  looped_position_count: Count('Looped positions (whatever the flag)'),
  debt_usd: NullableNum('Debt of the positions in scope; null when one debt is unpriced'),
  underlying_debt_usd: NullableNum('The part of debt_usd borrowed in the underlying'),
  health_factor_distribution: Type.Array(HealthBand),
  depeg_scenarios: Type.Array(DepegScenario, {
    description: 'Depegs of 1, 2, 5 and 10 %; empty (gap_reasons.depeg_scenarios) when a position is unpriced',
  }),
  gap_reasons: GapReasons,
  all_markets: Type.Optional(
    Type.Object(
      {
        markets: Count('Tracked lending markets listing the token'),
        lst_collateral_token: NullableNum(
          'LST posted as collateral over all of them (every position, whatever the flag)',
        ),
        lst_collateral_usd: NullableNum('lst_collateral_token × the LST policy price'),
        debt_usd: NullableNum('Debt of those positions'),
        position_count: Nullable(Count()),
        lst_price_source: Nullable(Type.String()),
        gap_reason: Nullable(Type.String({ description: 'no_data (a market without a snapshot), no_price' })),
      },
      { description: 'The token’s exposure summed across the tracked lending markets (their latest snapshots)' },
    ),
  ),
  as_of: Iso('Block time of snapshot_block'),
});

/** Min/max discount (percent, positive below the exchange rate) of a pool's swaps over the day and the week. */
export const PegHistory = Type.Object({
  discount_min_pct_day: NullableNum('Least discount of the swaps of the UTC day up to the record instant'),
  discount_max_pct_day: NullableNum('Greatest discount of those swaps'),
  discount_min_pct_7d: NullableNum('Least discount of the swaps of the 7 days ending at the record instant'),
  discount_max_pct_7d: NullableNum('Greatest discount of those swaps'),
  swaps_day: Count('Swaps of the day with a price and a rate'),
  swaps_7d: Count('Swaps of the 7 days with a price and a rate'),
});

/** The entity a score record describes (every record of a score path carries it). */
export const LstScoreIdentity = Type.Object({
  chain: Type.String(),
  protocol: Type.String({ description: 'The lending protocol or the exchange' }),
  version: Type.String(),
  pool_address: Type.String({ description: 'The DEX pool, or the lending market contract' }),
  token_address: Type.String({ description: 'The liquid staking token' }),
  base_asset: Type.Optional(Type.String({ description: 'Lending: the market base asset symbol' })),
  looped_only: Type.Optional(Type.Boolean({ description: 'Lending: `<flag>`' })),
});

/** A score record of the liquid staking history endpoints (as the DEX area's): the day it describes. */
export const LstScoreRecord = Type.Composite([
  DailyScoreRecord({ gapReasons: 'no_data, not_listed, no_positions, insufficient_evidence' }),
  LstScoreIdentity,
  Type.Object({
    peg_history: Type.Optional(Nullable(PegHistory)),
  }),
]);

export const LstScoreHistory = ScoreHistory(LstScoreRecord);

export type LiquidStakingTokenInfoEntry = Static<typeof LiquidStakingTokenInfo>;
export type AvailableLendingExposureEntry = Static<typeof AvailableLendingExposure>;
export type AvailableDexExposureEntry = Static<typeof AvailableDexExposure>;
export type DepthEntryPayload = Static<typeof DepthEntry>;
export type LstPoolAnalyticsPayload = Static<typeof LstPoolAnalytics>;
export type HealthBandEntry = Static<typeof HealthBand>;
export type DepegScenarioEntry = Static<typeof DepegScenario>;
export type LendingExposurePayload = Static<typeof LendingExposureAnalytics>;
export type LstScoreRecordEntry = Static<typeof LstScoreRecord>;
export type LstScoreIdentity = Static<typeof LstScoreIdentity>;
export type PegHistoryEntry = Static<typeof PegHistory>;
