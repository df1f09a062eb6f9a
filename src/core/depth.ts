/**
 * Market depth of DEX pools: how much of a token must be sold into a pool to move the pool's price of that token
 * down by a given fraction, and what the seller receives. Pure: a pool's state in, amounts out.
 *
 * Models, by pool design (the DEX area's `PoolFact.design`):
 * - `uniswap-v2`: constant product x·y = k with the fee taken on the input (Uniswap V2: the whole input enters the
 *   reserves, only (1 − fee) of it counts in the invariant). Exact up to floating-point rounding; a price move of
 *   any size below 100 % is reachable.
 * - `uniswap-v3`: the constant-L approximation. Within one initialised tick range, V3 behaves as a constant product
 *   on the virtual reserves x = L/√P, y = L·√P of its active liquidity L. We assume L stays constant over the whole
 *   move, i.e. that no tick with a liquidity change is crossed. Real pools gain or lose liquidity at range
 *   boundaries, so the figure is the depth the current in-range liquidity offers: it underestimates depth when
 *   more positions start just below the price and overestimates it when the active range ends before the move
 *   completes. The output is additionally capped by the pool's actual balance of the token received (the
 *   snapshot's `reserve0`/`reserve1` are token balances for V3): if the move would need more than the pool holds,
 *   the result says `reachable: false` and reports the sale that empties that balance.
 *
 * Prices: the pool's price of token0 is token1 per token0 (raw: y/x; normalised by decimals in `poolPrice`).
 * Selling token0 (side 0) moves that price down; selling token1 (side 1) moves the price of token1 in token0
 * (x/y) down. `priceMove` 0.01 = the price falls by 1 %: P' = P·(1 − priceMove).
 *
 * Amounts are computed in floating point (relative error ~1e-15, far below what a depth estimate can claim) and
 * floored to raw integers. Fees: `fee` is in hundredths of a basis point as in `PoolFact` (3000 = 0.30 %).
 *
 * Stable interface: the lending area imports `sellDepth`, `poolDepthState` and `pairSellDepthUsd` for its
 * liquidation-liquidity component; the liquid staking area for its DEX pool analytics.
 */
import { Q96, ratioToFloat, reservesToPrice, sqrtPriceX96ToPrice, toFloat } from './decimal.js';

export type DepthPoolDesign = 'uniswap-v2' | 'uniswap-v3';

/** What depth needs of a pool: `PoolFact` (design, fee, tokens) + token decimals + `PoolSnapshotFact` (state). */
export interface DepthPoolState {
  /** Lowercase pool address. */
  readonly address: string;
  readonly design: DepthPoolDesign;
  /** Lowercase token addresses. */
  readonly token0: string;
  readonly token1: string;
  readonly decimals0: number;
  readonly decimals1: number;
  /** Fee in hundredths of a basis point (3000 = 0.30 %). */
  readonly fee: number;
  /** V2: getReserves(); V3: the pool's token balances (raw). */
  readonly reserve0: bigint;
  readonly reserve1: bigint;
  /** V3 only (null for V2). */
  readonly sqrtPriceX96: bigint | null;
  /** V3 only: the active (in-range) liquidity. */
  readonly liquidity: bigint | null;
}

/** Builds a depth state from the DEX area's facts (structural: any objects with these fields). */
export function poolDepthState(
  pool: {
    readonly address: string;
    readonly design: DepthPoolDesign;
    readonly token0: string;
    readonly token1: string;
    readonly fee: number;
  },
  snapshot: {
    readonly reserve0: bigint;
    readonly reserve1: bigint;
    readonly sqrtPriceX96: bigint | null;
    readonly liquidity: bigint | null;
  },
  decimals0: number,
  decimals1: number,
): DepthPoolState {
  return {
    address: pool.address,
    design: pool.design,
    token0: pool.token0,
    token1: pool.token1,
    decimals0,
    decimals1,
    fee: pool.fee,
    reserve0: snapshot.reserve0,
    reserve1: snapshot.reserve1,
    sqrtPriceX96: snapshot.sqrtPriceX96,
    liquidity: snapshot.liquidity,
  };
}

/**
 * The pool's price: token1 per token0, normalised by decimals (V3 from sqrtPriceX96, V2 from the reserves);
 * null when the pool is empty.
 */
export function poolPrice(pool: DepthPoolState): number | null {
  if (pool.design === 'uniswap-v3') {
    if (pool.sqrtPriceX96 === null || pool.sqrtPriceX96 <= 0n) return null;
    return sqrtPriceX96ToPrice(pool.sqrtPriceX96, pool.decimals0, pool.decimals1);
  }
  if (pool.reserve1 <= 0n) return null;
  return reservesToPrice(pool.reserve0, pool.reserve1, pool.decimals0, pool.decimals1);
}

/** The price of the token on `side` in the other token, normalised (side 0: token1 per token0). */
export function sidePrice(pool: DepthPoolState, side: 0 | 1): number | null {
  const p = poolPrice(pool);
  if (p === null || p <= 0) return null;
  return side === 0 ? p : 1 / p;
}

export interface SellDepth {
  readonly side: 0 | 1;
  readonly priceMove: number;
  /** Raw amount of the token on `side` sold into the pool, gross of the fee. */
  readonly amountIn: bigint;
  /** Raw amount of the other token received. */
  readonly amountOut: bigint;
  /**
   * False when the pool cannot move that far (V3: its balance of the other token runs out first under the
   * constant-L model; any design: an empty pool). The amounts are then those of the largest sale it takes.
   */
  readonly reachable: boolean;
}

const floorRaw = (x: number): bigint => (Number.isFinite(x) && x > 0 ? BigInt(Math.floor(x)) : 0n);

function checkMove(priceMove: number): void {
  if (!(priceMove > 0 && priceMove < 1)) throw new RangeError(`sellDepth: priceMove ${priceMove} must be in (0, 1)`);
}

/** (1 − fee) as a fraction, fee in hundredths of a basis point. */
const feeFactor = (fee: number) => 1 - fee / 1e6;

/**
 * Constant product with fee on the input: sell dx of X into reserves (x, y). After the sale x' = x + dx and
 * y' = x·y / (x + γ·dx); the price of X (y'/x') equals (y/x)(1 − m) when (x + γ·dx)(x + dx) = x²/(1 − m), i.e.
 * γ·dx² + x(1 + γ)·dx − x²·m/(1 − m) = 0.
 */
function constantProductSell(x: number, y: number, gamma: number, m: number): { dx: number; dy: number } {
  const k = m / (1 - m);
  const b = 1 + gamma;
  // Positive root, in units of x; written to avoid cancellation for small moves: 2k / (b + √(b² + 4γk)).
  const u = (2 * k) / (b + Math.sqrt(b * b + 4 * gamma * k));
  const dx = x * u;
  const dy = (y * gamma * u) / (1 + gamma * u);
  return { dx, dy };
}

/**
 * Raw amount of the token on `side` that one must sell into the pool to move the pool's price of that token down
 * by `priceMove` (0.01 = 1 %, in (0, 1)), and the raw amount of the other token received. V2: constant product with
 * fee; V3: constant active liquidity (see the module comment), capped by the pool's balance of the other token.
 */
export function sellDepth(pool: DepthPoolState, side: 0 | 1, priceMove: number): SellDepth {
  checkMove(priceMove);
  const gamma = feeFactor(pool.fee);
  const none: SellDepth = { side, priceMove, amountIn: 0n, amountOut: 0n, reachable: false };
  if (pool.design === 'uniswap-v2') {
    if (pool.reserve0 <= 0n || pool.reserve1 <= 0n) return none;
    const x = Number(side === 0 ? pool.reserve0 : pool.reserve1);
    const y = Number(side === 0 ? pool.reserve1 : pool.reserve0);
    const { dx, dy } = constantProductSell(x, y, gamma, priceMove);
    return { side, priceMove, amountIn: floorRaw(dx), amountOut: floorRaw(dy), reachable: true };
  }
  if (pool.sqrtPriceX96 === null || pool.sqrtPriceX96 <= 0n || pool.liquidity === null || pool.liquidity <= 0n) {
    return none;
  }
  const L = Number(pool.liquidity);
  const s = ratioToFloat(pool.sqrtPriceX96, Q96); // √(raw token1 per raw token0)
  // Work in the sold token's frame: selling token1 is selling token0 of the inverted pool (√P → 1/√P).
  const root = side === 0 ? s : 1 / s;
  const balanceOut = Number(side === 0 ? pool.reserve1 : pool.reserve0);
  const rootAfter = root * Math.sqrt(1 - priceMove);
  let out = L * (root - rootAfter);
  let netIn = L * (1 / rootAfter - 1 / root);
  let reachable = true;
  if (out > balanceOut) {
    // The pool's balance of the other token runs out first: the largest sale is the one that empties it.
    reachable = false;
    out = balanceOut;
    const emptiedRoot = root - out / L;
    netIn = emptiedRoot > 0 ? L * (1 / emptiedRoot - 1 / root) : Number.POSITIVE_INFINITY;
  }
  // V3 charges the fee on the input: amountIn·(1 − fee) moves the price.
  const grossIn = netIn / gamma;
  return {
    side,
    priceMove,
    amountIn: Number.isFinite(grossIn) ? floorRaw(grossIn) : 0n,
    amountOut: floorRaw(out),
    reachable: reachable && Number.isFinite(grossIn),
  };
}

/** Depth of both directions at each price move: `[{ move, sell0, sell1 }]`. */
export function depthTable(
  pool: DepthPoolState,
  priceMoves: readonly number[],
): { priceMove: number; sell0: SellDepth; sell1: SellDepth }[] {
  return priceMoves.map((m) => ({ priceMove: m, sell0: sellDepth(pool, 0, m), sell1: sellDepth(pool, 1, m) }));
}

export interface PairDepthUsd {
  /** Σ over the pair's pools of the sold token's amount, normalised by decimals. */
  readonly tokens: number;
  /** `tokens` × the sold token's USD price; null without that price. */
  readonly usd: number | null;
  /** Σ of the other token received, normalised. */
  readonly received: number;
  /** False when some pool could not move that far (its figure is its largest sale). */
  readonly reachable: boolean;
  readonly pools: readonly { pool: string; amountIn: bigint; amountOut: bigint; reachable: boolean }[];
}

/**
 * Depth of a token pair over several pools: the amount of `sell` that moves its price in `buy` down by `priceMove`
 * in every pool holding exactly that pair (others are ignored), summed, in tokens and USD. Summing is right when
 * arbitrage (or a router) keeps the pools at one price: moving the market by m then means moving each pool by m.
 * `pricesUsd` maps lowercase token addresses to USD prices; only the sold token's price is used.
 */
export function pairSellDepthUsd(
  pools: readonly DepthPoolState[],
  sell: string,
  buy: string,
  priceMove: number,
  pricesUsd: ReadonlyMap<string, number | null> | Readonly<Record<string, number | null | undefined>>,
): PairDepthUsd {
  checkMove(priceMove);
  const s = sell.toLowerCase();
  const b = buy.toLowerCase();
  let tokens = 0;
  let received = 0;
  let reachable = true;
  const perPool: { pool: string; amountIn: bigint; amountOut: bigint; reachable: boolean }[] = [];
  for (const pool of pools) {
    const side: 0 | 1 | undefined =
      pool.token0 === s && pool.token1 === b ? 0 : pool.token1 === s && pool.token0 === b ? 1 : undefined;
    if (side === undefined) continue;
    const d = sellDepth(pool, side, priceMove);
    tokens += toFloat(d.amountIn, side === 0 ? pool.decimals0 : pool.decimals1);
    received += toFloat(d.amountOut, side === 0 ? pool.decimals1 : pool.decimals0);
    reachable &&= d.reachable;
    perPool.push({ pool: pool.address, amountIn: d.amountIn, amountOut: d.amountOut, reachable: d.reachable });
  }
  const price = pricesUsd instanceof Map ? pricesUsd.get(s) : (pricesUsd as Record<string, number | null>)[s];
  return {
    tokens,
    usd: price === undefined || price === null ? null : tokens * price,
    received,
    reachable,
    pools: perPool,
  };
}
