import { describe, expect, it } from 'vitest';
import {
  besidePolicy,
  choosePrice,
  DISAGREEMENT_TOLERANCE,
  feedCandidateAt,
  isFresh,
  roundPriceUsd,
  roundUsd,
  USD_DECIMALS,
} from './price-policy.js';

const at = 1_800_000_000;
const feed = (priceUsd: number, age: number, heartbeat: number | null = 3600) => ({
  priceUsd,
  updatedAt: at - age,
  heartbeat,
  ref: '0xfeed',
});
const dex = (priceUsd: number, confidence = 0.8) => ({ priceUsd, confidence, ref: 'pools:0xpool' });

describe('price policy', () => {
  it('a fresh feed wins over the DEX price; agreement within tolerance is not flagged', () => {
    const p = choosePrice(at, feed(2000, 60), dex(2010))!;
    expect(p).toMatchObject({ price_usd: 2000, source: 'oracle', alternative_price_usd: 2010, flagged: false });
    expect(p.disagreement).toBeLessThanOrEqual(DISAGREEMENT_TOLERANCE);
  });
  it('flags a disagreement beyond 2 % and halves the confidence', () => {
    const p = choosePrice(at, feed(10, 60), dex(10.73))!;
    expect(p.flagged).toBe(true);
    expect(p.source).toBe('oracle');
    expect(p.confidence).toBeCloseTo(0.475, 4);
  });
  it('a stale feed yields to the DEX price, and is the last resort with low confidence', () => {
    expect(isFresh(feed(1, 3600 * 1.5 + 1), at)).toBe(false);
    expect(choosePrice(at, feed(2000, 10_000), dex(1990))!.source).toBe('dex');
    const last = choosePrice(at, feed(2000, 10_000), null)!;
    expect(last.source).toBe('oracle');
    expect(last.confidence).toBeLessThan(0.3);
  });
  it('never prices at zero: no usable candidate gives null', () => {
    expect(choosePrice(at, null, null)).toBeNull();
    expect(choosePrice(at, feed(0, 10), dex(0))).toBeNull();
    expect(choosePrice(at, { ...feed(5, 0), updatedAt: at + 10 }, null)).toBeNull();
  });
  it('a market oracle says so as its source', () => {
    expect(choosePrice(at, { ...feed(1, 10, null), kind: 'market_oracle' }, null)!.source).toBe('market_oracle');
  });
});

describe('one price per token per instant (issue 26 items 7 and 10)', () => {
  const answers = [
    { token: '0xusdc', priceUsd: 0.9995, updatedAt: at - 7200, heartbeat: 86_400, ref: '0xfeed' },
    { token: '0xusdc', priceUsd: 1.0001, updatedAt: at - 60, heartbeat: 86_400, ref: '0xfeed' },
    { token: '0xusdc', priceUsd: 1.2, updatedAt: at + 60, heartbeat: 86_400, ref: '0xfeed' },
  ];
  it('a feed’s candidate at an instant is its newest answer then, never a later one', () => {
    expect(feedCandidateAt(answers, '0xUSDC', at)).toEqual({
      priceUsd: 1.0001,
      updatedAt: at - 60,
      heartbeat: 86_400,
      ref: '0xfeed',
      kind: 'oracle',
    });
    expect(feedCandidateAt(answers, '0xusdc', at - 3600)?.priceUsd).toBe(0.9995);
    expect(feedCandidateAt(answers, '0xusdc', at - 86_400)).toBeNull();
    expect(feedCandidateAt(answers, '0xdai', at)).toBeNull();
  });
  it('a protocol’s own oracle beside the policy price carries its gap and the flag above 2 %', () => {
    expect(besidePolicy(2449.7, 2459.81)).toEqual({ disagreement: 0.0041, flagged: false });
    expect(besidePolicy(2400, 2459.81)).toEqual({ disagreement: 0.0243, flagged: true });
    expect(besidePolicy(null, 2459.81)).toEqual({ disagreement: null, flagged: false });
  });
  it('USD to 6 decimals, never rounded to 0 beside a non-zero amount', () => {
    expect(USD_DECIMALS).toBe(6);
    expect(roundUsd(1195.2380952380952)).toBe(1195.238095);
    // 1,000 wei of ETH at $2,459.81: 2.45981e-12 USD, not 0 (cents or micro-dollars both read 0).
    expect(roundUsd(1000e-18 * 2459.81)).toBe(2.45981e-12);
    expect(roundUsd(0)).toBe(0);
    expect(roundPriceUsd(2459.811774741)).toBe(2459.81177474);
    expect(roundPriceUsd(1.23456789e-12)).toBe(1.2345679e-12);
  });
});
