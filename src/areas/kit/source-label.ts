import type { AreaId } from '../../core/areas.js';
import type { SourceKind } from '../../sources/index.js';
import type { AreaEnv } from './module.js';

/**
 * The kinds of address-book entry (`bookKey`'s first segment) an area's jobs start from. In the sandbox an area's
 * label names only the chains whose book has one of them, where any has: the world's book names Arbitrum for GMX
 * alone, and the DEX reads nothing there. An area absent here (the blockchain area, whose documents name their chain)
 * names every chain of the book.
 */
const BOOK_KINDS: Partial<Record<AreaId, readonly string[]>> = {
  dex: ['dex'],
  lending: ['lending'],
  oracles: ['feed'],
  'liquid-staking': ['lst'],
  stablecoin: ['stablecoin'],
  derivatives: ['derivatives'],
};

/**
 * `meta.source`: where a computation's figures come from, one label per source the area read, joined by `, `
 * (docs/vocabulary.md):
 * - an EVM chain: `<chain>:<chain_id>` (`ethereum:1`), `sandbox:<chain>:<chain_id>` (`sandbox:ethereum:31337`) when
 *   the chain is the sandbox world's (in the sandbox, only the chains its address book names);
 * - GitHub: `github`, or `sandbox:github` when the sandbox's stand-in serves it; the beacon API likewise (`beacon`);
 * - Bitcoin Core's RPC: `bitcoin`, or `sandbox:bitcoin:regtest` when the sandbox's stand-in (a regtest chain) serves it;
 * - Discord and Reddit: `discord`, `reddit`, or `sandbox:discord`, `sandbox:reddit` from the sandbox's stand-ins;
 * - any other source (GMX's oracle keeper, Synthetix, …) its own words (`gmx_oracle`, `sandbox:synthetix`), by kind.
 * Undefined when the area read none of them (its own description stays).
 */
export function sourceLabel(env: AreaEnv, kinds: Iterable<SourceKind>, area?: AreaId): string | undefined {
  const labels: string[] = [];
  const read = new Set(kinds);
  if (read.has('evm')) {
    const sandbox = env.book.origin === 'sandbox';
    // The book's chains with an entry of the area's kinds (none: every chain of the book, as before any entry).
    const kindsOf = area === undefined ? undefined : BOOK_KINDS[area];
    const own = new Set(
      Object.entries(env.book.chains)
        .filter(([, b]) => kindsOf && Object.keys(b.entries).some((k) => kindsOf.includes(k.split('/')[0]!)))
        .map(([c]) => c),
    );
    for (const chain of env.sources.get('evm')?.ids ?? []) {
      // The sandbox also serves chains its book has nothing on (its layer-2 chains): the areas that read the book's
      // entry points read none of them.
      if (sandbox && !env.book.chains[chain]) continue;
      if (sandbox && own.size && !own.has(chain)) continue;
      const chainId = env.book.chains[chain]?.chainId ?? env.registry.chain(chain)?.evmChainId;
      labels.push(`${sandbox ? 'sandbox:' : ''}${chain}${chainId === undefined ? '' : `:${chainId}`}`);
    }
  }
  // Every other source names itself (its definition's label, `sandbox:` first from the sandbox's stand-in): the
  // first sources in their fixed order, any later one (the derivatives venues') after them by kind.
  const fixed = ['github', 'bitcoin', 'beacon', 'discord', 'reddit'] as const;
  const later = [...read].filter((k) => k !== 'evm' && !(fixed as readonly SourceKind[]).includes(k)).sort();
  for (const kind of [...fixed, ...later] as Exclude<SourceKind, 'evm'>[]) {
    const handle = read.has(kind) ? env.sources.get(kind) : undefined;
    if (handle) labels.push(handle.source);
  }
  return labels.length ? labels.join(', ') : undefined;
}

/**
 * The label of one EVM chain, and of the beacon API with it when `beacon` (the same words as `sourceLabel`), for a
 * computation whose documents each come from one chain (the blockchain area's EVM part names it as its `DocumentSet`'s
 * `source`, which the part's label then leaves as it is): in the sandbox also a chain its
 * address book does not name (its layer-2 chains), with the registry's chain id.
 */
export function chainSourceLabel(env: AreaEnv, chain: string, options: { beacon?: boolean } = {}): string {
  const sandbox = env.book.origin === 'sandbox';
  const chainId = env.book.chains[chain]?.chainId ?? env.registry.chain(chain)?.evmChainId;
  const labels = [`${sandbox ? 'sandbox:' : ''}${chain}${chainId === undefined ? '' : `:${chainId}`}`];
  const beacon = options.beacon ? env.sources.get('beacon') : undefined;
  if (beacon) labels.push(beacon.source);
  return labels.join(', ');
}

/** Whether a `meta.source` names the sandbox (every label of it does, or one of them). */
export const isSandboxSource = (source: string): boolean => source.split(', ').some((s) => s.startsWith('sandbox:'));
