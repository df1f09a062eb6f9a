import { bookEntry, bookKey } from '../../../registry/address-book.js';
import type { AreaEnv } from '../../kit/module.js';

/**
 * A GMX v2 venue to read: the registry's derivatives entries of design `gmx-v2` on a chain this process has a
 * source for, at the address book's `derivatives/<protocol>/DataStore` and `derivatives/<protocol>/EventEmitter`
 * (production: the registry's addresses; the sandbox: its own deployment). Markets are discovered from there.
 */
export interface GmxTarget {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  /** The registry's listed pairs (`BASE-QUOTE`); the venue's figures cover every market, listed or not. */
  readonly pairs: readonly string[];
  /** Lowercase. */
  readonly dataStore: `0x${string}`;
  readonly eventEmitter: `0x${string}`;
  /** The EventEmitter's deployment block when the book knows it; else ingestion starts at a look-back. */
  readonly startBlock?: number | undefined;
}

export function gmxTargets(env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>): GmxTarget[] {
  const evm = env.sources.get('evm');
  return env.registry.derivativesProtocols().flatMap((p): GmxTarget[] => {
    const entry = p.derivatives!;
    if (entry.venue.design !== 'gmx-v2' || !evm?.has(entry.chain)) return [];
    const dataStore = bookEntry(env.book, entry.chain, bookKey.derivatives(p.id, 'DataStore'));
    const eventEmitter = bookEntry(env.book, entry.chain, bookKey.derivatives(p.id, 'EventEmitter'));
    if (!dataStore || !eventEmitter) return [];
    return [
      {
        protocol: p.id,
        chain: entry.chain,
        version: entry.version,
        pairs: entry.pairs,
        dataStore: dataStore.address.toLowerCase() as `0x${string}`,
        eventEmitter: eventEmitter.address.toLowerCase() as `0x${string}`,
        startBlock: eventEmitter.startBlock,
      },
    ];
  });
}
