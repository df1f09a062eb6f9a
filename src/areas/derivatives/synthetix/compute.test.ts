import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../../core/time.js';
import { pairRecords, protocolRecords } from '../records.js';
import {
  computeSynthetix,
  OBSERVATION_TOLERANCE_SECONDS,
  type SynthetixCandleFact,
  type SynthetixComputeInput,
  type SynthetixMarketFact,
  type SynthetixObservationFact,
} from './compute.js';
import { synthetixPublication } from './publish.js';

const TODAY = Date.UTC(2026, 10, 20) / 1000;
const AS_OF = TODAY + 14 * HOUR;

const market = (symbol: string, over: Partial<SynthetixMarketFact> = {}): SynthetixMarketFact => ({
  symbol,
  baseAsset: symbol.split('-')[0]!,
  quoteAsset: 'USDT',
  isOpen: true,
  isCloseOnly: false,
  firstSeen: AS_OF,
  lastSeen: AS_OF,
  ...over,
});

const observation = (symbol: string, time: number, long: string, short = long): SynthetixObservationFact => ({
  symbol,
  day: time - (time % DAY),
  time,
  markPrice: '101',
  indexPrice: '100',
  longOpenInterest: long,
  shortOpenInterest: short,
  fundingRate: '0.00001',
});

const candle = (symbol: string, openTime: number, quoteVolume: string, tradeCount: number): SynthetixCandleFact => ({
  symbol,
  openTime,
  closePrice: '100',
  volume: '1',
  quoteVolume,
  tradeCount,
});

const input = (over: Partial<SynthetixComputeInput>): SynthetixComputeInput => ({
  protocol: 'synthetix',
  chain: 'ethereum',
  version: 'V4',
  asOf: AS_OF,
  markets: [market('BTC-USDT')],
  observations: [observation('BTC-USDT', AS_OF, '10')],
  candles: [],
  funding: [],
  ...over,
});

const btc = (out: ReturnType<typeof computeSynthetix>, day = 0) =>
  out.days[day]!.pairs.find((p) => p.pair === 'BTC-USD')!;

describe('computeSynthetix: open interest is one side of the book', () => {
  it.each([
    ['equal sides: one of them, never their sum', '10', '10', 10],
    ['sides that differ by rounding: their mean', '10.02', '9.98', 10],
    ['an empty book', '0', '0', 0],
  ])('%s', (_, long, short, tokens) => {
    const out = computeSynthetix(input({ observations: [observation('BTC-USDT', AS_OF, long, short)] }));
    expect(btc(out).openInterestTokens).toBeCloseTo(tokens, 12);
    const [record] = pairRecords(synthetixPublication(out, ['BTC-USD']).pairs[0]!);
    expect(record!.open_interest_usd).toBeCloseTo(tokens * 100, 9);
    expect(record!.long_open_interest_usd).toBe(record!.open_interest_usd);
    expect(record!.short_open_interest_usd).toBe(record!.open_interest_usd);
    expect(record!.oi_convention).toBe('order_book_one_side');
  });

  it.each([
    ['at the instant', AS_OF, 10],
    ['within the tolerance before it', AS_OF - OBSERVATION_TOLERANCE_SECONDS, 10],
    ['older than the tolerance: unknown', AS_OF - OBSERVATION_TOLERANCE_SECONDS - 1, null],
  ])('an observation %s', (_, time, tokens) => {
    const out = computeSynthetix(input({ observations: [observation('BTC-USDT', time, '10')] }));
    expect(btc(out).openInterestTokens).toBe(tokens);
  });

  it('adds the pair’s markets (each one side) and takes prices from the first by symbol', () => {
    const out = computeSynthetix(
      input({
        markets: [market('BTC-USDT'), market('BTC-USDC', { baseAsset: 'btc' })],
        observations: [
          observation('BTC-USDT', AS_OF, '10'),
          { ...observation('BTC-USDC', AS_OF - 60, '4'), indexPrice: '99', markPrice: '98' },
        ],
      }),
    );
    expect(out.pairs).toEqual([
      {
        pair: 'BTC-USD',
        status: 'active',
        markets: [
          { symbol: 'BTC-USDC', state: 'active', venueStatus: 'open' },
          { symbol: 'BTC-USDT', state: 'active', venueStatus: 'open' },
        ],
      },
    ]);
    expect(btc(out)).toMatchObject({ openInterestTokens: 14, indexPrice: 99, markPrice: 98, observedAt: AS_OF - 60 });
    // Funding too is the first market's: one point an hour, never both markets' rates as two points of one history.
    const funded = computeSynthetix(
      input({
        markets: [market('BTC-USDT'), market('BTC-USDC', { baseAsset: 'btc' })],
        funding: [
          { symbol: 'BTC-USDT', time: TODAY + HOUR, rate: '0.0002' },
          { symbol: 'BTC-USDC', time: TODAY + HOUR, rate: '0.0001' },
        ],
      }),
    );
    const points = btc(funded).fundingPoints;
    expect(points.map((p) => p.time)).toEqual([TODAY + HOUR]);
    expect(points[0]!.rate_1h).toBeCloseTo(0.0001, 15);
    // One market of the pair unobserved makes its open interest unknown, never a part of it.
    const partial = computeSynthetix(
      input({ markets: [market('BTC-USDT'), market('BTC-USDC')], observations: [observation('BTC-USDT', AS_OF, '1')] }),
    );
    expect(btc(partial).openInterestTokens).toBeNull();
  });
});

describe('computeSynthetix: flows and funding per UTC day', () => {
  it('counts the candles opening in the day’s window, and no other', () => {
    const candles = [
      candle('BTC-USDT', TODAY - HOUR, '1000', 7), // yesterday's last hour
      candle('BTC-USDT', TODAY, '250.5', 3),
      candle('BTC-USDT', TODAY + 13 * HOUR, '100', 2),
      candle('BTC-USDT', AS_OF + HOUR, '999', 9), // after the instant
    ];
    const out = computeSynthetix(input({ candles }));
    expect(btc(out)).toMatchObject({ volumeUsd: 350.5, tradeCount: 5 });
    expect(btc(out, 1)).toMatchObject({ volumeUsd: 1000, tradeCount: 7 });
    expect(btc(out, 2)).toMatchObject({ volumeUsd: null, tradeCount: null, observed: false });
  });

  it.each([
    ['positive: longs pay shorts', '0.0000125', 0.0000125],
    ['negative: shorts pay longs', '-0.00004', -0.00004],
    ['zero', '0', 0],
  ])('takes each settled rate as a 1-hour rate, sign kept (%s)', (_, rate, rate1h) => {
    const out = computeSynthetix(input({ funding: [{ symbol: 'BTC-USDT', time: TODAY + HOUR, rate }] }));
    const [point, ...rest] = btc(out).fundingPoints;
    expect(rest).toEqual([]);
    expect(point!.time).toBe(TODAY + HOUR);
    expect(point!.rate_1h).toBeCloseTo(rate1h, 15);
    const [record] = pairRecords(synthetixPublication(out, ['BTC-USD']).pairs[0]!);
    expect(record!.funding.source_interval).toBe('1h');
    expect(record!.funding.rate_1h_last).toBeCloseTo(rate1h, 15);
    expect(record!.funding.annualised).toBeCloseTo(rate1h * 8760, 15);
  });

  it('puts a point at midnight in the day it starts', () => {
    const out = computeSynthetix(input({ funding: [{ symbol: 'BTC-USDT', time: TODAY, rate: '0.00001' }] }));
    expect(btc(out).fundingPoints).toHaveLength(1);
    expect(btc(out, 1).fundingPoints).toHaveLength(0);
  });
});

describe('the Synthetix publication', () => {
  it('keeps a day without data as a record of nulls with its reason', () => {
    const out = computeSynthetix(
      input({
        candles: [candle('BTC-USDT', TODAY - 2 * DAY, '5', 1)],
        observations: [observation('BTC-USDT', AS_OF, '1')],
      }),
    );
    const pub = synthetixPublication(out, ['BTC-USD', 'ETH-USD']);
    const btcDays = pairRecords(pub.pairs[0]!);
    expect(btcDays.map((r) => r.gap_reason)).toEqual([
      null,
      'no_data',
      null,
      'not_deployed',
      'not_deployed',
      'not_deployed',
      'not_deployed',
    ]);
    // A registry pair the exchange does not list.
    expect(pairRecords(pub.pairs[1]!).every((r) => r.gap_reason === 'not_listed' && r.markets.length === 0)).toBe(true);
    const protocol = protocolRecords(pub.protocol);
    expect(protocol[0]).toMatchObject({ number_of_pairs: 1, tvl_usd: null, fees_usd: null, gap_reason: null });
    expect(protocol[0]!.gap_reasons).toMatchObject({
      tvl_usd: 'no_data',
      fees: 'no_data',
      unique_traders: 'not_applicable',
    });
  });

  it('names what the info API does not publish, with its reason', () => {
    const out = computeSynthetix(input({ candles: [candle('BTC-USDT', TODAY, '10', 1)] }));
    const [record] = pairRecords(synthetixPublication(out, ['BTC-USD']).pairs[0]!);
    expect(record).toMatchObject({
      fees_usd: null,
      liquidations_usd: null,
      long_short_skew: null,
      cap: null,
      tvl_usd: null,
    });
    expect(record!.gap_reasons).toMatchObject({
      fees: 'no_data',
      liquidations_usd: 'no_data',
      long_short_skew: 'no_data',
      unique_traders: 'not_applicable',
      cap: 'not_applicable',
      borrow_rate_1h: 'not_applicable',
      tvl_usd: 'not_applicable',
    });
    expect(record!.risk.turnover).toBeCloseTo(10 / 1000, 12);
    expect(record!.risk.mark_oracle_deviation).toBeCloseTo(0.01, 12);
  });

  it('states a market that only reduces, or does not trade, in the listing', () => {
    const out = computeSynthetix(
      input({ markets: [market('BTC-USDT', { isCloseOnly: true }), market('ETH-USDT', { isOpen: false })] }),
    );
    const pub = synthetixPublication(out, ['BTC-USD', 'ETH-USD']);
    expect(pub.listed.map((l) => [l.pair, l.status, l.markets.map((m) => m.venue_status)])).toEqual([
      ['BTC-USD', 'close_only', ['close_only']],
      ['ETH-USD', 'paused', ['closed']],
    ]);
  });
});
