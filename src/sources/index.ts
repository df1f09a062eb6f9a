/**
 * The source seam. A source is an adapter under `sources/<x>/` (a client with the shared retry policy and the
 * schemas of the payloads it accepts), an optional stand-in under `sandbox/standins/<x>/`, and one entry in the
 * runtime's list of sources (`runtime/sources.ts`). What a source hands the areas is its handle, declared here
 * once: areas receive every handle in one typed map and take the ones they read.
 */
import type { BeaconEndpoint } from './beacon/endpoint.js';
import type { BitcoinEndpoint } from './bitcoin/endpoint.js';
import type { CoingeckoEndpoint } from './coingecko/endpoint.js';
import type { DiscordEndpoint } from './discord/endpoint.js';
import type { DydxEndpoint } from './dydx/endpoint.js';
import type { EtherscanEndpoint } from './etherscan/endpoint.js';
import type { EvmChains } from './evm/chains.js';
import type { GithubEndpoint } from './github/endpoint.js';
import type { GmxOracleEndpoint } from './gmx-oracle/endpoint.js';
import type { RedditEndpoint } from './reddit/endpoint.js';
import type { SourcifyEndpoint } from './sourcify/endpoint.js';
import type { SynthetixEndpoint } from './synthetix/endpoint.js';

/** What each kind of source hands the areas. A new source adds one line. */
export interface SourceHandles {
  /** EVM chains over JSON-RPC: one shared `EvmSource` per chain. */
  readonly evm: EvmChains;
  /** GitHub's REST API (or its stand-in). */
  readonly github: GithubEndpoint;
  /** The Ethereum beacon node API (or its stand-in). */
  readonly beacon: BeaconEndpoint;
  /** Bitcoin Core's JSON-RPC (or its stand-in). */
  readonly bitcoin: BitcoinEndpoint;
  /** Discord's API v10 as a bot (or its stand-in). */
  readonly discord: DiscordEndpoint;
  /** Reddit's OAuth API (or its stand-in), app-only. */
  readonly reddit: RedditEndpoint;
  /** GMX v2's oracle keeper REST API (or its stand-in): tickers and tokens. */
  readonly gmx_oracle: GmxOracleEndpoint;
  /** The Synthetix exchange's info API (or its stand-in). */
  readonly synthetix: SynthetixEndpoint;
  /** dYdX v4's indexer REST API and its chain node's Cosmos REST (or their stand-in). */
  readonly dydx: DydxEndpoint;
  /** CoinGecko's API v3 (or its stand-in): coins' market data, tickers, exchanges, the global market. */
  readonly coingecko: CoingeckoEndpoint;
  /** Sourcify's API v2 (or its stand-in): verified contracts' standard-JSON inputs and match quality. */
  readonly sourcify: SourcifyEndpoint;
  /** Etherscan's API V2 (or its stand-in): `getsourcecode` (the fallback contract source) and `getcontractcreation`. */
  readonly etherscan: EtherscanEndpoint;
}

export type SourceKind = keyof SourceHandles;

/** The sources this process has, by kind. A kind that is absent has nothing configured: its jobs do not run. */
export class SourceMap {
  constructor(private readonly handles: Partial<SourceHandles> = {}) {}

  get<K extends SourceKind>(kind: K): SourceHandles[K] | undefined {
    return this.handles[kind];
  }

  has(kind: SourceKind): boolean {
    return this.handles[kind] !== undefined;
  }

  kinds(): SourceKind[] {
    return (Object.keys(this.handles) as SourceKind[]).filter((k) => this.handles[k] !== undefined);
  }

  /** This map without the handles of these kinds. */
  without(kinds: readonly SourceKind[]): SourceMap {
    const handles: Partial<SourceHandles> = { ...this.handles };
    for (const k of kinds) delete handles[k];
    return new SourceMap(handles);
  }

  /** This map with one more (or another) handle. */
  with<K extends SourceKind>(kind: K, handle: SourceHandles[K]): SourceMap {
    return new SourceMap({ ...this.handles, [kind]: handle });
  }
}

export const NO_SOURCES = new SourceMap();
