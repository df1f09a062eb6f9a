/**
 * The facts the DEX area ingests from chains and its computation reads: plain data, no I/O. Raw token amounts are
 * exact bigints (convention 7 of DESIGN.md); they become floats only in the computed payloads.
 *
 * Sign convention of swap amounts (Uniswap V3's own, applied to V2 too): from the pool's point of view, a
 * positive amount went into the pool, a negative amount left it. A V2 `Swap(amount0In, amount1In, amount0Out,
 * amount1Out)` is stored as `amount0 = amount0In − amount0Out`, `amount1 = amount1In − amount1Out`.
 */

export type DexPoolDesign = 'uniswap-v2' | 'uniswap-v3';

export interface TokenFact {
  readonly chain: string;
  /** Lowercase 0x address. */
  readonly address: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
}

export interface PoolFact {
  readonly chain: string;
  /** Lowercase 0x address. */
  readonly address: string;
  readonly protocol: string;
  /** `V2`, `V3`. */
  readonly version: string;
  readonly design: DexPoolDesign;
  /** Lowercase address of the factory that created the pool. */
  readonly factory: string;
  readonly token0: string;
  readonly token1: string;
  /** Fee in hundredths of a basis point (3000 = 0.30 %); V2 pools are 3000. */
  readonly fee: number;
  /** V3 tick spacing; null for V2. */
  readonly tickSpacing: number | null;
  readonly createdBlock: number;
  /** Unix seconds of the creation block. */
  readonly createdAt: number;
}

export interface SwapFact {
  readonly chain: string;
  readonly pool: string;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly txHash: string;
  /** The transaction's sender (`from`), lowercase: the trader. */
  readonly trader: string;
  /** Raw token0 amount, pool's point of view (+ into the pool). */
  readonly amount0: bigint;
  readonly amount1: bigint;
  /** V3: the pool's price after the swap; null for V2. */
  readonly sqrtPriceX96: bigint | null;
  /** V3: in-range liquidity after the swap; null for V2. */
  readonly liquidity: bigint | null;
  readonly tick: number | null;
  /** Unix seconds of the block. */
  readonly timestamp: number;
}

export type LiquidityKind = 'mint' | 'burn';

export interface LiquidityEventFact {
  readonly chain: string;
  readonly pool: string;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly txHash: string;
  readonly kind: LiquidityKind;
  /** Raw amounts added (mint) or removed (burn), both ≥ 0. */
  readonly amount0: bigint;
  readonly amount1: bigint;
  /** The position owner (V3) or the LP token recipient / sender (V2), lowercase. */
  readonly owner: string;
  readonly timestamp: number;
}

/** V2 `Sync`: the pool's reserves after each change (the V2 price and depth at that point). */
export interface SyncFact {
  readonly chain: string;
  readonly pool: string;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly reserve0: bigint;
  readonly reserve1: bigint;
  readonly timestamp: number;
}

/** A pool's state read from the chain at one block (multicall): what TVL and price are computed from. */
export interface PoolSnapshotFact {
  readonly chain: string;
  readonly pool: string;
  readonly blockNumber: number;
  readonly timestamp: number;
  /** V2: getReserves(); V3: the pool's token balances. */
  readonly reserve0: bigint;
  readonly reserve1: bigint;
  readonly sqrtPriceX96: bigint | null;
  readonly liquidity: bigint | null;
  readonly tick: number | null;
}

/** A token's USD price for one hour (computed by the price job, `src/core/prices.ts`). */
export interface TokenPriceFact {
  readonly chain: string;
  readonly token: string;
  /** Unix seconds of the start of the UTC hour. */
  readonly hour: number;
  readonly priceUsd: number;
  /** How the price was made, e.g. `anchor:USD` or `pools:0xabc…,0xdef…`. */
  readonly source: string;
  /** 0–1: share of the evidence that agrees, scaled down by distance from the anchors and thin liquidity. */
  readonly confidence: number;
}
