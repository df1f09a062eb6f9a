/**
 * A stablecoin/USDC Uniswap V2 pair as the sandbox's stablecoin actors trade it (Liquity's LUSD/USDC, Maker's
 * DAI/USDC): swaps through the router, with the reserves kept current as a block's swaps are queued, so that later
 * decisions in the same block see the price the earlier ones leave. Prices here are numbers for deciding, never for
 * accounting.
 */
import { type Address, encodeFunctionData } from 'viem';
import type { Agent } from '../../chain/agent.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestStablePair } from '../../world/manifest.js';
import { pow } from '../../world/pow.js';
import { v2RouterAbi } from './artifacts.js';

/** The pair as the manifest names it (`ManifestLiquity.pool`, `ManifestMaker.pool`). */
export type StablePairRef = Omit<ManifestStablePair, 'factory'>;

/** The pair's reserves at the block's start, updated by the swaps queued since (raw units). */
export interface StablePairReserves {
  stable: bigint;
  usdc: bigint;
}

/** Uniswap V2's LP fee. */
export const V2_FEE = 0.003;
/** Gas of a two-token swap through the router (generous: unused gas costs nothing). */
const SWAP_GAS = 250_000n;
/**
 * Traders (owners' sales and purchases, not the peg's arbitrageurs, who call `swap`) pay at most this far above par
 * and sell at most this far below it, and leave the rest of an order for later: nobody pays $1.30 for a dollar
 * stablecoin. Without it, one trove's closing purchase took LUSD to $2 for a day in a 0.3-scale world.
 */
export const TRADER_LIMIT = 0.02;
/** The least a swap may return, as a share of the quote: the block's own swaps are accounted for, so 1 % is slack. */
const MIN_OUT_SHARE = 99n;

export interface StablePairHost {
  readonly session: ChainSession;
  /** Plans spending `amount` of a world token (here USDC), topping the agent up first when short. */
  spend(agent: Agent, symbol: string, amount: bigint): void;
  approve(agent: Agent, token: Address, spender: Address): void;
  /** The block being built's timestamp (the swaps' deadline is an hour later). */
  readonly now: number;
}

export class StablePair {
  /** The stablecoin's address as agents' balances key it (lowercase). */
  private readonly stableKey: string;

  constructor(
    readonly ref: StablePairRef,
    private readonly stable: Address,
    private readonly host: StablePairHost,
    private readonly onSwap?: (ok: boolean) => void,
  ) {
    this.stableKey = stable.toLowerCase();
  }

  /** The reserves from the pair's `getReserves` answer. */
  reserves(reserve0: bigint, reserve1: bigint): StablePairReserves {
    const stableIs0 = this.ref.token0.toLowerCase() === this.stableKey;
    return { stable: stableIs0 ? reserve0 : reserve1, usdc: stableIs0 ? reserve1 : reserve0 };
  }

  /** USDC per stablecoin (18 decimals). */
  peg(r: StablePairReserves): number {
    return Number(r.usdc) / pow(10, this.ref.usdcDecimals) / (Number(r.stable) / 1e18);
  }

  /**
   * Sells `amountIn` raw units (of the stablecoin, or of USDC) into the pair; returns the least it will receive (the
   * swap's minimum out), 0 when it sends nothing.
   */
  swap(agent: Agent, sellStable: boolean, amountIn: bigint, r: StablePairReserves): bigint {
    const [rin, rout] = sellStable ? [r.stable, r.usdc] : [r.usdc, r.stable];
    const out = (amountIn * 997n * rout) / (rin * 1000n + amountIn * 997n);
    if (out <= 0n) return 0n;
    const minOut = (out * MIN_OUT_SHARE) / 100n;
    const [tokenIn, tokenOut] = sellStable ? [this.stable, this.ref.usdc] : [this.ref.usdc, this.stable];
    if (sellStable) agent.plan(this.stableKey, -amountIn);
    else this.host.spend(agent, 'USDC', amountIn);
    this.host.approve(agent, tokenIn, this.ref.router);
    this.host.session.send(agent, {
      to: this.ref.router,
      data: encodeFunctionData({
        abi: v2RouterAbi,
        functionName: 'swapExactTokensForTokens',
        args: [amountIn, minOut, [tokenIn, tokenOut], agent.address, BigInt(this.host.now + 3600)],
      }),
      gas: SWAP_GAS,
      kind: 'swap',
      ...(this.onSwap ? { onMined: this.onSwap } : {}),
    });
    if (sellStable) {
      r.stable += amountIn;
      r.usdc -= out;
    } else {
      r.usdc += amountIn;
      r.stable -= out;
    }
    return minOut;
  }

  /** Sells up to `amount` of the stablecoin the agent holds, as far as the price stays above 1 − `TRADER_LIMIT`. */
  sell(agent: Agent, amount: bigint, r: StablePairReserves): void {
    const held = agent.available(this.stableKey);
    const move = this.toPrice(r, 1 - TRADER_LIMIT);
    const room = move.sellStable ? this.raw(true, move.units) : 0n;
    const sold = [amount, held, room].reduce((a, b) => (b < a ? b : a));
    if (sold > 0n) this.swap(agent, true, sold, r);
  }

  /**
   * Buys about `amount` of the stablecoin (18 decimals) with USDC, at the pair's price plus the fee, as far as the
   * price stays under 1 + `TRADER_LIMIT`; returns the least it will receive (0 when it buys nothing).
   */
  buy(agent: Agent, amount: bigint, r: StablePairReserves): bigint {
    const move = this.toPrice(r, 1 + TRADER_LIMIT);
    const room = move.sellStable ? 0 : move.units;
    const usdc = Math.min(room, (Number(amount) / 1e18) * this.peg(r) * (1 + V2_FEE) * 1.01);
    const raw = BigInt(Math.ceil(usdc * pow(10, this.ref.usdcDecimals)));
    return raw > 0n ? this.swap(agent, false, raw, r) : 0n;
  }

  /**
   * What moves the price to `target` USDC per stablecoin on the constant product, fee included: USDC in when the
   * price is under it (U' = √(target·k)), the stablecoin in when over (S' = √(k/target)); in whole units, 0 when it
   * is there already.
   */
  toPrice(r: StablePairReserves, target: number): { sellStable: boolean; units: number } {
    const u = Number(r.usdc) / pow(10, this.ref.usdcDecimals);
    const s = Number(r.stable) / 1e18;
    const peg = u / s;
    if (!(s > 0 && u > 0) || peg === target) return { sellStable: false, units: 0 };
    if (peg < target) return { sellStable: false, units: Math.max(0, (Math.sqrt(target * u * s) - u) / (1 - V2_FEE)) };
    return { sellStable: true, units: Math.max(0, (Math.sqrt((u * s) / target) - s) / (1 - V2_FEE)) };
  }

  /** Raw units of whole `units` of the stablecoin (`stable`) or of USDC. */
  raw(stable: boolean, units: number): bigint {
    return BigInt(Math.floor(units * pow(10, stable ? 18 : this.ref.usdcDecimals)));
  }
}
