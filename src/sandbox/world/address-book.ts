import type { AddressBook, BookEntry, BookToken } from '../../registry/address-book.js';
import type { TokenDeclaration } from '../../registry/types.js';
import { PROTOCOLS, type SandboxProtocol } from '../protocols/index.js';
import type { WorldManifest } from './manifest.js';

/**
 * What the sandbox world tells the service, and nothing more: the entry points its protocols deployed, under the
 * registry's names (the same keys as the registry's own addresses give on mainnet), its tokens and its chain id,
 * per chain, and the declared allocations of the tokens it issued (the world's own, as a project publishes its). No
 * start blocks (ingestion uses the production look-back), no markets or pools (the service discovers
 * them from the entry points, as on mainnet). Each protocol names its own entries (its `addressBook`).
 */
export function addressBookFromManifest(
  manifest: WorldManifest,
  protocols: readonly SandboxProtocol[] = PROTOCOLS,
): AddressBook {
  return addressBookFromManifests([manifest], protocols);
}

/** The address book of several chains' worlds (the Ethereum world and the layer-2 chains' hosted protocols). */
export function addressBookFromManifests(
  manifests: readonly WorldManifest[],
  protocols: readonly SandboxProtocol[] = PROTOCOLS,
): AddressBook {
  const chains: Record<
    string,
    {
      chainId: number;
      tokens: Record<string, BookToken>;
      entries: Record<string, BookEntry>;
      declarations?: Record<string, TokenDeclaration>;
    }
  > = {};
  for (const manifest of manifests) {
    const chain = manifest.chain ?? 'ethereum';
    const tokens: Record<string, BookToken> = {};
    for (const t of manifest.tokens) tokens[t.symbol] = { address: t.address.toLowerCase(), decimals: t.decimals };
    const entries: Record<string, BookEntry> = {};
    const declarations: Record<string, TokenDeclaration> = {};
    for (const p of protocols) if (p.chain === chain) p.addressBook?.(manifest, { entries, tokens, declarations });
    chains[chain] = {
      chainId: manifest.chainId,
      tokens,
      entries,
      ...(Object.keys(declarations).length ? { declarations } : {}),
    };
  }
  return { origin: 'sandbox', chains };
}
