import { describe, expect, it } from 'vitest';
import {
  annualised,
  dayGap,
  dydxMarketState,
  type FundingInterval,
  fundingRate1h,
  fundingSummary,
  gmxFundingRate1h,
  gmxIndexPrice,
  gmxMarketState,
  gmxSideOpenInterest,
  longShortSkew,
  markToMarketUsd,
  type OpenInterestSides,
  type OrderBookOpenInterestReport,
  openInterest,
  orderBookOneSide,
  pairStatus,
  type SkewInput,
  synthetixMarketState,
} from './conventions.js';

const WETH = '0x82af49447d8a07e3bd95bd0d56f35241523fbab1';
const USDC = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';

describe('open interest: one convention for pools and order books', () => {
  it.each<[string, OpenInterestSides, number | null, object]>([
    [
      'pool: long and short served, total their sum',
      { kind: 'pool', long_tokens: 3, short_tokens: 1 },
      2000,
      { long_tokens: 3, short_tokens: 1, total_tokens: 4, long_usd: 6000, short_usd: 2000, total_usd: 8000 },
    ],
    [
      'order book: one side, never long + short',
      { kind: 'order_book', one_side_tokens: 5 },
      100,
      { long_tokens: 5, short_tokens: 5, total_tokens: 5, long_usd: 500, short_usd: 500, total_usd: 500 },
    ],
    [
      'no price: tokens known, USD null',
      { kind: 'pool', long_tokens: 2, short_tokens: 0 },
      null,
      { long_tokens: 2, total_tokens: 2, long_usd: null, short_usd: null, total_usd: null },
    ],
  ])('%s', (_, sides, price, expected) => {
    expect(openInterest(sides, price)).toMatchObject(expected);
  });

  it('names its convention by venue kind', () => {
    expect(openInterest({ kind: 'pool', long_tokens: 1, short_tokens: 1 }, 1).oi_convention).toBe(
      'pool_long_plus_short',
    );
    expect(openInterest({ kind: 'order_book', one_side_tokens: 1 }, 1).oi_convention).toBe('order_book_one_side');
  });

  it('an order book total is never twice a side (the aggregator trap)', () => {
    const oi = openInterest({ kind: 'order_book', one_side_tokens: 7 }, 10);
    expect(oi.total_usd).toBe(oi.long_usd);
    expect(oi.total_usd).not.toBe((oi.long_usd ?? 0) + (oi.short_usd ?? 0));
  });

  it.each<[string, OrderBookOpenInterestReport, number]>([
    ['one side reported (dYdX openInterest)', { reported: 'one_side', tokens: 12 }, 12],
    ['both sides summed (Synthetix openInterest = long + short)', { reported: 'both_sides_summed', tokens: 12 }, 6],
    ['by side, balanced', { reported: 'by_side', long_tokens: 6, short_tokens: 6 }, 6],
    ['by side, off by rounding: counted once', { reported: 'by_side', long_tokens: 6.02, short_tokens: 5.98 }, 6],
  ])('order book one side: %s', (_, report, expected) => {
    expect(orderBookOneSide(report)).toBeCloseTo(expected, 12);
  });
});

describe('GMX: single-token markets halve the sum of their collateral keys', () => {
  it.each([
    ['two-token market (WETH/USDC): both collaterals add', WETH, USDC, 10n, 4n, 14n],
    ['single-token market (WETH/WETH): both keys carry the same value, halved', WETH, WETH, 10n, 10n, 10n],
    ['single-token, addresses in mixed case', WETH, WETH.toUpperCase().replace('0X', '0x'), 8n, 8n, 8n],
    ['two-token market, one collateral empty', WETH, USDC, 0n, 9n, 9n],
  ])('%s', (_, long, short, a, b, expected) => {
    expect(
      gmxSideOpenInterest({ long_token: long, short_token: short, with_long_collateral: a, with_short_collateral: b }),
    ).toBe(expected);
  });
});

describe('cost basis against mark-to-market', () => {
  it.each([
    // 1 ETH long opened at $2,000 (cost basis $2,000), valued at the instant's index price
    ['price fell', 1, 2000, 1500, 1500],
    ['price rose', 1, 2000, 2600, 2600],
    ['unchanged', 2, 4000, 2000, 4000],
  ])('%s: served USD is tokens × index price, not the cost basis', (_, tokens, costBasis, price, served) => {
    expect(markToMarketUsd(tokens, price)).toBe(served);
    if (price !== costBasis / tokens) expect(markToMarketUsd(tokens, price)).not.toBe(costBasis);
  });

  it('no index price: null, never the cost basis', () => {
    expect(markToMarketUsd(1, null)).toBeNull();
  });

  it("GMX's index price is the midpoint of the oracle's min and max", () => {
    expect(gmxIndexPrice({ min: 1999, max: 2001 })).toBe(2000);
    expect(gmxIndexPrice({ min: 1.5, max: 1.5 })).toBe(1.5);
  });
});

describe('funding: every interval to a 1-hour rate, positive when longs pay shorts', () => {
  it.each<[FundingInterval, number, number]>([
    ['per_second', 1e-8, 3.6e-5],
    ['1h', 1e-4, 1e-4],
    ['8h', 8e-4, 1e-4],
    ['24h', 2.4e-3, 1e-4],
    ['8h', -8e-4, -1e-4],
  ])('%s rate %d → %d per hour', (interval, rate, expected) => {
    expect(fundingRate1h(rate, interval)).toBeCloseTo(expected, 15);
  });

  it.each([
    ['longs pay shorts: positive', 1e-8, true, 3.6e-5],
    ['shorts pay longs: negative', 1e-8, false, -3.6e-5],
    ['no funding', 0, true, 0],
  ])("GMX's per-second factor with its flag: %s", (_, factor, longsPayShorts, expected) => {
    expect(gmxFundingRate1h({ factor_per_second: factor, longs_pay_shorts: longsPayShorts })).toBeCloseTo(expected, 15);
  });

  it('annualised is simple (× 8,760 hours), not compounded', () => {
    expect(annualised(1e-4)).toBeCloseTo(0.876, 12);
    expect(annualised(-1e-4)).toBeCloseTo(-0.876, 12);
  });

  it('summarises a day: mean, last by time, mean annualised', () => {
    const s = fundingSummary([
      { time: 7200, rate_1h: 3e-5 },
      { time: 0, rate_1h: 1e-5 },
      { time: 3600, rate_1h: 2e-5 },
    ]);
    expect(s.rate_1h_mean).toBeCloseTo(2e-5, 15);
    expect(s.rate_1h_last).toBe(3e-5);
    expect(s.annualised).toBeCloseTo(2e-5 * 8760, 12);
    expect(s.gap_reason).toBeNull();
  });

  it('a day without funding points: null with no_data', () => {
    expect(fundingSummary([])).toEqual({
      rate_1h_mean: null,
      rate_1h_last: null,
      annualised: null,
      gap_reason: 'no_data',
    });
  });
});

describe('skew by method', () => {
  it.each<[string, SkewInput, number | null, string | null]>([
    ['oi: longs dominate', { method: 'oi', long: 3, short: 1 }, 0.5, null],
    ['oi: shorts dominate', { method: 'oi', long: 1, short: 3 }, -0.5, null],
    ['oi: no positions', { method: 'oi', long: 0, short: 0 }, null, 'no_positions'],
    ['taker flow: buyers dominate', { method: 'taker_flow', taker_buy_usd: 900, taker_sell_usd: 100 }, 0.8, null],
    ['taker flow: balanced', { method: 'taker_flow', taker_buy_usd: 50, taker_sell_usd: 50 }, 0, null],
    ['taker flow: no fills', { method: 'taker_flow', taker_buy_usd: 0, taker_sell_usd: 0 }, null, 'no_data'],
  ])('%s', (_, input, value, reason) => {
    const s = longShortSkew(input);
    if (value === null) expect(s.value).toBeNull();
    else expect(s.value).toBeCloseTo(value, 12);
    expect(s.gap_reason).toBe(reason);
  });
});

describe('a day without data', () => {
  const day = 20 * 86_400;
  it.each([
    ['observed: no gap', { day_start: day, first_seen: 0, listed: true, observed: true }, null],
    [
      'before the venue existed',
      { day_start: day, first_seen: day + 86_400, listed: true, observed: false },
      'not_deployed',
    ],
    ['not listed by the venue', { day_start: day, first_seen: 0, listed: false, observed: false }, 'not_listed'],
    ['listed, nothing observed', { day_start: day, first_seen: 0, listed: true, observed: false }, 'no_data'],
    ['never seen at all', { day_start: day, first_seen: null, listed: true, observed: false }, 'no_data'],
  ])('%s', (_, input, reason) => {
    expect(dayGap(input)).toBe(reason);
  });
});

describe("a pair's status from its venue's markets", () => {
  it.each([
    ['ACTIVE', 'active'],
    ['CANCEL_ONLY', 'close_only'],
    ['FINAL_SETTLEMENT', 'close_only'],
    ['PAUSED', 'paused'],
    ['POST_ONLY', 'paused'],
    ['INITIALIZING', 'paused'],
    ['SOMETHING_NEW', 'paused'],
  ])('dYdX %s → %s', (status, state) => {
    expect(dydxMarketState(status)).toBe(state);
  });

  it.each([
    [{ isOpen: true, isCloseOnly: false }, 'active'],
    [{ isOpen: true, isCloseOnly: true }, 'close_only'],
    [{ isOpen: false, isCloseOnly: false }, 'paused'],
  ])('Synthetix %o → %s', (market, state) => {
    expect(synthetixMarketState(market)).toBe(state);
  });

  it('GMX: a disabled market is paused', () => {
    expect(gmxMarketState(true)).toBe('paused');
    expect(gmxMarketState(false)).toBe('active');
  });

  it.each([
    [[], 'not_listed'],
    [['paused', 'active'], 'active'],
    [['paused', 'close_only'], 'close_only'],
    [['paused'], 'paused'],
  ] as const)('%o → %s', (states, status) => {
    expect(pairStatus(states)).toBe(status);
  });
});
