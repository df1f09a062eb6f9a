/**
 * Payload schemas of the DEX paths (DESIGN.md convention 3: one schema per shape, for validation, types, responses
 * and OpenAPI). `compute.ts` produces exactly these shapes (`Static<…>`).
 */
import { type Static, Type } from '@sinclair/typebox';
import { Count, DailyScoreRecord, Iso, Nullable, ScoreHistory, Usd } from '../kit/schema.js';

export const DexToken = Type.Object({
  address: Type.String({ description: 'Lowercase 0x address' }),
  symbol: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
});

/** Why a field of a partly known record is null: `{ <field>: <reason> }`, only for the null fields. */
export const GapReasons = Type.Record(Type.String(), Type.String(), {
  description: 'For each null figure of the record, why (no_data, no_price, no_liquidity, not_applicable…)',
});

export const HourlyVolume = Type.Object({
  hour: Iso('Start of the UTC hour'),
  partial: Type.Boolean({ description: 'True for the running hour (the one containing as_of)' }),
  volume_usd: Usd('Volume of the priced swaps of the hour (one side, gross of fees)'),
  swap_count: Count('All swaps of the hour'),
  unpriced_swap_count: Count('Swaps of the hour without a price on either side (not in volume_usd)'),
});

/**
 * Fields shared by pool and protocol analytics. Windows end at `as_of`: 24 h = (as_of − 86400 s, as_of],
 * 7 d = (as_of − 604800 s, as_of].
 */
const activityFields = {
  volume_24h_usd: Usd('One side of each swap (the input token, else the output token) × its USD price of the hour'),
  volume_7d_usd: Usd('As volume_24h_usd, over 7 days'),
  swap_count_24h: Count('All swaps, dust and unpriced included'),
  swap_count_7d: Count('All swaps, dust and unpriced included'),
  unique_traders_24h: Count('Distinct transaction senders'),
  unique_traders_7d: Count('Distinct transaction senders'),
  mean_trade_usd_7d: Nullable(Usd('Mean USD size of priced swaps above $1 (dust excluded); null without any')),
  median_trade_usd_7d: Nullable(Usd('Median USD size of priced swaps above $1 (dust excluded); null without any')),
  dust_swap_count_7d: Count('Priced swaps worth $1 or less, excluded from trade statistics'),
  fees_24h_usd: Usd('volume_24h_usd × fee tier'),
  fees_7d_usd: Usd('volume_7d_usd × fee tier'),
  volume_complete: Type.Boolean({
    description: 'False when some 7-day swap had no price: USD figures cover only priced swaps',
  }),
  unpriced_swap_count_24h: Count('Swaps without a price on either side'),
  unpriced_swap_count_7d: Count('Swaps without a price on either side'),
  unpriced_tokens: Type.Array(Type.String(), {
    description: 'Tokens whose missing price left a USD figure (volume or TVL) incomplete',
  }),
  hourly: Type.Array(HourlyVolume, {
    description: 'The 168 UTC hours ending with the hour of as_of, newest first (the first entry is the running hour)',
  }),
  as_of: Iso('Newest block included: the end of every window'),
  gap_reasons: GapReasons,
};

/** Depth of a pool at one price move (API.md: depth to move the price 1/2/5 %), from the snapshot at as_of. */
export const PoolDepth = Type.Object({
  price_move: Type.Number({ description: 'The fall of the sold token’s price in the pool: 0.01 = 1 %' }),
  sell_token0: Type.Number({
    description: 'Token0 to sell into the pool to move its price in token1 down by price_move',
  }),
  sell_token0_usd: Nullable(Usd('sell_token0 × the USD price of token0 (null without a price: gap_reasons)')),
  sell_token1: Type.Number({ description: 'Token1 to sell to move its price in token0 down by price_move' }),
  sell_token1_usd: Nullable(Usd('sell_token1 × the USD price of token1')),
  reachable: Type.Boolean({
    description:
      'False when the pool cannot move that far (V3: its in-range balance runs out); amounts are then the largest sale it takes',
  }),
});

export const PoolAnalytics = Type.Object({
  pool_address: Type.String(),
  pool_name: Type.String({ description: '`<protocol> <symbol0>/<symbol1> <fee %>`' }),
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  exchange_name: Type.String(),
  design: Type.String(),
  token0: DexToken,
  token1: DexToken,
  fee_tier: Type.Integer({ description: 'Fee in hundredths of a basis point (3000 = 0.30 %)' }),
  fee_percent: Type.Number(),
  created_at: Iso('Creation block time'),
  snapshot_block: Nullable(Type.Integer({ description: 'Block of the state behind reserves, price and TVL' })),
  reserve0: Nullable(Type.Number({ description: 'Token0 held by the pool, normalised by decimals' })),
  reserve1: Nullable(Type.Number()),
  reserve0_raw: Nullable(Type.String({ description: 'Exact raw amount' })),
  reserve1_raw: Nullable(Type.String()),
  price: Nullable(Type.Number({ description: 'token1 per token0 (V3: from sqrtPriceX96; V2: from the reserves)' })),
  token0_price_usd: Nullable(Type.Number()),
  token1_price_usd: Nullable(Type.Number()),
  token0_price_source: Nullable(
    Type.String({ description: 'Source of token0_price_usd: the DEX price’s `source` (docs/methodology/prices.md)' }),
  ),
  token0_price_confidence: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Its confidence in (0, 1]' })),
  token1_price_source: Nullable(Type.String()),
  token1_price_confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  tvl_usd: Nullable(Usd('reserve0 × price0 + reserve1 × price1; null when either price is missing')),
  fee_apr: Nullable(
    Type.Number({ description: 'fees_7d_usd × 365 / 7 / tvl_usd (a fraction: 0.12 = 12 %/yr); null without a TVL' }),
  ),
  depth: Type.Array(PoolDepth, {
    description: 'Depth to move the pool’s price by 1, 2 and 5 % (empty without a snapshot: gap_reasons.depth)',
  }),
  volume_24h_token0: Type.Number({ description: 'Σ |amount0| of the 24 h swaps, normalised' }),
  volume_24h_token1: Type.Number(),
  volume_7d_token0: Type.Number(),
  volume_7d_token1: Type.Number(),
  ...activityFields,
});

export const TopPool = Type.Object({
  pool_address: Type.String(),
  pool_name: Type.String(),
  chain: Type.String(),
  version: Type.String(),
  tvl_usd: Nullable(Type.Number()),
  volume_24h_usd: Type.Number(),
  volume_7d_usd: Type.Number(),
  gap_reasons: GapReasons,
});

const aggregateFields = {
  pool_count: Count('Tracked pools'),
  tvl_usd: Nullable(Usd('Σ pool TVL over the pools that have one; null when none has')),
  tvl_complete: Type.Boolean({ description: 'False when some pool has no TVL (a missing price)' }),
  pools_without_tvl: Count('Pools left out of tvl_usd'),
  ...activityFields,
  top_pools: Type.Array(TopPool, { description: 'Up to 10 pools by TVL, largest first, address as tie-break' }),
};

export const ProtocolAnalytics = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  exchange_name: Type.String(),
  design: Type.String(),
  ...aggregateFields,
});

export const DeploymentSummary = Type.Object({
  chain: Type.String(),
  version: Type.String(),
  exchange_name: Type.String(),
  pool_count: Count(),
  tvl_usd: Nullable(Type.Number()),
  volume_24h_usd: Type.Number(),
  volume_7d_usd: Type.Number(),
  swap_count_24h: Count(),
  gap_reasons: GapReasons,
});

export const ProtocolOverview = Type.Object({
  protocol: Type.String(),
  exchange_names: Type.Array(Type.String()),
  chain_count: Count('Chains with a tracked deployment'),
  deployment_count: Count('Tracked (chain, version) deployments'),
  deployments: Type.Array(DeploymentSummary),
  ...aggregateFields,
});

export const AvailableDex = Type.Object({
  chain: Type.String(),
  protocol: Type.String(),
  version: Type.String(),
  exchange_name: Type.String(),
  design: Type.String(),
  pool_count: Count('Tracked pools'),
  number_of_pools: Count('Same as pool_count (legacy name)'),
  tvl_usd: Nullable(Type.Number()),
  tvl_complete: Type.Boolean(),
  gap_reasons: GapReasons,
});

export const AvailablePool = Type.Object({
  pool_address: Type.String(),
  pool_name: Type.String(),
  token0: DexToken,
  token1: DexToken,
  fee_tier: Type.Integer(),
  tvl_usd: Nullable(Type.Number()),
  volume_24h_usd: Type.Number(),
  volume_complete: Type.Boolean(),
  gap_reasons: GapReasons,
});

/** A score of the DEX history endpoints: the shared score record plus the day it describes. */
export const DexScoreRecord = DailyScoreRecord({
  gapReasons:
    'not_deployed (before the pool existed), no_data, no_members (no pools), insufficient_evidence (no scored pools)',
});

/** The day's own figures in every record of a DEX score history (computed from facts up to the record's instant). */
const dailyFields = {
  volume_usd: Usd('USD volume of the record’s UTC day up to its timestamp (priced swaps, one side)'),
  swap_count: Count('Swaps of the record’s UTC day up to its timestamp'),
  tvl_usd: Nullable(Usd('TVL at the record’s timestamp, at the USD prices of its hour (null: gap_reasons.tvl_usd)')),
  gap_reasons: GapReasons,
};

export const DexPoolScoreRecord = Type.Composite([
  Type.Object({
    chain: Type.String(),
    protocol: Type.String(),
    version: Type.String(),
    pool_address: Type.String(),
    ...dailyFields,
  }),
  DexScoreRecord,
]);

export const DexDeploymentScoreRecord = Type.Composite([
  Type.Object({ chain: Type.String(), protocol: Type.String(), version: Type.String(), ...dailyFields }),
  DexScoreRecord,
]);

export const DexOverviewScoreRecord = Type.Composite([
  Type.Object({ protocol: Type.String(), ...dailyFields }),
  DexScoreRecord,
]);

export const DexProtocolScore = DexOverviewScoreRecord;

export const DexPoolScoreHistory = ScoreHistory(DexPoolScoreRecord);
export const DexDeploymentScoreHistory = ScoreHistory(DexDeploymentScoreRecord);
export const DexOverviewScoreHistory = ScoreHistory(DexOverviewScoreRecord);

export type DexTokenInfo = Static<typeof DexToken>;
export type HourlyVolumeEntry = Static<typeof HourlyVolume>;
export type PoolAnalyticsPayload = Static<typeof PoolAnalytics>;
export type TopPoolEntry = Static<typeof TopPool>;
export type ProtocolAnalyticsPayload = Static<typeof ProtocolAnalytics>;
export type DeploymentSummaryEntry = Static<typeof DeploymentSummary>;
export type ProtocolOverviewPayload = Static<typeof ProtocolOverview>;
export type AvailableDexEntry = Static<typeof AvailableDex>;
export type AvailablePoolEntry = Static<typeof AvailablePool>;
export type DexProtocolScoreEntry = Static<typeof DexProtocolScore>;
export type DexScoreRecordEntry = Static<typeof DexScoreRecord>;
export type DexPoolScoreRecordEntry = Static<typeof DexPoolScoreRecord>;
export type DexDeploymentScoreRecordEntry = Static<typeof DexDeploymentScoreRecord>;
export type DexOverviewScoreRecordEntry = Static<typeof DexOverviewScoreRecord>;
export type PoolDepthEntry = Static<typeof PoolDepth>;
