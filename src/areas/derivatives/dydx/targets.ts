import type { AreaEnv } from '../../kit/module.js';

/**
 * A dYdX v4 venue to read: the registry's derivatives entries of design `dydx-v4`, when this process has the dYdX
 * source (its indexer and, for TVL, its node's REST). Markets are discovered from the indexer's list.
 */
export interface DydxTarget {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  /** The registry's served pairs (`BASE-USD`, the indexer's tickers); the figures cover every market. */
  readonly pairs: readonly string[];
}

export function dydxTargets(env: Pick<AreaEnv, 'registry' | 'sources'>): DydxTarget[] {
  if (!env.sources.get('dydx')) return [];
  return env.registry.derivativesProtocols().flatMap((p): DydxTarget[] => {
    const entry = p.derivatives!;
    if (entry.venue.design !== 'dydx-v4') return [];
    return [{ protocol: p.id, chain: entry.chain, version: entry.version, pairs: entry.pairs }];
  });
}
