/**
 * A DEX pool's state at an instant, rebuilt from the DEX area's facts alone (pure): the area keeps only recent
 * snapshots, so an earlier instant is read from the pool's events up to it. Used by every area that values depth
 * at a past instant (lending's daily depth, liquid staking's pool history): one rebuild, no look-ahead.
 */
import { type DepthPoolState, poolDepthState } from '../../core/depth.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact } from './facts.js';

/** The pool's state at an earlier instant, rebuilt from its events (the DEX area keeps only recent snapshots). */
export interface PoolStateAt {
  readonly blockNumber: number;
  readonly timestamp: number;
  readonly state: DepthPoolState;
  /** Whether `reserve0/1` are the pool's balances (V2 syncs, the snapshot); false: unknown (V3 history). */
  readonly balancesKnown: boolean;
}

/**
 * The state of a pool at instant `t`: the snapshot when it is not newer than t; else V3: price and active liquidity
 * after the last swap at or before t (balances unknown: depth is not capped by them); V2: the last sync.
 * Undefined when nothing is known at t.
 */
export function poolStateAt(
  pool: PoolFact,
  decimals0: number,
  decimals1: number,
  snapshot: PoolSnapshotFact | undefined,
  swaps: readonly SwapFact[],
  syncs: readonly SyncFact[],
  t: number,
): PoolStateAt | undefined {
  if (snapshot && snapshot.timestamp <= t) {
    return {
      blockNumber: snapshot.blockNumber,
      timestamp: snapshot.timestamp,
      state: poolDepthState(pool, snapshot, decimals0, decimals1),
      balancesKnown: true,
    };
  }
  const latest = <T extends { timestamp: number; blockNumber: number; logIndex: number; pool: string }>(
    xs: readonly T[],
  ): T | undefined => {
    let best: T | undefined;
    for (const x of xs) {
      if (x.pool !== pool.address || x.timestamp > t) continue;
      if (
        !best ||
        x.blockNumber > best.blockNumber ||
        (x.blockNumber === best.blockNumber && x.logIndex > best.logIndex)
      )
        best = x;
    }
    return best;
  };
  if (pool.design === 'uniswap-v3') {
    const s = latest(swaps);
    if (!s || s.sqrtPriceX96 === null || s.liquidity === null) return undefined;
    // Unknown balances: large enough never to cap the depth.
    const unbounded = 2n ** 200n;
    return {
      blockNumber: s.blockNumber,
      timestamp: s.timestamp,
      state: poolDepthState(
        pool,
        { reserve0: unbounded, reserve1: unbounded, sqrtPriceX96: s.sqrtPriceX96, liquidity: s.liquidity },
        decimals0,
        decimals1,
      ),
      balancesKnown: false,
    };
  }
  const y = latest(syncs);
  if (!y) return undefined;
  return {
    blockNumber: y.blockNumber,
    timestamp: y.timestamp,
    state: poolDepthState(
      pool,
      { reserve0: y.reserve0, reserve1: y.reserve1, sqrtPriceX96: null, liquidity: null },
      decimals0,
      decimals1,
    ),
    balancesKnown: true,
  };
}
