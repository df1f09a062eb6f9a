/**
 * The arbitrageur: first in every block, it trades each pool back to the reference price when the gap exceeds the
 * pool's fee and the profit covers its costs, and again last in the block (the closing arbitrage, as searchers
 * back-run the trades that moved a pool), from the state the block's queued swaps leave. Dormant pools included:
 * arbitrage bots do not sleep when a pool's traders do. In a single-trader pool the pool's bot does it.
 */
import type { Agent } from '../../chain/agent.js';
import {
  minBigint,
  priceFromSqrtPriceX96,
  sqrtPriceX96FromPrice,
  toRawAmount,
  v2AmountOut,
  v2ArbitrageAmountIn,
  v3AmountToTarget,
} from '../../chain/amm.js';
import type { TokenView } from '../../world/tokens.js';
import type { Dex, PoolReading, PoolView, Quote } from './dex.js';

/**
 * V3 arbitrage: the amount to move the price to the target within the current range, doubled. The swap carries
 * the target as its price limit, so the pool stops there and the router pulls only what was used; the margin
 * covers the fee and more liquidity met beyond the current range.
 */
const ARB_V3_MARGIN = 2n;
/** When a V3 pool has no in-range liquidity, the arbitrageur offers this share of the pool's depth. */
const ARB_EMPTY_RANGE_SHARE = 0.02;
/** Never more than this share of the pool's depth in one arbitrage (a long-dormant pool converges over steps). */
const ARB_MAX_SHARE = 0.5;
/**
 * The arbitrageur trades only when its estimated profit, size × (gap − fee) / 2, covers its costs: $1, a swap's gas
 * on an L2, or a back-run bundled with the trade that opened the gap on mainnet, where searchers compete the margin
 * away. Since profit grows with depth × gap², deep pools stay within basis points and the thinnest ones within about
 * a percent of the feeds. (It was $5 until 2026-11-24: the thin LINK/WETH pool then sat 2–3 % off its feed and,
 * with a dormant pool left unarbitraged, the DEX price of LINK drifted 7–9 % from its oracle.)
 */
const ARB_MIN_PROFIT_USD = 1;

/**
 * The closing arbitrage of a V2 pool sizes its trade from the estimated reserves; it accepts 0.5 % less output than
 * that estimate, so that when the pool is not where the estimate says (a trade reverted, an LP moved the reserves)
 * it reverts rather than push the pool the wrong way. V3 carries its target as a price limit instead.
 */
const ARB_CLOSING_SLIPPAGE = 0.005;

/**
 * Trades the pool back to the reference price when it is off by more than the fee and the profit covers gas
 * (first in the block). Returns the pool's expected state after that, which traders quote from.
 */
export function arbitrage(
  dex: Dex,
  arbitrageur: Agent,
  pool: PoolView,
  reading: PoolReading,
  options: { readonly closing?: boolean } = {},
): Quote {
  const target = dex.referencePrice(pool);
  const r0 = reading.kind === 'V2' ? Number(reading.reserve0) : 0;
  const r1 = reading.kind === 'V2' ? Number(reading.reserve1) : 0;
  const current = reading.kind === 'V2' ? r1 / r0 : priceFromSqrtPriceX96(reading.sqrtPriceX96);
  const unchanged: Quote = reading.kind === 'V2' ? { price: current, reserves: [r0, r1] } : { price: current };
  const arbitraged: Quote =
    reading.kind === 'V2'
      ? { price: target, reserves: [Math.sqrt((r0 * r1) / target), Math.sqrt(r0 * r1 * target)] }
      : { price: target };
  const gap = Math.abs(current / target - 1);
  if (!(gap > pool.fee)) return unchanged;
  // In a single-trader pool the bot is its own arbitrageur: nobody else may show up in its volume.
  const agent = pool.runtime.bot !== undefined ? dex.host.agents[pool.runtime.bot]! : arbitrageur;
  const capUsd = pool.runtime.depthUsd * ARB_MAX_SHARE;
  const worthIt = (token: TokenView, amount: bigint) =>
    amount > 0n && dex.usdFromRaw(token, amount) * ((gap - pool.fee) / 2) >= ARB_MIN_PROFIT_USD;
  if (reading.kind === 'V2') {
    const { zeroForOne, amountIn } = v2ArbitrageAmountIn(
      Number(reading.reserve0),
      Number(reading.reserve1),
      target,
      pool.fee,
    );
    const tokenIn = zeroForOne ? pool.t0 : pool.t1;
    const amount = minBigint(toRawAmount(amountIn), dex.rawFromUsd(tokenIn, capUsd));
    if (!worthIt(tokenIn, amount)) return unchanged;
    const [reserveIn, reserveOut] = zeroForOne ? [r0, r1] : [r1, r0];
    const minOut = options.closing
      ? toRawAmount(v2AmountOut(Number(amount), reserveIn, reserveOut, pool.fee) * (1 - ARB_CLOSING_SLIPPAGE))
      : 0n;
    dex.swap(agent, pool, zeroForOne, amount, minOut, 'arbitrage');
    return arbitraged;
  }
  const sqrtTarget = sqrtPriceX96FromPrice(target);
  if (sqrtTarget === reading.sqrtPriceX96) return unchanged;
  const zeroForOne = sqrtTarget < reading.sqrtPriceX96;
  const tokenIn = zeroForOne ? pool.t0 : pool.t1;
  const needed =
    reading.liquidity > 0n
      ? v3AmountToTarget(reading.liquidity, reading.sqrtPriceX96, sqrtTarget)
      : dex.rawFromUsd(tokenIn, pool.runtime.depthUsd * ARB_EMPTY_RANGE_SHARE);
  if (!worthIt(tokenIn, needed)) return unchanged;
  const amount = minBigint(needed * ARB_V3_MARGIN + 1n, dex.rawFromUsd(tokenIn, capUsd));
  dex.swap(agent, pool, zeroForOne, amount, 0n, 'arbitrage', sqrtTarget);
  return arbitraged;
}
