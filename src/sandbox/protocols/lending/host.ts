/** The lending protocols' host (protocols/lending/actors.ts) on the world's host: one for Aave, Morpho and Liquity. */
import { FEED_ANSWERS, SEIZED_SALES, type WorldHost } from '../protocol.js';
import type { LendingHost } from './actors.js';

/**
 * Tokens by symbol, spending and approvals from the world; prices as the feeds report them once this block's rounds
 * land (the reference price without a feed); what liquidators seize goes to the DEX's sales.
 */
export function lendingHost(host: WorldHost): LendingHost {
  return {
    session: host.session,
    agents: host.agents,
    scale: host.scale,
    token: (symbol) => host.token(symbol).m,
    spend: (agent, symbol, amount) => host.spend(agent, host.token(symbol), amount),
    approve: (agent, token, spender) => host.approve(agent, token, spender),
    oracleUsd: (symbol) => host.find(FEED_ANSWERS)?.oracleUsd(symbol) ?? host.state.prices[symbol] ?? 1,
    get now() {
      return host.now;
    },
    seized: (liquidator, collateral, debt, amount) =>
      host.need(SEIZED_SALES).seized(liquidator, collateral, debt, amount),
  };
}
