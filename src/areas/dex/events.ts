import { decodeEventLog, type Hex, parseAbi, toEventSelector } from 'viem';
import type { EvmLog } from '../../sources/evm/index.js';
import type { DexPoolDesign } from './facts.js';

/**
 * The events the DEX area reads, with the ABIs of the deployed contracts (Uniswap V2 and V3 and their forks emit
 * the same events). Decoding lives here so that ingestion and the tests decode logs the same way.
 */
export const V2_FACTORY_ABI = parseAbi([
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index)',
]);
export const V3_FACTORY_ABI = parseAbi([
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
]);
export const V2_PAIR_ABI = parseAbi([
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);
export const V3_POOL_ABI = parseAbi([
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function liquidity() view returns (uint128)',
]);
export const ERC20_ABI = parseAbi([
  'function symbol() view returns (string)',
  'function name() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
]);

export const TOPICS = {
  pairCreated: toEventSelector(V2_FACTORY_ABI[0]),
  poolCreated: toEventSelector(V3_FACTORY_ABI[0]),
  v2Swap: toEventSelector(V2_PAIR_ABI[0]),
  v2Sync: toEventSelector(V2_PAIR_ABI[1]),
  v2Mint: toEventSelector(V2_PAIR_ABI[2]),
  v2Burn: toEventSelector(V2_PAIR_ABI[3]),
  v3Swap: toEventSelector(V3_POOL_ABI[0]),
  v3Mint: toEventSelector(V3_POOL_ABI[1]),
  v3Burn: toEventSelector(V3_POOL_ABI[2]),
} as const;

export const FACTORY_TOPICS: readonly Hex[] = [TOPICS.pairCreated, TOPICS.poolCreated];
export const POOL_TOPICS: readonly Hex[] = [
  TOPICS.v2Swap,
  TOPICS.v2Sync,
  TOPICS.v2Mint,
  TOPICS.v2Burn,
  TOPICS.v3Swap,
  TOPICS.v3Mint,
  TOPICS.v3Burn,
];

function topicsOf(log: EvmLog): [Hex, ...Hex[]] {
  return log.topics as [Hex, ...Hex[]];
}

export interface PoolCreated {
  readonly design: DexPoolDesign;
  readonly pool: string;
  readonly token0: string;
  readonly token1: string;
  /** Hundredths of a basis point; V2 pairs charge 0.30 %. */
  readonly fee: number;
  readonly tickSpacing: number | null;
}

/** V2 pairs charge a fixed 0.30 % (Uniswap V2 whitepaper, §3.2.1). */
export const V2_FEE = 3000;

export function decodePoolCreated(log: EvmLog): PoolCreated | undefined {
  const topic = log.topics[0];
  if (topic === TOPICS.pairCreated) {
    const { args } = decodeEventLog({ abi: V2_FACTORY_ABI, data: log.data, topics: topicsOf(log) });
    return {
      design: 'uniswap-v2',
      pool: args.pair.toLowerCase(),
      token0: args.token0.toLowerCase(),
      token1: args.token1.toLowerCase(),
      fee: V2_FEE,
      tickSpacing: null,
    };
  }
  if (topic === TOPICS.poolCreated) {
    const { args } = decodeEventLog({ abi: V3_FACTORY_ABI, data: log.data, topics: topicsOf(log) });
    return {
      design: 'uniswap-v3',
      pool: args.pool.toLowerCase(),
      token0: args.token0.toLowerCase(),
      token1: args.token1.toLowerCase(),
      fee: args.fee,
      tickSpacing: args.tickSpacing,
    };
  }
  return undefined;
}

export type PoolEvent =
  | {
      readonly kind: 'swap';
      readonly amount0: bigint;
      readonly amount1: bigint;
      readonly sqrtPriceX96: bigint | null;
      readonly liquidity: bigint | null;
      readonly tick: number | null;
    }
  | { readonly kind: 'sync'; readonly reserve0: bigint; readonly reserve1: bigint }
  | { readonly kind: 'mint' | 'burn'; readonly amount0: bigint; readonly amount1: bigint };

/** Decodes a pool log by its topic; undefined for events the area does not read. */
export function decodePoolEvent(log: EvmLog): PoolEvent | undefined {
  const topic = log.topics[0];
  const raw = { data: log.data, topics: topicsOf(log) };
  switch (topic) {
    case TOPICS.v2Swap: {
      const { args } = decodeEventLog({ abi: V2_PAIR_ABI, eventName: 'Swap', ...raw });
      return {
        kind: 'swap',
        amount0: args.amount0In - args.amount0Out,
        amount1: args.amount1In - args.amount1Out,
        sqrtPriceX96: null,
        liquidity: null,
        tick: null,
      };
    }
    case TOPICS.v2Sync: {
      const { args } = decodeEventLog({ abi: V2_PAIR_ABI, eventName: 'Sync', ...raw });
      return { kind: 'sync', reserve0: args.reserve0, reserve1: args.reserve1 };
    }
    case TOPICS.v2Mint: {
      const { args } = decodeEventLog({ abi: V2_PAIR_ABI, eventName: 'Mint', ...raw });
      return { kind: 'mint', amount0: args.amount0, amount1: args.amount1 };
    }
    case TOPICS.v2Burn: {
      const { args } = decodeEventLog({ abi: V2_PAIR_ABI, eventName: 'Burn', ...raw });
      return { kind: 'burn', amount0: args.amount0, amount1: args.amount1 };
    }
    case TOPICS.v3Swap: {
      const { args } = decodeEventLog({ abi: V3_POOL_ABI, eventName: 'Swap', ...raw });
      return {
        kind: 'swap',
        amount0: args.amount0,
        amount1: args.amount1,
        sqrtPriceX96: args.sqrtPriceX96,
        liquidity: args.liquidity,
        tick: args.tick,
      };
    }
    case TOPICS.v3Mint: {
      const { args } = decodeEventLog({ abi: V3_POOL_ABI, eventName: 'Mint', ...raw });
      return { kind: 'mint', amount0: args.amount0, amount1: args.amount1 };
    }
    case TOPICS.v3Burn: {
      const { args } = decodeEventLog({ abi: V3_POOL_ABI, eventName: 'Burn', ...raw });
      // A V3 Burn with zero amounts is the position manager's fee collection poke, not a withdrawal.
      return { kind: 'burn', amount0: args.amount0, amount1: args.amount1 };
    }
    default:
      return undefined;
  }
}
