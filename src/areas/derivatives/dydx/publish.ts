/**
 * dYdX v4's figures (`computeDydx`) as the area's venue-neutral inputs (pure): the listing's pairs, the protocol's
 * days and each served pair's days, which `records.ts` turns into the three payloads. An order book: open interest
 * is one side (`orderBookOneSide`, the indexer's `openInterest` is one side), the skew is of taker flow, funding is
 * quoted hourly. What dYdX has no figure for is null with its reason here, once: fees (the indexer publishes none),
 * unique traders (its trades carry no account), pool value and borrowing (not a pool).
 */
import type { GapReason } from '../../../core/gaps.js';
import { orderBookOneSide, pairStatus } from '../conventions.js';
import type { VenuePublication } from '../documents.js';
import type { DayInput, ListedPair, PairFigures, PairHistoryInput, ProtocolFigures, VenueInput } from '../records.js';
import type { MarketRefT } from '../schema.js';
import type { DydxDay, DydxMarketDay, DydxMarketListing, DydxOutput } from './compute.js';

export function dydxVenue(out: Pick<DydxOutput, 'protocol' | 'chain' | 'version'>): VenueInput {
  return {
    protocol: out.protocol,
    chain: out.chain,
    version: out.version,
    design: 'dydx-v4',
    kind: 'order_book',
    funding_interval: '1h',
  };
}

const marketRef = (m: DydxMarketListing): MarketRefT => ({
  venue: 'dydx-v4',
  ticker: m.ticker,
  venue_status: m.venueStatus,
});

/** The registry's pair names the indexer's ticker (`BTC-USD`). */
const pairOf = (ticker: string) => ticker;

function listedPair(pair: string, markets: readonly DydxMarketListing[]): ListedPair | undefined {
  const own = markets.filter((m) => pairOf(m.ticker) === pair);
  if (!own.length) return undefined;
  const status = pairStatus(own.map((m) => m.state));
  return {
    pair,
    status: status === 'not_listed' ? 'paused' : status,
    display_name: pair.replace('-', '/'),
    markets: own.map(marketRef),
  };
}

/** No source publishes dYdX's fees or its traders' accounts in trades; a pool's figures do not apply. */
const VENUE_GAPS: Readonly<Record<string, GapReason>> = {
  fees: 'no_data',
  unique_traders: 'not_applicable',
  borrow_rate_1h: 'not_applicable',
  pool_value_usd: 'not_applicable',
};

export function pairFigures(m: DydxMarketDay): PairFigures {
  return {
    pair: pairOf(m.ticker),
    oi:
      m.openInterestTokens === null
        ? null
        : {
            kind: 'order_book',
            one_side_tokens: orderBookOneSide({ reported: 'one_side', tokens: m.openInterestTokens }),
          },
    index_price: m.oraclePrice,
    mark_price: m.markPrice,
    oracle_price: m.oraclePrice,
    volume_usd: m.volumeUsd,
    trade_count: m.tradeCount,
    unique_traders: null,
    taker_flow: m.takerFlow ? { buy_usd: m.takerFlow.buyUsd, sell_usd: m.takerFlow.sellUsd } : null,
    fees: null,
    liquidations_usd: m.liquidationsUsd,
    liquidation_count: m.liquidationCount,
    funding_points: m.funding,
    borrow_rate_1h: null,
    cap: m.capUsd === null ? null : { long_usd: m.capUsd, short_usd: m.capUsd },
    tvl_usd: null,
    pool_value_usd: null,
    gap_reasons: { ...VENUE_GAPS, ...m.gaps },
  };
}

function protocolDay(day: DydxDay): DayInput<ProtocolFigures> {
  if (!day.markets.length) return { instant: day.instant, figures: null, gap_reason: 'no_data' };
  return {
    instant: day.instant,
    figures: {
      pairs: day.markets.map(pairFigures),
      tvl_usd: day.tvlUsd,
      pool_value_usd: null,
      insurance_fund_usd: day.insuranceFundUsd,
      unique_traders: null,
      gap_reasons: { ...VENUE_GAPS, ...day.gaps },
    },
  };
}

/** The publication of one dYdX venue: `registryPairs` are the pairs the registry serves for it. */
export function dydxPublication(out: DydxOutput, registryPairs: readonly string[]): VenuePublication {
  const venue = dydxVenue(out);
  const listed = registryPairs.flatMap((p) => listedPair(p, out.listed) ?? []);
  const pairs = registryPairs.map((pair): PairHistoryInput => {
    const listing = listed.find((l) => l.pair === pair);
    return {
      venue,
      pair,
      markets: listing?.markets ?? [],
      days: out.days.map((d): DayInput<PairFigures> => {
        const m = d.markets.find((x) => pairOf(x.ticker) === pair);
        if (m) return { instant: d.instant, figures: pairFigures(m) };
        return { instant: d.instant, figures: null, gap_reason: d.missing[pair] ?? 'not_listed' };
      }),
    };
  });
  return { venue, listed, protocol: { venue, days: out.days.map(protocolDay) }, pairs };
}
