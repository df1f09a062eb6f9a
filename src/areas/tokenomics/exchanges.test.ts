import type { TickerGetResponse } from '@coingecko/coingecko-typescript/resources/coins/tickers';
import { describe, expect, it } from 'vitest';
import { type ExchangeInfo, exchangeFigures, labelNamesVenue, type Ticker } from './exchanges.js';

const ticker = (id: string, usd: number | null, extra: Partial<Ticker> = {}): Ticker => ({
  market: { name: id.toUpperCase(), identifier: id },
  last: 1,
  volume: usd ?? 0,
  converted_volume: { usd },
  converted_last: { usd: 1 },
  bid_ask_spread_percentage: 0.1,
  cost_to_move_up_usd: 1000,
  cost_to_move_down_usd: 900,
  trust_score: 'green',
  is_anomaly: false,
  is_stale: false,
  timestamp: '2026-11-20T00:00:00+00:00',
  ...extra,
});
const exchanges: ExchangeInfo[] = [
  { id: 'binance', name: 'Binance', centralized: true },
  { id: 'kraken', name: 'Kraken', centralized: true },
  { id: 'uniswap_v3', name: 'Uniswap V3 (Ethereum)', centralized: false },
];

/** The official package's ticker maps onto this area's (a compile-time check: tsc fails if a field drifts). */
const fromOfficial = (t: TickerGetResponse.Ticker): Ticker => t;

describe('exchange figures from tickers', () => {
  it("reads the official package's ticker shape as it is", () => {
    const official = {
      market: { name: 'Binance', identifier: 'binance', has_trading_incentive: false },
      last: 5,
      volume: 1,
      converted_volume: { usd: 5, btc: 0.0001, eth: 0.002 },
      converted_last: { usd: 5 },
      cost_to_move_up_usd: 100,
      cost_to_move_down_usd: 90,
      trust_score: 'green',
      is_anomaly: false,
      is_stale: false,
      base: 'UNI',
      target: 'USDT',
      coin_id: 'uniswap',
      target_coin_id: 'tether',
      coin_mcap_usd: 1,
      last_fetch_at: '2026-11-20T00:00:00+00:00',
      last_traded_at: '2026-11-20T00:00:00+00:00',
      token_info_url: null,
      trade_url: 'https://example.org',
      bid_ask_spread_percentage: 0.1,
      timestamp: '2026-11-20T00:00:00+00:00',
    } satisfies TickerGetResponse.Ticker;
    expect(exchangeFigures([fromOfficial(official)], exchanges).cexVolumeUsd).toBe(5);
  });

  const f = exchangeFigures(
    [
      ticker('binance', 600, { bid_ask_spread_percentage: 0.2 }),
      ticker('binance', 200, { bid_ask_spread_percentage: 0.6, trust_score: 'yellow' }),
      ticker('kraken', 100, { cost_to_move_up_usd: undefined, cost_to_move_down_usd: undefined }),
      ticker('uniswap_v3', 100),
      ticker('mystery', 0),
      ticker('kraken', 1e9, { is_anomaly: true }),
      ticker('kraken', 1e9, { is_stale: true }),
      ticker('binance', 1e9, { is_stale: true, is_anomaly: true }),
      ticker('kraken', null),
    ],
    exchanges,
  );
  it('anomalous and stale tickers are left out and counted', () => {
    expect(f.anomalousTickers).toBe(2);
    expect(f.staleTickers).toBe(2);
    expect(f.excludedTickers).toBe(3);
    expect(f.keptTickers).toBe(6);
    expect(f.unpricedTickers).toBe(1);
  });
  it('CEX and DEX volume from the exchanges’ flags; an unknown exchange in neither', () => {
    expect(f.cexVolumeUsd).toBe(900);
    expect(f.dexVolumeUsd).toBe(100);
    expect(f.unknownTypeVolumeUsd).toBe(0);
    expect(f.totalVolumeUsd).toBe(1000);
    expect(f.venues.map((v) => [v.id, v.type])).toEqual([
      ['binance', 'cex'],
      ['kraken', 'cex'],
      ['uniswap_v3', 'dex'],
      ['mystery', null],
    ]);
  });
  it('per venue: volume, share, volume-weighted spread, summed depth, worst trust', () => {
    const b = f.venues[0]!;
    expect(b).toMatchObject({ name: 'Binance', volumeUsd: 800, sharePercent: 80, tickers: 2, trustScore: 'yellow' });
    expect(b.spreadPercent).toBeCloseTo(0.3, 12);
    expect([b.depthUpUsd, b.depthDownUsd]).toEqual([2000, 1800]);
    const k = f.venues[1]!;
    expect([k.depthUpUsd, k.depthDownUsd, k.tickers]).toEqual([null, null, 2]);
    expect(f.venues[3]!.spreadPercent).toBeNull();
  });
  it('no tickers: zero volumes, no venue, no share', () => {
    const e = exchangeFigures([], exchanges);
    expect([e.venues.length, e.cexVolumeUsd, e.dexVolumeUsd, e.keptTickers]).toEqual([0, 0, 0, 0]);
  });
  it('labels name a venue by identifier or name', () => {
    expect(labelNamesVenue('Binance', { id: 'binance', name: 'Binance' })).toBe(true);
    expect(labelNamesVenue('binance', { id: 'x', name: 'Binance' })).toBe(true);
    expect(labelNamesVenue('Binance 14', { id: 'binance', name: 'Binance' })).toBe(false);
    // A wallet's slug after the identifier and a dash.
    expect(labelNamesVenue('binance-hot-1', { id: 'binance', name: 'Binance' })).toBe(true);
    expect(labelNamesVenue('binance_us-hot-1', { id: 'binance', name: 'Binance' })).toBe(false);
    expect(labelNamesVenue('binancex', { id: 'binance', name: 'Binance' })).toBe(false);
  });
});
