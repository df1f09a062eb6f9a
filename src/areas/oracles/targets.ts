import { bookEntry, bookKey, bookToken } from '../../registry/address-book.js';
import { feedBaseSymbol } from '../../registry/feeds.js';
import type { AreaEnv } from '../kit/module.js';

/**
 * A price feed to read: the registry's feed (pair, heartbeat, deviation threshold) at the proxy address of the
 * address book. A proxy emits no events: ingestion resolves the aggregator behind it (`aggregator()`) and reads
 * that contract's rounds, on mainnet and in the sandbox alike.
 */
export interface OracleFeedTarget {
  readonly chain: string;
  readonly oracle: 'chainlink';
  /** `BASE-QUOTE`, uppercase, as the registry names it. */
  readonly pair: string;
  /** Lowercase address of the feed's proxy. */
  readonly address: `0x${string}`;
  readonly heartbeatSeconds: number;
  readonly deviationThresholdPct: number;
  /** Lowercase address of the token whose DEX price the feed is compared with (ETH-USD: WETH), if any. */
  readonly baseToken: string | null;
  /** The proxy's deployment block when the address book knows it; else ingestion starts at a look-back. */
  readonly startBlock?: number | undefined;
  /** The liquid staking collateral the feed prices (the registry's LSTs), for the pair listing. */
  readonly pricesCollateral?: readonly PricedCollateral[];
}

/**
 * A liquid staking token (or its underlying) that a feed prices: `lst` when the feed's base is the token the LST's
 * exchange rate is expressed in (STETH-USD prices wstETH × stEthPerToken), `underlying` when it is the LST's
 * underlying (ETH-USD prices the WETH a wstETH loop borrows).
 */
export interface PricedCollateral {
  readonly protocol: string;
  readonly symbol: string;
  readonly token_address: string | null;
  readonly role: 'lst' | 'underlying';
  readonly via: string;
}

function pricedCollateral(
  env: Pick<AreaEnv, 'registry' | 'book'>,
  chain: string,
  base: string | undefined,
): PricedCollateral[] {
  if (!base) return [];
  const b = base.toUpperCase();
  return env.registry.liquidStakingProtocols().flatMap((p): PricedCollateral[] => {
    const lst = p.liquidStaking!;
    if (lst.token.chain !== chain) return [];
    const symbol = lst.token.symbol;
    const address = bookToken(env.book, chain, symbol)?.address ?? null;
    // A wrapped LST (wstETH) is priced by its rebasing token's feed (stETH) times its exchange rate.
    const unwrapped = symbol.toUpperCase().replace(/^W/, '');
    if (unwrapped === b && symbol.toUpperCase() !== b) {
      return [{ protocol: p.id, symbol, token_address: address, role: 'lst', via: 'answer × exchange rate' }];
    }
    if (symbol.toUpperCase() === b)
      return [{ protocol: p.id, symbol, token_address: address, role: 'lst', via: 'answer' }];
    if (lst.underlying.symbol.toUpperCase() === b) {
      return [
        {
          protocol: p.id,
          symbol: lst.underlying.symbol,
          token_address: bookToken(env.book, chain, lst.underlying.symbol)?.address ?? null,
          role: 'underlying',
          via: 'answer',
        },
      ];
    }
    return [];
  });
}

export function oracleTargets(env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>): OracleFeedTarget[] {
  const evm = env.sources.get('evm');
  return env.registry.oracles().flatMap((oracle) =>
    oracle.id !== 'chainlink'
      ? []
      : (oracle.oracle?.feeds ?? []).flatMap((f): OracleFeedTarget[] => {
          if (!evm?.has(f.chain)) return [];
          const entry = bookEntry(env.book, f.chain, bookKey.feed(oracle.id, f.pair));
          if (!entry) return [];
          const symbol = feedBaseSymbol(f.pair);
          const token = symbol ? bookToken(env.book, f.chain, symbol) : undefined;
          return [
            {
              chain: f.chain,
              oracle: 'chainlink',
              pair: f.pair,
              address: entry.address as `0x${string}`,
              heartbeatSeconds: f.heartbeatSeconds,
              deviationThresholdPct: f.deviationThresholdPct,
              baseToken: token?.address ?? null,
              startBlock: entry.startBlock,
              pricesCollateral: pricedCollateral(env, f.chain, symbol),
            },
          ];
        }),
  );
}
