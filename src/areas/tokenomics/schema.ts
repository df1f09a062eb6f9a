/**
 * Payloads of the tokenomics paths (docs/methodology/tokenomics.md; legacy groups of reference/legacy-api.md §2.16
 * with their legacy names and units, and the new fields of issue 28). One daily record per UTC day, newest first; a
 * record names its token, the block it was read at and its dust threshold. Each group is null with its reason in the
 * record's `gap_reasons.<group>` when the day has nothing for it; inside a group, a null figure has its reason in the
 * group's `gap_reasons`. Token amounts are floats normalised by decimals, with the exact `*_raw` decimal string
 * where a client recounts them; `*_usd` and legacy USD figures are floats.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Count, Iso, IsoDate, Nullable, Usd } from '../kit/schema.js';

export const TOKENOMICS_METHODOLOGY = 'tokenomics.figures@1.1.0';

/** The holder categories of `breakdown` (API.md "Payloads"); a label's category is one of them. */
export const HOLDER_CATEGORIES = [
  'team',
  'investors',
  'treasury',
  'exchanges',
  'contracts',
  'community',
  'other',
] as const;
export type HolderCategory = (typeof HOLDER_CATEGORIES)[number];

const Raw = (description: string) => Type.String({ pattern: '^-?\\d+$', description });
const Tokens = (description: string) => Type.Number({ description });
const Percent = (description: string) => Nullable(Type.Number({ description }));
const GapReasons = Type.Record(Type.String(), Type.String(), {
  description: 'For each null figure of the group, why (docs/vocabulary.md "Unknown figures")',
});

export const TokenLabel = Type.Object({
  address: Type.String({ description: 'Lowercase 0x address' }),
  category: Type.Union(
    HOLDER_CATEGORIES.map((c) => Type.Literal(c)),
    { description: 'Holder category of breakdown' },
  ),
  label: Type.String(),
  source: Type.String({ description: 'Where the label comes from (registry, address book, vesting_contract…)' }),
});

export const Deduction = Type.Object({
  kind: Type.Union([
    Type.Literal('vesting_locked'),
    Type.Literal('treasury'),
    Type.Literal('unclaimed_airdrop'),
    Type.Literal('burn'),
  ]),
  addresses: Type.Array(Type.String()),
  amount: Tokens('Tokens deducted'),
  amount_raw: Raw('Exact raw amount'),
});

export const NextUnlock = Type.Object({
  date: Iso('The instant of the unlock'),
  amount: Tokens('Tokens that vest at that instant (every schedule)'),
  category: Type.String({ description: 'Allocation category of the largest part' }),
  categories: Type.Array(Type.String(), { description: 'Every category unlocking then' }),
});

export const SupplyMetrics = Type.Object({
  market_cap: Nullable(Usd('price × circulating_supply')),
  market_cap_reported: Nullable(Usd("The market-data source's market cap")),
  circulating_supply: Nullable(Tokens('= circulating_supply_onchain (the figure this service stands behind)')),
  circulating_supply_onchain: Tokens('total_supply − every deduction'),
  circulating_supply_onchain_raw: Raw('Exact raw amount'),
  circulating_supply_reported: Nullable(Tokens("The market-data source's circulating supply")),
  circulating_supply_divergence: Nullable(Type.Number({ description: '(reported − on-chain) / on-chain (fraction)' })),
  circulating_supply_divergence_flagged: Nullable(Type.Boolean({ description: '|divergence| > 0.05' })),
  deductions: Type.Array(Deduction, { description: 'What circulating_supply_onchain leaves out, each listed' }),
  total_supply: Tokens('totalSupply() at block_number'),
  total_supply_raw: Raw('Exact raw totalSupply()'),
  max_supply: Nullable(Tokens("The market-data source's max supply (null: the token has none, or no data)")),
  fully_diluted_valuation: Nullable(Usd('price × max_supply, or × total_supply without a max supply')),
  inflation_monthly: Percent(
    "Change of the total supply since the day-end snapshot 30 days before the record's day, percent of the earlier one",
  ),
  burn_rate_monthly: Percent(
    "The burn addresses' increase plus the total supply's net decrease since that snapshot, percent of its supply",
  ),
  locked_supply: Tokens('Not yet vested in the vesting contracts (their own views at block_number)'),
  locked_supply_raw: Raw('Exact raw amount'),
  unlocked_7d: Tokens('Vested in (as_of − 7 d, as_of] by the schedules'),
  unlocked_30d: Tokens('Vested in (as_of − 30 d, as_of]'),
  unlock_next_30d: Tokens('Will vest in (as_of, as_of + 30 d] by the schedules, linear streams included'),
  next_unlock: Nullable(NextUnlock),
  supply_reconciliation: Type.Object({
    replay_total: Tokens('Σ of the replayed balances (zero address left out)'),
    total_supply: Tokens('totalSupply()'),
    difference: Tokens('replay_total − total_supply'),
    agrees: Type.Boolean(),
    used: Type.Literal('total_supply', { description: 'The total every figure uses' }),
  }),
  gap_reasons: GapReasons,
});

const WhaleHoldings = Type.Object(
  {
    '0': Tokens('Held by holders above dust and at most 1,000 tokens'),
    '1000': Tokens('Held by holders above 1,000 and at most 100,000 tokens'),
    '100000': Tokens('Held by holders above 100,000 tokens (the whales)'),
  },
  { description: 'Tokens held per balance band; keys are the bands’ lower bounds in tokens (exclusive)' },
);

const concentrationFields = {
  top5_concentration: Percent('Σ of the 5 largest holders / total supply × 100'),
  top10_concentration: Percent('Σ of the 10 largest holders / total supply × 100'),
  top5_concentration_ex_infrastructure: Percent(
    'Without the labelled addresses: Σ of the 5 largest / (total supply − the labelled balances) × 100',
  ),
  top10_concentration_ex_infrastructure: Percent('As top5_concentration_ex_infrastructure, 10 largest'),
};

export const TokenomicsMetrics = Type.Object({
  price: Nullable(Usd("The market-data source's USD price at as_of")),
  num_token_holders: Count('Addresses holding strictly more than dust_threshold, the zero address excluded'),
  num_token_holders_change_24h: Type.Integer({ description: 'num_token_holders − the count 24 hours before as_of' }),
  num_token_holders_ex_infrastructure: Count('num_token_holders without the labelled addresses'),
  largest_holder: Nullable(Tokens('Balance of the largest holder')),
  largest_holder_address: Nullable(Type.String()),
  largest_holder_usd: Nullable(Usd('largest_holder × price')),
  largest_holder_ex_infrastructure: Nullable(Tokens('Largest holder without the labelled addresses')),
  largest_holder_ex_infrastructure_address: Nullable(Type.String()),
  unique_active_wallets_24h: Count('Distinct senders and recipients of Transfers in the 24 h to as_of (zero excluded)'),
  transfer_count_24h: Count('Transfers in the 24 h to as_of, mints and burns included'),
  transfer_volume_24h: Tokens('Σ Transfer values in the 24 h, mints and burns (zero address either side) excluded'),
  gini_coeff: Nullable(Type.Number({ description: 'Population Gini of the holders’ balances' })),
  gini_coeff_change: Nullable(Type.Number({ description: 'gini_coeff − the Gini 24 hours before as_of' })),
  gini_coeff_ex_infrastructure: Nullable(Type.Number({ description: 'Gini without the labelled addresses' })),
  hhi: Nullable(Type.Number({ description: 'Σ (balance / held supply × 100)² over the holders: 0–10,000' })),
  hhi_ex_infrastructure: Nullable(Type.Number()),
  nakamoto_coefficient: Nullable(Count('Fewest holders with more than half of the held supply')),
  nakamoto_coefficient_ex_infrastructure: Nullable(Count()),
  ...concentrationFields,
  whale_holdings: WhaleHoldings,
  whale_count: Count('Holders above 100,000 tokens'),
  whale_ratio: Percent('whale_count / num_token_holders × 100'),
  whale_movement_indicator: Nullable(
    Type.Number({
      description:
        "Net tokens received by today's whales in the 24 h (in − out) / total supply (fraction; negative: distributing)",
    }),
  ),
  onchain_velocity: Nullable(Type.Number({ description: 'transfer_volume_24h / circulating_supply_onchain' })),
  dust_threshold: Tokens('A holder holds strictly more (tokens)'),
  gap_reasons: GapReasons,
});

export const Indicators = Type.Object({
  volatility: Percent('Sample sd of the window’s daily log returns × 100 (percent per day)'),
  volatility_annualised: Percent('volatility × √365'),
  return_window_days: Count('The window of daily returns: the 30 UTC days ending with the day of as_of'),
  return_days: Count('Daily log returns in the window'),
  daily_correlation_eth: Nullable(Type.Number({ description: "Pearson's r with ETH's daily log returns" })),
  daily_correlation_btc: Nullable(Type.Number({ description: "Pearson's r with BTC's daily log returns" })),
  market_cap_dominance: Percent('market_cap / global total market cap × 100'),
  sharpe_ratio: Nullable(Type.Number({ description: '(mean daily log return × 365 − risk_free_rate) / (sd × √365)' })),
  sharp_ratio: Nullable(Type.Number({ description: 'Legacy spelling of sharpe_ratio (same value)' })),
  risk_free_rate: Type.Number({ description: 'Annual risk-free rate of sharpe_ratio (fraction)' }),
  ...concentrationFields,
  nvt: Nullable(Type.Number({ description: 'market_cap / (transfer_volume_24h × price)' })),
  velocity: Nullable(Type.Number({ description: 'transfer_volume_24h / circulating_supply_onchain (24 h)' })),
  exchange_netflow: Tokens('Tokens into labelled exchange wallets − out of them, 24 h (between two: 0)'),
  exchange_netflow_usd: Nullable(Type.Number({ description: 'exchange_netflow × price' })),
  holder_growth: Percent('num_token_holders_change_24h / the count 24 hours before × 100'),
  gap_reasons: GapReasons,
});

export const SchedulePiece = Type.Object({
  kind: Type.Union([Type.Literal('cliff'), Type.Literal('linear'), Type.Literal('step')]),
  at: Nullable(Iso('cliff, step: the instant the amount vests')),
  start: Nullable(Iso('linear: vesting starts')),
  cliff: Nullable(Iso('linear: nothing vests before it (null: no cliff)')),
  end: Nullable(Iso('linear: all vested')),
  amount: Tokens('Tokens of the piece'),
});

export const OnchainContract = Type.Object({
  address: Type.String(),
  kind: Type.String({ description: 'treasury_vester, vesting_wallet, token_timelock, merkle_distributor, schedule' }),
  held: Tokens('balanceOf(contract) at block_number'),
  locked_now: Tokens('Not yet vested, by the contract’s own maths (0 for a distributor)'),
  released: Tokens('What the contract has paid out'),
});

export const Allocation = Type.Object({
  category: Type.String(),
  label: Type.String(),
  share: Percent('amount / total supply × 100'),
  amount: Tokens('Tokens allocated'),
  schedule: Type.Array(SchedulePiece),
  revoked_at: Nullable(Iso('Vesting stopped here; the rest was returned')),
  unlocked_share: Percent('Vested part of the allocation × 100 (the contracts’ own views where verified)'),
  gap_reasons: GapReasons,
  sources: Type.Array(Type.Object({ kind: Type.String(), ref: Type.String() })),
  assumptions: Type.Array(Type.String()),
  verified: Type.Boolean({ description: 'True when a contract holding the allocation proves it (onchain)' }),
  onchain: Nullable(
    Type.Object({
      contracts: Type.Array(OnchainContract),
      held: Tokens('Σ held'),
      locked_now: Tokens('Σ locked_now'),
    }),
  ),
});

export const AllocationMetrics = Type.Object({
  allocation_map: Type.Record(Type.String(), Type.Number(), {
    description: 'Percent of total supply per allocation category',
  }),
  project_percentage: Percent('Team and advisors allocations, percent of total supply (legacy)'),
  allocations: Type.Array(Allocation),
  gap_reasons: GapReasons,
});

export const ExchangeVenue = Type.Object({
  exchange_name: Type.String(),
  exchange_id: Type.String({ description: "The market-data source's exchange identifier" }),
  exchange_type: Nullable(Type.Union([Type.Literal('cex'), Type.Literal('dex')])),
  volume_24h_usd: Usd('Σ converted_volume.usd of its kept tickers'),
  volume_share: Percent('volume_24h_usd / all kept volume × 100'),
  bid_ask_spread_percentage: Nullable(Type.Number({ description: 'Volume-weighted mean of its tickers’ spreads' })),
  depth_up_usd: Nullable(Usd('Σ cost_to_move_up_usd (+2 %)')),
  depth_down_usd: Nullable(Usd('Σ cost_to_move_down_usd (−2 %)')),
  trust_score: Nullable(Type.String({ description: 'Worst of its tickers (red < yellow < green)' })),
  ticker_count: Count('Kept tickers'),
  held: Nullable(Tokens('Tokens in its labelled wallets; null (no_members) when no label names the venue')),
  market_cap_held_usd: Nullable(Usd('held × price')),
  market_cap_held_percentage: Percent('held / total supply × 100'),
  dominance: Percent('= market_cap_held_percentage (as in the legacy example)'),
  wallets: Type.Array(Type.String(), { description: 'Its labelled wallets' }),
  gap_reasons: GapReasons,
});

/** The ticker figures are null (the tickers' reason) on a day without tickers; the on-chain DEX volume stays. */
export const ExchangeMetrics = Type.Object({
  num_exchanges_listed: Nullable(Count('Venues with at least one kept ticker')),
  cex_volume: Nullable(Usd('24 h USD volume of kept tickers on centralized exchanges')),
  dex_volume: Nullable(Usd('24 h USD volume of kept tickers on decentralized exchanges')),
  dex_volume_onchain_usd: Nullable(Usd("Recounted from the chain's swaps of the tracked pools, 24 h")),
  unknown_type_volume_usd: Nullable(Usd('Kept volume on exchanges the source does not flag')),
  tickers_kept: Nullable(Count()),
  anomalous_tickers: Nullable(Count('is_anomaly (excluded)')),
  stale_tickers: Nullable(Count('is_stale (excluded)')),
  excluded_tickers: Nullable(Count('Anomalous or stale')),
  unpriced_tickers: Nullable(Count('Kept tickers without a USD volume')),
  exchanges: Nullable(Type.Array(ExchangeVenue, { description: 'By volume, largest first' })),
  gap_reasons: GapReasons,
});

const CategoryShare = Type.Object({
  amount: Tokens('Σ balances of the category’s labelled addresses'),
  amount_raw: Raw('Exact raw amount'),
  share: Percent('amount / total supply × 100'),
  addresses: Count('Labelled addresses of the category'),
});

export const Breakdown = Type.Object({
  categories: Type.Object(
    Object.fromEntries(HOLDER_CATEGORIES.map((c) => [c, CategoryShare])) as Record<
      HolderCategory,
      typeof CategoryShare
    >,
  ),
  unlabelled: Type.Object({
    amount: Tokens('total supply − Σ labelled balances'),
    amount_raw: Raw('Exact raw amount'),
    share: Percent('amount / total supply × 100'),
    addresses: Count('Unlabelled holders above dust'),
  }),
  unlabelled_share: Percent('= unlabelled.share'),
  labels: Type.Array(TokenLabel, { description: 'The labels used: the addresses *_ex_infrastructure leave out' }),
  gap_reasons: GapReasons,
});

/** The fields every tokenomics record starts with. */
const headerFields = {
  date: IsoDate(),
  partial: Type.Boolean({ description: 'True for the running day' }),
  as_of: Iso('The instant the record holds at: as_of for the running day, else the last second of the day'),
  token_address: Type.String({ description: 'Lowercase 0x address' }),
  chain: Type.String(),
  coingecko_id: Nullable(Type.String()),
  block_number: Nullable(Count('Block the balances and contract views were read at (the day’s end block)')),
  dust_threshold: Tokens('A holder holds strictly more (tokens)'),
  gap_reason: Nullable(Type.String({ description: 'Why the whole record is null (no_data, not_deployed)' })),
  gap_reasons: Type.Record(Type.String(), Type.String(), {
    description: 'Why a whole group is null: { <group>: reason }',
  }),
};

const groups = {
  supply_metrics: Nullable(SupplyMetrics),
  tokenomics_metrics: Nullable(TokenomicsMetrics),
  indicators: Nullable(Indicators),
  allocation_metrics: Nullable(AllocationMetrics),
  exchange_metrics: Nullable(ExchangeMetrics),
  breakdown: Nullable(Breakdown),
};
export type GroupName = keyof typeof groups;
export const GROUP_NAMES = Object.keys(groups) as GroupName[];

export const TokenomicsRecord = Type.Object({ ...headerFields, ...groups });

const oneGroup = <K extends GroupName>(k: K) =>
  Type.Object({ ...headerFields, [k]: groups[k] } as typeof headerFields & Record<K, (typeof groups)[K]>);

/** The record of each sub-path: the header and its one group. */
export const GroupRecords = {
  supply: oneGroup('supply_metrics'),
  metrics: oneGroup('tokenomics_metrics'),
  indicators: oneGroup('indicators'),
  allocations: oneGroup('allocation_metrics'),
  exchanges: oneGroup('exchange_metrics'),
  breakdown: oneGroup('breakdown'),
} as const satisfies Record<string, TSchema>;

/** The group of each sub-path (`/data/tokenomics/<sub>/<protocol>`). */
export const SUB_PATH_GROUP: Record<keyof typeof GroupRecords, GroupName> = {
  supply: 'supply_metrics',
  metrics: 'tokenomics_metrics',
  indicators: 'indicators',
  allocations: 'allocation_metrics',
  exchanges: 'exchange_metrics',
  breakdown: 'breakdown',
};

export const TokenomicsHistory = Type.Array(TokenomicsRecord, { minItems: 7, maxItems: 7 });

export type TokenLabelEntry = Static<typeof TokenLabel>;
export type SupplyMetricsPayload = Static<typeof SupplyMetrics>;
export type TokenomicsMetricsPayload = Static<typeof TokenomicsMetrics>;
export type IndicatorsPayload = Static<typeof Indicators>;
export type AllocationEntry = Static<typeof Allocation>;
export type SchedulePieceEntry = Static<typeof SchedulePiece>;
export type AllocationMetricsPayload = Static<typeof AllocationMetrics>;
export type ExchangeVenueEntry = Static<typeof ExchangeVenue>;
export type ExchangeMetricsPayload = Static<typeof ExchangeMetrics>;
export type BreakdownPayload = Static<typeof Breakdown>;
export type TokenomicsRecordPayload = Static<typeof TokenomicsRecord>;
