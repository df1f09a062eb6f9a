/**
 * The derivatives area's conventions (issue 27, "One convention, and the traps it must avoid"), one pure function
 * each, shared by the area's parts (GMX, dYdX, Synthetix) and by `records.ts`. Every figure of
 * docs/methodology/derivatives.md that depends on a venue's design goes through here, so that one venue's figure
 * means what another's does.
 */
import type { GapReason } from '../../core/gaps.js';

/**
 * How a venue's open interest is kept. `pool`: traders' longs and shorts open against a liquidity pool, each side
 * independently (GMX); `order_book`: every contract has a long and a short holder, so the sides are equal by
 * construction and the venue reports one of them (dYdX, Synthetix's exchange).
 */
export type VenueKind = 'pool' | 'order_book';

/**
 * The open-interest convention a record states (`oi_convention`): on a pool venue the long and short sides are
 * served and `open_interest_usd` is their sum; on an order book `open_interest_usd` is one side (each contract
 * counted once) and the long and short figures both equal it.
 */
export type OiConvention = 'pool_long_plus_short' | 'order_book_one_side';

export const OI_CONVENTION: Record<VenueKind, OiConvention> = {
  pool: 'pool_long_plus_short',
  order_book: 'order_book_one_side',
};

/** The skew method of a venue kind (`skew_method`): open interest on pools, taker flow on order books. */
export type SkewMethod = 'oi' | 'taker_flow';

export const SKEW_METHOD: Record<VenueKind, SkewMethod> = { pool: 'oi', order_book: 'taker_flow' };

/** Open interest in base-asset tokens and in USD at the record's instant. */
export interface OpenInterest {
  readonly long_tokens: number;
  readonly short_tokens: number;
  readonly total_tokens: number;
  /** Null when the index price at the instant is unknown (`no_price`). */
  readonly long_usd: number | null;
  readonly short_usd: number | null;
  readonly total_usd: number | null;
  readonly oi_convention: OiConvention;
}

/**
 * What an order book's source reports: one side (dYdX's `openInterest`), or both sides summed (Synthetix's
 * `openInterest`, whose documentation shows it equal to `longOpenInterest + shortOpenInterest`), or each side.
 */
export type OrderBookOpenInterestReport =
  | { readonly reported: 'one_side'; readonly tokens: number }
  | { readonly reported: 'both_sides_summed'; readonly tokens: number }
  | { readonly reported: 'by_side'; readonly long_tokens: number; readonly short_tokens: number };

/**
 * One side of an order book's open interest, in tokens: never long + short. A report of both sides summed is
 * halved; a report by side (equal on a consistent book) is their mean, so that a source whose sides differ by
 * rounding still counts each contract once.
 */
export function orderBookOneSide(report: OrderBookOpenInterestReport): number {
  switch (report.reported) {
    case 'one_side':
      return report.tokens;
    case 'both_sides_summed':
      return report.tokens / 2;
    case 'by_side':
      return (report.long_tokens + report.short_tokens) / 2;
  }
}

/** The venue-specific sides of an instant's open interest: pools give both, order books one side. */
export type OpenInterestSides =
  | { readonly kind: 'pool'; readonly long_tokens: number; readonly short_tokens: number }
  | { readonly kind: 'order_book'; readonly one_side_tokens: number };

/**
 * Open interest by the area's one convention. Pool: long and short served, total = long + short. Order book: long =
 * short = total = the one side (never added). USD = tokens × the index price at the record's instant
 * (`markToMarketUsd`), null without a price.
 */
export function openInterest(sides: OpenInterestSides, indexPriceUsd: number | null): OpenInterest {
  const [long, short, total] =
    sides.kind === 'pool'
      ? [sides.long_tokens, sides.short_tokens, sides.long_tokens + sides.short_tokens]
      : [sides.one_side_tokens, sides.one_side_tokens, sides.one_side_tokens];
  return {
    long_tokens: long,
    short_tokens: short,
    total_tokens: total,
    long_usd: markToMarketUsd(long, indexPriceUsd),
    short_usd: markToMarketUsd(short, indexPriceUsd),
    total_usd: markToMarketUsd(total, indexPriceUsd),
    oi_convention: OI_CONVENTION[sides.kind],
  };
}

/**
 * GMX v2 open interest of one side of a market from its two collateral keys (`OPEN_INTEREST_IN_TOKENS` or
 * `OPEN_INTEREST` of (market, collateral token, isLong)). A market whose long and short token are the same (ETH/USD
 * backed by WETH only) writes the same value under both collateral keys, so their sum is halved; otherwise the side
 * is the sum of both collaterals. Raw integers in, raw integer out.
 */
export function gmxSideOpenInterest(market: {
  readonly long_token: string;
  readonly short_token: string;
  /** The side's value under the long token as collateral. */
  readonly with_long_collateral: bigint;
  /** The side's value under the short token as collateral. */
  readonly with_short_collateral: bigint;
}): bigint {
  const sum = market.with_long_collateral + market.with_short_collateral;
  return market.long_token.toLowerCase() === market.short_token.toLowerCase() ? sum / 2n : sum;
}

/**
 * The USD value of open interest at an instant: tokens × the index price then (mark-to-market). GMX's
 * `OPEN_INTEREST` key is the cost basis (the USD size at which positions were opened) and is never served as
 * open interest in USD.
 */
export function markToMarketUsd(tokens: number, indexPriceUsd: number | null): number | null {
  return indexPriceUsd === null ? null : tokens * indexPriceUsd;
}

/** GMX's index price at an instant: the midpoint of the oracle's min and max prices (both in USD per token). */
export function gmxIndexPrice(price: { readonly min: number; readonly max: number }): number {
  return (price.min + price.max) / 2;
}

/**
 * A venue's funding interval: the period its funding rate is quoted for. GMX quotes a factor per second, dYdX v4
 * an hourly rate (its 8-hour value divided by 8 by the indexer), other venues 8 or 24 hours.
 */
export type FundingInterval = 'per_second' | '1h' | '8h' | '24h';

export const FUNDING_INTERVAL_SECONDS: Record<FundingInterval, number> = {
  per_second: 1,
  '1h': 3600,
  '8h': 8 * 3600,
  '24h': 24 * 3600,
};

/**
 * A funding rate quoted for `interval` as a 1-hour rate: rate × 3600 / interval seconds (simple scaling: funding
 * accrues on the position's size, not on accrued funding, so it does not compound). The sign is the venue's, which
 * must already say "positive: longs pay shorts" (dYdX, Synthetix); GMX's goes through `gmxFundingRate1h`.
 */
export function fundingRate1h(rate: number, interval: FundingInterval): number {
  return (rate * 3600) / FUNDING_INTERVAL_SECONDS[interval];
}

/**
 * GMX v2's funding as a signed 1-hour rate: its per-second factor (`fundingFactorPerSecond`, a fraction per second)
 * is unsigned and `longsPayShorts` gives the direction; positive means longs pay shorts. It is the rate the paying
 * side pays on its open interest. GMX's borrowing fee is not funding (`borrow_rate_1h`).
 */
export function gmxFundingRate1h(funding: {
  readonly factor_per_second: number;
  readonly longs_pay_shorts: boolean;
}): number {
  const rate = fundingRate1h(funding.factor_per_second, 'per_second');
  return funding.longs_pay_shorts ? rate : -rate;
}

/** Hours in a year for `annualised`: 365 days of 24 hours. */
export const HOURS_PER_YEAR = 24 * 365;

/**
 * A 1-hour rate annualised without compounding (rate × 8,760), the APR-style convention of venues' dashboards:
 * funding is paid on the position's size, which does not grow with it.
 */
export function annualised(rate1h: number): number {
  return rate1h * HOURS_PER_YEAR;
}

/** One hourly funding point: the 1-hour rate that applied from `time` (Unix seconds), positive: longs pay shorts. */
export interface FundingPoint {
  readonly time: number;
  readonly rate_1h: number;
}

export interface FundingSummary {
  readonly rate_1h_mean: number | null;
  readonly rate_1h_last: number | null;
  /** `rate_1h_mean` annualised. */
  readonly annualised: number | null;
  readonly gap_reason: GapReason | null;
}

/** The day's funding: the mean and the last of its hourly points, and the mean annualised; null with no_data. */
export function fundingSummary(points: readonly FundingPoint[]): FundingSummary {
  if (points.length === 0) return { rate_1h_mean: null, rate_1h_last: null, annualised: null, gap_reason: 'no_data' };
  const sorted = [...points].sort((a, b) => a.time - b.time);
  const mean = sorted.reduce((s, p) => s + p.rate_1h, 0) / sorted.length;
  return {
    rate_1h_mean: mean,
    rate_1h_last: sorted[sorted.length - 1]!.rate_1h,
    annualised: annualised(mean),
    gap_reason: null,
  };
}

/** The inputs of a skew: open interest by side (pools) or the day's taker volume by side (order books). */
export type SkewInput =
  | { readonly method: 'oi'; readonly long: number; readonly short: number }
  | { readonly method: 'taker_flow'; readonly taker_buy_usd: number; readonly taker_sell_usd: number };

/**
 * Long/short skew in [−1, 1], positive when longs dominate: (long − short) / (long + short). On a pool it is of
 * open interest; on an order book, where open interest is balanced by construction, of the day's taker flow (taker
 * buys open or add longs, taker sells shorts). Null when both sides are empty: `no_positions` (oi), `no_data`
 * (no taker fills).
 */
export function longShortSkew(input: SkewInput): { value: number | null; gap_reason: GapReason | null } {
  const [a, b] = input.method === 'oi' ? [input.long, input.short] : [input.taker_buy_usd, input.taker_sell_usd];
  if (a + b <= 0) return { value: null, gap_reason: input.method === 'oi' ? 'no_positions' : 'no_data' };
  return { value: (a - b) / (a + b), gap_reason: null };
}

/**
 * Why a pair's day has no figures (a day without data keeps its record, with null figures and this reason): the
 * venue or the pair's market was first seen after the day (`not_deployed`), the venue does not list the pair
 * (`not_listed`), or nothing was observed for the day (`no_data`); null when the day has data.
 */
export function dayGap(day: {
  /** The day's first second (Unix seconds). */
  readonly day_start: number;
  /** When the venue (or the pair's first market) was first observed; null if never. */
  readonly first_seen: number | null;
  /** Whether the venue lists the pair at the record's instant. */
  readonly listed: boolean;
  /** Whether any observation of the day exists. */
  readonly observed: boolean;
}): GapReason | null {
  if (day.observed) return null;
  if (day.first_seen !== null && day.first_seen >= day.day_start + 86_400) return 'not_deployed';
  if (!day.listed) return 'not_listed';
  return 'no_data';
}

/** A market's state in the listing's words. */
export type MarketState = 'active' | 'close_only' | 'paused';

/**
 * dYdX v4's market status (the indexer's `PerpetualMarketStatus`) in the listing's words: ACTIVE trades;
 * CANCEL_ONLY and FINAL_SETTLEMENT only reduce or close; PAUSED, POST_ONLY (orders rest, nothing matches) and
 * INITIALIZING do not trade. An unknown status is `paused` (never claimed active).
 */
export function dydxMarketState(status: string): MarketState {
  if (status === 'ACTIVE') return 'active';
  if (status === 'CANCEL_ONLY' || status === 'FINAL_SETTLEMENT') return 'close_only';
  return 'paused';
}

/** Synthetix's exchange (`getMarkets`: `isOpen`, `isCloseOnly`) in the listing's words. */
export function synthetixMarketState(market: { readonly isOpen: boolean; readonly isCloseOnly: boolean }): MarketState {
  if (market.isCloseOnly) return 'close_only';
  return market.isOpen ? 'active' : 'paused';
}

/** GMX v2 (`IS_MARKET_DISABLED` of the market in the DataStore) in the listing's words. */
export function gmxMarketState(disabled: boolean): MarketState {
  return disabled ? 'paused' : 'active';
}

/**
 * A pair's status from its markets' states: `active` when one of them trades, else `close_only` when one lets
 * positions be reduced, else `paused`; `not_listed` without a market.
 */
export function pairStatus(states: readonly MarketState[]): MarketState | 'not_listed' {
  if (states.length === 0) return 'not_listed';
  if (states.includes('active')) return 'active';
  return states.includes('close_only') ? 'close_only' : 'paused';
}
