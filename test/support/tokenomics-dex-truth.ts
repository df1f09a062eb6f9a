import { createPublicClient, http, parseAbiItem } from 'viem';

/**
 * Ground truth for a token's on-chain DEX volume, straight from the chain with viem and nothing of the service's
 * code: the pools from the factories' creation events, the pools' Swap logs, their blocks' times.
 */

const PAIR_CREATED = parseAbiItem(
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 pairCount)',
);
const POOL_CREATED = parseAbiItem(
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
);
const V2_SWAP = parseAbiItem(
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
);
const V3_SWAP = parseAbiItem(
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
);
const DECIMALS = parseAbiItem('function decimals() view returns (uint8)');

export interface ChainSwap {
  readonly pool: string;
  readonly token0: string;
  readonly token1: string;
  readonly decimals0: number;
  readonly decimals1: number;
  /** Pool's point of view: + into the pool. */
  readonly amount0: bigint;
  readonly amount1: bigint;
  readonly timestamp: number;
}

/**
 * Every swap of every pool the factories created (at or below `blockNumber`) with `token` on one side, with
 * timestamp in (asOf − 86,400, asOf], and the number of such pools.
 */
export async function tokenSwapsFromChain(
  rpcUrl: string,
  factories: readonly { factory: `0x${string}`; design: 'uniswap-v2' | 'uniswap-v3' }[],
  token: string,
  at: { blockNumber: number; asOf: number },
): Promise<{ pools: number; swaps: ChainSwap[] }> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const toBlock = BigInt(at.blockNumber);
  const t = token.toLowerCase();
  const pools: { address: `0x${string}`; token0: string; token1: string; v3: boolean }[] = [];
  for (const f of factories) {
    const v3 = f.design === 'uniswap-v3';
    const logs = await client.getLogs({
      address: f.factory,
      event: v3 ? POOL_CREATED : PAIR_CREATED,
      fromBlock: 0n,
      toBlock,
    });
    for (const l of logs) {
      const a = l.args as { token0: string; token1: string; pair?: `0x${string}`; pool?: `0x${string}` };
      const token0 = a.token0.toLowerCase();
      const token1 = a.token1.toLowerCase();
      if (token0 === t || token1 === t) pools.push({ address: (a.pool ?? a.pair)!, token0, token1, v3 });
    }
  }
  const decimals = new Map<string, number>();
  const decimalsOf = async (address: string) => {
    if (!decimals.has(address)) {
      const d = await client.readContract({
        address: address as `0x${string}`,
        abi: [DECIMALS],
        functionName: 'decimals',
      });
      decimals.set(address, Number(d));
    }
    return decimals.get(address)!;
  };
  const times = new Map<bigint, number>();
  const timeOf = async (block: bigint) => {
    if (!times.has(block)) times.set(block, Number((await client.getBlock({ blockNumber: block })).timestamp));
    return times.get(block)!;
  };
  const swaps: ChainSwap[] = [];
  for (const p of pools) {
    const [decimals0, decimals1] = [await decimalsOf(p.token0), await decimalsOf(p.token1)];
    const logs = await client.getLogs({ address: p.address, event: p.v3 ? V3_SWAP : V2_SWAP, fromBlock: 0n, toBlock });
    for (const l of logs) {
      const timestamp = await timeOf(l.blockNumber!);
      if (timestamp <= at.asOf - 86_400 || timestamp > at.asOf) continue;
      const a = l.args as Record<string, bigint>;
      const [amount0, amount1] = p.v3
        ? [a.amount0!, a.amount1!]
        : [a.amount0In! - a.amount0Out!, a.amount1In! - a.amount1Out!];
      swaps.push({
        pool: p.address.toLowerCase(),
        token0: p.token0,
        token1: p.token1,
        decimals0,
        decimals1,
        amount0,
        amount1,
        timestamp,
      });
    }
  }
  return { pools: pools.length, swaps };
}
