/**
 * The liquid staking token's exchange rate and reference price, the contract's formulas exactly (no viem, no
 * artifact: the market applies the price every step, and the protocol list stays light).
 */
import { depegDiscount, type TokenPlan } from '../../world/plan.js';

const DAY = 86400;

export type LiquidStakingPlan = NonNullable<TokenPlan['liquidStaking']>;

export function rateWad(plan: LiquidStakingPlan): bigint {
  return BigInt(Math.round(plan.initialRate * 1e6)) * 10n ** 12n;
}

/** `stEthPerToken()` at `timestamp` for a token deployed at `deployedAt` (the contract's formula, exactly). */
export function stEthPerToken(plan: LiquidStakingPlan, deployedAt: number, timestamp: number): bigint {
  const initial = rateWad(plan);
  const day = BigInt(Math.max(0, Math.floor((timestamp - deployedAt) / DAY)));
  return initial + (initial * BigInt(plan.aprBps) * day) / (10_000n * 365n);
}

/**
 * The token's reference USD price at `timestamp`: underlying price × rate × (1 − depeg discount). Used by the
 * scenario after it moves the underlying's price, so the pool's arbitrage and the feed follow it.
 */
export function stakedTokenPriceUsd(
  plan: LiquidStakingPlan,
  underlyingUsd: number,
  genesis: number,
  timestamp: number,
): number {
  const rate = Number(stEthPerToken(plan, genesis, timestamp)) / 1e18;
  return underlyingUsd * rate * (1 - depegDiscount((timestamp - genesis) / 3600));
}
