/**
 * Synthetix's exchange's daily figures from the stored facts of its info API (pure: facts and the instant in, figures
 * out; docs/methodology/derivatives.md defines each). Per pair (`<BASE>-USD`, every market whose `baseAsset` is the
 * pair's base: `BTC-USDT` is `BTC-USD`) and UTC day, up to the record's instant:
 * - open interest: one side of the book, in base units, from `getOpenInterest`'s `longOpenInterest` and
 *   `shortOpenInterest` (their mean: `orderBookOneSide`, never their sum), summed over the pair's markets, as last
 *   observed in the day within `OBSERVATION_TOLERANCE_SECONDS` before the record's instant; the API keeps no history
 *   of it, so a day this service did not watch has none (null);
 * - index, mark and oracle prices: `indexPrice` (which values open interest) and `markPrice` of that observation, of
 *   the pair's first market by symbol;
 * - volume and trade count: the sums of the hourly candles' `quoteVolume` and `tradeCount` opening in the day's
 *   window (each fill once, as the candles count them);
 * - funding: each settled rate of `getFundingRateHistory` whose `fundingTime` falls in the window, as a 1-hour rate
 *   (the exchange's funding interval is one hour: `SYNTHETIX_FUNDING_INTERVAL`), positive when longs pay shorts.
 * What the info API does not publish (fees, liquidations, accounts, taker side, balances) is not here.
 */
import { dailyHistoryInstants, HOUR, inDayWindow, utcDayWindow } from '../../../core/time.js';
import {
  type FundingInterval,
  type FundingPoint,
  fundingRate1h,
  type MarketState,
  orderBookOneSide,
  pairStatus,
  synthetixMarketState,
} from '../conventions.js';

/**
 * The exchange's funding interval: `getFundingRate` answers `fundingInterval: 3600000` ("typically 3600000 for 1
 * hour") and says its rates are 1-hour rates, not annualised (developers.synthetix.io, REST API → Info →
 * getFundingRate, read 2026-11).
 */
export const SYNTHETIX_FUNDING_INTERVAL: FundingInterval = '1h';

/**
 * Days computed: the 7 records' and one older (ingestion reads 7 whole days before the running one), which only feeds
 * the oldest record's 7-day funding spread.
 */
export const SYNTHETIX_DAYS = 8;

/** How long before a record's instant a market's last observation still stands for it (one markets poll missed…). */
export const OBSERVATION_TOLERANCE_SECONDS = HOUR;

export interface SynthetixMarketFact {
  readonly symbol: string;
  readonly baseAsset: string;
  readonly quoteAsset: string;
  readonly isOpen: boolean;
  readonly isCloseOnly: boolean;
  /** Unix seconds. */
  readonly firstSeen: number;
  readonly lastSeen: number;
}

/** A market's newest state read in one UTC day. Decimal strings as the API spells them. */
export interface SynthetixObservationFact {
  readonly symbol: string;
  readonly day: number;
  readonly time: number;
  readonly markPrice: string;
  readonly indexPrice: string;
  readonly longOpenInterest: string;
  readonly shortOpenInterest: string;
  readonly fundingRate: string;
}

export interface SynthetixCandleFact {
  readonly symbol: string;
  readonly openTime: number;
  readonly closePrice: string;
  readonly volume: string;
  readonly quoteVolume: string;
  readonly tradeCount: number;
}

export interface SynthetixFundingFact {
  readonly symbol: string;
  readonly time: number;
  readonly rate: string;
}

export interface SynthetixComputeInput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  /** The payload's instant: the newest observation's time. */
  readonly asOf: number;
  readonly markets: readonly SynthetixMarketFact[];
  readonly observations: readonly SynthetixObservationFact[];
  readonly candles: readonly SynthetixCandleFact[];
  readonly funding: readonly SynthetixFundingFact[];
}

export interface SynthetixMarketListing {
  readonly symbol: string;
  readonly state: MarketState;
  /** The exchange's own word: `open`, `close_only` or `closed`. */
  readonly venueStatus: 'open' | 'close_only' | 'closed';
}

export interface SynthetixPairListing {
  readonly pair: string;
  readonly status: MarketState | 'not_listed';
  readonly markets: readonly SynthetixMarketListing[];
}

export interface SynthetixPairDay {
  readonly pair: string;
  /** Whether any fact of the pair's markets falls in the day's window. */
  readonly observed: boolean;
  /** The first fact of the pair's markets (Unix seconds), null if none. */
  readonly firstData: number | null;
  /** One side of the book, base units; null when a market of the pair was not observed near the instant. */
  readonly openInterestTokens: number | null;
  readonly indexPrice: number | null;
  readonly markPrice: number | null;
  /** When the state figures were observed (the oldest of the pair's markets' observations). */
  readonly observedAt: number | null;
  readonly volumeUsd: number | null;
  readonly volumeTokens: number | null;
  readonly tradeCount: number | null;
  readonly fundingPoints: readonly FundingPoint[];
}

export interface SynthetixDay {
  readonly instant: number;
  /** Every pair the exchange has a market for (listed by the registry or not), sorted. */
  readonly pairs: readonly SynthetixPairDay[];
}

export interface SynthetixOutput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  readonly asOf: number;
  readonly pairs: readonly SynthetixPairListing[];
  /** `SYNTHETIX_DAYS` days, newest first (the running day first). */
  readonly days: readonly SynthetixDay[];
}

/** The served pair of a market: its base asset against USD (the exchange quotes in USDT). */
export function pairOf(market: { readonly baseAsset: string }): string {
  return `${market.baseAsset.toUpperCase()}-USD`;
}

function venueStatus(m: SynthetixMarketFact): SynthetixMarketListing['venueStatus'] {
  if (m.isCloseOnly) return 'close_only';
  return m.isOpen ? 'open' : 'closed';
}

const groupBy = <T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
};

const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export function computeSynthetix(input: SynthetixComputeInput): SynthetixOutput {
  const markets = [...input.markets].sort((a, b) => a.symbol.localeCompare(b.symbol));
  const byPair = groupBy(markets, pairOf);
  const pairs = [...byPair.keys()].sort();
  const candles = groupBy(input.candles, (c) => c.symbol);
  const funding = groupBy(input.funding, (f) => f.symbol);
  const observations = groupBy(input.observations, (o) => o.symbol);

  const listing = pairs.map((pair): SynthetixPairListing => {
    const ms = byPair.get(pair)!.map((m) => ({
      symbol: m.symbol,
      state: synthetixMarketState(m),
      venueStatus: venueStatus(m),
    }));
    return { pair, status: pairStatus(ms.map((m) => m.state)), markets: ms };
  });

  const firstData = (symbols: readonly string[]): number | null => {
    const times = symbols.flatMap((s) => [
      ...(candles.get(s) ?? []).map((c) => c.openTime),
      ...(funding.get(s) ?? []).map((f) => f.time),
      ...(observations.get(s) ?? []).map((o) => o.time),
    ]);
    return times.length ? Math.min(...times) : null;
  };

  const pairDay = (pair: string, instant: number): SynthetixPairDay => {
    const window = utcDayWindow(instant);
    const symbols = byPair.get(pair)!.map((m) => m.symbol);
    const dayCandles = symbols.flatMap((s) => (candles.get(s) ?? []).filter((c) => inDayWindow(c.openTime, window)));
    // Funding, like the prices, is the pair's first market's by symbol: two markets' rates at one hour are two
    // rates, not two points of one history.
    const points = (funding.get(symbols[0]!) ?? [])
      .filter((f) => inDayWindow(f.time, window))
      .map((f) => ({ time: f.time, rate_1h: fundingRate1h(Number(f.rate), SYNTHETIX_FUNDING_INTERVAL) }))
      .sort((a, b) => a.time - b.time);
    const seen = symbols.map((s) =>
      (observations.get(s) ?? []).find(
        (o) => o.day === window.from && o.time <= instant && o.time >= instant - OBSERVATION_TOLERANCE_SECONDS,
      ),
    );
    const complete = seen.every((o) => o !== undefined) ? (seen as SynthetixObservationFact[]) : null;
    const first = complete?.[0];
    const anyObserved = seen.some((o) => o !== undefined);
    return {
      pair,
      observed: dayCandles.length > 0 || points.length > 0 || anyObserved,
      firstData: firstData(symbols),
      openInterestTokens: complete
        ? sumOf(
            complete.map((o) =>
              orderBookOneSide({
                reported: 'by_side',
                long_tokens: Number(o.longOpenInterest),
                short_tokens: Number(o.shortOpenInterest),
              }),
            ),
          )
        : null,
      indexPrice: first ? Number(first.indexPrice) : null,
      markPrice: first ? Number(first.markPrice) : null,
      observedAt: complete ? Math.min(...complete.map((o) => o.time)) : null,
      volumeUsd: dayCandles.length ? sumOf(dayCandles.map((c) => Number(c.quoteVolume))) : null,
      volumeTokens: dayCandles.length ? sumOf(dayCandles.map((c) => Number(c.volume))) : null,
      tradeCount: dayCandles.length ? sumOf(dayCandles.map((c) => c.tradeCount)) : null,
      fundingPoints: points,
    };
  };

  return {
    protocol: input.protocol,
    chain: input.chain,
    version: input.version,
    asOf: input.asOf,
    pairs: listing,
    days: dailyHistoryInstants(input.asOf, SYNTHETIX_DAYS).map((instant) => ({
      instant,
      pairs: pairs.map((pair) => pairDay(pair, instant)),
    })),
  };
}
