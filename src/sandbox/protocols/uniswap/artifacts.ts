/**
 * The Uniswap V2 and V3 contracts, from the npm packages' build artifacts (every DEX deployment of the sandbox,
 * Uniswap's own and its forks', runs this bytecode), the ABIs of the calls the sandbox makes, and the CREATE2
 * addresses the factories give pools.
 */
import { type Address, encodeAbiParameters, getCreate2Address, type Hex, keccak256, parseAbi } from 'viem';
import { loadArtifact } from '../../chain/artifacts.js';

let cache: ReturnType<typeof loadAll> | undefined;

function loadAll() {
  return {
    v2Factory: loadArtifact('@uniswap/v2-core/build/UniswapV2Factory.json', 'UniswapV2Factory'),
    v2Pair: loadArtifact('@uniswap/v2-core/build/UniswapV2Pair.json', 'UniswapV2Pair'),
    v2Router02: loadArtifact('@uniswap/v2-periphery/build/UniswapV2Router02.json', 'UniswapV2Router02'),
    v3Factory: loadArtifact(
      '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
      'UniswapV3Factory',
    ),
    v3Pool: loadArtifact('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json', 'UniswapV3Pool'),
    v3PositionManager: loadArtifact(
      '@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
      'NonfungiblePositionManager',
    ),
    v3SwapRouter: loadArtifact(
      '@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json',
      'SwapRouter',
    ),
  };
}

/** The Uniswap contracts, read from `node_modules` once. */
export function uniswapArtifacts(): ReturnType<typeof loadAll> {
  cache ??= loadAll();
  return cache;
}

/**
 * The init-code hashes the periphery contracts embed to compute pool addresses. The npm artifacts must hash to
 * exactly these (mainnet's), or Router02 / the position manager would talk to addresses where no pool lives.
 */
export const V2_PAIR_INIT_CODE_HASH: Hex = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';
export const V3_POOL_INIT_CODE_HASH: Hex = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54';

/** Tokens sorted the way both Uniswap designs sort them (numerically by address). */
export function sortTokens(a: Address, b: Address): [Address, Address] {
  return BigInt(a) < BigInt(b) ? [a, b] : [b, a];
}

/** The address a V2 factory gives the pair of two tokens (CREATE2, as `UniswapV2Library.pairFor`). */
export function v2PairAddress(factory: Address, tokenA: Address, tokenB: Address): Address {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  const salt = keccak256(`0x${token0.slice(2)}${token1.slice(2)}` as Hex);
  return getCreate2Address({ from: factory, salt, bytecodeHash: V2_PAIR_INIT_CODE_HASH });
}

/** The address a V3 factory gives a pool (CREATE2, as `PoolAddress.computeAddress`). */
export function v3PoolAddress(factory: Address, tokenA: Address, tokenB: Address, fee: number): Address {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  const salt = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [token0, token1, fee]),
  );
  return getCreate2Address({ from: factory, salt, bytecodeHash: V3_POOL_INIT_CODE_HASH });
}

export const v2FactoryAbi = parseAbi(['function getPair(address tokenA, address tokenB) view returns (address)']);

export const v2PairAbi = parseAbi([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);

export const v2RouterAbi = parseAbi([
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)',
  'function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
]);

export const v3FactoryAbi = parseAbi([
  'function enableFeeAmount(uint24 fee, int24 tickSpacing)',
  'function getPool(address tokenA, address tokenB, uint24 fee) view returns (address)',
]);

export const v3PoolAbi = parseAbi([
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function liquidity() view returns (uint128)',
]);

export const v3PositionManagerAbi = parseAbi([
  'function createAndInitializePoolIfNecessary(address token0, address token1, uint24 fee, uint160 sqrtPriceX96) payable returns (address pool)',
  'struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }',
  'function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
  'struct DecreaseLiquidityParams { uint256 tokenId; uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'function decreaseLiquidity(DecreaseLiquidityParams params) payable returns (uint256 amount0, uint256 amount1)',
  'struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }',
  'function collect(CollectParams params) payable returns (uint256 amount0, uint256 amount1)',
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'event IncreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
]);

export const v3SwapRouterAbi = parseAbi([
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'function exactInputSingle(ExactInputSingleParams params) payable returns (uint256 amountOut)',
]);
