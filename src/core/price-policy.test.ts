import { describe, expect, it } from 'vitest';
import { choosePrice, DISAGREEMENT_TOLERANCE, isFresh } from './price-policy.js';

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
