import { describe, expect, it } from 'vitest';
import { HOUR } from '../../core/time.js';
import type { Ticker } from './compute.js';
import {
  type CoinReading,
  type Fetched,
  MARKET_TOLERANCE_SECONDS,
  type MarketFacts,
  marketDayAt,
  pickReading,
} from './market-days.js';

const T = Date.UTC(2026, 10, 20, 12) / 1000;
const r = (fetchedAt: number, v: string): Fetched<string> => ({ fetchedAt, reading: v });

describe('pickReading: the newest reading at or before the instant, within the tolerance', () => {
  const cases: { name: string; readings: Fetched<string>[]; asOf: number; want: string }[] = [
    { name: 'nothing stored', readings: [], asOf: T, want: 'no_data' },
    { name: 'only later readings (never the future)', readings: [r(T + 1, 'a')], asOf: T, want: 'no_data' },
    { name: 'exactly at the instant', readings: [r(T, 'a')], asOf: T, want: 'a' },
    {
      name: 'the newest of several before',
      readings: [r(T - HOUR, 'a'), r(T - 60, 'b'), r(T - 2 * HOUR, 'c')],
      asOf: T,
      want: 'b',
    },
    { name: 'a later one is skipped for an earlier', readings: [r(T - 60, 'a'), r(T + 60, 'b')], asOf: T, want: 'a' },
    { name: 'at the tolerance', readings: [r(T - MARKET_TOLERANCE_SECONDS, 'a')], asOf: T, want: 'a' },
    {
      name: 'older than the tolerance',
      readings: [r(T - MARKET_TOLERANCE_SECONDS - 1, 'a')],
      asOf: T,
      want: 'stale_source',
    },
    {
      name: 'stale even when an older one exists',
      readings: [r(T - 5 * HOUR, 'a'), r(T - 3 * HOUR, 'b')],
      asOf: T,
      want: 'stale_source',
    },
  ];
  it.each(cases)('$name', ({ readings, asOf, want }) => {
    const p = pickReading(readings, asOf);
    expect('reading' in p ? p.reading : p.reason).toBe(want);
  });

  it('takes a stated tolerance', () => {
    expect(pickReading([r(T - 100, 'a')], T, 99)).toEqual({ reason: 'stale_source' });
    expect(pickReading([r(T - 100, 'a')], T, 100)).toEqual({ reading: 'a', fetchedAt: T - 100 });
  });
});

const ticker: Ticker = {
  market: { name: 'X', identifier: 'x' },
  last: 1,
  volume: 1,
  converted_volume: { usd: 10 },
  converted_last: { usd: 1 },
  trust_score: 'green',
  is_anomaly: false,
  is_stale: false,
  timestamp: null,
};
const coin = (price: number | null): CoinReading => ({
  priceUsd: price,
  marketCapUsd: price === null ? null : price * 100,
  circulatingSupply: 100,
  totalSupply: 200,
  maxSupply: null,
  chart: [[T * 1000, price ?? 1]],
  tickers: [ticker],
});
const facts = (over: Partial<MarketFacts> = {}): MarketFacts => ({
  coin: [{ fetchedAt: T - 600, reading: coin(5) }],
  eth: [{ fetchedAt: T - 600, reading: { chart: [[T * 1000, 3000]] } }],
  btc: [{ fetchedAt: T - 3 * HOUR, reading: { chart: [[T * 1000, 90000]] } }],
  global: [{ fetchedAt: T - 600, reading: { totalMarketCapUsd: 1e12 } }],
  exchanges: [{ id: 'x', name: 'X', centralized: true }],
  ...over,
});

describe('marketDayAt', () => {
  it('gives the coin reading with the references each taken alone', () => {
    const d = marketDayAt(facts(), T);
    expect(d.market?.priceUsd).toBe(5);
    expect(d.market?.marketCapUsd).toBe(500);
    expect(d.market?.globalMarketCapUsd).toBe(1e12);
    expect(d.market?.ethChart).toEqual([[T * 1000, 3000]]);
    // BTC's reading is 3 h old: null alone, the rest stands.
    expect(d.market?.btcChart).toBeNull();
    expect(d.tickers).toEqual([ticker]);
    expect(d.exchanges).toHaveLength(1);
    expect(d.marketGapReason).toBeUndefined();
  });

  it('a day without a reading is null with a reason, never 0', () => {
    const none = marketDayAt(facts({ coin: [] }), T);
    expect(none).toMatchObject({
      market: null,
      marketGapReason: 'no_data',
      tickers: null,
      tickersGapReason: 'no_data',
    });
    const before = marketDayAt(facts(), T - 601);
    expect(before.market).toBeNull();
    expect(before.marketGapReason).toBe('no_data');
    const stale = marketDayAt(facts(), T + MARKET_TOLERANCE_SECONDS);
    expect(stale).toMatchObject({ market: null, marketGapReason: 'stale_source', tickersGapReason: 'stale_source' });
  });

  it('a reading without a USD price: market null (no_data), its tickers still read', () => {
    const d = marketDayAt(facts({ coin: [{ fetchedAt: T, reading: coin(null) }] }), T);
    expect(d.market).toBeNull();
    expect(d.marketGapReason).toBe('no_data');
    expect(d.tickers).toHaveLength(1);
  });
});
