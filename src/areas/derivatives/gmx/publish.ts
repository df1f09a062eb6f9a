/**
 * GMX v2's figures (`computeGmx`) as the area's venue-neutral inputs (pure): the listing's pairs, the protocol's
 * days and each listed pair's days, which `records.ts` turns into the three payloads. What GMX has no figure for is
 * null with its reason here, once: no mark price apart from the oracle's (positions are marked at the oracle's
 * prices), no swap fee in the position events, no taker flow (a pool venue's skew is by open interest).
 */
import type { GapReason } from '../../../core/gaps.js';
import type { VenuePublication } from '../documents.js';
import type { DayInput, ListedPair, PairFigures, PairHistoryInput, ProtocolFigures, VenueInput } from '../records.js';
import type { GmxDay, GmxFlows, GmxFunding, GmxMarketIds, GmxOutput, GmxPairListing, GmxState } from './compute.js';

export function gmxVenue(out: GmxOutput): VenueInput {
  return {
    protocol: out.protocol,
    chain: out.chain,
    version: out.version,
    design: 'gmx-v2',
    kind: 'pool',
    funding_interval: 'per_second',
    event_emitter_address: out.eventEmitterAddress,
    data_store_address: out.dataStoreAddress,
  };
}

const marketRef = (m: GmxMarketIds, disabled: boolean) => ({
  venue: 'gmx-v2' as const,
  market_address: m.marketAddress,
  index_token: m.indexToken,
  long_token: m.longToken,
  short_token: m.shortToken,
  venue_status: disabled ? 'disabled' : 'enabled',
});

function listedPair(p: GmxPairListing): ListedPair {
  return {
    pair: p.pair,
    status: p.status === 'disabled' ? 'paused' : 'active',
    display_name: p.pair.replace('-', '/'),
    markets: p.markets.map((m) => marketRef(m, p.status === 'disabled')),
  };
}

/** The gap keys of GMX's figures as the records' field names. */
const GAP_FIELDS: Readonly<Record<string, string>> = {
  long_open_interest_tokens: 'open_interest',
  open_interest_usd: 'index_price',
  tvl_usd: 'tvl_usd',
  pool_value_usd: 'pool_value_usd',
  state: 'open_interest',
};

function gapReasons(state: GmxState): Record<string, GapReason> {
  const out: Record<string, GapReason> = { mark_price: 'not_applicable', taker_flow: 'not_applicable' };
  for (const [key, reason] of Object.entries(state.gapReasons)) {
    const field = GAP_FIELDS[key];
    if (field) out[field] = reason;
  }
  if (state.tvlUsd === null && state.gapReasons.state) out.tvl_usd = state.gapReasons.state;
  if (state.poolValueUsd === null && state.gapReasons.state) out.pool_value_usd = state.gapReasons.state;
  return out;
}

const fundingPoints = (f: GmxFunding) =>
  f.history.flatMap((p) => (p.rate1h === null ? [] : [{ time: p.time, rate_1h: p.rate1h }]));

function figures(
  pair: string,
  state: GmxState,
  flows: GmxFlows,
  indexMid: number | null,
  funding: GmxFunding | null,
  borrowRate1h: number | null,
): PairFigures {
  const { longOpenInterestTokens: long, shortOpenInterestTokens: short } = state;
  return {
    pair,
    oi: long === null || short === null ? null : { kind: 'pool', long_tokens: long, short_tokens: short },
    index_price: indexMid,
    mark_price: null,
    oracle_price: indexMid,
    volume_usd: flows.volumeUsd,
    trade_count: flows.tradeCount,
    unique_traders: flows.uniqueTraders,
    taker_flow: null,
    fees: {
      position_usd: flows.fees.positionUsd,
      borrowing_usd: flows.fees.borrowingUsd,
      liquidation_usd: flows.fees.liquidationUsd,
      swap_usd: null,
      part_reasons: { swap_usd: 'not_applicable' },
    },
    liquidations_usd: flows.liquidationsUsd,
    liquidation_count: flows.liquidationCount,
    funding_points: funding ? fundingPoints(funding) : [],
    borrow_rate_1h: borrowRate1h,
    cap:
      state.maxOpenInterestLongUsd === null || state.maxOpenInterestShortUsd === null
        ? null
        : { long_usd: state.maxOpenInterestLongUsd, short_usd: state.maxOpenInterestShortUsd },
    tvl_usd: state.tvlUsd,
    pool_value_usd: state.poolValueUsd,
    gap_reasons: gapReasons(state),
  };
}

const pairDay = (day: GmxDay, pair: string): PairFigures | null => {
  const p = day.pairs.find((x) => x.pair === pair);
  return p ? figures(p.pair, p, p, p.indexPrice?.mid ?? null, p.funding, p.borrowRate1h) : null;
};

function protocolDay(day: GmxDay): DayInput<ProtocolFigures> {
  const pairs = day.pairs.map((p) => pairDay(day, p.pair)!);
  return {
    instant: day.instant,
    figures: {
      pairs,
      tvl_usd: day.venue.tvlUsd,
      pool_value_usd: day.venue.poolValueUsd,
      insurance_fund_usd: null,
      unique_traders: day.venue.uniqueTraders,
      block_number: day.blockNumber,
      gap_reasons: { ...gapReasons(day.venue), insurance_fund_usd: 'not_applicable' },
    },
  };
}

/** The publication of one GMX venue: `registryPairs` are the pairs the registry lists for it. */
export function gmxPublication(out: GmxOutput, registryPairs: readonly string[]): VenuePublication {
  const venue = gmxVenue(out);
  const listed = out.pairs.map(listedPair);
  const blocks = new Map(out.days.map((d) => [d.instant, d.blockNumber]));
  const pairs = registryPairs.map((pair): PairHistoryInput => {
    const listing = listed.find((l) => l.pair === pair);
    return {
      venue,
      pair,
      markets: listing?.markets ?? [],
      days: out.days.map((d): DayInput<PairFigures> => {
        const figures = listing ? pairDay(d, pair) : null;
        if (figures) return { instant: d.instant, figures };
        return { instant: d.instant, figures: null, gap_reason: listing ? 'no_data' : 'not_listed' };
      }),
      block_numbers: blocks,
    };
  });
  return { venue, listed, protocol: { venue, days: out.days.map(protocolDay) }, pairs };
}
