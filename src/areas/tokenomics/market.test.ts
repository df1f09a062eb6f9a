import { describe, expect, it } from 'vitest';
import {
  correlation,
  dailyCloses,
  dominance,
  holderGrowth,
  nvt,
  type PricePoint,
  sharpeRatio,
  volatility,
  windowReturns,
} from './market.js';

const DAY = 86_400;
const D0 = 20_000; // a UTC day index
const asOf = (D0 + 40) * DAY + 3600; // one hour into day D0 + 40
/** One point per day at 00:00 of each day from D0 to D0 + 40 (the running day's 00:00 point included). */
const series = (price: (i: number) => number, days = 41): PricePoint[] =>
  Array.from({ length: days }, (_, i) => [(D0 + i) * DAY * 1000, price(i)] as const);

describe('daily closes and returns', () => {
  it("a day's close is its last point, a 00:00 point starts its day, nothing after as_of", () => {
    const closes = dailyCloses(
      [
        [D0 * DAY * 1000, 1],
        [(D0 * DAY + 100) * 1000, 2],
        [(D0 + 1) * DAY * 1000, 3],
        [(D0 + 1) * DAY * 1000 + 5000, 4],
      ],
      (D0 + 1) * DAY + 1,
    );
    expect(closes.get(D0)).toBe(2);
    expect(closes.get(D0 + 1)).toBe(3);
  });

  it('30 returns at most, the window ending with the day of as_of', () => {
    const r = windowReturns(
      series((i) => 2 ** i),
      asOf,
    );
    expect(r.size).toBe(30);
    expect([...r.keys()][0]).toBe(D0 + 11);
    for (const x of r.values()) expect(x).toBeCloseTo(Math.LN2, 12);
  });
});

describe('indicators (table-driven): values, and null with a reason without data', () => {
  // Alternating ±ln 1.1: mean 0 for an even count, sample sd known.
  const zigzag = series((i) => (i % 2 === 0 ? 100 : 110));
  const r = windowReturns(zigzag, asOf);
  const ln = Math.log(1.1);
  const sd = Math.sqrt((30 * ln * ln) / 29);
  const sparse = windowReturns(
    series((i) => 100 + i, 5),
    asOf,
  ); // days D0..D0+4: none in the window
  const cases: {
    name: string;
    got: () => { value: number | null; reason: string | null };
    value: number | null;
    reason?: string;
  }[] = [
    { name: 'volatility, percent per day', got: () => volatility(r).daily, value: sd * 100 },
    { name: 'volatility annualised ×√365', got: () => volatility(r).annualised, value: sd * 100 * Math.sqrt(365) },
    { name: 'volatility without enough days', got: () => volatility(sparse).daily, value: null, reason: 'no_data' },
    { name: 'Sharpe of a zero-mean series', got: () => sharpeRatio(r), value: 0 },
    { name: 'Sharpe without enough days', got: () => sharpeRatio(sparse), value: null, reason: 'no_data' },
    { name: 'correlation with itself', got: () => correlation(r, r), value: 1 },
    {
      name: 'correlation with its mirror',
      got: () => correlation(r, new Map([...r].map(([d, x]) => [d, -x]))),
      value: -1,
    },
    { name: 'correlation without the reference', got: () => correlation(r, null), value: null, reason: 'no_data' },
    { name: 'correlation with too few common days', got: () => correlation(r, sparse), value: null, reason: 'no_data' },
    {
      name: 'correlation with a flat reference',
      got: () => correlation(r, new Map([...r].map(([d]) => [d, 0]))),
      value: null,
      reason: 'not_applicable',
    },
    { name: 'dominance in percent', got: () => dominance(2e9, 1e12), value: 0.2 },
    { name: 'dominance without market data', got: () => dominance(null, 1e12), value: null, reason: 'no_data' },
    { name: 'NVT', got: () => nvt(1e9, 1e7), value: 100 },
    { name: 'NVT without transfers', got: () => nvt(1e9, 0), value: null, reason: 'not_applicable' },
    { name: 'NVT without a price', got: () => nvt(null, null), value: null, reason: 'no_price' },
    { name: 'holder growth', got: () => holderGrowth(110, 100), value: 10 },
    { name: 'holder growth from none', got: () => holderGrowth(5, 0), value: null, reason: 'not_applicable' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const f = c.got();
      if (c.value === null) {
        expect(f.value).toBeNull();
        expect(f.reason).toBe(c.reason);
      } else {
        expect(f.value).toBeCloseTo(c.value, 9);
        expect(f.reason).toBeNull();
      }
    });
  }

  it('Sharpe: mean × 365 over sd × √365 with r_f = 0', () => {
    const up = windowReturns(
      series((i) => 100 * 1.01 ** i * (i % 2 === 0 ? 1 : 1.02)),
      asOf,
    );
    const xs = [...up.values()];
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const s = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
    expect(sharpeRatio(up).value).toBeCloseTo((m * 365) / (s * Math.sqrt(365)), 9);
  });
});
