/**
 * The world's Aave-design markets: `aave` and its fork `spark`, each with the reserves of the plan that the
 * registry lists, Aave V3 Ethereum's parameters and its ETH-correlated E-mode, queued on the genesis block.
 */
import type { Address } from 'viem';
import { registry } from '../../../registry/index.js';
import type { Agent } from '../../chain/agent.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestToken } from '../../world/manifest.js';
import { queueAaveMarket } from './deploy.js';
import {
  AAVE_ETH_EMODE,
  AAVE_V3_ETHEREUM_PARAMS,
  type AaveReserveParams,
  type AaveReserveSpec,
  type QueuedAaveMarket,
} from './params.js';

/**
 * The Aave-design markets and their reserves (each must be a listed asset of the registry's market; others are
 * skipped). Both use Aave V3 Ethereum's parameters (`AAVE_V3_ETHEREUM_PARAMS`) and its ETH-correlated E-mode; Spark
 * has its own governance values on mainnet, not modelled.
 */
export const AAVE_MARKETS_PLAN: readonly { readonly protocol: string; readonly reserves: readonly string[] }[] = [
  { protocol: 'aave', reserves: ['USDC', 'USDT', 'DAI', 'WETH', 'WBTC', 'wstETH', 'LINK'] },
  { protocol: 'spark', reserves: ['DAI', 'USDC', 'WETH', 'wstETH', 'WBTC'] },
];

/** Assets of the ETH-correlated E-mode category (when reserves of the market). */
export const EMODE_ASSETS = ['WETH', 'wstETH'];

/** A reserve's parameters in the world's markets (Aave V3 Ethereum's), if the plan has any for it. */
export function reserveParams(symbol: string): AaveReserveParams | undefined {
  return (AAVE_V3_ETHEREUM_PARAMS as Record<string, AaveReserveParams>)[symbol];
}

/** A market queued on the genesis block, with the specs of its reserves (to check the mined market against). */
export interface QueuedWorldAaveMarket {
  readonly queued: QueuedAaveMarket;
  readonly specs: readonly AaveReserveSpec[];
}

/** Queues the Aave-design markets on the genesis block (after the tokens and every price source exist). */
export function queueAaveMarkets(
  session: ChainSession,
  deployer: Agent,
  tokens: readonly ManifestToken[],
  priceSources: ReadonlyMap<string, Address>,
): QueuedWorldAaveMarket[] {
  const aave: { queued: QueuedAaveMarket; specs: AaveReserveSpec[] }[] = [];
  for (const m of AAVE_MARKETS_PLAN) {
    const listing = registry
      .lendingMarkets()
      .find((r) => r.protocol.id === m.protocol && r.market.chain === 'ethereum' && r.market.design === 'aave-v3');
    if (!listing) continue;
    const listed = new Set(listing.market.assets.map((a) => a.symbol));
    const specs: AaveReserveSpec[] = [];
    for (const symbol of m.reserves) {
      const token = tokens.find((t) => t.symbol === symbol);
      const params = reserveParams(symbol);
      const priceSource = priceSources.get(symbol);
      if (!token || !params || !priceSource || !listed.has(symbol)) continue;
      specs.push({ ...params, token: token.address, symbol, decimals: token.decimals, priceSource });
    }
    const eModeAssets = EMODE_ASSETS.filter((s) => specs.some((r) => r.symbol === s));
    const queued = queueAaveMarket(session, deployer, {
      protocol: m.protocol,
      reserves: specs,
      eModes: eModeAssets.length === 2 ? [{ ...AAVE_ETH_EMODE, assets: eModeAssets }] : [],
    });
    aave.push({ queued, specs });
  }
  return aave;
}
