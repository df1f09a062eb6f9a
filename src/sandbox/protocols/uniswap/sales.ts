/**
 * The liquidators' sales: the collateral a liquidation paid them is sold on the DEX pools back into the asset they
 * repaid, a chunk per block, from the block after the liquidation on. The lending actors report what was seized
 * (`queueSale`); the sales are kept in the scenario's state (`seizedSales`).
 */
import type { Agent } from '../../chain/agent.js';
import { minBigint, toRawAmount } from '../../chain/amm.js';
import { received } from '../../chain/receipts.js';
import type { ScenarioState } from '../../world/state.js';
import type { Dex, PoolView } from './dex.js';

/**
 * Liquidators sell seized collateral in chunks of at most this share of the chosen pool's depth per block (about
 * 1 % of price impact on a V2 pool), accepting SALE_SLIPPAGE below the block's quote: a large liquidation is sold
 * over several blocks, as searchers split a dump that would cost more than the liquidation bonus.
 */
const SALE_MAX_DEPTH_SHARE = 0.0025;
const SALE_SLIPPAGE = 0.02;

/** Records collateral a liquidation paid a liquidator, to sell from the next block on. */
export function queueSale(state: ScenarioState, liquidator: Agent, sell: string, buy: string, amount: bigint): void {
  if (sell === buy || amount <= 0n) return;
  state.seizedSales ??= [];
  state.seizedSales.push({ liquidator: liquidator.index, sell, buy, amount: amount.toString() });
}

/**
 * Each liquidator sells what it seized back into the asset it repaid: in the deepest awake pool of the pair, or
 * through WETH when no pool pairs them (the WETH it gets is queued as the next leg), a chunk of at most
 * SALE_MAX_DEPTH_SHARE of the pool's depth per block. A reverted chunk (the price moved past the slippage) is
 * tried again next block; collateral with no pool at all is kept.
 */
export function sellSeized(dex: Dex, live: readonly PoolView[]): void {
  const sales = dex.host.state.seizedSales;
  if (!sales?.length) return;
  dex.host.state.seizedSales = sales.filter((x) => BigInt(x.amount) > 0n);
  const weth = dex.manifest.weth.toLowerCase();
  const wethSymbol = dex.tokens.find((t) => t.id === weth)?.m.symbol;
  const pairs = (pools: readonly PoolView[], a: string, b: string) =>
    pools.filter((p) => (p.t0.m.symbol === a && p.t1.m.symbol === b) || (p.t0.m.symbol === b && p.t1.m.symbol === a));
  const deepest = (a: string, b: string) =>
    pairs(live, a, b).reduce<PoolView | undefined>(
      (best, p) => (best && best.runtime.depthUsd >= p.runtime.depthUsd ? best : p),
      undefined,
    );
  for (const sale of dex.host.state.seizedSales) {
    const agent = dex.host.agents[sale.liquidator]!;
    const sell = dex.tokens.find((t) => t.m.symbol === sale.sell);
    if (!sell || !wethSymbol) continue;
    // The direct pair, else through WETH (the WETH received is queued as the next leg).
    const direct = pairs(dex.pools, sale.sell, sale.buy).length > 0;
    const viaWeth =
      !direct &&
      sale.sell !== wethSymbol &&
      sale.buy !== wethSymbol &&
      pairs(dex.pools, sale.sell, wethSymbol).length > 0;
    const held = agent.available(sell.id);
    if ((!direct && !viaWeth) || held <= 0n) {
      // No pool to sell it in at all, or nothing left of it (spent on a later liquidation's debt): the sale ends.
      sale.amount = '0';
      continue;
    }
    const via = direct ? undefined : wethSymbol;
    const pool = deepest(sale.sell, via ?? sale.buy);
    if (!pool) continue; // its pools are asleep this block (dormant): next block
    const remaining = BigInt(sale.amount);
    const cap = dex.rawFromUsd(sell, pool.runtime.depthUsd * SALE_MAX_DEPTH_SHARE);
    const chunk = minBigint(minBigint(remaining, held), cap > 0n ? cap : remaining);
    const zeroForOne = pool.t0.id === sell.id;
    const out = zeroForOne ? pool.t1 : pool.t0;
    const minOut = toRawAmount(dex.quoteOut(pool, zeroForOne, chunk) * (1 - SALE_SLIPPAGE));
    dex.swap(agent, pool, zeroForOne, chunk, minOut, 'swap', 0n, (ok, receipt) => {
      if (!ok) return;
      sale.amount = (BigInt(sale.amount) - chunk).toString();
      if (via) queueSale(dex.host.state, agent, via, sale.buy, received(receipt, out.m.address, agent.address));
    });
  }
}
