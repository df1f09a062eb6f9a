import type { AreaEnv } from '../../kit/module.js';

/**
 * A Synthetix exchange to read: the registry's derivatives entries of design `synthetix-exchange`, when this process
 * has the Synthetix source (`SYNTHETIX_API_URL`, or the sandbox's stand-in). Markets are discovered from its info API.
 */
export interface SynthetixTarget {
  readonly protocol: string;
  /** The chain the exchange settles on (the source's, which the registry's entry names too). */
  readonly chain: string;
  readonly version: string;
  /** The registry's served pairs (`BASE-USD`); the venue's figures cover every market, listed or not. */
  readonly pairs: readonly string[];
}

export function synthetixTargets(env: Pick<AreaEnv, 'registry' | 'sources'>): SynthetixTarget[] {
  const source = env.sources.get('synthetix');
  if (!source) return [];
  return env.registry.derivativesProtocols().flatMap((p): SynthetixTarget[] => {
    const entry = p.derivatives!;
    if (entry.venue.design !== 'synthetix-exchange' || entry.chain !== source.chain) return [];
    return [{ protocol: p.id, chain: entry.chain, version: entry.version, pairs: entry.pairs }];
  });
}
