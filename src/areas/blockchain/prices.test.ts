import { describe, expect, it } from 'vitest';
import { nativeUsdAt, pricingInstant } from './prices.js';

const T = Date.parse('2026-11-23T23:59:59Z') / 1000;
const round = (updatedAt: number, answer: bigint) => ({
  chain: 'ethereum',
  feed: '0xfeed',
  aggregator: '0xagg',
  roundId: 1n,
  answer,
  updatedAt,
  blockNumber: 1,
  logIndex: 0,
});
const dex = (hour: number, priceUsd: number) => ({
  chain: 'ethereum',
  token: '0xweth',
  hour,
  priceUsd,
  source: 'pools:0xp',
  confidence: 0.8,
});
const feed = (updatedAt: number) => ({
  rounds: [round(updatedAt - 7200, 190_000_000_000n), round(updatedAt, 200_000_000_000n)],
  decimals: 8,
  heartbeatSeconds: 3600,
  ref: '0xfeed',
});

describe('native asset prices', () => {
  it('prices a closed day at its last second and the running day at as_of', () => {
    expect(pricingInstant('2026-11-23', T + 5000)).toBe(T);
    expect(pricingInstant('2026-11-24', T + 5000)).toBe(T + 5000);
  });

  it('a fresh feed wins over the DEX price', () => {
    expect(nativeUsdAt(T, feed(T - 600), [dex(T - 3599, 1990)])).toEqual({
      usd: 2000,
      source: 'oracle',
      confidence: 0.95,
    });
  });

  it('the DEX price covers a stale feed; a stale feed alone is low confidence; nothing → null', () => {
    expect(nativeUsdAt(T, feed(T - 3 * 3600), [dex(T - 3599, 1990)])?.source).toBe('dex');
    expect(nativeUsdAt(T, feed(T - 3 * 3600), [])).toEqual({ usd: 2000, source: 'oracle', confidence: 0.2375 });
    expect(nativeUsdAt(T, null, [])).toBeNull();
  });

  it('never uses an answer or an hour after the instant', () => {
    expect(nativeUsdAt(T, feed(T + 10), [dex(T + 1, 5)])?.usd).toBe(1900);
    expect(nativeUsdAt(T, null, [dex(T + 1, 5)])).toBeNull();
  });
});
