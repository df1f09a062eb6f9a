/**
 * Payload schemas of the derivatives paths (DESIGN.md convention 3: one schema per shape). `records.ts` builds
 * exactly these shapes (`Static<…>`); docs/methodology/derivatives.md defines every figure.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Count, Fraction, Iso, IsoDate, Nullable, Usd } from '../kit/schema.js';

/**
 * The model every derivatives document is computed by (`meta.methodology`): docs/methodology/derivatives.md. Its
 * version changes whenever a figure can change.
 */
export const DERIVATIVES_METHODOLOGY = 'derivatives.perpetuals@1.0.0';

/** Why a field of a partly known record is null: `{ <field>: <reason> }` (`<group>.<field>` inside a group). */
export const DerivativesGapReasons = Type.Record(Type.String(), Type.String(), {
  description: 'For each null figure of the record, why (no_data, no_price, not_applicable, no_positions…)',
});

/** A GMX v2 market: its market token and the tokens that define it (lowercase addresses). */
export const GmxMarketRef = Type.Object({
  venue: Type.Literal('gmx-v2'),
  market_address: Type.String({ description: 'The market token (GM) address' }),
  index_token: Type.String({ description: 'The index token (a synthetic index has an address but no contract)' }),
  long_token: Type.String(),
  short_token: Type.String(),
  venue_status: Type.String({ description: 'The venue’s own word: `enabled` or `disabled` (IS_MARKET_DISABLED)' }),
});

/** A dYdX v4 perpetual market by its ticker. */
export const DydxMarketRef = Type.Object({
  venue: Type.Literal('dydx-v4'),
  ticker: Type.String({ description: 'The indexer’s ticker (`BTC-USD`)' }),
  venue_status: Type.String({ description: 'The indexer’s status (ACTIVE, PAUSED, CANCEL_ONLY, …)' }),
});

/** A market of Synthetix's exchange by its symbol. */
export const SynthetixMarketRef = Type.Object({
  venue: Type.Literal('synthetix-exchange'),
  symbol: Type.String({ description: 'The exchange’s symbol (`BTC-USDT`)' }),
  venue_status: Type.String({ description: '`open`, `close_only` or `closed` (getMarkets isOpen, isCloseOnly)' }),
});

export const MarketRef = Type.Union([GmxMarketRef, DydxMarketRef, SynthetixMarketRef]);

export const PairStatus = Type.Union(
  [Type.Literal('active'), Type.Literal('close_only'), Type.Literal('paused'), Type.Literal('not_listed')],
  {
    description:
      'active: some market of the pair trades; close_only: positions may only be reduced; paused: no trading; not_listed: the venue lists no market for the pair',
  },
);

/** One pair of the listing: its status, display name and the venue's own markets behind it. */
export const PairMarkets = Type.Object({
  pair: Type.String({ description: '`BASE-USD`, as in the path' }),
  status: PairStatus,
  display_name: Type.String(),
  markets: Type.Array(MarketRef, {
    description: 'Every market of the venue for the pair (GMX: every market token indexed on the pair’s base)',
  }),
});

/** `/data/derivatives/<protocol>/pairs`: the legacy object plus `markets`. */
export const DerivativesPairsListing = Type.Object({
  protocol: Type.String(),
  chain: Type.String({ description: 'Where the venue is read: arbitrum (GMX), dydx (its own chain), ethereum' }),
  version: Type.String(),
  pairs: Type.Array(Type.String(), { description: 'The served pairs (legacy field)' }),
  number_of_pairs: Count('Length of pairs'),
  venue_design: Type.String({ description: 'gmx-v2, dydx-v4 or synthetix-exchange' }),
  markets: Type.Array(PairMarkets),
  as_of: Iso('The instant of the listing'),
});

export const OiConventionSchema = Type.Union(
  [Type.Literal('pool_long_plus_short'), Type.Literal('order_book_one_side')],
  {
    description:
      'pool_long_plus_short: longs and shorts open independently against a pool, open_interest_usd is their sum; order_book_one_side: each contract counted once, long = short = open_interest_usd',
  },
);

export const FeeParts = Type.Object({
  position_usd: Nullable(Usd('Opening and closing fees of positions')),
  borrowing_usd: Nullable(Usd('Borrowing fees paid by positions (GMX), not funding')),
  liquidation_usd: Nullable(Usd('Liquidation fees')),
  swap_usd: Nullable(Usd('Swap fees of trading; null (not_applicable) on GMX, whose trading fees are its positions’')),
});

/** Figures a protocol record and a pair record share. */
const dayFields = {
  date: IsoDate(),
  partial: Type.Boolean({ description: 'True for the running day' }),
  as_of: Iso('The record’s instant: the payload’s as_of on the running day, else the last second of the day'),
  tvl_usd: Nullable(
    Usd('GMX: long and short tokens held by the market tokens; dYdX: the subaccounts module’s USDC balance'),
  ),
  pool_value_usd: Nullable(Usd('GMX: the market tokens’ pool value (pool amounts, less pending trader PnL)')),
  open_interest_usd: Nullable(Usd('By oi_convention: pools long + short, order books one side')),
  long_open_interest_usd: Nullable(Usd('Long open interest in tokens × the index price at the record’s instant')),
  short_open_interest_usd: Nullable(Usd('Short open interest in tokens × the index price at the record’s instant')),
  oi_convention: OiConventionSchema,
  volume_usd: Nullable(
    Usd('Traded notional of the day, each fill once (GMX: sizeDeltaUsd of increases and decreases)'),
  ),
  trade_count: Nullable(Count('Fills of the day, each once (GMX: one per position increase or decrease)')),
  unique_traders: Nullable(Count('Distinct accounts that traded (null where the source has no accounts)')),
  fees_usd: Nullable(
    Usd(
      'Sum of the fees’ known parts (a part not applicable to the venue counts as none); null where no source publishes fees (dYdX)',
    ),
  ),
  fees: Nullable(FeeParts),
  liquidations_usd: Nullable(Usd('Size of positions liquidated in the day, USD')),
  liquidation_count: Nullable(Count('Liquidations of the day')),
  event_emitter_address: Type.Optional(Type.String({ description: 'GMX: the EventEmitter whose logs were read' })),
  data_store_address: Type.Optional(Type.String({ description: 'GMX: the DataStore whose keys were read' })),
  block_number: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, description: 'GMX: the block the record’s state was read at' })),
  ),
  gap_reason: Nullable(Type.String({ description: 'Why the whole record is unknown (a day without data)' })),
  gap_reasons: DerivativesGapReasons,
};

const protocolRisk = {
  oi_to_tvl: Fraction('open_interest_usd / tvl_usd'),
  oi_to_pool_value: Fraction('open_interest_usd / pool_value_usd (pool venues)'),
  net_lp_exposure: Fraction('|long − short| USD / pool_value_usd: what the pool carries as the traders’ counterparty'),
  turnover: Fraction('volume_usd / open_interest_usd; very high values suggest wash trading'),
  liquidations_to_oi: Fraction('liquidations_usd / open_interest_usd'),
};

export const ProtocolRisk = Type.Object(protocolRisk);

export const PairRisk = Type.Object({
  ...protocolRisk,
  mark_oracle_deviation: Fraction('|mark_price / oracle_price − 1| at the record’s instant'),
  funding_annualised_abs: Fraction('|funding.annualised|'),
  funding_annualised_spread_7d: Fraction(
    'Largest minus smallest daily funding.annualised over the record’s day and the 6 before it, of the days kept (older records: fewer)',
  ),
});

export const DerivativesProtocolRecord = Type.Object({
  protocol: Type.String(),
  chain: Type.String(),
  version: Type.String(),
  ...dayFields,
  number_of_pairs: Nullable(Count('Pairs with a market the venue lists at the record’s instant (listed here or not)')),
  insurance_fund_usd: Nullable(Usd('dYdX: the insurance fund’s USDC balance')),
  risk: ProtocolRisk,
});

export const DerivativesProtocolHistory = Type.Array(DerivativesProtocolRecord, { minItems: 7, maxItems: 7 });

export const FundingBlock = Type.Object({
  rate_1h_mean: Nullable(Type.Number({ description: 'Mean of the day’s hourly rates' })),
  rate_1h_last: Nullable(Type.Number({ description: 'The last hourly rate of the day' })),
  annualised: Nullable(Type.Number({ description: 'rate_1h_mean × 8760 (simple, not compounded)' })),
  source_interval: Type.String({ description: 'The venue’s own funding interval: per_second, 1h, 8h or 24h' }),
  sign_convention: Type.Literal('positive: longs pay shorts'),
});

export const FundingPointSchema = Type.Object({
  time: Iso('Start of the hour the rate applied from'),
  rate_1h: Type.Number({ description: 'Funding rate for one hour, positive: longs pay shorts' }),
});

export const OiCap = Type.Object({
  long_cap_usd: Usd('Largest long open interest the venue allows'),
  short_cap_usd: Usd('Largest short open interest the venue allows (order books: the market’s one cap)'),
  long_use: Fraction('long_open_interest_usd / long_cap_usd'),
  short_use: Fraction('short_open_interest_usd / short_cap_usd'),
});

export const DerivativesPairRecord = Type.Object({
  protocol: Type.String(),
  chain: Type.String(),
  version: Type.String(),
  pair: Type.String(),
  ...dayFields,
  long_open_interest_tokens: Nullable(Type.Number({ minimum: 0, description: 'Base-asset units' })),
  short_open_interest_tokens: Nullable(Type.Number({ minimum: 0, description: 'Base-asset units' })),
  index_price: Nullable(Type.Number({ description: 'USD price valuing open interest (GMX: oracle min/max midpoint)' })),
  mark_price: Nullable(Type.Number({ description: 'The venue’s mark price at the record’s instant' })),
  oracle_price: Nullable(Type.Number({ description: 'The venue’s oracle price at the record’s instant' })),
  long_short_skew: Nullable(Type.Number({ minimum: -1, maximum: 1, description: '(long − short) / (long + short)' })),
  skew_method: Type.Union([Type.Literal('oi'), Type.Literal('taker_flow')]),
  funding: FundingBlock,
  borrow_rate_1h: Nullable(Type.Number({ description: 'GMX: borrowing fee per hour (a fraction), not funding' })),
  cap: Nullable(OiCap),
  funding_rate_history: Type.Array(FundingPointSchema, { description: 'The day’s hourly points, oldest first' }),
  markets: Type.Array(MarketRef, { description: 'The pair’s markets, as the listing names them' }),
  risk: PairRisk,
});

export const DerivativesPairHistory = Type.Array(DerivativesPairRecord, { minItems: 7, maxItems: 7 });

export type DerivativesPairsListingT = Static<typeof DerivativesPairsListing>;
export type PairMarketsT = Static<typeof PairMarkets>;
export type MarketRefT = Static<typeof MarketRef>;
export type DerivativesProtocolRecordT = Static<typeof DerivativesProtocolRecord>;
export type DerivativesPairRecordT = Static<typeof DerivativesPairRecord>;
