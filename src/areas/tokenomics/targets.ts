import { bookKey, bookToken } from '../../registry/address-book.js';
import {
  TOKEN_LABEL_CATEGORIES,
  TOKEN_LABEL_KINDS,
  type TokenDeclaration,
  type TokenLabelCategory,
  type TokenLabelKind,
} from '../../registry/types.js';
import type { DexTarget, PoolFact } from '../dex/public.js';
import type { AreaEnv } from '../kit/module.js';

/**
 * What the tokenomics area reads: the token of each registry protocol that has one, on the chains this process has
 * an RPC endpoint for, at the address book's address (the registry's on mainnet, the sandbox's deployment in the
 * sandbox), and the addresses the book labels for it. One code path for production and sandbox.
 *
 * Labels are book entries under `tokenomics/<protocol>/<category>/<kind>/<label>` (`bookKey.tokenomics`): the treasury,
 * the vesting and distributor contracts, exchange wallets, burn addresses, and on mainnet the canonical L2 bridges'
 * L1 escrows (the registry's chains, `l1BridgeEscrows`). DEX pools are not in the book: every pool the DEX area
 * discovered from the book's factories that pairs the token is labelled `dex_pool` when the records are computed
 * (`withPoolLabels`), on mainnet and in the sandbox alike. The token's own entry
 * `tokenomics/<protocol>/token`, where the book has one, gives its deployment block: the holder replay starts
 * there, else at block 0 (a replay that starts later would miss balances; a look-back is never used for holders).
 */

export const LABEL_CATEGORIES = TOKEN_LABEL_CATEGORIES;
export type LabelCategory = TokenLabelCategory;
export const LABEL_KINDS = TOKEN_LABEL_KINDS;
export type LabelKind = TokenLabelKind;

export interface TokenLabel {
  /** Lowercase. */
  readonly address: string;
  readonly category: LabelCategory;
  readonly kind: LabelKind;
  /** A short slug (`team-1`, `airdrop`). */
  readonly label: string;
  /**
   * Where the label comes from: `address-book:sandbox`, `address-book:registry`, or for a DEX pool the DEX area's
   * discovery (`dex:uniswap/V2 factory 0x… (address-book:registry)`).
   */
  readonly source: string;
}

export interface TokenTarget {
  readonly chain: string;
  /** Registry id of the protocol whose token it is. */
  readonly protocol: string;
  readonly symbol: string;
  /** Lowercase. */
  readonly address: `0x${string}`;
  readonly decimals: number;
  /** The registry's CoinGecko id of the token (`TokenRef.coingeckoId`), when it has one: its market data. */
  readonly coingeckoId?: string;
  /** The token's deployment block when the book knows it; else 0. */
  readonly startBlock: number;
  readonly labels: readonly TokenLabel[];
  /** The token's declared allocation (the book's: the registry's published one, the sandbox world's own), or null. */
  readonly declaration: TokenDeclaration | null;
}

/** A book key's label parts, or undefined for another key (or one whose category or kind this area does not know). */
export function parseLabelKey(
  protocol: string,
  key: string,
): { category: LabelCategory; kind: LabelKind; label: string } | undefined {
  const parts = key.split('/');
  if (parts.length !== 5 || parts[0] !== 'tokenomics' || parts[1] !== protocol) return undefined;
  const [, , category, kind, label] = parts as [string, string, string, string, string];
  if (!(LABEL_CATEGORIES as readonly string[]).includes(category)) return undefined;
  if (!(LABEL_KINDS as readonly string[]).includes(kind)) return undefined;
  return { category: category as LabelCategory, kind: kind as LabelKind, label };
}

export function tokenomicsTargets(env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>): TokenTarget[] {
  const evm = env.sources.get('evm');
  const out: TokenTarget[] = [];
  for (const protocol of env.registry.tokenomicsProtocols()) {
    const ref = protocol.token!;
    if (!evm?.has(ref.chain)) continue;
    const chainBook = env.book.chains[ref.chain];
    const own = chainBook?.entries[bookKey.tokenomicsToken(protocol.id)];
    const token = bookToken(env.book, ref.chain, ref.symbol);
    const address = own?.address ?? token?.address;
    if (!address) continue;
    const labels: TokenLabel[] = [];
    for (const [key, entry] of Object.entries(chainBook?.entries ?? {})) {
      const parsed = parseLabelKey(protocol.id, key);
      if (parsed) labels.push({ address: entry.address, ...parsed, source: `address-book:${env.book.origin}` });
    }
    labels.sort((a, b) => a.address.localeCompare(b.address));
    out.push({
      chain: ref.chain,
      protocol: protocol.id,
      symbol: ref.symbol,
      address: address as `0x${string}`,
      decimals: token?.decimals ?? ref.decimals,
      ...(ref.coingeckoId ? { coingeckoId: ref.coingeckoId } : {}),
      startBlock: own?.startBlock ?? 0,
      labels,
      declaration: chainBook?.declarations?.[protocol.id] ?? null,
    });
  }
  return out;
}

/**
 * The DEX pools that pair the token, as `dex_pool` labels: the pools of the token's chain created by one of the DEX
 * area's deployments (its factories, from the same address book) whose token0 or token1 is the token. A pool the
 * book already labels keeps the book's label.
 */
export function dexPoolLabels(
  target: Pick<TokenTarget, 'chain' | 'address' | 'labels'>,
  pools: readonly PoolFact[],
  deployments: readonly Pick<DexTarget, 'chain' | 'protocol' | 'version' | 'factory'>[],
  origin: string,
): TokenLabel[] {
  const token = target.address.toLowerCase();
  const labelled = new Set(target.labels.map((l) => l.address));
  const out = new Map<string, TokenLabel>();
  for (const pool of pools) {
    if (pool.chain !== target.chain || (pool.token0 !== token && pool.token1 !== token)) continue;
    if (labelled.has(pool.address)) continue;
    const d = deployments.find((x) => x.chain === pool.chain && x.factory.toLowerCase() === pool.factory);
    if (!d) continue;
    out.set(pool.address, {
      address: pool.address,
      category: 'dex_pool',
      kind: 'pool',
      label: `${d.protocol}-${d.version.toLowerCase()}-${pool.address.slice(0, 10)}`,
      source: `dex:${d.protocol}/${d.version} factory ${d.factory} (address-book:${origin})`,
    });
  }
  return [...out.values()];
}

/** The target with the given pool labels added to the book's (sorted by address, as `tokenomicsTargets` sorts). */
export function withPoolLabels(target: TokenTarget, pools: readonly TokenLabel[]): TokenTarget {
  if (!pools.length) return target;
  const labels = [...target.labels, ...pools].sort((a, b) => a.address.localeCompare(b.address));
  return { ...target, labels };
}
