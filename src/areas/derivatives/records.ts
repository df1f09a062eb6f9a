/**
 * The derivatives payloads from venue-neutral daily inputs (pure): the `/pairs` listing, the protocol's and a
 * pair's 7 daily records with their risk figures. Each part (GMX, dYdX, Synthetix) turns its facts into these
 * inputs through `conventions.ts`; this file never looks at a venue's own data. docs/methodology/derivatives.md
 * defines every figure.
 */
import type { GapReason } from '../../core/gaps.js';
import { DAY, isoSeconds, startOfUtcDay } from '../../core/time.js';
import {
  type FundingInterval,
  type FundingPoint,
  fundingSummary,
  longShortSkew,
  type OpenInterestSides,
  openInterest,
  SKEW_METHOD,
  type VenueKind,
} from './conventions.js';
import type {
  DerivativesPairRecordT,
  DerivativesPairsListingT,
  DerivativesProtocolRecordT,
  MarketRefT,
  PairMarketsT,
} from './schema.js';

/** The venue a payload describes (from the registry and the part). */
export interface VenueInput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  readonly design: 'gmx-v2' | 'dydx-v4' | 'synthetix-exchange';
  readonly kind: VenueKind;
  /** The venue's own funding interval (`funding.source_interval`). */
  readonly funding_interval: FundingInterval;
  /** GMX: the contracts read, named on every record. */
  readonly event_emitter_address?: string;
  readonly data_store_address?: string;
}

/**
 * The fee parts of a day, in USD (GMX: collateral amounts × the event's collateral token minimum price). A part the
 * source does not give is null with its reason in `part_reasons` (else `no_data`); `fees_usd` is the sum of the
 * known parts when every missing one is `not_applicable`, else null with the missing part's reason.
 */
export interface FeePartsInput {
  readonly position_usd: number | null;
  readonly borrowing_usd: number | null;
  readonly liquidation_usd: number | null;
  readonly swap_usd: number | null;
  readonly part_reasons?: Readonly<Partial<Record<FeePart, GapReason>>>;
}

export type FeePart = 'position_usd' | 'borrowing_usd' | 'liquidation_usd' | 'swap_usd';

const FEE_PARTS: readonly FeePart[] = ['position_usd', 'borrowing_usd', 'liquidation_usd', 'swap_usd'];

/**
 * One pair's figures for one UTC day, up to the record's instant, already under the area's conventions (open
 * interest by venue kind, funding as signed 1-hour rates). A figure the source cannot give is null and its reason
 * goes in `gap_reasons` (else `no_data` is assumed, or `not_applicable` for what the venue kind lacks).
 */
export interface PairFigures {
  readonly pair: string;
  /** Open interest at the record's instant: pools both sides, order books one side; null if unknown. */
  readonly oi: OpenInterestSides | null;
  /** USD per base token valuing open interest at the instant (GMX: oracle min/max midpoint; order books: oracle). */
  readonly index_price: number | null;
  readonly mark_price: number | null;
  readonly oracle_price: number | null;
  readonly volume_usd: number | null;
  readonly trade_count: number | null;
  /** Distinct accounts that traded; null where the source has no accounts. */
  readonly unique_traders: number | null;
  /** Order books: the day's taker buy and sell notional (the skew's input); null on pools. */
  readonly taker_flow: { readonly buy_usd: number; readonly sell_usd: number } | null;
  /** Null where no source publishes fees (dYdX). */
  readonly fees: FeePartsInput | null;
  readonly liquidations_usd: number | null;
  readonly liquidation_count: number | null;
  /** The day's hourly points (from the day's start to the instant), any order. */
  readonly funding_points: readonly FundingPoint[];
  /** GMX: the borrowing fee per hour (a fraction); null elsewhere. */
  readonly borrow_rate_1h: number | null;
  /** The venue's open-interest cap per side in USD, where it has one (order books: the same cap on both sides). */
  readonly cap: { readonly long_usd: number; readonly short_usd: number } | null;
  /** GMX: the pair's markets' long and short tokens held, and their pool value; null on order books. */
  readonly tvl_usd: number | null;
  readonly pool_value_usd: number | null;
  /** Reasons for null figures, by field name (`fees`, `unique_traders`, `index_price`, …). */
  readonly gap_reasons?: Readonly<Record<string, GapReason>>;
}

/** A day of a history: its date, its record's instant and the figures, or a whole-day gap. */
export interface DayInput<F> {
  /** The day's record instant (Unix seconds): the payload's as_of on the running day, else the day's last second. */
  readonly instant: number;
  /** Null with `gap_reason` for a day without data. */
  readonly figures: F | null;
  readonly gap_reason?: GapReason;
}

/** A pair's history: the newest day first; 7 days make the records, up to 6 more (older) feed the 7-day spread. */
export interface PairHistoryInput {
  readonly venue: VenueInput;
  readonly pair: string;
  /** The pair's markets as the listing names them at the payload's as_of. */
  readonly markets: readonly MarketRefT[];
  readonly days: readonly DayInput<PairFigures>[];
  /** GMX: the block each day's state was read at, by record instant. */
  readonly block_numbers?: ReadonlyMap<number, number | null>;
}

/** The protocol's figures for a day: every market of the venue, listed here or not, plus venue-wide balances. */
export interface ProtocolFigures {
  /** Every pair the venue has a market for, each with its figures. */
  readonly pairs: readonly PairFigures[];
  readonly tvl_usd: number | null;
  readonly pool_value_usd: number | null;
  /** dYdX: the insurance fund's balance. */
  readonly insurance_fund_usd: number | null;
  /** Distinct accounts across the venue (not the sum of the pairs'). */
  readonly unique_traders: number | null;
  readonly block_number?: number | null;
  readonly gap_reasons?: Readonly<Record<string, GapReason>>;
}

export interface ProtocolHistoryInput {
  readonly venue: VenueInput;
  readonly days: readonly DayInput<ProtocolFigures>[];
}

/** The venue's markets of one pair for the listing. */
export interface ListedPair {
  readonly pair: string;
  readonly status: PairMarketsT['status'];
  readonly display_name: string;
  readonly markets: readonly MarketRefT[];
}

// ---- numbers ----------------------------------------------------------------------------------------------------

/** Amounts to 12 significant digits (well inside the 1e-9 relative agreement end-to-end tests hold them to). */
const amount = (x: number | null): number | null => (x === null ? null : Number(x.toPrecision(12)));
/** Ratios and rates to 10 significant digits (no float noise, docs/vocabulary.md). */
const ratio = (x: number | null): number | null => (x === null ? null : Number(x.toPrecision(10)));

/** A figure and, when null, why. */
interface Known {
  readonly value: number | null;
  readonly reason: GapReason | null;
}

const known = (value: number | null, reason: GapReason | null = 'no_data'): Known =>
  value === null ? { value: null, reason } : { value, reason: null };

/** num / den; null with the numerator's or denominator's reason, or `zeroReason` when the denominator is 0. */
function divide(num: Known, den: Known, zeroReason: GapReason): Known {
  if (num.value === null) return { value: null, reason: num.reason };
  if (den.value === null) return { value: null, reason: den.reason };
  if (den.value === 0) return { value: null, reason: zeroReason };
  return { value: num.value / den.value, reason: null };
}

/** A sum over parts: unknown when any part is (with the first unknown part's reason). */
function sum(parts: readonly Known[]): Known {
  let total = 0;
  for (const p of parts) {
    if (p.value === null) return { value: null, reason: p.reason };
    total += p.value;
  }
  return { value: total, reason: null };
}

/** The sum of the known fee parts when every missing one is not applicable; else unknown with its reason. */
function feeTotal(parts: Readonly<Record<FeePart, Known>>): Known {
  let total = 0;
  for (const p of FEE_PARTS) {
    const k = parts[p];
    if (k.value !== null) total += k.value;
    else if (k.reason !== 'not_applicable') return { value: null, reason: k.reason };
  }
  return known(total);
}

/** Collects the reasons of a record's null fields (`gap_reasons`). */
class Reasons {
  readonly out: Record<string, GapReason> = {};
  take(field: string, k: Known): number | null {
    if (k.value === null) this.out[field] = k.reason ?? 'no_data';
    return k.value;
  }
}

/** The default reason of a null figure: the part's, else `not_applicable` for what the venue kind lacks. */
function reasonOf(f: { gap_reasons?: Readonly<Record<string, GapReason>> }, field: string, kind: VenueKind) {
  const own = f.gap_reasons?.[field];
  if (own) return own;
  const poolOnly = ['pool_value_usd', 'borrow_rate_1h', 'net_lp_exposure', 'oi_to_pool_value'];
  if (kind === 'order_book' && poolOnly.includes(field)) return 'not_applicable';
  if (kind === 'pool' && field === 'insurance_fund_usd') return 'not_applicable';
  return 'no_data';
}

// ---- the listing ------------------------------------------------------------------------------------------------

/**
 * `/data/derivatives/<protocol>/pairs`: the registry's pairs (legacy fields) and, per pair, the venue's markets
 * behind it; a pair the venue does not list is `not_listed` with no markets.
 */
export function pairsListing(
  venue: VenueInput,
  pairs: readonly string[],
  listed: readonly ListedPair[],
  asOf: number,
): DerivativesPairsListingT {
  const byPair = new Map(listed.map((l) => [l.pair, l]));
  return {
    protocol: venue.protocol,
    chain: venue.chain,
    version: venue.version,
    pairs: [...pairs],
    number_of_pairs: pairs.length,
    venue_design: venue.design,
    markets: pairs.map((pair) => {
      const l = byPair.get(pair);
      return l
        ? { pair, status: l.status, display_name: l.display_name, markets: [...l.markets] }
        : { pair, status: 'not_listed' as const, display_name: pair.replace('-', '/'), markets: [] };
    }),
    as_of: isoSeconds(asOf),
  };
}

// ---- figures shared by both records -----------------------------------------------------------------------------

interface DayCore {
  readonly oi: { long: Known; short: Known; total: Known; long_tokens: Known; short_tokens: Known };
  readonly volume: Known;
  readonly trades: Known;
  readonly fees: { total: Known; parts: Readonly<Record<FeePart, Known>> | null; reason: GapReason | null };
  readonly liquidations: Known;
  readonly liquidationCount: Known;
}

function pairCore(f: PairFigures, kind: VenueKind): DayCore {
  const r = (field: string) => reasonOf(f, field, kind);
  let oi: DayCore['oi'];
  if (f.oi === null) {
    const none = known(null, r('open_interest'));
    oi = { long: none, short: none, total: none, long_tokens: none, short_tokens: none };
  } else {
    const o = openInterest(f.oi, f.index_price);
    const usd = (v: number | null) => known(v, r('index_price') === 'no_data' ? 'no_price' : r('index_price'));
    oi = {
      long: usd(o.long_usd),
      short: usd(o.short_usd),
      total: usd(o.total_usd),
      long_tokens: known(o.long_tokens),
      short_tokens: known(o.short_tokens),
    };
  }
  const fees = f.fees;
  const parts = fees
    ? (Object.fromEntries(FEE_PARTS.map((p) => [p, known(fees[p], fees.part_reasons?.[p] ?? 'no_data')])) as Record<
        FeePart,
        Known
      >)
    : null;
  return {
    oi,
    volume: known(f.volume_usd, r('volume_usd')),
    trades: known(f.trade_count, r('trade_count')),
    fees: parts
      ? { total: feeTotal(parts), parts, reason: null }
      : { total: known(null, r('fees')), parts: null, reason: r('fees') },
    liquidations: known(f.liquidations_usd, r('liquidations_usd')),
    liquidationCount: known(f.liquidation_count, r('liquidation_count')),
  };
}

/** The protocol's day: the sums of its pairs' figures (a sum over an unknown part is unknown). */
function protocolCore(p: ProtocolFigures, kind: VenueKind): DayCore {
  const cores = p.pairs.map((f) => pairCore(f, kind));
  // An aggregate over no market is unknown (`no_members`), never a zero.
  const pick = (get: (c: DayCore) => Known) => (cores.length ? sum(cores.map(get)) : known(null, 'no_members'));
  const feeless = cores.find((c) => c.fees.parts === null);
  const feeParts = feeless
    ? null
    : (Object.fromEntries(
        FEE_PARTS.map((p) => [p, cores.length ? sum(cores.map((c) => c.fees.parts![p])) : known(null, 'no_members')]),
      ) as Record<FeePart, Known>);
  return {
    oi: {
      long: pick((c) => c.oi.long),
      short: pick((c) => c.oi.short),
      total: pick((c) => c.oi.total),
      long_tokens: known(null, 'not_applicable'),
      short_tokens: known(null, 'not_applicable'),
    },
    volume: pick((c) => c.volume),
    trades: pick((c) => c.trades),
    fees: {
      total: feeParts ? feeTotal(feeParts) : pick((c) => c.fees.total),
      parts: feeParts,
      reason: feeless ? feeless.fees.reason : null,
    },
    liquidations: pick((c) => c.liquidations),
    liquidationCount: pick((c) => c.liquidationCount),
  };
}

/** The fields both records share, with their reasons collected. */
function sharedFields(
  core: DayCore,
  tvl: Known,
  poolValue: Known,
  uniqueTraders: Known,
  reasons: Reasons,
  kind: VenueKind,
) {
  const oiUsd = core.oi.total;
  return {
    tvl_usd: amount(reasons.take('tvl_usd', tvl)),
    pool_value_usd: amount(reasons.take('pool_value_usd', poolValue)),
    open_interest_usd: amount(reasons.take('open_interest_usd', oiUsd)),
    long_open_interest_usd: amount(reasons.take('long_open_interest_usd', core.oi.long)),
    short_open_interest_usd: amount(reasons.take('short_open_interest_usd', core.oi.short)),
    oi_convention: kind === 'pool' ? ('pool_long_plus_short' as const) : ('order_book_one_side' as const),
    volume_usd: amount(reasons.take('volume_usd', core.volume)),
    trade_count: reasons.take('trade_count', core.trades),
    unique_traders: reasons.take('unique_traders', uniqueTraders),
    fees_usd: amount(reasons.take('fees_usd', core.fees.total)),
    fees: core.fees.parts
      ? {
          position_usd: amount(reasons.take('fees.position_usd', core.fees.parts.position_usd)),
          borrowing_usd: amount(reasons.take('fees.borrowing_usd', core.fees.parts.borrowing_usd)),
          liquidation_usd: amount(reasons.take('fees.liquidation_usd', core.fees.parts.liquidation_usd)),
          swap_usd: amount(reasons.take('fees.swap_usd', core.fees.parts.swap_usd)),
        }
      : (reasons.take('fees', known(null, core.fees.reason)) as null),
    liquidations_usd: amount(reasons.take('liquidations_usd', core.liquidations)),
    liquidation_count: reasons.take('liquidation_count', core.liquidationCount),
  };
}

/** The risk figures a protocol record and a pair record share. */
function sharedRisk(core: DayCore, tvl: Known, poolValue: Known, kind: VenueKind, reasons: Reasons) {
  const net: Known =
    core.oi.long.value !== null && core.oi.short.value !== null
      ? known(Math.abs(core.oi.long.value - core.oi.short.value))
      : { value: null, reason: core.oi.long.reason ?? core.oi.short.reason };
  const take = (field: string, k: Known) => ratio(reasons.take(`risk.${field}`, k));
  return {
    oi_to_tvl: take('oi_to_tvl', divide(core.oi.total, tvl, 'no_liquidity')),
    oi_to_pool_value: take(
      'oi_to_pool_value',
      kind === 'pool' ? divide(core.oi.total, poolValue, 'no_liquidity') : known(null, 'not_applicable'),
    ),
    net_lp_exposure: take(
      'net_lp_exposure',
      kind === 'pool' ? divide(net, poolValue, 'no_liquidity') : known(null, 'not_applicable'),
    ),
    turnover: take('turnover', divide(core.volume, core.oi.total, 'no_positions')),
    liquidations_to_oi: take('liquidations_to_oi', divide(core.liquidations, core.oi.total, 'no_positions')),
  };
}

const dateOf = (instant: number) => isoSeconds(instant).slice(0, 10);

/** The 7 records' days, newest first; the running day is the first (docs/vocabulary.md). */
function sevenDays<F>(days: readonly DayInput<F>[]): readonly DayInput<F>[] {
  if (days.length < 7) throw new Error(`a 7-day history needs 7 days, got ${days.length}`);
  return days.slice(0, 7);
}

// ---- the protocol's records -------------------------------------------------------------------------------------

/** `/data/derivatives/<protocol>`: 7 daily records, newest first, the first the running day. */
export function protocolRecords(input: ProtocolHistoryInput): DerivativesProtocolRecordT[] {
  const { venue } = input;
  return sevenDays(input.days).map((day, i): DerivativesProtocolRecordT => {
    const reasons = new Reasons();
    const head = {
      protocol: venue.protocol,
      chain: venue.chain,
      version: venue.version,
      date: dateOf(day.instant),
      partial: i === 0,
      as_of: isoSeconds(day.instant),
      ...gmxRefs(venue),
    };
    const f = day.figures;
    if (f === null) {
      return {
        ...head,
        ...emptyDay(venue, day.gap_reason ?? 'no_data'),
        number_of_pairs: null,
        insurance_fund_usd: null,
        ...(venue.design === 'gmx-v2' ? { block_number: null } : {}),
        risk: nullRisk,
      };
    }
    const core = protocolCore(f, venue.kind);
    const r = (field: string) => reasonOf(f, field, venue.kind);
    const tvl = known(f.tvl_usd, r('tvl_usd'));
    const poolValue = known(f.pool_value_usd, r('pool_value_usd'));
    const shared = sharedFields(
      core,
      tvl,
      poolValue,
      known(f.unique_traders, r('unique_traders')),
      reasons,
      venue.kind,
    );
    const risk = sharedRisk(core, tvl, poolValue, venue.kind, reasons);
    const insurance = reasons.take('insurance_fund_usd', known(f.insurance_fund_usd, r('insurance_fund_usd')));
    return {
      ...head,
      ...shared,
      number_of_pairs: f.pairs.length,
      insurance_fund_usd: amount(insurance),
      ...(venue.design === 'gmx-v2' ? { block_number: f.block_number ?? null } : {}),
      risk,
      gap_reason: null,
      gap_reasons: reasons.out,
    };
  });
}

function gmxRefs(venue: VenueInput) {
  return venue.design === 'gmx-v2'
    ? {
        ...(venue.event_emitter_address ? { event_emitter_address: venue.event_emitter_address.toLowerCase() } : {}),
        ...(venue.data_store_address ? { data_store_address: venue.data_store_address.toLowerCase() } : {}),
      }
    : {};
}

const nullRisk = {
  oi_to_tvl: null,
  oi_to_pool_value: null,
  net_lp_exposure: null,
  turnover: null,
  liquidations_to_oi: null,
};

/** A day without data: every figure null, the record's gap_reason saying why. */
function emptyDay(venue: VenueInput, reason: GapReason) {
  return {
    tvl_usd: null,
    pool_value_usd: null,
    open_interest_usd: null,
    long_open_interest_usd: null,
    short_open_interest_usd: null,
    oi_convention: venue.kind === 'pool' ? ('pool_long_plus_short' as const) : ('order_book_one_side' as const),
    volume_usd: null,
    trade_count: null,
    unique_traders: null,
    fees_usd: null,
    fees: null,
    liquidations_usd: null,
    liquidation_count: null,
    gap_reason: reason,
    gap_reasons: {},
  };
}

// ---- a pair's records -------------------------------------------------------------------------------------------

/** `/data/derivatives/<protocol>/<pair>`: 7 daily records, newest first, the first the running day. */
export function pairRecords(input: PairHistoryInput): DerivativesPairRecordT[] {
  const { venue } = input;
  const annualisedByDay = new Map(
    input.days.map((d) => [startOfUtcDay(d.instant), d.figures ? fundingSummary(d.figures.funding_points) : null]),
  );
  return sevenDays(input.days).map((day, i): DerivativesPairRecordT => {
    const reasons = new Reasons();
    const head = {
      protocol: venue.protocol,
      chain: venue.chain,
      version: venue.version,
      pair: input.pair,
      date: dateOf(day.instant),
      partial: i === 0,
      as_of: isoSeconds(day.instant),
      ...gmxRefs(venue),
      ...(venue.design === 'gmx-v2' ? { block_number: input.block_numbers?.get(day.instant) ?? null } : {}),
      markets: [...input.markets],
    };
    const f = day.figures;
    const funding = fundingSummary(f?.funding_points ?? []);
    const fundingBlock = {
      rate_1h_mean: ratio(funding.rate_1h_mean),
      rate_1h_last: ratio(funding.rate_1h_last),
      annualised: ratio(funding.annualised),
      source_interval: venue.funding_interval,
      sign_convention: 'positive: longs pay shorts' as const,
    };
    if (f === null) {
      return {
        ...head,
        ...emptyDay(venue, day.gap_reason ?? 'no_data'),
        long_open_interest_tokens: null,
        short_open_interest_tokens: null,
        index_price: null,
        mark_price: null,
        oracle_price: null,
        long_short_skew: null,
        skew_method: SKEW_METHOD[venue.kind],
        funding: fundingBlock,
        borrow_rate_1h: null,
        cap: null,
        funding_rate_history: [],
        risk: {
          ...nullRisk,
          mark_oracle_deviation: null,
          funding_annualised_abs: null,
          funding_annualised_spread_7d: null,
        },
      };
    }
    const r = (field: string) => reasonOf(f, field, venue.kind);
    const core = pairCore(f, venue.kind);
    // An order book's collateral is the account's, across markets: a pair has no TVL of its own.
    const tvl = known(
      f.tvl_usd,
      f.gap_reasons?.tvl_usd ?? (venue.kind === 'order_book' ? 'not_applicable' : 'no_data'),
    );
    const poolValue = known(f.pool_value_usd, r('pool_value_usd'));
    const shared = sharedFields(
      core,
      tvl,
      poolValue,
      known(f.unique_traders, r('unique_traders')),
      reasons,
      venue.kind,
    );
    const risk = sharedRisk(core, tvl, poolValue, venue.kind, reasons);
    const skew = longShortSkew(
      venue.kind === 'pool'
        ? { method: 'oi', long: core.oi.long_tokens.value ?? 0, short: core.oi.short_tokens.value ?? 0 }
        : {
            method: 'taker_flow',
            taker_buy_usd: f.taker_flow?.buy_usd ?? 0,
            taker_sell_usd: f.taker_flow?.sell_usd ?? 0,
          },
    );
    const skewKnown =
      (venue.kind === 'pool' && f.oi === null) || (venue.kind === 'order_book' && f.taker_flow === null)
        ? known(null, venue.kind === 'pool' ? r('open_interest') : r('taker_flow'))
        : known(skew.value, skew.gap_reason);
    if (funding.gap_reason) reasons.out.funding = funding.gap_reason;
    const deviation = divide(
      known(
        f.mark_price !== null && f.oracle_price !== null ? Math.abs(f.mark_price - f.oracle_price) : null,
        f.mark_price === null ? r('mark_price') : r('oracle_price'),
      ),
      known(f.oracle_price, r('oracle_price')),
      'no_price',
    );
    const spread = fundingSpread7d(annualisedByDay, startOfUtcDay(day.instant));
    const cap = f.cap
      ? {
          long_cap_usd: amount(f.cap.long_usd)!,
          short_cap_usd: amount(f.cap.short_usd)!,
          long_use: ratio(reasons.take('cap.long_use', divide(core.oi.long, known(f.cap.long_usd), 'not_applicable'))),
          short_use: ratio(
            reasons.take('cap.short_use', divide(core.oi.short, known(f.cap.short_usd), 'not_applicable')),
          ),
        }
      : (reasons.take('cap', known(null, f.gap_reasons?.cap ?? 'not_applicable')) as null);
    const amountField = (field: string, v: number | null) => amount(reasons.take(field, known(v, r(field))));
    return {
      ...head,
      ...shared,
      long_open_interest_tokens: amount(reasons.take('long_open_interest_tokens', core.oi.long_tokens)),
      short_open_interest_tokens: amount(reasons.take('short_open_interest_tokens', core.oi.short_tokens)),
      index_price: amountField('index_price', f.index_price),
      mark_price: amountField('mark_price', f.mark_price),
      oracle_price: amountField('oracle_price', f.oracle_price),
      long_short_skew: ratio(reasons.take('long_short_skew', skewKnown)),
      skew_method: SKEW_METHOD[venue.kind],
      funding: fundingBlock,
      borrow_rate_1h: ratio(reasons.take('borrow_rate_1h', known(f.borrow_rate_1h, r('borrow_rate_1h')))),
      cap,
      funding_rate_history: [...f.funding_points]
        .sort((a, b) => a.time - b.time)
        .map((p) => ({ time: isoSeconds(p.time), rate_1h: ratio(p.rate_1h)! })),
      risk: {
        ...risk,
        mark_oracle_deviation: ratio(reasons.take('risk.mark_oracle_deviation', deviation)),
        funding_annualised_abs: ratio(
          reasons.take(
            'risk.funding_annualised_abs',
            known(funding.annualised === null ? null : Math.abs(funding.annualised), funding.gap_reason),
          ),
        ),
        funding_annualised_spread_7d: ratio(reasons.take('risk.funding_annualised_spread_7d', spread)),
      },
      gap_reason: null,
      gap_reasons: reasons.out,
    };
  });
}

/**
 * Funding extremity over 7 days: the largest minus the smallest daily annualised funding of the record's day and
 * the 6 days before it (never a later day); null with no_data with fewer than 2 such days.
 */
function fundingSpread7d(byDay: ReadonlyMap<number, { annualised: number | null } | null>, dayStart: number): Known {
  const values: number[] = [];
  for (let d = 0; d < 7; d++) {
    const a = byDay.get(dayStart - d * DAY)?.annualised;
    if (a !== undefined && a !== null) values.push(a);
  }
  return values.length < 2 ? known(null, 'no_data') : known(Math.max(...values) - Math.min(...values));
}
