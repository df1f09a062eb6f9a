/**
 * The address book: where the registry's entities live on the chains this process reads. It is the part of a
 * configuration that differs between deployments of the same protocols: on mainnet it is the registry's own
 * addresses; in the sandbox it is what the sandbox deployed. It holds entry points only (a factory, a lending
 * pool, a feed proxy, a token) and the numeric chain ids; whatever production discovers from an entry point
 * (pools, reserves, isolated markets, the aggregator behind a proxy) the areas discover in the sandbox too.
 *
 * Plain JSON, so that a configuration file can carry it.
 */
import { lower, type Registry } from './index.js';
import type { TokenDeclaration, TokenLabelCategory, TokenLabelKind } from './types.js';

export interface BookEntry {
  /** Lowercase address. */
  readonly address: string;
  /** Block of the contract's deployment, when known (ingestion starts there instead of a look-back). */
  readonly startBlock?: number;
}

export interface BookToken {
  /** Lowercase address. */
  readonly address: string;
  readonly decimals: number;
}

export interface ChainBook {
  /** EIP-155 chain id the node must report. */
  readonly chainId: number;
  /** Tokens by symbol, in their on-chain case (`wstETH`). */
  readonly tokens: Readonly<Record<string, BookToken>>;
  /** Entry points by key (`bookKey`). */
  readonly entries: Readonly<Record<string, BookEntry>>;
  /**
   * Declared allocations of the tokens on this chain, by the protocol whose token it is: the registry's published
   * ones on mainnet, the sandbox world's own in the sandbox.
   */
  readonly declarations?: Readonly<Record<string, TokenDeclaration>>;
}

export interface AddressBook {
  /** `registry`: the registry's addresses (mainnet); `sandbox`: the sandbox world's deployment. */
  readonly origin: 'registry' | 'sandbox';
  readonly chains: Readonly<Record<string, ChainBook>>;
}

/** Keys of entry points: what kind of entry, then the registry's names for it. */
export const bookKey = {
  dex: (protocol: string, version: string) => `dex/${protocol}/${version}`,
  lending: (protocol: string, version: string, baseAsset: string) => `lending/${protocol}/${version}/${baseAsset}`,
  feed: (oracle: string, pair: string) => `feed/${oracle}/${pair}`,
  liquidStaking: (protocol: string) => `lst/${protocol}`,
  /** A stablecoin protocol's entry point: MakerDAO's Chainlog, Liquity's TroveManager (the rest is read from it). */
  stablecoin: (protocol: string) => `stablecoin/${protocol}`,
  /** An on-chain derivatives venue's entry point by its contract name: GMX v2's `DataStore` and `EventEmitter`. */
  derivatives: (protocol: string, contract: 'DataStore' | 'EventEmitter') => `derivatives/${protocol}/${contract}`,
  /** A protocol's token, with its deployment block (where the tokenomics holder replay starts). */
  tokenomicsToken: (protocol: string) => `tokenomics/${protocol}/token`,
  /**
   * A labelled holder of a protocol's token (the protocol whose registry `token` it is): its category, what kind of
   * holder it is and a short label (`tokenomics/uniswap/team/treasury_vester/team-1`).
   */
  tokenomics: (protocol: string, category: TokenLabelCategory, kind: TokenLabelKind, label: string) =>
    `tokenomics/${protocol}/${category}/${kind}/${label}`,
} as const;

/** Categories and kinds of a token's labelled holders (`bookKey.tokenomics`): the registry's (types.ts). */
export type TokenomicsCategory = TokenLabelCategory;
export type TokenomicsKind = TokenLabelKind;

export const EMPTY_BOOK: AddressBook = { origin: 'registry', chains: {} };

export function bookEntry(book: AddressBook, chain: string, key: string): BookEntry | undefined {
  return book.chains[chain]?.entries[key];
}

/** A token by symbol: its exact on-chain case first, else any case (feed pairs and base assets are uppercase). */
export function bookToken(book: AddressBook, chain: string, symbol: string): BookToken | undefined {
  const tokens = book.chains[chain]?.tokens ?? {};
  if (tokens[symbol]) return tokens[symbol];
  const key = Object.keys(tokens).find((s) => s.toUpperCase() === symbol.toUpperCase());
  return key === undefined ? undefined : tokens[key];
}

/** The symbol of a token address in the book, or undefined. */
export function bookSymbol(book: AddressBook, chain: string, address: string): string | undefined {
  const tokens = book.chains[chain]?.tokens ?? {};
  const wanted = lower(address);
  return Object.keys(tokens).find((symbol) => tokens[symbol]!.address === wanted);
}

/** The registry's own addresses on the given chains (production). */
export function addressBookFromRegistry(registry: Registry, chains: readonly string[]): AddressBook {
  const out: Record<
    string,
    {
      chainId: number;
      tokens: Record<string, BookToken>;
      entries: Record<string, BookEntry>;
      declarations?: Record<string, TokenDeclaration>;
    }
  > = {};
  for (const id of chains) {
    const chain = registry.chain(id);
    if (chain?.family !== 'evm' || chain.evmChainId === undefined) continue;
    out[id] = { chainId: chain.evmChainId, tokens: {}, entries: {} };
  }
  const on = (chain: string) => out[chain];
  const entry = (address: string, startBlock?: number): BookEntry => ({
    address: lower(address),
    ...(startBlock !== undefined ? { startBlock } : {}),
  });
  for (const token of registry.tokens()) {
    const book = on(token.chain);
    if (book) book.tokens[token.symbol] = { address: lower(token.address), decimals: token.decimals };
  }
  for (const { protocol, deployment } of registry.dexDeployments()) {
    const book = on(deployment.chain);
    if (book && deployment.factory) {
      book.entries[bookKey.dex(protocol.id, deployment.version)] = entry(deployment.factory, deployment.startBlock);
    }
  }
  for (const { protocol, market } of registry.lendingMarkets()) {
    const book = on(market.chain);
    if (book) {
      book.entries[bookKey.lending(protocol.id, market.version, market.baseAsset)] = entry(
        market.poolAddress,
        market.startBlock,
      );
    }
  }
  for (const oracle of registry.oracles()) {
    for (const feed of oracle.oracle?.feeds ?? []) {
      const book = on(feed.chain);
      if (book) book.entries[bookKey.feed(oracle.id, feed.pair)] = entry(feed.address);
    }
  }
  for (const p of registry.liquidStakingProtocols()) {
    const token = p.liquidStaking!.token;
    const book = on(token.chain);
    if (book) book.entries[bookKey.liquidStaking(p.id)] = entry(token.address);
  }
  for (const p of registry.stablecoinProtocols()) {
    const s = p.stablecoin!;
    const book = on(s.token.chain);
    if (book) book.entries[bookKey.stablecoin(p.id)] = entry(s.entryPoint.address, s.entryPoint.startBlock);
  }
  for (const p of registry.derivativesProtocols()) {
    const { chain, venue } = p.derivatives!;
    const book = on(chain);
    if (book && venue.design === 'gmx-v2') {
      book.entries[bookKey.derivatives(p.id, 'DataStore')] = entry(venue.dataStore, venue.startBlock);
      book.entries[bookKey.derivatives(p.id, 'EventEmitter')] = entry(venue.eventEmitter, venue.startBlock);
    }
  }
  for (const p of registry.tokenomicsProtocols()) {
    const book = on(p.token!.chain);
    if (!book || !p.tokenomics) continue;
    book.entries[bookKey.tokenomicsToken(p.id)] = entry(p.token!.address, p.tokenomics.deployedBlock);
    for (const l of p.tokenomics.labels) {
      book.entries[bookKey.tokenomics(p.id, l.category, l.kind, l.label)] = entry(l.address);
    }
    // The canonical bridges' escrows of every L2 settling on the token's chain hold its bridged supply.
    for (const l2 of registry.chains) {
      if (l2.settlesOn !== p.token!.chain) continue;
      for (const e of l2.l1BridgeEscrows ?? []) {
        book.entries[bookKey.tokenomics(p.id, 'bridge', 'bridge', e.label)] = entry(e.address);
      }
    }
    if (p.tokenomics.declaration) {
      book.declarations = { ...(book.declarations ?? {}), [p.id]: p.tokenomics.declaration };
    }
  }
  return { origin: 'registry', chains: out };
}
