/**
 * Synthetix's exchange's figures (`computeSynthetix`) as the area's venue-neutral inputs (pure): the listing's pairs,
 * the protocol's days and each registry pair's days, which `records.ts` turns into the three payloads. What the
 * info API does not publish is null here, once, with its reason: fees, liquidations and the taker side of fills
 * (`no_data`: not published by the actions read), accounts (`not_applicable`: the info API names none), TVL
 * (`no_data`: no balance is published), an open-interest cap (`not_applicable`: the exchange states none).
 */
import type { GapReason } from '../../../core/gaps.js';
import { DAY } from '../../../core/time.js';
import { dayGap } from '../conventions.js';
import type { VenuePublication } from '../documents.js';
import type { DayInput, ListedPair, PairFigures, PairHistoryInput, ProtocolFigures, VenueInput } from '../records.js';
import type { MarketRefT } from '../schema.js';
import {
  SYNTHETIX_FUNDING_INTERVAL,
  type SynthetixDay,
  type SynthetixOutput,
  type SynthetixPairDay,
  type SynthetixPairListing,
} from './compute.js';

export function synthetixVenue(out: SynthetixOutput): VenueInput {
  return {
    protocol: out.protocol,
    chain: out.chain,
    version: out.version,
    design: 'synthetix-exchange',
    kind: 'order_book',
    funding_interval: SYNTHETIX_FUNDING_INTERVAL,
  };
}

const marketRefs = (p: SynthetixPairListing): MarketRefT[] =>
  p.markets.map((m) => ({ venue: 'synthetix-exchange' as const, symbol: m.symbol, venue_status: m.venueStatus }));

function listedPair(p: SynthetixPairListing): ListedPair {
  return {
    pair: p.pair,
    status: p.status,
    display_name: p.pair.replace('-', '/'),
    markets: marketRefs(p),
  };
}

/** Why the info API leaves a figure null (the rest follow `records.ts`' defaults). */
const GAPS: Readonly<Record<string, GapReason>> = {
  unique_traders: 'not_applicable',
  fees: 'no_data',
  liquidations_usd: 'no_data',
  liquidation_count: 'no_data',
  taker_flow: 'no_data',
  cap: 'not_applicable',
};

function figures(d: SynthetixPairDay): PairFigures {
  return {
    pair: d.pair,
    oi: d.openInterestTokens === null ? null : { kind: 'order_book', one_side_tokens: d.openInterestTokens },
    index_price: d.indexPrice,
    mark_price: d.markPrice,
    oracle_price: d.indexPrice,
    volume_usd: d.volumeUsd,
    trade_count: d.tradeCount,
    unique_traders: null,
    taker_flow: null,
    fees: null,
    liquidations_usd: null,
    liquidation_count: null,
    funding_points: d.fundingPoints,
    borrow_rate_1h: null,
    cap: null,
    tvl_usd: null,
    pool_value_usd: null,
    gap_reasons: GAPS,
  };
}

function protocolDay(day: SynthetixDay): DayInput<ProtocolFigures> {
  const observed = day.pairs.filter((p) => p.observed);
  if (!observed.length) {
    const firsts = day.pairs.flatMap((p) => (p.firstData === null ? [] : [p.firstData]));
    const first = firsts.length ? Math.min(...firsts) : null;
    const reason =
      dayGap({
        day_start: day.instant - (day.instant % DAY),
        first_seen: first,
        listed: true,
        observed: false,
      }) ?? 'no_data';
    return { instant: day.instant, figures: null, gap_reason: reason };
  }
  return {
    instant: day.instant,
    figures: {
      pairs: observed.map(figures),
      tvl_usd: null,
      pool_value_usd: null,
      insurance_fund_usd: null,
      unique_traders: null,
      gap_reasons: { tvl_usd: 'no_data', insurance_fund_usd: 'no_data', unique_traders: 'not_applicable' },
    },
  };
}

/** The publication of one Synthetix venue: `registryPairs` are the pairs the registry lists for it. */
export function synthetixPublication(out: SynthetixOutput, registryPairs: readonly string[]): VenuePublication {
  const venue = synthetixVenue(out);
  const listed = out.pairs.map(listedPair);
  const pairs = registryPairs.map((pair): PairHistoryInput => {
    const listing = listed.find((l) => l.pair === pair);
    return {
      venue,
      pair,
      markets: listing?.markets ?? [],
      days: out.days.map((d): DayInput<PairFigures> => {
        const day = d.pairs.find((p) => p.pair === pair);
        if (day?.observed) return { instant: d.instant, figures: figures(day) };
        const reason = dayGap({
          day_start: d.instant - (d.instant % DAY),
          first_seen: day?.firstData ?? null,
          listed: listing !== undefined,
          observed: false,
        });
        return { instant: d.instant, figures: null, gap_reason: reason ?? 'no_data' };
      }),
    };
  });
  return { venue, listed, protocol: { venue, days: out.days.map(protocolDay) }, pairs };
}
