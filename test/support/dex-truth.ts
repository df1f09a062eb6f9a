import { createPublicClient, http, parseAbi, parseAbiItem } from 'viem';

/**
 * Ground truth for the DEX end-to-end tests, recomputed straight from the chain with viem and nothing of the
 * service's code (no engine, no decoding helpers, no compute): Swap logs, transaction senders and reserves.
 */

const V2_SWAP = parseAbiItem(
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
);
const V3_SWAP = parseAbiItem(
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
);
const READS = parseAbi([
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
]);

export interface WindowTruth {
  swapCount: number;
  uniqueTraders: number;
  /** Σ|amount| of each token over the window's swaps, normalised by decimals. */
  volumeToken0: number;
  volumeToken1: number;
}

export interface PoolTruth {
  h24: WindowTruth;
  d7: WindowTruth;
  /** Reserves at the as_of block, normalised (V2 getReserves, V3 token balances of the pool). */
  reserve0: number;
  reserve1: number;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

function normalise(raw: bigint, decimals: number): number {
  // Exact split into integer and fraction before the float conversion, as the service must do.
  const scale = 10n ** BigInt(decimals);
  return Number(raw / scale) + Number(raw % scale) / Number(scale);
}

export async function poolTruth(
  rpcUrl: string,
  pool: `0x${string}`,
  design: 'uniswap-v2' | 'uniswap-v3',
  asOf: { blockNumber: number; timestamp: number },
): Promise<PoolTruth> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const blockNumber = BigInt(asOf.blockNumber);
  const [token0, token1] = await Promise.all([
    client.readContract({ address: pool, abi: READS, functionName: 'token0', blockNumber }),
    client.readContract({ address: pool, abi: READS, functionName: 'token1', blockNumber }),
  ]);
  const dec0 = await client.readContract({ address: token0, abi: READS, functionName: 'decimals' });
  const dec1 = await client.readContract({ address: token1, abi: READS, functionName: 'decimals' });
  const logs = await client.getLogs({
    address: pool,
    event: design === 'uniswap-v2' ? V2_SWAP : V3_SWAP,
    fromBlock: 0n,
    toBlock: blockNumber,
  });
  const times = new Map<bigint, number>();
  const senders = new Map<string, string>();
  const rows: { ts: number; from: string; a0: bigint; a1: bigint }[] = [];
  for (const log of logs) {
    const bn = log.blockNumber!;
    if (!times.has(bn)) times.set(bn, Number((await client.getBlock({ blockNumber: bn })).timestamp));
    const hash = log.transactionHash!;
    if (!senders.has(hash)) senders.set(hash, (await client.getTransaction({ hash })).from.toLowerCase());
    const args = log.args as Record<string, bigint>;
    const a0 = design === 'uniswap-v2' ? args.amount0In! - args.amount0Out! : args.amount0!;
    const a1 = design === 'uniswap-v2' ? args.amount1In! - args.amount1Out! : args.amount1!;
    rows.push({ ts: times.get(bn)!, from: senders.get(hash)!, a0, a1 });
  }
  const window = (seconds: number): WindowTruth => {
    const inside = rows.filter((r) => asOf.timestamp - seconds < r.ts && r.ts <= asOf.timestamp);
    return {
      swapCount: inside.length,
      uniqueTraders: new Set(inside.map((r) => r.from)).size,
      volumeToken0: normalise(
        inside.reduce((s, r) => s + abs(r.a0), 0n),
        dec0,
      ),
      volumeToken1: normalise(
        inside.reduce((s, r) => s + abs(r.a1), 0n),
        dec1,
      ),
    };
  };
  let reserve0: bigint;
  let reserve1: bigint;
  if (design === 'uniswap-v2') {
    [reserve0, reserve1] = await client.readContract({
      address: pool,
      abi: READS,
      functionName: 'getReserves',
      blockNumber,
    });
  } else {
    const balance = (t: `0x${string}`) =>
      client.readContract({ address: t, abi: READS, functionName: 'balanceOf', args: [pool], blockNumber });
    reserve0 = await balance(token0);
    reserve1 = await balance(token1);
  }
  return {
    h24: window(86_400),
    d7: window(7 * 86_400),
    reserve0: normalise(reserve0, dec0),
    reserve1: normalise(reserve1, dec1),
  };
}
