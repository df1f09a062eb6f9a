import { bookEntry, bookKey, bookToken } from '../../registry/address-book.js';
import type { AreaEnv } from '../kit/module.js';
import type { LendingMarketTarget } from '../lending/public.js';

/**
 * A liquid staking token whose exposure is analysed: the registry's entry at the token address of the address
 * book, in every lending market (of the lending area's targets) that lists it. Its DEX pools are discovered: the
 * pools the DEX area found that hold the token.
 */
export interface LiquidStakingTarget {
  readonly chain: string;
  /** Registry protocol id (`lido`). */
  readonly protocol: string;
  readonly symbol: string;
  /** Lowercase token address. The exchange rate is `stEthPerToken()` (1e18 scale), wstETH's interface. */
  readonly token: string;
  readonly decimals: number;
  /** Lowercase address of the underlying on chain (WETH). */
  readonly underlying: string;
  /** Lending markets in which the token is a listed asset. */
  readonly lendingMarkets: readonly { protocol: string; version: string; baseAsset: string }[];
}

export function liquidStakingTargets(
  env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>,
  lending: readonly LendingMarketTarget[],
): LiquidStakingTarget[] {
  const evm = env.sources.get('evm');
  return env.registry.liquidStakingProtocols().flatMap((p): LiquidStakingTarget[] => {
    const lst = p.liquidStaking!;
    const chain = lst.token.chain;
    if (!evm?.has(chain)) return [];
    const entry = bookEntry(env.book, chain, bookKey.liquidStaking(p.id));
    const underlying = bookToken(env.book, chain, lst.underlying.symbol);
    if (!entry || !underlying) return [];
    return [
      {
        chain,
        protocol: p.id,
        symbol: lst.token.symbol,
        token: entry.address,
        decimals: lst.token.decimals,
        underlying: underlying.address,
        lendingMarkets: lending
          .filter((m) => m.chain === chain && m.assets.some((a) => a.address === entry.address))
          .map((m) => ({ protocol: m.protocol, version: m.version, baseAsset: m.baseAsset })),
      },
    ];
  });
}

/** The lending markets in which some of the tokens is analysed. */
export function marketsOfTokens(
  lsts: readonly LiquidStakingTarget[],
  lending: readonly LendingMarketTarget[],
): LendingMarketTarget[] {
  return lending.filter((m) =>
    lsts.some(
      (l) =>
        l.chain === m.chain &&
        l.lendingMarkets.some(
          (x) => x.protocol === m.protocol && x.version === m.version && x.baseAsset === m.baseAsset,
        ),
    ),
  );
}

/** A token with the DEX pools that hold it (found in the DEX area's facts when the computation runs). */
export interface LiquidStakingToken extends LiquidStakingTarget {
  /** Lowercase pool addresses by exchange. */
  readonly dexPools: readonly { protocol: string; version: string; pool: string }[];
}
