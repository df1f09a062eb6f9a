import { bookEntry, bookKey, bookToken } from '../../registry/address-book.js';
import type { AreaEnv } from '../kit/module.js';

export interface LendingAssetTarget {
  /** Lowercase token address. */
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

/**
 * A lending market `(chain, protocol, version, base asset)` to read, at the pool address of the address book.
 * Aave-design markets are read from their Pool alone (reserves, tokens, oracle and configuration come from the
 * chain); a Morpho Blue view is the singleton plus the isolated markets, discovered from its `CreateMarket` logs,
 * that lend the base asset against one of the listed assets.
 */
export interface LendingMarketTarget {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  /** Uppercase symbol, as in the registry. */
  readonly baseAsset: string;
  readonly marketName: string;
  readonly design: 'aave-v3' | 'morpho-blue';
  /** Lowercase: the Aave Pool (proxy), the Morpho singleton. */
  readonly pool: `0x${string}`;
  /** The registry's listed assets that the address book locates on the chain. */
  readonly assets: readonly LendingAssetTarget[];
  /** The pool's deployment block when the address book knows it; else ingestion starts at a look-back. */
  readonly startBlock?: number | undefined;
}

export function lendingTargets(env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>): LendingMarketTarget[] {
  const evm = env.sources.get('evm');
  return env.registry.lendingMarkets().flatMap(({ protocol, market }): LendingMarketTarget[] => {
    if (!evm?.has(market.chain)) return [];
    if (market.design !== 'aave-v3' && market.design !== 'morpho-blue') return [];
    const entry = bookEntry(env.book, market.chain, bookKey.lending(protocol.id, market.version, market.baseAsset));
    if (!entry) return [];
    const assets = market.assets.flatMap((a) => {
      const token = bookToken(env.book, market.chain, a.symbol);
      return token ? [{ address: token.address, symbol: a.symbol, decimals: token.decimals }] : [];
    });
    return [
      {
        chain: market.chain,
        protocol: protocol.id,
        version: market.version,
        baseAsset: market.baseAsset,
        marketName: market.marketName,
        design: market.design,
        pool: entry.address as `0x${string}`,
        assets,
        startBlock: entry.startBlock,
      },
    ];
  });
}
