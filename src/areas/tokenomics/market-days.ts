/**
 * Which stored market reading stands for a record's instant (pure; docs/methodology/tokenomics.md "Market readings").
 *
 * `tokenomics.market` stores what CoinGecko said at each run's fetch time (market-ingest.ts). A record read at
 * `as_of` takes the newest reading fetched at or before `as_of` (never a later one: a record says nothing of the
 * future of its instant) and not older than `MARKET_TOLERANCE_SECONDS`. Without one its market figures are null:
 * `no_data` when nothing was fetched at or before `as_of` (before the first run, or no source configured),
 * `stale_source` when the newest reading is older than the tolerance (the source failed for a while). Never a 0.
 * The reference charts (ETH, BTC) and `/global` are taken the same way, each null alone when missing. Exchanges'
 * CEX/DEX flags are not time-bound (a venue does not change kind): the stored ones are used as they are.
 */
import type { GapReason } from '../../core/gaps.js';
import { HOUR } from '../../core/time.js';
import type { ExchangeInfo, MarketReading, Ticker } from './compute.js';
import type { MarketDay } from './days.js';
import type { PricePoint } from './market.js';

/** The oldest a reading may be at a record's instant: two hourly runs (one may fail) and a margin. */
export const MARKET_TOLERANCE_SECONDS = 2 * HOUR;

/** A tracked token's reading: `/coins/{id}`'s market data, its daily chart and its tickers. */
export interface CoinReading {
  readonly priceUsd: number | null;
  readonly marketCapUsd: number | null;
  readonly circulatingSupply: number | null;
  readonly totalSupply: number | null;
  readonly maxSupply: number | null;
  readonly chart: readonly PricePoint[];
  readonly tickers: readonly Ticker[];
}

export interface ChartReading {
  readonly chart: readonly PricePoint[];
}

export interface GlobalReading {
  readonly totalMarketCapUsd: number | null;
}

export interface Fetched<T> {
  /** Unix seconds. */
  readonly fetchedAt: number;
  readonly reading: T;
}

/** What the computation loaded for a token's instants: candidate readings (any order) and the exchanges' flags. */
export interface MarketFacts {
  readonly coin: readonly Fetched<CoinReading>[];
  readonly eth: readonly Fetched<ChartReading>[];
  readonly btc: readonly Fetched<ChartReading>[];
  readonly global: readonly Fetched<GlobalReading>[];
  readonly exchanges: readonly ExchangeInfo[];
}

export type Picked<T> = { readonly reading: T; readonly fetchedAt: number } | { readonly reason: GapReason };

/** The newest reading fetched at or before `asOf`, if not older than `tolerance`; else why there is none. */
export function pickReading<T>(
  readings: readonly Fetched<T>[],
  asOf: number,
  tolerance = MARKET_TOLERANCE_SECONDS,
): Picked<T> {
  let best: Fetched<T> | undefined;
  for (const r of readings) if (r.fetchedAt <= asOf && (!best || r.fetchedAt > best.fetchedAt)) best = r;
  if (!best) return { reason: 'no_data' };
  if (asOf - best.fetchedAt > tolerance) return { reason: 'stale_source' };
  return { reading: best.reading, fetchedAt: best.fetchedAt };
}

/** Market figures of a token without any reading: null with `reason`. */
export const noMarket = (reason: GapReason): MarketDay => ({
  market: null,
  marketGapReason: reason,
  tickers: null,
  tickersGapReason: reason,
  exchanges: [],
});

const value = <T>(p: Picked<T>): T | null => ('reading' in p ? p.reading : null);

/** The market day of a record's instant. */
export function marketDayAt(facts: MarketFacts, asOf: number, tolerance = MARKET_TOLERANCE_SECONDS): MarketDay {
  const coin = pickReading(facts.coin, asOf, tolerance);
  if (!('reading' in coin)) return noMarket(coin.reason);
  const c = coin.reading;
  const global = value(pickReading(facts.global, asOf, tolerance));
  const market: MarketReading | null =
    c.priceUsd === null
      ? null
      : {
          priceUsd: c.priceUsd,
          marketCapUsd: c.marketCapUsd,
          circulatingSupply: c.circulatingSupply,
          maxSupply: c.maxSupply,
          globalMarketCapUsd: global?.totalMarketCapUsd ?? null,
          chart: c.chart,
          ethChart: value(pickReading(facts.eth, asOf, tolerance))?.chart ?? null,
          btcChart: value(pickReading(facts.btc, asOf, tolerance))?.chart ?? null,
        };
  return {
    market,
    ...(market === null ? { marketGapReason: 'no_data' as const } : {}),
    tickers: c.tickers,
    exchanges: facts.exchanges,
  };
}
