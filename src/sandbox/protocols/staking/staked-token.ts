/**
 * The sandbox's liquid staking token: our own wstETH-like wrapper (`contracts/StakedToken.sol`, no deployable
 * wstETH ships on npm), its exchange rate (a pure function of the block's timestamp, mirrored here exactly) and its
 * market price (the rate × the underlying's price × (1 − the scheduled depeg discount)).
 */
import { type Abi, encodeDeployData, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { ManifestLiquidStaking, ManifestOracle, ManifestPool, ManifestToken } from '../../world/manifest.js';
import { TOKEN_PLAN, type TokenPlan } from '../../world/plan.js';
import artifact from './contracts/StakedToken.json' with { type: 'json' };
import { type LiquidStakingPlan, rateWad, stEthPerToken } from './rate.js';

export { type LiquidStakingPlan, rateWad, stakedTokenPriceUsd, stEthPerToken } from './rate.js';

/** The compiled token, committed (tools/compile-contracts.mjs; contracts.test.ts keeps it in step). */
export const STAKED_TOKEN = { abi: artifact.abi as Abi, bytecode: artifact.bytecode as Hex };

export const stakedTokenAbi = parseAbi([
  'function stEthPerToken() view returns (uint256)',
  'function tokensPerStEth() view returns (uint256)',
  'function getStETHByWstETH(uint256 amount) view returns (uint256)',
  'function getWstETHByStETH(uint256 amount) view returns (uint256)',
  'function wrap(uint256 amount) returns (uint256)',
  'function unwrap(uint256 amount) returns (uint256)',
  'function stakeETH() payable returns (uint256)',
  'function underlying() view returns (address)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
]);

const WAD = 10n ** 18n;

export function stakedTokenDeployData(token: TokenPlan, underlying: `0x${string}`): Hex {
  const plan = token.liquidStaking;
  if (!plan) throw new Error(`${token.symbol} is not a liquid staking token`);
  return encodeDeployData({
    abi: STAKED_TOKEN.abi,
    bytecode: STAKED_TOKEN.bytecode,
    args: [token.name, token.symbol, underlying, rateWad(plan), BigInt(plan.aprBps)],
  });
}

/** Tokens `wrap(amount)` / `stakeETH{value: amount}` mint at `timestamp`. */
export function tokensForUnderlying(plan: LiquidStakingPlan, deployedAt: number, timestamp: number, amount: bigint) {
  return (amount * WAD) / stEthPerToken(plan, deployedAt, timestamp);
}

/** Underlying needed to mint at least `tokens` at `timestamp` (rounded up). */
export function underlyingForTokens(plan: LiquidStakingPlan, deployedAt: number, timestamp: number, tokens: bigint) {
  return (tokens * stEthPerToken(plan, deployedAt, timestamp) + WAD - 1n) / WAD + 1n;
}

export function stakeEthData(): Hex {
  return encodeFunctionData({ abi: stakedTokenAbi, functionName: 'stakeETH' });
}

export function wrapData(amount: bigint): Hex {
  return encodeFunctionData({ abi: stakedTokenAbi, functionName: 'wrap', args: [amount] });
}

/** The manifest's `liquidStaking`: each liquid staking token, its pools against the underlying, its price feed. */
export function manifestLiquidStaking(
  tokens: readonly ManifestToken[],
  pools: readonly ManifestPool[],
  feeds: readonly ManifestOracle[],
  startBlock: number,
): ManifestLiquidStaking[] {
  return TOKEN_PLAN.flatMap((plan) => {
    const lst = plan.liquidStaking;
    const token = tokens.find((t) => t.symbol === plan.symbol);
    const underlying = tokens.find((t) => t.symbol === lst?.underlying);
    if (!lst || !token || !underlying) return [];
    const pair = [token.address.toLowerCase(), underlying.address.toLowerCase()];
    const feed = feeds.find((f) => f.token === plan.symbol);
    return [
      {
        protocol: lst.protocol,
        symbol: token.symbol,
        token: token.address,
        decimals: token.decimals,
        underlying: underlying.address,
        pools: pools
          .filter((p) => pair.includes(p.token0.toLowerCase()) && pair.includes(p.token1.toLowerCase()))
          .map((p) => p.address),
        startBlock,
        ...(feed ? { priceFeed: feed.proxy } : {}),
      },
    ];
  });
}
