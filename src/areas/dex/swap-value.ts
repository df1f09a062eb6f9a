/**
 * The USD value of one swap, the DEX area's volume convention (docs/methodology/dex-volume-continuity.md): one side
 * of the swap, gross of fees, the input token (positive amount, the pool's point of view; token0 when both are) × its
 * USD price of the swap's UTC hour; if that token has no price, the output token; if neither, the swap is unpriced
 * (null). Pure. The DEX area's pool volume and every other area's recount of it (liquid staking's pools, a token's
 * on-chain DEX volume in tokenomics) value swaps through this one function.
 */
import { absBig, toFloat } from '../../core/decimal.js';
import { HOUR } from '../../core/time.js';
import type { SwapFact, TokenFact } from './facts.js';

/** USD price of a token for the UTC hour starting at `hour` (unix seconds), or undefined. */
export type HourlyPriceLookup = (token: string, hour: number) => number | undefined;

/** The swap's USD value under the DEX area's convention, or null when neither side has a price of its hour. */
export function swapUsdValue(
  s: Pick<SwapFact, 'amount0' | 'amount1' | 'timestamp'>,
  token0: Pick<TokenFact, 'address' | 'decimals'>,
  token1: Pick<TokenFact, 'address' | 'decimals'>,
  prices: HourlyPriceLookup,
): number | null {
  const hour = Math.floor(s.timestamp / HOUR) * HOUR;
  const order: (0 | 1)[] = s.amount0 > 0n ? [0, 1] : s.amount1 > 0n ? [1, 0] : [0, 1];
  for (const side of order) {
    const token = side === 0 ? token0 : token1;
    const price = prices(token.address, hour);
    if (price === undefined) continue;
    return toFloat(absBig(side === 0 ? s.amount0 : s.amount1), token.decimals) * price;
  }
  return null;
}
