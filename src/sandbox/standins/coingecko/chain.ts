import { jsonRpc } from '../../chain/anvil.js';

/**
 * What the CoinGecko stand-in reads of the sandbox chain, over its JSON-RPC: the block closing an hour, a token's
 * `totalSupply()` at a block, and the swaps of the world's pools in a block range (Uniswap V2's and V3's `Swap`
 * events). Reads go through this interface so that the stand-in's world stays a pure function of what was read.
 */
export interface MarketChain {
  /** The last block whose timestamp is at or before `timestamp` (Unix seconds); undefined before the first. */
  blockAt(timestamp: number): Promise<number | undefined>;
  /** `totalSupply()` of an ERC-20 at a block, in its smallest unit; undefined when the node has no state for it. */
  totalSupply(token: string, block: number): Promise<bigint | undefined>;
  /** Every V2 or V3 `Swap` of `pools` in blocks `fromBlock..toBlock`: the absolute amounts of token0 and token1. */
  swaps(
    pools: readonly { address: string; version: 'V2' | 'V3' }[],
    fromBlock: number,
    toBlock: number,
  ): Promise<SwapAmounts[]>;
}

export interface SwapAmounts {
  /** The pool's address, lowercase. */
  readonly pool: string;
  readonly amount0: bigint;
  readonly amount1: bigint;
}

/** `Swap(address,uint256,uint256,uint256,uint256,address)`: Uniswap V2 pairs. */
export const V2_SWAP = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822';
/** `Swap(address,address,int256,int256,uint160,uint128,int24)`: Uniswap V3 pools. */
export const V3_SWAP = '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67';
/** `totalSupply()`. */
const TOTAL_SUPPLY = '0x18160ddd';

const hex = (n: number) => `0x${n.toString(16)}`;
const word = (data: string, i: number) => BigInt(`0x${data.slice(2 + 64 * i, 2 + 64 * (i + 1)) || '0'}`);
const signed = (w: bigint) => (w >= 1n << 255n ? w - (1n << 256n) : w);
const abs = (v: bigint) => (v < 0n ? -v : v);

/** The amounts a `Swap` log moved: V2's `in + out` of each token (one side is 0), V3's signed amounts made absolute. */
export function decodeSwap(log: { topics: readonly string[]; data: string }): { amount0: bigint; amount1: bigint } {
  if (log.topics[0] === V2_SWAP) {
    return { amount0: word(log.data, 0) + word(log.data, 2), amount1: word(log.data, 1) + word(log.data, 3) };
  }
  if (log.topics[0] === V3_SWAP) {
    return { amount0: abs(signed(word(log.data, 0))), amount1: abs(signed(word(log.data, 1))) };
  }
  throw new Error(`not a Uniswap Swap event: ${log.topics[0]}`);
}

/** The chain at `rpcUrl`, read with plain JSON-RPC; block timestamps are cached (a block never changes its time). */
export function rpcMarketChain(rpcUrl: string): MarketChain {
  const times = new Map<number, number>();
  const timeOf = async (n: number) => {
    let t = times.get(n);
    if (t === undefined) {
      const b = await jsonRpc<{ timestamp: string } | null>(rpcUrl, 'eth_getBlockByNumber', [hex(n), false]);
      if (!b) throw new Error(`block ${n} not found`);
      t = Number.parseInt(b.timestamp, 16);
      times.set(n, t);
    }
    return t;
  };
  return {
    async blockAt(timestamp) {
      const head = Number.parseInt(await jsonRpc<string>(rpcUrl, 'eth_blockNumber'), 16);
      if ((await timeOf(0)) > timestamp) return undefined;
      if ((await timeOf(head)) <= timestamp) return head;
      let lo = 0;
      let hi = head;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if ((await timeOf(mid)) <= timestamp) lo = mid;
        else hi = mid;
      }
      return lo;
    },
    async totalSupply(token, block) {
      try {
        const out = await jsonRpc<string>(rpcUrl, 'eth_call', [{ to: token, data: TOTAL_SUPPLY }, hex(block)]);
        return out && out !== '0x' ? BigInt(out) : undefined;
      } catch {
        // A node that keeps no state for that block (a resumed world): the figure is unknown, never guessed.
        return undefined;
      }
    },
    async swaps(pools, fromBlock, toBlock) {
      if (!pools.length || toBlock < fromBlock) return [];
      const logs = await jsonRpc<{ address: string; topics: string[]; data: string }[]>(rpcUrl, 'eth_getLogs', [
        {
          address: pools.map((p) => p.address),
          topics: [[V2_SWAP, V3_SWAP]],
          fromBlock: hex(fromBlock),
          toBlock: hex(toBlock),
        },
      ]);
      return logs.map((l) => ({ pool: l.address.toLowerCase(), ...decodeSwap(l) }));
    },
  };
}
