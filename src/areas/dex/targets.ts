import { bookEntry, bookKey, bookToken } from '../../registry/address-book.js';
import { USD_ANCHOR_SYMBOLS } from '../../registry/feeds.js';
import type { AreaEnv } from '../kit/module.js';

/**
 * What the DEX area reads: the registry's exchange deployments of an AMM design the area decodes, on the chains
 * this process has an RPC endpoint for, at the factory addresses of the address book (the registry's on mainnet,
 * the sandbox's deployment in the sandbox). Pools are discovered from the factories' creation events.
 */
export interface DexTarget {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  readonly exchangeName: string;
  readonly design: 'uniswap-v2' | 'uniswap-v3';
  /** Lowercase factory address. */
  readonly factory: `0x${string}`;
  /** The factory's deployment block when the address book knows it; else ingestion starts at a look-back. */
  readonly startBlock?: number | undefined;
}

/** A USD stablecoin that anchors prices on a chain (docs/methodology/prices.md). */
export interface PriceAnchor {
  readonly chain: string;
  /** Lowercase token address. */
  readonly address: string;
  readonly symbol: string;
  readonly peg: 'USD';
}

export interface DexTargets {
  /** Chains with at least one deployment to read. */
  readonly chains: readonly string[];
  readonly deployments: readonly DexTarget[];
  readonly anchors: readonly PriceAnchor[];
}

export function dexTargets(env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>): DexTargets {
  const evm = env.sources.get('evm');
  const deployments: DexTarget[] = [];
  for (const { protocol, deployment } of env.registry.dexDeployments()) {
    if (!evm?.has(deployment.chain)) continue;
    if (deployment.design !== 'uniswap-v2' && deployment.design !== 'uniswap-v3') continue;
    const entry = bookEntry(env.book, deployment.chain, bookKey.dex(protocol.id, deployment.version));
    if (!entry) continue;
    deployments.push({
      chain: deployment.chain,
      protocol: protocol.id,
      version: deployment.version,
      exchangeName: deployment.exchangeName,
      design: deployment.design,
      factory: entry.address as `0x${string}`,
      startBlock: entry.startBlock,
    });
  }
  const chains = [...new Set(deployments.map((d) => d.chain))];
  const anchors: PriceAnchor[] = chains.flatMap((chain) =>
    [...USD_ANCHOR_SYMBOLS].flatMap((symbol) => {
      const token = bookToken(env.book, chain, symbol);
      return token ? [{ chain, address: token.address, symbol, peg: 'USD' as const }] : [];
    }),
  );
  return { chains, deployments, anchors };
}
