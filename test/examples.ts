import { PATHS } from '../src/areas/index.js';
import { compilePath, documentPath, fillTemplate } from '../src/paths/compile.js';
import type { PathDef } from '../src/paths/types.js';
import { registry } from '../src/registry/index.js';

/** A concrete, supported entity for every path of the table, taken from the registry (not hard-coded). */
export function exampleValues(def: PathDef): Record<string, string> {
  const r = registry;
  const dex = r.dexDeployments()[0]!;
  const pool = r.dexDeployments().flatMap((d) => d.deployment.pools)[0]!;
  const lending = r.lendingMarkets()[0]!;
  const lst = r.lstLendingMarkets()[0]!;
  const derivatives = r.derivativesProtocols()[0]!;
  const stable = r.stablecoinProtocols()[0]!;
  const security = r.securityProtocols()[0]!;
  const oracle = r.oracles()[0]!;
  const devProtocol = r.developmentSubjects().find((s) => s.kind === 'protocol')!;
  const devChain = r.developmentSubjects().find((s) => s.kind === 'chain')!;
  const lower = def.letterCase === 'lower';
  const base: Record<string, string> = {
    page_size: '3',
    page_skip: '1',
    flag: 'true',
    l1_chain: r.chainsByLayer('l1')[0]!.id,
    l2_chain: r.chainsByLayer('l2')[0]!.id,
    oracle: oracle.id,
    channel: r.channels[0]!.id,
  };
  switch (def.area) {
    case 'tokenomics':
      return { ...base, protocol: r.tokenomicsProtocols()[0]!.id };
    case 'dex':
      return {
        ...base,
        chain: dex.deployment.chain,
        protocol: dex.protocol.id,
        version: dex.deployment.version,
        pool_address: pool.address.toLowerCase(),
      };
    case 'lending':
      return {
        ...base,
        chain: lending.market.chain,
        protocol: lending.protocol.id,
        version: lower ? lending.market.version.toLowerCase() : lending.market.version,
        base_asset: lower ? lending.market.baseAsset.toLowerCase() : lending.market.baseAsset,
        token_address: lending.market.assets[0]!.address.toLowerCase(),
      };
    case 'liquid-staking':
      return {
        ...base,
        chain: lst.chain,
        protocol: lst.protocol,
        version: lst.version,
        base_asset: lst.baseAsset,
        pool_address: r.lstDexPools()[0]!.pool,
      };
    case 'derivatives':
      return { ...base, protocol: derivatives.id, pair: derivatives.derivatives!.pairs[0]! };
    case 'blockchain':
      return base;
    case 'stablecoin':
      return { ...base, protocol: stable.id, chain: stable.stablecoin!.chains[0]! };
    case 'security':
      return { ...base, protocol: security.id, chain: security.security!.chains[0]! };
    case 'community':
      return { ...base, protocol: r.socialSubjects(base.channel!)[0]!.protocolId };
    case 'development':
      return { ...base, protocol: devProtocol.id, chain: devChain.id };
    case 'oracles':
      return { ...base, pair: oracle.oracle!.feeds[0]!.pair };
  }
}

export interface Example {
  readonly def: PathDef;
  readonly values: Record<string, string>;
  readonly path: string;
  readonly documentPath: string;
}

export const EXAMPLES: readonly Example[] = PATHS.map((def) => {
  const values = exampleValues(def);
  return {
    def,
    values,
    path: fillTemplate(def.template, values),
    documentPath: documentPath(compilePath(def), values),
  };
});
