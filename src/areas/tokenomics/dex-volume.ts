/**
 * A token's on-chain DEX volume (`exchange_metrics.dex_volume_onchain_usd`), pure: the 24 hours to a record's
 * `as_of` of every swap of every pool the DEX area tracks on the token's chain with the token on one side, each
 * valued by the DEX area's own convention (`swapUsdValue` of dex/public.ts: the input side × its USD price of the
 * swap's hour, else the output side; the DEX area's hourly prices), so that the figure is the sum of what the DEX
 * area counts as those pools' volume. Never a 0 for a missing figure: no tracked pool, DEX facts that do not reach
 * the record's block, or a swap neither side of which has a price make it null with its reason; 0 means pools are
 * tracked and none swapped in the 24 hours.
 */
import type { GapReason } from '../../core/gaps.js';
import { DAY } from '../../core/time.js';
import { type PoolFact, type SwapFact, swapUsdValue, type TokenFact, type TokenPriceFact } from '../dex/public.js';

/** The DEX area's facts of the token's chain over the records' windows. */
export interface DexVolumeFacts {
  /** Every pool the DEX area tracks on the chain. */
  readonly pools: readonly PoolFact[];
  readonly tokens: readonly TokenFact[];
  /** The chain's swaps covering every window asked for (any order; others are ignored). */
  readonly swaps: readonly SwapFact[];
  /** The DEX area's hourly USD prices covering the windows' hours. */
  readonly prices: readonly TokenPriceFact[];
  /** The newest block the DEX facts are ingested to (its newest pool snapshot); undefined: none yet. */
  readonly head: { readonly blockNumber: number } | undefined;
}

export type DexVolume =
  | { readonly value: number; readonly reason: null; readonly pools: number; readonly swaps: number }
  | { readonly value: null; readonly reason: GapReason; readonly detail: string };

/** The record's token and instant: the 24 hours (asOf − 86,400 s, asOf], at or below `blockNumber`. */
export interface DexVolumeAt {
  readonly token: string;
  readonly blockNumber: number;
  readonly asOf: number;
}

/** A lookup of the facts (built once for the seven records of a token's week). */
export function dexVolumeOf(facts: DexVolumeFacts): (at: DexVolumeAt) => DexVolume {
  const tokens = new Map(facts.tokens.map((t) => [t.address, t]));
  const prices = new Map(facts.prices.map((p) => [`${p.token}/${p.hour}`, p.priceUsd]));
  const priceOf = (token: string, hour: number) => prices.get(`${token}/${hour}`);
  const swapsByPool = new Map<string, SwapFact[]>();
  for (const s of facts.swaps) {
    const list = swapsByPool.get(s.pool);
    if (list) list.push(s);
    else swapsByPool.set(s.pool, [s]);
  }
  return (at) => {
    const token = at.token.toLowerCase();
    const pools = facts.pools.filter(
      (p) => (p.token0 === token || p.token1 === token) && p.createdBlock <= at.blockNumber,
    );
    if (!pools.length) return { value: null, reason: 'no_members', detail: 'no tracked DEX pool holds the token' };
    if (!facts.head || facts.head.blockNumber < at.blockNumber) {
      return { value: null, reason: 'no_data', detail: 'the DEX facts do not reach the record’s block yet' };
    }
    let total = 0;
    let count = 0;
    for (const pool of pools) {
      const token0 = tokens.get(pool.token0);
      const token1 = tokens.get(pool.token1);
      if (!token0 || !token1) return { value: null, reason: 'no_data', detail: `pool ${pool.address}: token metadata` };
      for (const s of swapsByPool.get(pool.address) ?? []) {
        if (s.timestamp <= at.asOf - DAY || s.timestamp > at.asOf || s.blockNumber > at.blockNumber) continue;
        const usd = swapUsdValue(s, token0, token1, priceOf);
        if (usd === null) {
          return {
            value: null,
            reason: 'no_price',
            detail: `swap ${s.txHash}#${s.logIndex}: neither side has a price`,
          };
        }
        total += usd;
        count++;
      }
    }
    return { value: total, reason: null, pools: pools.length, swaps: count };
  };
}
