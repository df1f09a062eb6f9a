import { CHAINS } from './chains/index.js';
import { CHANNELS } from './channels/index.js';
import { PROTOCOLS } from './protocols/index.js';
import { TOKENS } from './tokens.js';
import type {
  ChainEntry,
  ChannelEntry,
  DexDeployment,
  DexPoolRef,
  LendingMarket,
  OracleFeed,
  ProtocolEntry,
  TokenRef,
} from './types.js';

export type * from './types.js';

export function lower(address: string): string {
  return address.toLowerCase();
}

export interface DexDeploymentRef {
  readonly protocol: ProtocolEntry;
  readonly deployment: DexDeployment;
}

export interface DexPoolLookup extends DexDeploymentRef {
  readonly pool: DexPoolRef;
}

export interface LendingMarketRef {
  readonly protocol: ProtocolEntry;
  readonly market: LendingMarket;
}

export interface SocialSubject {
  /** The id used in `/scores/social/<channel>/<protocol_id>`. */
  readonly protocolId: string;
  readonly name: string;
  /** The registry entity it names: a protocol or a chain. */
  readonly kind: 'protocol' | 'chain';
  readonly entityId: string;
}

export interface DevelopmentSubject {
  readonly kind: 'protocol' | 'chain';
  readonly id: string;
  readonly name: string;
  readonly orgs: readonly string[];
  readonly repos: readonly string[];
}

export interface OracleFeedRef {
  readonly oracle: ProtocolEntry;
  readonly feed: OracleFeed;
}

/**
 * Read-only queries over the supported entities. Built once from the data files; every lookup key is the
 * canonical path form (lowercase addresses).
 */
export class Registry {
  private readonly protocolById: ReadonlyMap<string, ProtocolEntry>;
  private readonly chainById: ReadonlyMap<string, ChainEntry>;
  private readonly poolByAddress: ReadonlyMap<string, DexPoolLookup>;

  constructor(
    readonly protocols: readonly ProtocolEntry[],
    readonly chains: readonly ChainEntry[],
    readonly channels: readonly ChannelEntry[],
    private readonly knownTokens: readonly TokenRef[] = [],
  ) {
    this.protocolById = new Map(protocols.map((p) => [p.id, p]));
    this.chainById = new Map(chains.map((c) => [c.id, c]));
    const pools = new Map<string, DexPoolLookup>();
    for (const { protocol, deployment } of this.dexDeployments()) {
      for (const pool of deployment.pools) pools.set(lower(pool.address), { protocol, deployment, pool });
    }
    this.poolByAddress = pools;
  }

  protocol(id: string): ProtocolEntry | undefined {
    return this.protocolById.get(id);
  }

  chain(id: string): ChainEntry | undefined {
    return this.chainById.get(id);
  }

  channel(id: string): ChannelEntry | undefined {
    return this.channels.find((c) => c.id === id);
  }

  /** Tokens with a registry address (on-chain symbol case), on every chain. */
  tokens(): readonly TokenRef[] {
    return this.knownTokens;
  }

  /** Protocols with a token, for tokenomics. */
  tokenomicsProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => p.token !== undefined);
  }

  dexDeployments(): DexDeploymentRef[] {
    return this.protocols.flatMap((protocol) => (protocol.dex ?? []).map((deployment) => ({ protocol, deployment })));
  }

  dexDeployment(chain: string, protocol: string, version: string): DexDeploymentRef | undefined {
    return this.dexDeployments().find(
      (d) => d.protocol.id === protocol && d.deployment.chain === chain && d.deployment.version === version,
    );
  }

  dexProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => (p.dex?.length ?? 0) > 0);
  }

  /** A pool named in the registry (ingestion adds discovered pools through the catalog). */
  dexPool(address: string): DexPoolLookup | undefined {
    return this.poolByAddress.get(lower(address));
  }

  lendingMarkets(): LendingMarketRef[] {
    return this.protocols.flatMap((protocol) => (protocol.lending ?? []).map((market) => ({ protocol, market })));
  }

  lendingMarket(chain: string, protocol: string, version: string, baseAsset: string): LendingMarketRef | undefined {
    return this.lendingMarkets().find(
      (m) =>
        m.protocol.id === protocol &&
        m.market.chain === chain &&
        m.market.version === version &&
        m.market.baseAsset === baseAsset,
    );
  }

  lendingProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => (p.lending?.length ?? 0) > 0);
  }

  lendingAsset(ref: LendingMarketRef, tokenAddress: string): TokenRef | undefined {
    return ref.market.assets.find((a) => lower(a.address) === lower(tokenAddress));
  }

  liquidStakingProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => p.liquidStaking !== undefined);
  }

  /** Lending markets in which some liquid staking token's exposure is tracked. */
  lstLendingMarkets(): { chain: string; protocol: string; version: string; baseAsset: string; lst: ProtocolEntry }[] {
    return this.liquidStakingProtocols().flatMap((lst) =>
      lst.liquidStaking!.lendingExposure.map((m) => ({ ...m, lst })),
    );
  }

  /** DEX pools in which some liquid staking token's exposure is tracked. */
  lstDexPools(): { chain: string; protocol: string; version: string; pool: string; lst: ProtocolEntry }[] {
    return this.liquidStakingProtocols().flatMap((lst) =>
      lst.liquidStaking!.dexExposure.flatMap((d) =>
        d.pools.map((pool) => ({ chain: d.chain, protocol: d.protocol, version: d.version, pool: lower(pool), lst })),
      ),
    );
  }

  derivativesProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => p.derivatives !== undefined);
  }

  stablecoinProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => p.stablecoin !== undefined);
  }

  securityProtocols(): ProtocolEntry[] {
    return this.protocols.filter((p) => p.security !== undefined);
  }

  oracles(): ProtocolEntry[] {
    return this.protocols.filter((p) => p.oracle !== undefined);
  }

  oracleFeed(oracle: string, pair: string): OracleFeedRef | undefined {
    const entry = this.protocol(oracle);
    const feed = entry?.oracle?.feeds.find((f) => f.pair === pair);
    return entry && feed ? { oracle: entry, feed } : undefined;
  }

  chainsByLayer(layer: 'l1' | 'l2'): ChainEntry[] {
    return this.chains.filter((c) => c.layer === layer);
  }

  /** Protocols and chains tracked on a community channel, by their social id. */
  socialSubjects(channel: string): SocialSubject[] {
    const key = channel as 'discord' | 'reddit';
    const subjects: SocialSubject[] = [];
    for (const p of this.protocols) {
      const id = p.social?.[key];
      if (id) subjects.push({ protocolId: id, name: p.name, kind: 'protocol', entityId: p.id });
    }
    for (const c of this.chains) {
      const id = c.social?.[key];
      if (id) subjects.push({ protocolId: id, name: c.name, kind: 'chain', entityId: c.id });
    }
    return subjects;
  }

  developmentSubjects(): DevelopmentSubject[] {
    const out: DevelopmentSubject[] = [];
    for (const p of this.protocols) {
      if (p.github) out.push({ kind: 'protocol', id: p.id, name: p.name, ...p.github });
    }
    for (const c of this.chains) {
      if (c.github) out.push({ kind: 'chain', id: c.id, name: c.name, ...c.github });
    }
    return out;
  }
}

export const registry = new Registry(PROTOCOLS, CHAINS, CHANNELS, TOKENS);
