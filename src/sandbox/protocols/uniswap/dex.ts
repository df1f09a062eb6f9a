/**
 * The world's DEX pools as their actors see them while a block is built: each pool with its tokens, deployment and
 * runtime state, the block's readings and quotes, the reference prices in raw units, and the swap every actor
 * (traders, the arbitrageur, liquidators selling) sends through the pool's router.
 */
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import type { Agent } from '../../chain/agent.js';
import { priceFromSqrtPriceX96, rawPrice, toRawAmount, v2AmountOut, v3SqrtAfterSwap } from '../../chain/amm.js';
import type { RpcReceipt } from '../../chain/receipts.js';
import { RpcClient } from '../../chain/rpc.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestDex, ManifestPool, WorldManifest } from '../../world/manifest.js';
import { isLiquidStakingPool } from '../../world/plan.js';
import { pow } from '../../world/pow.js';
import type { PoolRuntimeState, ScenarioState } from '../../world/state.js';
import type { TokenView } from '../../world/tokens.js';
import { v2PairAbi, v2RouterAbi, v3PoolAbi, v3SwapRouterAbi } from './artifacts.js';

export interface PoolView {
  readonly m: ManifestPool;
  readonly id: string;
  readonly dex: ManifestDex;
  readonly t0: TokenView;
  readonly t1: TokenView;
  readonly fee: number;
  readonly stablePair: boolean;
  readonly runtime: PoolRuntimeState;
  /** A pool of the liquid staking token (own random stream). */
  readonly lst: boolean;
}

export type PoolReading =
  | { readonly kind: 'V2'; readonly reserve0: bigint; readonly reserve1: bigint }
  | { readonly kind: 'V3'; readonly sqrtPriceX96: bigint; readonly liquidity: bigint };

/** What a trader's wallet quotes from: the pool's state at the start of the block (after the queued arbitrage). */
export interface Quote {
  /** Raw token1 per raw token0. */
  readonly price: number;
  /** V2: reserves, for the exact constant-product output including price impact. */
  readonly reserves?: readonly [number, number];
}

/**
 * A pool's state as the block's queued swaps leave it, estimated while the block is built (the closing arbitrage
 * trades from it): V2 reserves (exact constant product, a swap below its minimum output left out as it reverts),
 * V3 √price (raw, not scaled by 2^96) within the in-range liquidity (no tick crossing: an estimate, which is why
 * V3 arbitrage carries its target as a price limit).
 */
export type PoolEstimate =
  | { kind: 'V2'; reserve0: number; reserve1: number }
  | { kind: 'V3'; sqrtPrice: number; liquidity: number };

export function estimateOf(reading: PoolReading): PoolEstimate {
  return reading.kind === 'V2'
    ? { kind: 'V2', reserve0: Number(reading.reserve0), reserve1: Number(reading.reserve1) }
    : { kind: 'V3', sqrtPrice: Number(reading.sqrtPriceX96) / pow(2, 96), liquidity: Number(reading.liquidity) };
}

/** The reading an estimate stands for (what the closing arbitrage sizes its trade from). */
export function readingOf(estimate: PoolEstimate): PoolReading {
  return estimate.kind === 'V2'
    ? { kind: 'V2', reserve0: toRawAmount(estimate.reserve0), reserve1: toRawAmount(estimate.reserve1) }
    : {
        kind: 'V3',
        sqrtPriceX96: BigInt(Math.round(estimate.sqrtPrice * pow(2, 96))),
        liquidity: toRawAmount(estimate.liquidity),
      };
}

/** Gas limits of the DEX's transactions (generous: a limit costs nothing unused, and no estimation is needed). */
export const DEX_GAS = {
  createPool: 6_000_000n,
  createPair: 4_000_000n,
  v2Swap: 250_000n,
  v3Swap: 500_000n,
  v3Arbitrage: 1_500_000n,
  v2AddLiquidity: 300_000n,
  v2RemoveLiquidity: 300_000n,
  v3Mint: 800_000n,
  v3Decrease: 500_000n,
} as const;

/** What the pools' actors need from the simulated world. */
export interface DexHost {
  readonly session: ChainSession;
  readonly agents: readonly Agent[];
  /** Activity multiplier of the scenario. */
  readonly scale: number;
  /** The scenario's state: reference prices, the pools' runtime state, the LPs' positions, the statistics. */
  readonly state: ScenarioState;
  /** Plans spending `amount` of `token`, minting (or wrapping or staking ETH) first when the agent does not have it. */
  spend(agent: Agent, token: TokenView, amount: bigint): void;
  approve(agent: Agent, token: Address, spender: Address): void;
}

export class Dex {
  readonly pools: readonly PoolView[];
  /** What traders quote from in the block being built: each live pool's state after the queued arbitrage. */
  readonly quotes = new Map<string, Quote>();
  /** Each pool's state as the swaps queued so far in the block leave it (set from the block's readings). */
  readonly estimates = new Map<string, PoolEstimate>();
  /** Deadline of the block's transactions (an hour after it, as a wallet's default). */
  deadline = 0n;

  constructor(
    readonly manifest: WorldManifest,
    readonly tokens: readonly TokenView[],
    readonly host: DexHost,
  ) {
    const s = host.state;
    const tokenById = new Map(this.tokens.map((t) => [t.id, t]));
    const runtimeById = new Map(s.pools.map((p) => [p.address, p]));
    this.pools = manifest.pools.map((m) => {
      const id = m.address.toLowerCase();
      const dex = manifest.dex.find((d) => d.protocol === m.protocol && d.version === m.version);
      const t0 = tokenById.get(m.token0.toLowerCase());
      const t1 = tokenById.get(m.token1.toLowerCase());
      const runtime = runtimeById.get(id);
      if (!dex || !t0 || !t1 || !runtime) throw new Error(`sandbox state: pool ${m.address} is incomplete`);
      return {
        m,
        id,
        dex,
        t0,
        t1,
        fee: m.fee / 1e6,
        stablePair: t0.m.kind === 'stable' && t1.m.kind === 'stable',
        runtime,
        lst: s.rngLiquidStakingPools !== undefined && isLiquidStakingPool(manifest, m),
      };
    });
  }

  /** Each pool's state at the newest block: V2 reserves, V3 price and in-range liquidity. */
  async readPools(pools: readonly PoolView[]): Promise<PoolReading[]> {
    const call = (to: string, data: Hex) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
    const calls = pools.flatMap((p) =>
      p.m.version === 'V2'
        ? [call(p.m.address, encodeFunctionData({ abi: v2PairAbi, functionName: 'getReserves' }))]
        : [
            call(p.m.address, encodeFunctionData({ abi: v3PoolAbi, functionName: 'slot0' })),
            call(p.m.address, encodeFunctionData({ abi: v3PoolAbi, functionName: 'liquidity' })),
          ],
    );
    const results = await this.host.session.rpc.batchResults<Hex>(calls);
    let i = 0;
    return pools.map((p): PoolReading => {
      if (p.m.version === 'V2') {
        const [reserve0, reserve1] = decodeFunctionResult({
          abi: v2PairAbi,
          functionName: 'getReserves',
          data: results[i++]!,
        });
        return { kind: 'V2', reserve0, reserve1 };
      }
      const [sqrtPriceX96] = decodeFunctionResult({ abi: v3PoolAbi, functionName: 'slot0', data: results[i++]! });
      const liquidity = decodeFunctionResult({ abi: v3PoolAbi, functionName: 'liquidity', data: results[i++]! });
      return { kind: 'V3', sqrtPriceX96, liquidity };
    });
  }

  // --- prices and sizes -----------------------------------------------------------------------------------------

  priceUsd(token: TokenView): number {
    return this.host.state.prices[token.m.symbol] ?? token.m.initialPriceUsd;
  }

  /** Reference price of raw token0 in raw token1. */
  referencePrice(pool: PoolView): number {
    return rawPrice(this.priceUsd(pool.t0), pool.t0.m.decimals, this.priceUsd(pool.t1), pool.t1.m.decimals);
  }

  rawFromUsd(token: TokenView, usd: number): bigint {
    return toRawAmount((usd / this.priceUsd(token)) * pow(10, token.m.decimals));
  }

  usdFromRaw(token: TokenView, amount: bigint): number {
    return (Number(amount) / pow(10, token.m.decimals)) * this.priceUsd(token);
  }

  /** A swap through the pool's router (the V2 router or V3's SwapRouter), paid for with `spend`. */
  swap(
    agent: Agent,
    pool: PoolView,
    zeroForOne: boolean,
    amountIn: bigint,
    minOut: bigint,
    kind: 'swap' | 'arbitrage',
    sqrtPriceLimitX96 = 0n,
    after?: (ok: boolean, receipt: RpcReceipt) => void,
  ): void {
    const [tokenIn, tokenOut] = zeroForOne ? [pool.t0, pool.t1] : [pool.t1, pool.t0];
    this.estimateSwap(pool, zeroForOne, amountIn, minOut, sqrtPriceLimitX96);
    this.host.spend(agent, tokenIn, amountIn);
    this.host.approve(agent, tokenIn.m.address, pool.dex.router);
    const data =
      pool.m.version === 'V2'
        ? encodeFunctionData({
            abi: v2RouterAbi,
            functionName: 'swapExactTokensForTokens',
            args: [amountIn, minOut, [tokenIn.m.address, tokenOut.m.address], agent.address, this.deadline],
          })
        : encodeFunctionData({
            abi: v3SwapRouterAbi,
            functionName: 'exactInputSingle',
            args: [
              {
                tokenIn: tokenIn.m.address,
                tokenOut: tokenOut.m.address,
                fee: pool.m.fee,
                recipient: agent.address,
                deadline: this.deadline,
                amountIn,
                amountOutMinimum: minOut,
                sqrtPriceLimitX96,
              },
            ],
          });
    const gas = pool.m.version === 'V2' ? DEX_GAS.v2Swap : kind === 'arbitrage' ? DEX_GAS.v3Arbitrage : DEX_GAS.v3Swap;
    this.host.session.send(agent, {
      to: pool.dex.router,
      data,
      gas,
      kind,
      onMined: (ok, receipt) => {
        if (ok) this.host.state.stats.swaps += 1;
        after?.(ok, receipt);
      },
    });
  }

  /** Updates the pool's estimate with a queued swap (see `PoolEstimate`). */
  private estimateSwap(
    pool: PoolView,
    zeroForOne: boolean,
    amountIn: bigint,
    minOut: bigint,
    sqrtPriceLimitX96: bigint,
  ): void {
    const e = this.estimates.get(pool.id);
    if (!e) return;
    const amount = Number(amountIn);
    if (e.kind === 'V2') {
      const [rIn, rOut] = zeroForOne ? [e.reserve0, e.reserve1] : [e.reserve1, e.reserve0];
      const out = v2AmountOut(amount, rIn, rOut, pool.fee);
      if (out < Number(minOut) || out >= rOut) return;
      e.reserve0 = zeroForOne ? rIn + amount : rOut - out;
      e.reserve1 = zeroForOne ? rOut - out : rIn + amount;
      return;
    }
    let sqrt = v3SqrtAfterSwap(e.sqrtPrice, e.liquidity, zeroForOne, amount, pool.fee);
    if (sqrtPriceLimitX96 > 0n) {
      const limit = Number(sqrtPriceLimitX96) / pow(2, 96);
      // A limit on the wrong side of the price reverts the swap (SPL): the pool stays where it is.
      if (zeroForOne ? limit >= e.sqrtPrice : limit <= e.sqrtPrice) return;
      sqrt = zeroForOne ? Math.max(sqrt, limit) : Math.min(sqrt, limit);
    }
    e.sqrtPrice = sqrt;
  }

  /** The raw output a wallet quotes for `amountIn` from the block's quote of the pool (V2: with price impact). */
  quoteOut(pool: PoolView, zeroForOne: boolean, amountIn: bigint): number {
    const quote = this.quotes.get(pool.id) ?? { price: this.referencePrice(pool) };
    const input = Number(amountIn) * (1 - pool.fee);
    if (quote.reserves) {
      const [reserveIn, reserveOut] = zeroForOne ? quote.reserves : [quote.reserves[1], quote.reserves[0]];
      return (input * reserveOut) / (reserveIn + input);
    }
    return zeroForOne ? input * quote.price : input / quote.price;
  }
}

/** Reads every pool's price (raw token1 per raw token0) at a block (default: the latest), for checks and tests. */
export async function readPoolPrices(
  rpcUrl: string,
  manifest: WorldManifest,
  block?: number,
): Promise<Map<string, number>> {
  const tag = block === undefined ? 'latest' : `0x${block.toString(16)}`;
  const rpc = new RpcClient(rpcUrl);
  const results = await rpc.batchResults<Hex>(
    manifest.pools.map((p) => ({
      method: 'eth_call',
      params: [
        {
          to: p.address,
          data:
            p.version === 'V2'
              ? encodeFunctionData({ abi: v2PairAbi, functionName: 'getReserves' })
              : encodeFunctionData({ abi: v3PoolAbi, functionName: 'slot0' }),
        },
        tag,
      ],
    })),
  );
  const prices = new Map<string, number>();
  manifest.pools.forEach((p, i) => {
    if (p.version === 'V2') {
      const [r0, r1] = decodeFunctionResult({ abi: v2PairAbi, functionName: 'getReserves', data: results[i]! });
      prices.set(p.address.toLowerCase(), Number(r1) / Number(r0));
    } else {
      const [sqrtPriceX96] = decodeFunctionResult({ abi: v3PoolAbi, functionName: 'slot0', data: results[i]! });
      prices.set(p.address.toLowerCase(), priceFromSqrtPriceX96(sqrtPriceX96));
    }
  });
  return prices;
}
