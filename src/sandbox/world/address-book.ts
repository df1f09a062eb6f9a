import type { AddressBook, BookEntry, BookToken } from '../../registry/address-book.js';
import { bookKey } from '../../registry/address-book.js';
import type { WorldManifest } from './manifest.js';

/**
 * What the sandbox world tells the service, and nothing more: the entry points it deployed, under the registry's
 * names (the same keys as the registry's own addresses give on mainnet), its tokens and its chain id. No start
 * blocks (ingestion uses the production look-back), no markets or pools (the service discovers them from the
 * entry points, as on mainnet).
 */
export function addressBookFromManifest(manifest: WorldManifest): AddressBook {
  const tokens: Record<string, BookToken> = {};
  for (const t of manifest.tokens) tokens[t.symbol] = { address: t.address.toLowerCase(), decimals: t.decimals };
  const entries: Record<string, BookEntry> = {};
  const at = (address: string): BookEntry => ({ address: address.toLowerCase() });
  for (const d of manifest.dex) entries[bookKey.dex(d.protocol, d.version)] = at(d.factory);
  for (const o of manifest.oracles ?? []) entries[bookKey.feed(o.oracle, o.pair)] = at(o.proxy);
  for (const m of manifest.lending?.aave ?? [])
    entries[bookKey.lending(m.protocol, m.version, m.baseAsset)] = at(m.pool);
  for (const m of manifest.lending?.morpho ?? []) {
    entries[bookKey.lending(m.protocol, m.version, m.baseAsset)] = at(m.morpho);
  }
  for (const l of manifest.liquidStaking ?? []) {
    entries[bookKey.liquidStaking(l.protocol)] = at(l.token);
    tokens[l.symbol] = { address: l.token.toLowerCase(), decimals: l.decimals };
  }
  if (manifest.liquity) {
    entries[bookKey.stablecoin(manifest.liquity.protocol)] = at(manifest.liquity.troveManager);
    tokens.LUSD = { address: manifest.liquity.lusd.toLowerCase(), decimals: 18 };
  }
  if (manifest.maker) entries[bookKey.stablecoin(manifest.maker.protocol)] = at(manifest.maker.chainlog);
  return { origin: 'sandbox', chains: { [manifest.chain]: { chainId: manifest.chainId, tokens, entries } } };
}
