/**
 * Payload schemas of the lending paths (documented in OpenAPI). `compute.ts` and `score.ts` produce exactly these
 * shapes (the `Static<…>` types at the end); compute.test.ts checks the computed documents against them.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Count, DailyScoreRecord, Fraction, Grade, Iso, Nullable, ScoreHistory } from '../kit/schema.js';

const Token = Type.Object({
  token_address: Type.String({ description: 'Lowercase 0x address' }),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
});

/** The legacy API's base asset object (reference/legacy-api.md, available-markets). */
const LegacyBaseAsset = Type.Object({
  token_index: Type.Integer({ minimum: 0, description: 'Position in the market’s asset list' }),
  token_address: Type.String(),
  token_name: Type.String(),
  token_symbol: Type.String(),
  token_decimal: Type.Integer({ minimum: 0 }),
});

/** Why figures of a partly known record are null, by field (`no_price`, `not_applicable`, …). */
const GapReasons = Type.Record(Type.String(), Type.String(), {
  description: 'Per null figure, why it is null (no_price, not_applicable, no_data, …)',
});

const PriceSourceField = Nullable(
  Type.Union([Type.Literal('oracle'), Type.Literal('dex'), Type.Literal('market_oracle')], {
    description: 'Which source the price policy chose (docs/methodology/prices.md "Policy across areas")',
  }),
);

export const AvailableMarket = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset: Nullable(LegacyBaseAsset),
  base_asset_symbol: Type.String({ description: 'The market’s base asset symbol, as the other lending paths take it' }),
  market_name: Type.String(),
  design: Type.String({ description: 'aave-v3 (pooled reserves) or morpho-blue (isolated pairs)' }),
  pool_address: Type.String({ description: 'The market’s contract: Aave Pool, Morpho singleton' }),
  base_asset_token: Nullable(Token),
  assets: Type.Array(Token),
  number_of_assets: Count(),
});

export const AssetAnalytics = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset_symbol: Type.String(),
  token_address: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
  total_supply_token: Type.Number({
    minimum: 0,
    description: 'Supplied (aToken supply; Morpho: loan supply or collateral)',
  }),
  total_supply_usd: Nullable(Type.Number({ minimum: 0 })),
  total_borrow_token: Type.Number({ minimum: 0, description: 'Borrowed (variable + stable debt token supply)' }),
  total_borrow_usd: Nullable(Type.Number({ minimum: 0 })),
  total_supply_raw: Type.String(),
  total_borrow_raw: Type.String(),
  num_unique_wallets_supply: Count('Accounts with a non-zero supply of the asset at the block'),
  num_unique_wallets_borrow: Count('Accounts with non-zero debt in the asset at the block'),
  utilisation: Fraction('Borrowed / supplied (null when the asset cannot be borrowed)'),
  supply_rate: Fraction('Yearly supply rate as a fraction (APR)'),
  borrow_rate: Fraction('Yearly variable borrow rate as a fraction (APR)'),
  collateral_factor: Fraction('Maximum loan-to-value'),
  liquidation_threshold: Fraction('Loan-to-value at which a position can be liquidated'),
  liquidation_bonus: Fraction('Liquidator’s premium on seized collateral (0.05 = 5 %)'),
  reserve_factor: Fraction('Share of interest kept by the protocol'),
  supply_cap_token: Nullable(Type.Number({ minimum: 0, description: '0: no cap' })),
  borrow_cap_token: Nullable(Type.Number({ minimum: 0, description: '0: no cap' })),
  supply_cap_used: Nullable(Type.Number({ minimum: 0, description: 'Supplied / supply cap (null: no cap)' })),
  borrow_cap_used: Nullable(Type.Number({ minimum: 0, description: 'Borrowed / borrow cap (null: no cap)' })),
  borrowing_enabled: Type.Boolean(),
  collateral_enabled: Type.Boolean(),
  oracle_price_usd: Nullable(
    Type.Number({
      minimum: 0,
      description:
        'The USD price feed’s answer the price policy takes for the token at the block (Aave design: AaveOracle, the market’s own or, for a Morpho loan token, the same chain’s Aave-design markets’); null when no feed prices it',
    }),
  ),
  oracle_source_ref: Nullable(Type.String({ description: 'The feed oracle_price_usd was read from' })),
  market_oracle_price: Nullable(
    Type.Number({
      minimum: 0,
      description:
        'Morpho collateral: its isolated market’s oracle as it answers (IOracle.price()), loan tokens per collateral token',
    }),
  ),
  market_oracle_address: Nullable(Type.String({ description: 'Morpho collateral: the isolated market’s oracle' })),
  market_oracle_disagreement: Nullable(
    Type.Number({
      minimum: 0,
      description: '|market_oracle_price × the loan token’s price_usd / price_usd − 1| (4 decimals)',
    }),
  ),
  market_oracle_flagged: Type.Boolean({ description: 'market_oracle_disagreement is above 2 %' }),
  price_usd: Nullable(Type.Number({ minimum: 0, description: 'The policy price every USD figure here uses' })),
  price_source: PriceSourceField,
  price_source_ref: Nullable(Type.String({ description: 'What was read: the oracle or the DEX price’s pools' })),
  price_confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  price_flagged: Type.Boolean({ description: 'The oracle and DEX prices differ by more than 2 %' }),
  price_disagreement: Nullable(
    Type.Number({ minimum: 0, description: '|price_usd / alternative_price_usd − 1| (4 decimals), when both exist' }),
  ),
  alternative_price_usd: Nullable(Type.Number({ minimum: 0, description: 'The other source’s price, if any' })),
  rate_model: Nullable(
    Type.Object(
      {
        kind: Type.String({
          description: 'aave-v3-default (kinked linear) or morpho-adaptive-curve (AdaptiveCurveIrm)',
        }),
        optimal_utilisation: Type.Number({ description: 'The kink (Aave) or target utilisation (Morpho: 0.9)' }),
        base_rate: Nullable(Type.Number({ description: 'Aave: variable borrow rate at 0 % utilisation (yearly)' })),
        slope1: Nullable(Type.Number({ description: 'Aave: rate added from 0 to the kink' })),
        slope2: Nullable(Type.Number({ description: 'Aave: rate added from the kink to 100 %' })),
        curve_steepness: Nullable(Type.Number({ description: 'Morpho: rate at 100 % / rate at target (4)' })),
        rate_at_optimal: Nullable(Type.Number({ description: 'Aave: base + slope1' })),
        rate_at_full_use: Nullable(Type.Number({ description: 'Aave: base + slope1 + slope2' })),
        gap_reasons: Type.Record(Type.String(), Type.String()),
      },
      {
        description: 'The variable borrow rate curve as the contracts define it; null when the asset is not borrowable',
      },
    ),
  ),
  isolation: Nullable(
    Type.Object(
      {
        isolated_collateral: Type.Boolean({ description: 'The asset has a debt ceiling (Aave V3 isolation mode)' }),
        debt_ceiling_usd: Type.Number({ minimum: 0, description: '0: not an isolated collateral' }),
        isolated_debt_usd: Type.Number({ minimum: 0, description: 'Debt borrowed against it in isolation mode' }),
        debt_ceiling_used: Nullable(Type.Number({ minimum: 0 })),
        borrowable_in_isolation: Type.Boolean(),
        siloed_borrowing: Type.Boolean(),
        gap_reasons: Type.Record(Type.String(), Type.String()),
      },
      { description: 'Aave V3 isolation mode parameters; null for designs without it (Morpho)' },
    ),
  ),
  position_classes: Type.Array(
    Type.Object({
      class: Type.String({ description: 'normal, emode:<id>[:<label>] (Aave), morpho_market:<id> (Morpho)' }),
      ltv: Nullable(Type.Number()),
      liquidation_threshold: Nullable(Type.Number()),
      liquidation_bonus: Nullable(Type.Number()),
      positions: Count('Positions of the class posting this asset as collateral'),
    }),
    { description: 'The parameters each class of position borrows under against this asset' },
  ),
  gap_reasons: GapReasons,
  block_number: Count(),
  timestamp: Iso('The block the state was read at'),
});

const TopAccount = Type.Object({
  account: Type.String(),
  usd: Type.Number({ minimum: 0 }),
  share: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
});

const MorphoMarketRow = Type.Object({
  market_id: Type.String(),
  loan_token: Type.String(),
  collateral_token: Type.String(),
  lltv: Type.Number(),
  oracle: Nullable(Type.String()),
  irm: Nullable(Type.String()),
  fee: Nullable(Type.Number()),
  oracle_price: Nullable(Type.Number({ description: 'Collateral in loan token (whole units), the market’s oracle' })),
  total_supply_token: Type.Number({ minimum: 0 }),
  total_borrow_token: Type.Number({ minimum: 0 }),
  total_collateral_token: Type.Number({ minimum: 0 }),
  total_supply_usd: Nullable(Type.Number({ minimum: 0 })),
  total_borrow_usd: Nullable(Type.Number({ minimum: 0 })),
  total_collateral_usd: Nullable(Type.Number({ minimum: 0 })),
  utilisation: Fraction('Borrowed / supplied in the isolated market'),
  supply_rate: Fraction('Yearly supply rate'),
  borrow_rate: Fraction('Yearly borrow rate'),
  borrowers: Count(),
});

/** One health-factor band of a market (lower bound inclusive). */
export const HealthBand = Type.Object({
  band: Type.String(),
  min: Type.Number(),
  max: Nullable(Type.Number()),
  debt_usd: Type.Number({ minimum: 0 }),
  positions: Count(),
});

/** The liquidations of one UTC day of the window. */
/** Why a USD figure of a liquidation table is null (`no_price`: a liquidation of an unpriced token). */
const LiquidationGaps = Type.Record(Type.String(), Type.String(), {
  description: 'Per-field reasons of the null figures (no_price)',
});

export const LiquidationDay = Type.Object({
  date: Type.String(),
  partial: Type.Boolean({ description: 'True for the running day' }),
  count: Count(),
  debt_repaid_usd: Nullable(Type.Number({ minimum: 0 })),
  collateral_seized_usd: Nullable(Type.Number({ minimum: 0 })),
  gap_reasons: LiquidationGaps,
});

/**
 * The price a liquidation leg is valued at (core/price-policy `choosePrice` at the block time): the USD feed answer
 * at or before it while fresh (`oracle`, the feed's address in `source_ref`), else the DEX price of the instant
 * (`dex`, its pools), else a stale feed answer at low confidence.
 */
export const LiquidationPrice = Type.Object({
  price_usd: Type.Number({ description: 'USD price of one whole token at the block time (8 decimals)' }),
  source: Type.Union([Type.Literal('oracle'), Type.Literal('dex'), Type.Literal('market_oracle')], {
    description: 'oracle: a USD price feed of the oracle area; dex: the DEX price of the instant',
  }),
  source_ref: Type.String({ description: 'What was read: the feed’s address, or the DEX price’s pools' }),
  confidence: Type.Number({ description: 'In (0, 1]: halved when the two sources differ by more than 2 %' }),
  alternative_price_usd: Nullable(Type.Number({ description: 'The other source’s price, when there is one' })),
  disagreement: Nullable(Type.Number({ description: '|chosen / alternative − 1|, when both exist' })),
  flagged: Type.Boolean({ description: 'True when the two sources differ by more than 2 %' }),
});

export const RecentLiquidation = Type.Object({
  tx_hash: Type.String(),
  block_number: Count(),
  timestamp: Iso('Block time'),
  borrower: Type.String(),
  liquidator: Type.String(),
  debt_asset: Type.String(),
  debt_repaid_token: Type.Number({ minimum: 0 }),
  debt_repaid_usd: Nullable(Type.Number({ minimum: 0, description: '`debt_repaid_token` × `debt_price.price_usd`' })),
  debt_price: Nullable(LiquidationPrice),
  collateral_asset: Type.String(),
  collateral_seized_token: Type.Number({ minimum: 0 }),
  collateral_seized_usd: Nullable(
    Type.Number({ minimum: 0, description: '`collateral_seized_token` × `collateral_price.price_usd`' }),
  ),
  collateral_price: Nullable(LiquidationPrice),
  gap_reasons: LiquidationGaps,
});

export const MarketAnalytics = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset: Type.String(),
  market_name: Type.String(),
  pool_address: Type.String(),
  block_number: Count(),
  timestamp: Iso('The block the state was read at'),
  total_supply_usd: Nullable(
    Type.Number({
      minimum: 0,
      description:
        'Lendable supply: the supply of the assets borrowers can take (Morpho: the loan token). Null when one is unpriced',
    }),
  ),
  total_collateral_only_usd: Nullable(
    Type.Number({
      minimum: 0,
      description:
        'Deposits that cannot be lent out: Morpho’s collateral, reserves with borrowing disabled. Null when one is unpriced',
    }),
  ),
  total_borrow_usd: Nullable(Type.Number({ minimum: 0, description: 'Null when an asset is unpriced' })),
  utilisation: Fraction('total_borrow_usd / total_supply_usd (borrowed over lendable supply)'),
  num_unique_wallets_supply: Count(),
  num_unique_wallets_borrow: Count(),
  assets: Type.Array(AssetAnalytics),
  health_factor_distribution: Type.Array(HealthBand, {
    description:
      'Borrowers’ debt in USD by health-factor band; health factors recomputed with each position’s own thresholds (E-mode, LLTV) at policy prices',
  }),
  unpriced_borrowers: Count('Borrowers left out of the distribution because a token of theirs has no price'),
  liquidations_at_risk: Type.Array(
    Type.Object({
      asset: Type.String(),
      symbol: Type.String(),
      price_usd: Nullable(Type.Number({ minimum: 0 })),
      price_source: PriceSourceField,
      drops: Type.Array(
        Type.Object({
          price_drop: Type.Number({ description: 'The asset’s price drop (0.05 = −5 %), alone' }),
          positions_liquidated: Count(),
          debt_repaid_usd: Nullable(Type.Number({ minimum: 0 })),
          collateral_to_sell_usd: Nullable(Type.Number({ minimum: 0 })),
          shortfall_usd: Nullable(
            Type.Number({ minimum: 0, description: 'Bad debt left by the liquidated positions' }),
          ),
          positions_with_shortfall: Count(),
          gap_reason: Nullable(Type.String()),
        }),
      ),
    }),
    { description: 'Per collateral, what a price drop of 5, 10, 20, 35 and 50 % liquidates (stress-test rules)' },
  ),
  top_suppliers: Nullable(
    Type.Array(TopAccount, { description: 'The 10 largest suppliers (USD over assets) and their share' }),
  ),
  top_borrowers: Nullable(Type.Array(TopAccount, { description: 'The 10 largest borrowers and their share' })),
  morpho_markets: Type.Array(MorphoMarketRow, { description: 'Morpho: the isolated markets of the view' }),
  gap_reasons: GapReasons,
  liquidations: Type.Object({
    window_days: Count(
      'The UTC days of `by_day` (the running day and the six before it): the window of every total here',
    ),
    count: Count('Liquidations in the window: the sum of the `by_day` counts'),
    count_7d: Count('Liquidations in the rolling 604,800 s ending at as_of (the `*_7d` window of the vocabulary)'),
    debt_repaid_usd: Nullable(Type.Number({ minimum: 0 })),
    collateral_seized_usd: Nullable(Type.Number({ minimum: 0 })),
    gap_reasons: LiquidationGaps,
    by_day: Type.Array(LiquidationDay),
    recent: Type.Array(RecentLiquidation),
  }),
});

/** One market of a protocol in its overview. */
export const MarketOverviewEntry = Type.Object({
  chain: Type.String(),
  version: Type.String(),
  base_asset: Type.String(),
  market_name: Type.String(),
  pool_address: Type.String(),
  total_supply_usd: Nullable(Type.Number({ minimum: 0 })),
  total_borrow_usd: Nullable(Type.Number({ minimum: 0 })),
  utilisation: Fraction('Borrowed / supplied in USD'),
  borrowers: Count(),
  liquidations_7d: Count('Liquidations in the rolling 604,800 s ending at the timestamp (as `liquidations.count_7d`)'),
  score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  grade: Nullable(Grade),
  gap_reasons: GapReasons,
  timestamp: Iso('The block the state was read at'),
});

export const MarketOverview = Type.Object({
  protocol: Type.String(),
  markets: Type.Array(MarketOverviewEntry),
  total_supply_usd: Nullable(Type.Number({ minimum: 0 })),
  total_borrow_usd: Nullable(Type.Number({ minimum: 0 })),
  utilisation: Fraction('Borrowed / supplied in USD over the markets'),
  gap_reasons: GapReasons,
});

export const LendingScoreRecord = Type.Composite([
  Type.Object({
    chain: Type.Optional(Type.String()),
    protocol: Type.Optional(Type.String({ description: 'Every record of the lending score paths names its entity' })),
    version: Type.Optional(Type.String()),
    base_asset: Type.Optional(Type.String({ description: 'A market’s record: its base asset symbol' })),
  }),
  DailyScoreRecord({
    timestamp: 'The instant scored: the snapshot time for the running day, else the last second of the UTC day',
    gapReasons:
      'no_data (no snapshot), no_positions, insufficient_evidence (no scored market), no_members (no markets)',
  }),
]);

export const LendingScoreHistory = ScoreHistory(LendingScoreRecord);

/** A market's current score: the identifiers are required here (one object, no overlapping composition). */
export const AllMarketsEntry = Type.Object({
  ...LendingScoreRecord.properties,
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset: Type.String(),
});

export type AvailableMarketEntry = Static<typeof AvailableMarket>;
export type AssetAnalyticsPayload = Static<typeof AssetAnalytics>;
export type HealthBandEntry = Static<typeof HealthBand>;
export type LiquidationDayEntry = Static<typeof LiquidationDay>;
export type MarketAnalyticsPayload = Static<typeof MarketAnalytics>;
export type LiquidationSummary = MarketAnalyticsPayload['liquidations'];
export type MarketOverviewPayload = Static<typeof MarketOverview>;
export type LendingScoreEntry = Static<typeof LendingScoreRecord>;
export type AllMarketsScoreEntry = Static<typeof AllMarketsEntry>;
