import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../../core/time.js';
import { pairRecords, protocolRecords } from '../records.js';
import { computeDydx, type DydxComputeInput, recordInstants } from './compute.js';
import { tradeHours } from './ingest.js';
import { dydxPublication } from './publish.js';

/** 2026-11-20 00:00 UTC and the instant of the running day's record (14:30). */
const TODAY = Date.UTC(2026, 10, 20) / 1000;
const AS_OF = TODAY + 14 * HOUR + 1800;
const Y = TODAY - DAY;

function input(over: Partial<DydxComputeInput> = {}): DydxComputeInput {
  return {
    protocol: 'dydx',
    chain: 'dydx',
    version: 'V4',
    asOf: AS_OF,
    markets: [
      {
        ticker: 'BTC-USD',
        status: 'ACTIVE',
        oraclePrice: 100,
        openInterest: 10,
        openInterestUpperCap: null,
        observedAt: AS_OF,
      },
      {
        ticker: 'SOL-USD',
        status: 'CANCEL_ONLY',
        oraclePrice: 2,
        openInterest: 50,
        openInterestUpperCap: 400,
        observedAt: AS_OF,
      },
    ],
    candles: [
      { ticker: 'BTC-USD', startedAt: Y, usdVolume: 5000, trades: 12, close: 99, startingOpenInterest: 7 },
      { ticker: 'BTC-USD', startedAt: TODAY, usdVolume: 1500, trades: 4, close: 101, startingOpenInterest: 8 },
      { ticker: 'SOL-USD', startedAt: TODAY, usdVolume: 30, trades: 2, close: 2.1, startingOpenInterest: 40 },
    ],
    funding: [
      { ticker: 'BTC-USD', effectiveAt: Y + HOUR, rate: 0.0001, price: 95 },
      { ticker: 'BTC-USD', effectiveAt: Y + 2 * HOUR, rate: -0.0003, price: 96 },
      { ticker: 'BTC-USD', effectiveAt: TODAY, rate: 0.0002, price: 98 },
      { ticker: 'BTC-USD', effectiveAt: TODAY + HOUR, rate: 0.0004, price: 99 },
    ],
    tradeHours: [
      { ticker: 'BTC-USD', hour: Y, buyUsd: 3000, sellUsd: 1000, liquidationCount: 1, liquidationUsd: 200 },
      { ticker: 'BTC-USD', hour: Y + HOUR, buyUsd: 0, sellUsd: 1000, liquidationCount: 0, liquidationUsd: 0 },
      ...Array.from({ length: 22 }, (_, i) => ({
        ticker: 'BTC-USD',
        hour: Y + (i + 2) * HOUR,
        buyUsd: 0,
        sellUsd: 0,
        liquidationCount: 0,
        liquidationUsd: 0,
      })),
    ],
    balances: [
      { account: 'subaccounts', time: TODAY, usd: 1_000_000 },
      { account: 'insurance_fund', time: TODAY, usd: 50_000 },
      { account: 'subaccounts', time: TODAY + 14 * HOUR, usd: 1_200_000 },
    ],
    readsBalances: true,
    days: 8,
    ...over,
  };
}

describe('recordInstants', () => {
  it('is the running day at as_of, then each earlier day at its last second', () => {
    expect(recordInstants(AS_OF, 3)).toEqual([AS_OF, TODAY - 1, TODAY - DAY - 1]);
  });
});

describe('computeDydx: a market’s day', () => {
  const out = computeDydx(input());
  const day = (i: number, ticker: string) => out.days[i]!.markets.find((m) => m.ticker === ticker);
  const cases: [string, () => unknown, unknown][] = [
    ['running day: open interest from the market list', () => day(0, 'BTC-USD')!.openInterestTokens, 10],
    ['running day: oracle price from the market list', () => day(0, 'BTC-USD')!.oraclePrice, 100],
    ['running day: mark is the day’s last fill (candle close)', () => day(0, 'BTC-USD')!.markPrice, 101],
    [
      'past day: open interest at its end is the next candle’s starting one',
      () => day(1, 'BTC-USD')!.openInterestTokens,
      8,
    ],
    ['past day: oracle price of the funding tick at the day’s end', () => day(1, 'BTC-USD')!.oraclePrice, 98],
    [
      'past day: volume and trades from its daily candle',
      () => [day(1, 'BTC-USD')!.volumeUsd, day(1, 'BTC-USD')!.tradeCount],
      [5000, 12],
    ],
    ['past day: taker flow summed over its hours', () => day(1, 'BTC-USD')!.takerFlow, { buyUsd: 3000, sellUsd: 2000 }],
    [
      'past day: liquidation fills',
      () => [day(1, 'BTC-USD')!.liquidationsUsd, day(1, 'BTC-USD')!.liquidationCount],
      [200, 1],
    ],
    [
      'funding: the day’s points, already hourly, taken as they are',
      () => day(1, 'BTC-USD')!.funding.map((p) => ({ ...p, rate_1h: Number(p.rate_1h.toPrecision(10)) })),
      [
        { time: Y + HOUR, rate_1h: 0.0001 },
        { time: Y + 2 * HOUR, rate_1h: -0.0003 },
      ],
    ],
    [
      'a tick at midnight belongs to the day it starts',
      () => day(0, 'BTC-USD')!.funding.map((p) => p.time),
      [TODAY, TODAY + HOUR],
    ],
    [
      'running day without fills read: taker flow unknown',
      () => [day(0, 'BTC-USD')!.takerFlow, day(0, 'BTC-USD')!.gaps.taker_flow],
      [null, 'no_data'],
    ],
    ['a capped market’s cap (running day)', () => day(0, 'SOL-USD')!.capUsd, 400],
    ['a market without a cap', () => day(0, 'BTC-USD')!.gaps.cap, 'not_applicable'],
    ['a past day’s cap is not known', () => day(1, 'BTC-USD')!.gaps.cap, 'no_data'],
    ['a market first seen after the day', () => out.days[1]!.missing['SOL-USD'], 'not_deployed'],
    ['the listing’s states', () => out.listed.map((l) => l.state), ['active', 'close_only']],
    ['TVL of a past day: at its end', () => out.days[1]!.tvlUsd, 1_000_000],
    ['TVL of the running day: the newest read', () => out.days[0]!.tvlUsd, 1_200_000],
    ['the running day: a read at midnight stands until a newer one', () => out.days[0]!.insuranceFundUsd, 50_000],
    [
      'a day without a read at its end',
      () => [out.days[2]!.insuranceFundUsd, out.days[2]!.gaps.insurance_fund_usd],
      [null, 'no_data'],
    ],
    [
      'a past day with some of its hours unread: taker flow unknown',
      () => computeDydx(input({ tradeHours: input().tradeHours.slice(0, 23) })).days[1]!.markets[0]!.gaps.taker_flow,
      'no_data',
    ],
    ['no node: TVL unknown', () => computeDydx(input({ readsBalances: false })).days[1]!.tvlUsd, null],
    ['a day without anything observed has no markets', () => out.days[3]!.markets, []],
  ];
  it.each(cases)('%s', (_name, get, expected) => {
    expect(get()).toEqual(expected);
  });
});

describe('tradeHours: fills summed per closed hour', () => {
  const t = (id: string, at: number, side: 'BUY' | 'SELL', size: string, price: string, type = 'LIMIT') => ({
    id,
    side,
    size,
    price,
    type,
    createdAt: new Date(at * 1000).toISOString(),
    createdAtHeight: String(at),
  });
  const rows = tradeHours(
    'dydx',
    'BTC-USD',
    [
      t('a', Y + 10, 'BUY', '2', '50'),
      t('b', Y + 20, 'SELL', '1', '40', 'LIQUIDATED'),
      t('c', Y + HOUR + 5, 'SELL', '0.5', '10'),
      t('d', Y + 2 * HOUR, 'BUY', '9', '9'),
    ],
    Y,
    Y + 3 * HOUR,
  );
  it.each([
    [
      'every hour has a row, fills or not',
      rows.map((r) => [r.hour, r.fills]),
      [
        [Y, 2],
        [Y + HOUR, 1],
        [Y + 2 * HOUR, 1],
      ],
    ],
    [
      'taker buys and sells in USD',
      rows.map((r) => [r.buy_usd, r.sell_usd]),
      [
        [100, 40],
        [0, 5],
        [81, 0],
      ],
    ],
    [
      'liquidations: fills of type LIQUIDATED',
      rows.map((r) => [r.liquidation_count, r.liquidation_usd]),
      [
        [1, 40],
        [0, 0],
        [0, 0],
      ],
    ],
    [
      'a fill outside the span is not counted',
      tradeHours('dydx', 'X', [t('e', Y - 1, 'BUY', '1', '1')], Y, Y + HOUR)[0]!.fills,
      0,
    ],
  ])('%s', (_name, got, expected) => {
    expect(got).toEqual(expected);
  });
});

describe('dydxPublication: an order book under the area’s conventions', () => {
  const pub = dydxPublication(computeDydx(input()), ['BTC-USD', 'SOL-USD', 'ETH-USD']);
  const protocol = protocolRecords(pub.protocol);
  const btc = pairRecords(pub.pairs[0]!);
  const eth = pairRecords(pub.pairs[2]!);
  it.each([
    ['open interest is one side, never long + short', () => btc[0]!.open_interest_usd, 1000],
    [
      'long = short = the one side',
      () => [btc[0]!.long_open_interest_usd, btc[0]!.short_open_interest_usd],
      [1000, 1000],
    ],
    ['oi_convention', () => btc[0]!.oi_convention, 'order_book_one_side'],
    ['the protocol sums markets’ one sides (BTC 10 × 100 + SOL 50 × 2)', () => protocol[0]!.open_interest_usd, 1100],
    ['protocol: every market, listed or not', () => protocol[0]!.number_of_pairs, 2],
    ['skew by taker flow', () => [btc[1]!.long_short_skew, btc[1]!.skew_method], [0.2, 'taker_flow']],
    ['funding source interval', () => btc[1]!.funding.source_interval, '1h'],
    ['fees: no source publishes them', () => [btc[1]!.fees_usd, btc[1]!.gap_reasons.fees_usd], [null, 'no_data']],
    ['unique traders: trades carry no account', () => btc[1]!.gap_reasons.unique_traders, 'not_applicable'],
    [
      'TVL and insurance fund on the protocol',
      () => [protocol[1]!.tvl_usd, protocol[1]!.insurance_fund_usd],
      [1_000_000, 50_000],
    ],
    ['oi over TVL', () => protocol[1]!.risk.oi_to_tvl, 784 / 1_000_000],
    ['a pair the venue does not list', () => [pub.pairs[2]!.markets, eth[0]!.gap_reason], [[], 'not_listed']],
    [
      'listing: the ticker and the venue’s status',
      () => pub.listed[1]!.markets,
      [{ venue: 'dydx-v4', ticker: 'SOL-USD', venue_status: 'CANCEL_ONLY' }],
    ],
    ['listing status of a cancel-only market', () => pub.listed[1]!.status, 'close_only'],
  ])('%s', (_name, get, expected) => {
    expect(get()).toEqual(expected);
  });
});
