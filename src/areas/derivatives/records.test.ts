import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { dailyHistoryInstants } from '../../core/time.js';
import { gmxSideOpenInterest } from './conventions.js';
import {
  type DayInput,
  type PairFigures,
  type ProtocolFigures,
  pairRecords,
  pairsListing,
  protocolRecords,
  type VenueInput,
} from './records.js';
import {
  DerivativesPairHistory,
  DerivativesPairsListing,
  DerivativesProtocolHistory,
  type MarketRefT,
} from './schema.js';

const AS_OF = Date.UTC(2026, 10, 20, 14, 0, 0) / 1000;
const INSTANTS = dailyHistoryInstants(AS_OF, 13);

const GMX: VenueInput = {
  protocol: 'gmx',
  chain: 'arbitrum',
  version: 'V2',
  design: 'gmx-v2',
  kind: 'pool',
  funding_interval: 'per_second',
  event_emitter_address: '0xC8ee91A54287DB53897056e12D9819156D3822Fb',
  data_store_address: '0xFD70de6b91282D8017aA4E741e9Ae325CAb992d8',
};
const DYDX: VenueInput = {
  protocol: 'dydx',
  chain: 'dydx',
  version: 'V4',
  design: 'dydx-v4',
  kind: 'order_book',
  funding_interval: '1h',
};

const WETH = '0x82af49447d8a07e3bd95bd0d56f35241523fbab1';
const ETH_MARKETS: MarketRefT[] = [
  {
    venue: 'gmx-v2',
    market_address: '0x70d95587d40a2caf56bd97485ab3eec10bee6336',
    index_token: WETH,
    long_token: WETH,
    short_token: '0xaf88d065e77c8cc2239327c5edb3a432268e5831',
    venue_status: 'enabled',
  },
];

/** A pool pair's day: 3 ETH long, 1 ETH short at $2,000. */
const poolDay = (over: Partial<PairFigures> = {}): PairFigures => ({
  pair: 'ETH-USD',
  oi: { kind: 'pool', long_tokens: 3, short_tokens: 1 },
  index_price: 2000,
  mark_price: 2002,
  oracle_price: 2000,
  volume_usd: 40_000,
  trade_count: 12,
  unique_traders: 5,
  taker_flow: null,
  fees: { position_usd: 20, borrowing_usd: 5, liquidation_usd: 3, swap_usd: 2 },
  liquidations_usd: 1000,
  liquidation_count: 1,
  funding_points: [
    { time: 0, rate_1h: 1e-5 },
    { time: 3600, rate_1h: 3e-5 },
  ],
  borrow_rate_1h: 2e-5,
  cap: { long_usd: 60_000, short_usd: 40_000 },
  tvl_usd: 100_000,
  pool_value_usd: 80_000,
  ...over,
});

/** An order book pair's day: 5 BTC open (one side) at $50,000, fees unpublished. */
const bookDay = (over: Partial<PairFigures> = {}): PairFigures => ({
  pair: 'BTC-USD',
  oi: { kind: 'order_book', one_side_tokens: 5 },
  index_price: 50_000,
  mark_price: 50_050,
  oracle_price: 50_000,
  volume_usd: 1_000_000,
  trade_count: 40,
  unique_traders: null,
  taker_flow: { buy_usd: 600_000, sell_usd: 400_000 },
  fees: null,
  liquidations_usd: 0,
  liquidation_count: 0,
  funding_points: [{ time: 0, rate_1h: -2e-5 }],
  borrow_rate_1h: null,
  cap: null,
  tvl_usd: null,
  pool_value_usd: null,
  gap_reasons: { fees: 'no_data', unique_traders: 'not_applicable', tvl_usd: 'not_applicable' },
  ...over,
});

const days = <F>(figures: (i: number) => F | null, n = 7): DayInput<F>[] =>
  INSTANTS.slice(0, n).map((instant, i) => ({ instant, figures: figures(i) }));

describe('the pairs listing', () => {
  it('keeps the legacy fields and lists each pair with its markets; an unlisted pair says so', () => {
    const listing = pairsListing(
      DYDX,
      ['BTC-USD', 'ETH-USD'],
      [
        {
          pair: 'BTC-USD',
          status: 'active',
          display_name: 'BTC/USD',
          markets: [{ venue: 'dydx-v4', ticker: 'BTC-USD', venue_status: 'ACTIVE' }],
        },
      ],
      AS_OF,
    );
    expect(listing).toMatchObject({
      protocol: 'dydx',
      chain: 'dydx',
      version: 'V4',
      pairs: ['BTC-USD', 'ETH-USD'],
      number_of_pairs: 2,
      as_of: '2026-11-20T14:00:00Z',
    });
    expect(listing.markets[1]).toEqual({ pair: 'ETH-USD', status: 'not_listed', display_name: 'ETH/USD', markets: [] });
  });
});

describe('7 daily records, newest first', () => {
  it.each([
    ['protocol', () => protocolRecords({ venue: DYDX, days: days(() => protocolOf([bookDay()])) })],
    ['pair', () => pairRecords({ venue: DYDX, pair: 'BTC-USD', markets: [], days: days(() => bookDay()) })],
  ])('%s: the running day partial and stamped as_of, the others their last second', (_, build) => {
    const records = build();
    expect(records.map((r) => r.date)).toEqual([
      '2026-11-20',
      '2026-11-19',
      '2026-11-18',
      '2026-11-17',
      '2026-11-16',
      '2026-11-15',
      '2026-11-14',
    ]);
    expect(records.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);
    expect(records[0]!.as_of).toBe('2026-11-20T14:00:00Z');
    expect(records[1]!.as_of).toBe('2026-11-19T23:59:59Z');
  });

  it('refuses a history of fewer than 7 days', () => {
    expect(() => pairRecords({ venue: DYDX, pair: 'BTC-USD', markets: [], days: days(() => bookDay(), 6) })).toThrow(
      /7 days/,
    );
  });
});

const protocolOf = (pairs: PairFigures[], over: Partial<ProtocolFigures> = {}): ProtocolFigures => ({
  pairs,
  tvl_usd: 5_000_000,
  pool_value_usd: null,
  insurance_fund_usd: 300_000,
  unique_traders: 17,
  gap_reasons: { pool_value_usd: 'not_applicable' },
  ...over,
});

describe('open interest by venue kind (the trap cases)', () => {
  it('pool pair: long and short served, open interest their sum, skew of open interest', () => {
    const [r] = pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: days(() => poolDay()) });
    expect(r).toMatchObject({
      long_open_interest_tokens: 3,
      short_open_interest_tokens: 1,
      long_open_interest_usd: 6000,
      short_open_interest_usd: 2000,
      open_interest_usd: 8000,
      oi_convention: 'pool_long_plus_short',
      long_short_skew: 0.5,
      skew_method: 'oi',
      markets: ETH_MARKETS,
      event_emitter_address: '0xc8ee91a54287db53897056e12d9819156d3822fb',
      data_store_address: '0xfd70de6b91282d8017aa4e741e9ae325cab992d8',
    });
  });

  it('order book pair: one side, never long + short; skew of taker flow', () => {
    const [r] = pairRecords({ venue: DYDX, pair: 'BTC-USD', markets: [], days: days(() => bookDay()) });
    expect(r).toMatchObject({
      long_open_interest_tokens: 5,
      short_open_interest_tokens: 5,
      open_interest_usd: 250_000,
      long_open_interest_usd: 250_000,
      short_open_interest_usd: 250_000,
      oi_convention: 'order_book_one_side',
      long_short_skew: 0.2,
      skew_method: 'taker_flow',
    });
    expect(r!.open_interest_usd).not.toBe(500_000);
    expect(r).not.toHaveProperty('event_emitter_address');
  });

  it('single-token GMX market: the halved collateral sum is the side, not twice it', () => {
    const side = (v: bigint) =>
      Number(
        gmxSideOpenInterest({ long_token: WETH, short_token: WETH, with_long_collateral: v, with_short_collateral: v }),
      );
    const [r] = pairRecords({
      venue: GMX,
      pair: 'ETH-USD',
      markets: ETH_MARKETS,
      days: days(() => poolDay({ oi: { kind: 'pool', long_tokens: side(2n), short_tokens: side(1n) } })),
    });
    expect(r).toMatchObject({ long_open_interest_tokens: 2, short_open_interest_tokens: 1, open_interest_usd: 6000 });
  });

  it('protocol: the sum over every market of the venue, listed or not', () => {
    const [r] = protocolRecords({
      venue: DYDX,
      days: days(() =>
        protocolOf([
          bookDay(),
          bookDay({ pair: 'XYZ-USD', index_price: 2, oi: { kind: 'order_book', one_side_tokens: 10 } }),
        ]),
      ),
    });
    expect(r).toMatchObject({
      open_interest_usd: 250_020,
      long_open_interest_usd: 250_020,
      volume_usd: 2_000_000,
      trade_count: 80,
      number_of_pairs: 2,
      unique_traders: 17,
      insurance_fund_usd: 300_000,
      oi_convention: 'order_book_one_side',
    });
  });
});

describe('risk figures', () => {
  it('pool pair: OI over TVL and pool value, net LP exposure, turnover, liquidations, deviation, cap use', () => {
    const [r] = pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: days(() => poolDay()) });
    expect(r!.risk).toEqual({
      oi_to_tvl: 0.08,
      oi_to_pool_value: 0.1,
      net_lp_exposure: 0.05,
      turnover: 5,
      liquidations_to_oi: 0.125,
      mark_oracle_deviation: 0.001,
      funding_annualised_abs: 0.1752,
      funding_annualised_spread_7d: 0,
    });
    expect(r!.cap).toEqual({ long_cap_usd: 60_000, short_cap_usd: 40_000, long_use: 0.1, short_use: 0.05 });
    expect(r!.fees_usd).toBe(30);
    expect(r!.funding).toEqual({
      rate_1h_mean: 2e-5,
      rate_1h_last: 3e-5,
      annualised: 0.1752,
      source_interval: 'per_second',
      sign_convention: 'positive: longs pay shorts',
    });
    expect(r!.funding_rate_history).toEqual([
      { time: '1970-01-01T00:00:00Z', rate_1h: 1e-5 },
      { time: '1970-01-01T01:00:00Z', rate_1h: 3e-5 },
    ]);
    expect(r!.gap_reasons).toEqual({});
  });

  it('order book pair: pool-only figures not applicable, fees unpublished, each null with its reason', () => {
    const [r] = pairRecords({ venue: DYDX, pair: 'BTC-USD', markets: [], days: days(() => bookDay()) });
    expect(r).toMatchObject({ fees_usd: null, fees: null, pool_value_usd: null, borrow_rate_1h: null, cap: null });
    expect(r!.risk).toMatchObject({ net_lp_exposure: null, oi_to_pool_value: null, oi_to_tvl: null, turnover: 4 });
    expect(r!.gap_reasons).toMatchObject({
      fees_usd: 'no_data',
      fees: 'no_data',
      unique_traders: 'not_applicable',
      pool_value_usd: 'not_applicable',
      borrow_rate_1h: 'not_applicable',
      cap: 'not_applicable',
      'risk.net_lp_exposure': 'not_applicable',
      'risk.oi_to_tvl': 'not_applicable',
    });
  });

  it('an order book pair has no TVL of its own: not_applicable unless its part says otherwise', () => {
    const [r] = pairRecords({
      venue: DYDX,
      pair: 'BTC-USD',
      markets: [],
      days: days(() => bookDay({ gap_reasons: {} })),
    });
    expect(r!.gap_reasons).toMatchObject({ tvl_usd: 'not_applicable', fees: 'no_data', unique_traders: 'no_data' });
  });

  it('funding spread: the largest minus the smallest daily annualised over the day and the 6 before, never later', () => {
    // day i (0 = running) has a flat rate of i × 1e-5 per hour
    const history = days((i) => poolDay({ funding_points: [{ time: 0, rate_1h: i * 1e-5 }] }), 13);
    const records = pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: history });
    const spread = (i: number) => records[i]!.risk.funding_annualised_spread_7d;
    expect(spread(0)).toBeCloseTo(6e-5 * 8760, 9);
    expect(spread(6)).toBeCloseTo(6e-5 * 8760, 9);
    // with only the record's own day and no earlier one, no spread
    const short = pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: history.slice(0, 7) });
    expect(short[6]!.risk.funding_annualised_spread_7d).toBeNull();
    expect(short[6]!.gap_reasons['risk.funding_annualised_spread_7d']).toBe('no_data');
  });

  it('no index price: USD open interest null with no_price, the ratios over it too; tokens kept', () => {
    const [r] = pairRecords({
      venue: GMX,
      pair: 'ETH-USD',
      markets: ETH_MARKETS,
      days: days(() => poolDay({ index_price: null })),
    });
    expect(r).toMatchObject({ open_interest_usd: null, long_open_interest_tokens: 3 });
    expect(r!.gap_reasons).toMatchObject({ open_interest_usd: 'no_price', 'risk.turnover': 'no_price' });
  });

  it('a sum over an unknown part is unknown: one unpriced market makes the protocol open interest null', () => {
    const [r] = protocolRecords({
      venue: GMX,
      days: days(() => protocolOf([poolDay(), poolDay({ pair: 'BTC-USD', index_price: null })], { pool_value_usd: 1 })),
    });
    expect(r!.open_interest_usd).toBeNull();
    expect(r!.gap_reasons.open_interest_usd).toBe('no_price');
    expect(r!.volume_usd).toBe(80_000);
  });
});

describe('a day without data', () => {
  it.each([
    ['no_data', 'no_data'],
    ['not_deployed', 'not_deployed'],
  ] as const)('keeps its record with null figures and gap_reason %s', (_, reason) => {
    const history = days<PairFigures>((i) => (i === 3 ? null : poolDay())).map((d, i) =>
      i === 3 ? { ...d, gap_reason: reason } : d,
    );
    const records = pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: history });
    expect(records).toHaveLength(7);
    expect(records[3]).toMatchObject({
      date: '2026-11-17',
      open_interest_usd: null,
      volume_usd: null,
      trade_count: null,
      funding_rate_history: [],
      gap_reason: reason,
    });
    const protocol = protocolRecords({
      venue: GMX,
      days: days<ProtocolFigures>((i) => (i === 3 ? null : protocolOf([poolDay()]))).map((d, i) =>
        i === 3 ? { ...d, gap_reason: reason } : d,
      ),
    });
    expect(protocol[3]).toMatchObject({ open_interest_usd: null, number_of_pairs: null, gap_reason: reason });
    expect(protocol[2]!.gap_reason).toBeNull();
  });

  it('the day after a gap does not borrow the gap day for its funding spread', () => {
    const history = days<PairFigures>((i) =>
      i === 1 ? null : poolDay({ funding_points: [{ time: 0, rate_1h: i * 1e-5 }] }),
    );
    const [r] = pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: history });
    // days 0, 2..6 known: spread of 0 … 6e-5
    expect(r!.risk.funding_annualised_spread_7d).toBeCloseTo(6e-5 * 8760, 9);
  });
});

if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));

describe('the payloads match their schemas', () => {
  const gap = <F>(f: (i: number) => F) =>
    days<F>((i) => (i === 2 ? null : f(i))).map((d, i) => (i === 2 ? { ...d, gap_reason: 'no_data' as const } : d));
  it.each([
    [
      'GMX pair',
      DerivativesPairHistory,
      () => pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: gap(() => poolDay()) }),
    ],
    [
      'dYdX pair',
      DerivativesPairHistory,
      () => pairRecords({ venue: DYDX, pair: 'BTC-USD', markets: [], days: gap(() => bookDay()) }),
    ],
    [
      'GMX protocol',
      DerivativesProtocolHistory,
      () => protocolRecords({ venue: GMX, days: gap(() => protocolOf([poolDay()])) }),
    ],
    [
      'dYdX protocol',
      DerivativesProtocolHistory,
      () => protocolRecords({ venue: DYDX, days: gap(() => protocolOf([bookDay()])) }),
    ],
    [
      'listing',
      DerivativesPairsListing,
      () =>
        pairsListing(
          GMX,
          ['ETH-USD', 'BTC-USD'],
          [{ pair: 'ETH-USD', status: 'active', display_name: 'ETH/USD', markets: ETH_MARKETS }],
          AS_OF,
        ),
    ],
  ] as const)('%s', (_, schema, build) => {
    const payload = build();
    expect([...Value.Errors(schema, payload)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  });
});

describe('a venue without markets', () => {
  it('has no open interest or volume to sum: null with no_members, never zero', () => {
    const [r] = protocolRecords({ venue: DYDX, days: days(() => protocolOf([])) });
    expect(r).toMatchObject({ number_of_pairs: 0, open_interest_usd: null, volume_usd: null, tvl_usd: 5_000_000 });
    expect(r!.gap_reasons).toMatchObject({ open_interest_usd: 'no_members', volume_usd: 'no_members' });
  });
});

describe('fee parts', () => {
  const feesOf = (fees: PairFigures['fees']) =>
    pairRecords({ venue: GMX, pair: 'ETH-USD', markets: ETH_MARKETS, days: days(() => poolDay({ fees })) })[0]!;
  it('a part not applicable to the venue counts as none in the total, and says why it is null', () => {
    const r = feesOf({
      position_usd: 20,
      borrowing_usd: 5,
      liquidation_usd: 3,
      swap_usd: null,
      part_reasons: { swap_usd: 'not_applicable' },
    });
    expect(r.fees_usd).toBe(28);
    expect(r.fees).toEqual({ position_usd: 20, borrowing_usd: 5, liquidation_usd: 3, swap_usd: null });
    expect(r.gap_reasons['fees.swap_usd']).toBe('not_applicable');
  });

  it('an unknown part makes the total unknown', () => {
    const r = feesOf({ position_usd: 20, borrowing_usd: null, liquidation_usd: 3, swap_usd: 0 });
    expect(r.fees_usd).toBeNull();
    expect(r.gap_reasons).toMatchObject({ fees_usd: 'no_data', 'fees.borrowing_usd': 'no_data' });
  });

  it('the protocol sums each part over its pairs', () => {
    const [r] = protocolRecords({
      venue: GMX,
      days: days(() => protocolOf([poolDay(), poolDay({ pair: 'BTC-USD' })], { pool_value_usd: 1 })),
    });
    expect(r!.fees).toEqual({ position_usd: 40, borrowing_usd: 10, liquidation_usd: 6, swap_usd: 4 });
    expect(r!.fees_usd).toBe(60);
  });
});
