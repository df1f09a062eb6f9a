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

export const AvailableMarket = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  base_asset: Type.String({ description: 'The market’s base asset symbol, as the other lending paths take it' }),
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
  borrowing_enabled: Type.Boolean(),
  collateral_enabled: Type.Boolean(),
  oracle_price_usd: Nullable(Type.Number({ minimum: 0, description: 'The market’s own oracle price' })),
  block_number: Count(),
  timestamp: Iso('The block the state was read at'),
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
export const LiquidationDay = Type.Object({
  date: Type.String(),
  count: Count(),
  debt_repaid_usd: Type.Number({ minimum: 0 }),
  collateral_seized_usd: Type.Number({ minimum: 0 }),
});

export const RecentLiquidation = Type.Object({
  tx_hash: Type.String(),
  block_number: Count(),
  timestamp: Iso('Block time'),
  borrower: Type.String(),
  liquidator: Type.String(),
  debt_asset: Type.String(),
  debt_repaid_token: Type.Number({ minimum: 0 }),
  debt_repaid_usd: Nullable(Type.Number({ minimum: 0 })),
  collateral_asset: Type.String(),
  collateral_seized_token: Type.Number({ minimum: 0 }),
  collateral_seized_usd: Nullable(Type.Number({ minimum: 0 })),
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
  total_supply_usd: Type.Number({ minimum: 0 }),
  total_borrow_usd: Type.Number({ minimum: 0 }),
  utilisation: Fraction('Borrowed / lendable supply in USD'),
  num_unique_wallets_supply: Count(),
  num_unique_wallets_borrow: Count(),
  assets: Type.Array(AssetAnalytics),
  health_factor_distribution: Type.Array(HealthBand, { description: 'Borrowers’ debt in USD by health-factor band' }),
  liquidations: Type.Object({
    window_days: Count(),
    count: Count(),
    debt_repaid_usd: Type.Number({ minimum: 0 }),
    collateral_seized_usd: Type.Number({ minimum: 0 }),
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
  total_supply_usd: Type.Number({ minimum: 0 }),
  total_borrow_usd: Type.Number({ minimum: 0 }),
  utilisation: Fraction('Borrowed / supplied in USD'),
  borrowers: Count(),
  liquidations_7d: Count(),
  score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  grade: Nullable(Grade),
  timestamp: Iso('The block the state was read at'),
});

export const MarketOverview = Type.Object({
  protocol: Type.String(),
  markets: Type.Array(MarketOverviewEntry),
  total_supply_usd: Type.Number({ minimum: 0 }),
  total_borrow_usd: Type.Number({ minimum: 0 }),
  utilisation: Fraction('Borrowed / supplied in USD over the markets'),
});

export const LendingScoreRecord = DailyScoreRecord({
  timestamp: 'The instant scored: the snapshot time for the running day, else the last second of the UTC day',
  gapReasons: 'no_snapshot, no_positions, …',
});

export const LendingScoreHistory = ScoreHistory(LendingScoreRecord);

export const AllMarketsEntry = Type.Composite([
  Type.Object({ chain: Type.String(), protocol: Type.String(), version: Type.String(), base_asset: Type.String() }),
  LendingScoreRecord,
]);

export type AvailableMarketEntry = Static<typeof AvailableMarket>;
export type AssetAnalyticsPayload = Static<typeof AssetAnalytics>;
export type HealthBandEntry = Static<typeof HealthBand>;
export type LiquidationDayEntry = Static<typeof LiquidationDay>;
export type MarketAnalyticsPayload = Static<typeof MarketAnalytics>;
export type LiquidationSummary = MarketAnalyticsPayload['liquidations'];
export type MarketOverviewPayload = Static<typeof MarketOverview>;
export type LendingScoreEntry = Static<typeof LendingScoreRecord>;
export type AllMarketsScoreEntry = Static<typeof AllMarketsEntry>;
