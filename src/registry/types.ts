/**
 * Supported entities as typed data. One file per protocol (`protocols/`), chain (`chains/`) and community
 * channel (`channels/`). Areas query the registry through `registry/index.ts`; logic never hard-codes lists.
 *
 * Conventions (checked by `registry.test.ts`):
 * - ids are canonical path forms: protocol ids are `[a-z0-9]+` (multi-word names joined), chain ids lowercase.
 * - addresses are written in EIP-55 checksum form in these files (so a typo fails the checksum test) and are
 *   lowercased by the registry for lookups and output.
 * - versions are `V<n>`, base assets and pair symbols uppercase.
 */

/** An EVM address as written in the registry files (EIP-55 checksummed). */
export type Address = `0x${string}`;

export type ChainFamily = 'evm' | 'bitcoin' | 'near';

export interface ChainEntry {
  /** Canonical chain id used in paths: `ethereum`, `arbitrum`, … */
  readonly id: string;
  readonly name: string;
  readonly family: ChainFamily;
  /** EIP-155 chain id for EVM chains. */
  readonly evmChainId?: number;
  /** Which blockchain analytics path serves it, if any: layer 1 or layer 2. */
  readonly layer?: 'l1' | 'l2';
  /** For an L2, the L1 it settles on. */
  readonly settlesOn?: string;
  /**
   * How ingestion learns which blocks are final (reorg safety: headers below are cached, walk-back points kept
   * above). `depth`: every block `finalityDepth` below the head. `tag`: the node's own `finalized` block
   * (`eth_getBlockByNumber("finalized")`), read once per ingest run; `finalityDepth` is then the fallback when the
   * node does not know the tag. Only EVM chains use `tag`.
   */
  readonly finality: 'depth' | 'tag';
  /** Blocks below the head after which a block is treated as final: the model (`depth`) or its fallback (`tag`). */
  readonly finalityDepth: number;
  /** Typical block interval in seconds (used to size block ranges). */
  readonly blockTimeSeconds: number;
  /** GitHub repositories of the chain's clients and specs (development area). */
  readonly github?: GithubRefs;
  /** Social ids per community channel, when the chain is tracked there. */
  readonly social?: SocialIds;
  /** For an L2: its canonical bridge's token escrows on the L1 (labelled `bridge` for every token on the L1). */
  readonly l1BridgeEscrows?: readonly L1BridgeEscrow[];
}

export interface TokenRef {
  readonly chain: string;
  readonly symbol: string;
  readonly address: Address;
  readonly decimals: number;
  readonly name?: string;
  /** The coin's id on CoinGecko (`uniswap`, `aave`, `chainlink`): its market data (`/coins/{id}`), where known. */
  readonly coingeckoId?: string;
}

export interface GithubRefs {
  /** Organisations whose public, non-fork repositories are tracked. */
  readonly orgs: readonly string[];
  /** Individual repositories `owner/name` tracked in addition (or instead). */
  readonly repos: readonly string[];
}

export interface SocialIds {
  readonly discord?: string;
  readonly reddit?: string;
}

/** The AMM design, which decides how the DEX area reads events and state. */
export type DexDesign = 'uniswap-v2' | 'uniswap-v3' | 'curve' | 'balancer-v2' | 'gmx-v2' | 'swaap-v2';

export interface DexPoolRef {
  readonly address: Address;
  readonly tokens: readonly string[];
  /** Fee in hundredths of a basis point (Uniswap V3 convention: 3000 = 0.30 %), when fixed. */
  readonly feeTier?: number;
}

export interface DexDeployment {
  readonly chain: string;
  /** `V2`, `V3`, … */
  readonly version: string;
  readonly exchangeName: string;
  readonly design: DexDesign;
  /** Factory (or vault / registry) that creates the pools, when pools are discovered from it. */
  readonly factory?: Address;
  /** Block from which to index. */
  readonly startBlock?: number;
  /** Well-known pools (discovered pools are added by ingestion). */
  readonly pools: readonly DexPoolRef[];
}

export type LendingDesign = 'aave-v3' | 'compound-v3' | 'morpho-blue';

export interface LendingMarket {
  readonly chain: string;
  readonly version: string;
  /** The market's base asset symbol (uppercase): Aave's Ethereum market is USDC-based in the legacy API. */
  readonly baseAsset: string;
  readonly marketName: string;
  readonly design: LendingDesign;
  /** The market's main contract: Aave Pool, Compound Comet, Morpho singleton. */
  readonly poolAddress: Address;
  /** Listed assets (reserves or collaterals); the base asset is one of them. */
  readonly assets: readonly TokenRef[];
  readonly startBlock?: number;
}

export interface LiquidStakingEntry {
  readonly token: TokenRef;
  /** The asset it stakes (ETH → WETH on chain). */
  readonly underlying: TokenRef;
  /** Lending markets `(chain, protocol, version, base asset)` in which its exposure is tracked. */
  readonly lendingExposure: readonly { chain: string; protocol: string; version: string; baseAsset: string }[];
  /** DEX pools in which its exposure is tracked. */
  readonly dexExposure: readonly { chain: string; protocol: string; version: string; pools: readonly Address[] }[];
}

export interface DerivativesEntry {
  readonly chain: string;
  readonly version: string;
  /** Trading pairs `BASE-QUOTE` (uppercase). */
  readonly pairs: readonly string[];
  /**
   * The venue's design and where it is read. On-chain venues name their entry points, which the address book holds
   * under `derivatives/<protocol>/<contract>` (`bookKey.derivatives`) on `chain`: GMX v2's `DataStore` and
   * `EventEmitter`. Off-chain venues are read through their source (dYdX v4's indexer, Synthetix's info API).
   */
  readonly venue: DerivativesVenue;
}

export type DerivativesVenue =
  | {
      readonly design: 'gmx-v2';
      readonly dataStore: Address;
      readonly eventEmitter: Address;
      readonly startBlock?: number;
    }
  | { readonly design: 'dydx-v4' }
  | { readonly design: 'synthetix-exchange' };

export interface StablecoinEntry {
  readonly token: TokenRef;
  /** Chains on which the stablecoin is scored (`/scores/liquidity-stablecoin/<chain>/<protocol>`). */
  readonly chains: readonly string[];
  /** The collateral assets accepted by the issuer. */
  readonly collaterals: readonly TokenRef[];
  /**
   * The entry point every other contract is read from (the address book's `stablecoin/<protocol>`): MakerDAO's
   * Chainlog (`getAddress(bytes32)`), Liquity's TroveManager (its public getters). On `token.chain`.
   */
  readonly entryPoint: {
    readonly design: 'maker-mcd' | 'liquity-v1';
    readonly address: Address;
    readonly startBlock?: number;
  };
}

export interface SecurityEntry {
  /** Chains on which the security score is served (`/score/security/<chain>/<protocol>`). */
  readonly chains: readonly string[];
  /** Core contracts analysed (proxies or immutable contracts). */
  readonly contracts: readonly { chain: string; name: string; address: Address }[];
}

export interface OracleFeed {
  /** `BASE-QUOTE`, uppercase. */
  readonly pair: string;
  readonly chain: string;
  /** The aggregator proxy address. */
  readonly address: Address;
  readonly heartbeatSeconds: number;
  /** Deviation threshold in percent. */
  readonly deviationThresholdPct: number;
}

export interface OracleEntry {
  readonly feeds: readonly OracleFeed[];
}

/** Who holds a labelled address of a token, as the tokenomics breakdown and its `*_ex_infrastructure` figures group them. */
export const TOKEN_LABEL_CATEGORIES = [
  'team',
  'investors',
  'advisors',
  'treasury',
  'community',
  'exchange',
  'burn',
  'dex_pool',
  'bridge',
] as const;
export type TokenLabelCategory = (typeof TOKEN_LABEL_CATEGORIES)[number];

/** What a labelled address is, which says which of its views the tokenomics area reads. */
export const TOKEN_LABEL_KINDS = [
  'treasury_vester',
  'vesting_wallet',
  'token_timelock',
  'merkle_distributor',
  'timelock',
  'timelock_controller',
  'safe',
  'eoa',
  'burn',
  'pool',
  'bridge',
  /** A reserve or collector contract that releases what it holds by governance, with no vesting views (Aave's). */
  'reserve',
] as const;
export type TokenLabelKind = (typeof TOKEN_LABEL_KINDS)[number];

/** An address of a protocol's token the registry labels, with where the label comes from. */
export interface TokenLabelEntry {
  readonly address: Address;
  readonly category: TokenLabelCategory;
  readonly kind: TokenLabelKind;
  /** A short slug (`treasury-vester-1`, `airdrop`). */
  readonly label: string;
  /** A public page that says so (the project's docs, its repository, a block explorer's label). */
  readonly source: string;
}

/**
 * When a declared allocation unlocks, as declared: all at once (`cliff`), or linearly from `start` to `end` (nothing
 * before `cliff` when given). Instants are ISO 8601 UTC (`2020-09-17T00:00:00Z`). Null: the declaration states no
 * schedule (its unlocked share is then unknown unless a contract proves it).
 */
export type DeclaredUnlock =
  | { readonly kind: 'cliff'; readonly at: string }
  | { readonly kind: 'linear'; readonly start: string; readonly end: string; readonly cliff?: string }
  | null;

/** One allocation of a token as its project declares it. */
export interface DeclaredAllocationSpec {
  /** The label category whose vesting contracts prove it (`team`, `investors`, `advisors`, `treasury`, `community`). */
  readonly category: TokenLabelCategory;
  /** A short slug; it names the contract that proves it when several allocations share a category. */
  readonly label: string;
  /** Whole tokens, as a decimal string (exact: `212660000`). */
  readonly amount: string;
  readonly unlock: DeclaredUnlock;
  /** What the declaration does not say and the registry assumes (a schedule's start, its shape). */
  readonly assumptions: readonly string[];
}

/** A token's allocation as its project published it, with where. */
export interface TokenDeclaration {
  /** `project`: the project's own publication; `secondary`: a third party's account of it; `sandbox`: the sandbox. */
  readonly sourceKind: 'project' | 'secondary' | 'sandbox';
  /** The publication (a URL, with its date when it has one). */
  readonly source: string;
  readonly allocations: readonly DeclaredAllocationSpec[];
}

/** What the tokenomics area needs of a protocol's token beyond its address. */
export interface TokenomicsEntry {
  /** The token contract's deployment block: the holder replay starts there. */
  readonly deployedBlock: number;
  readonly labels: readonly TokenLabelEntry[];
  /** The token's published allocation (`allocation_map`, `project_percentage`, `allocations[]`), where published. */
  readonly declaration?: TokenDeclaration;
}

/** A canonical bridge's escrow on the L1 a chain settles on: it holds the L1 tokens bridged to the chain. */
export interface L1BridgeEscrow {
  /** On the chain's `settlesOn`. */
  readonly address: Address;
  /** A short slug (`arbitrum-l1-erc20-gateway`). */
  readonly label: string;
  /** A public page that says so (the chain's own docs or deployment files). */
  readonly source: string;
}

export interface ProtocolEntry {
  /** Canonical id: lowercase, multi-word names joined (`fraxfinance`, `radiantcapital`). */
  readonly id: string;
  readonly name: string;
  readonly website?: string;
  /** Governance or protocol token, for tokenomics. */
  readonly token?: TokenRef;
  /** The token's deployment block and labelled addresses, where the registry knows them. */
  readonly tokenomics?: TokenomicsEntry;
  readonly dex?: readonly DexDeployment[];
  readonly lending?: readonly LendingMarket[];
  readonly liquidStaking?: LiquidStakingEntry;
  readonly derivatives?: DerivativesEntry;
  readonly stablecoin?: StablecoinEntry;
  readonly security?: SecurityEntry;
  readonly oracle?: OracleEntry;
  readonly github?: GithubRefs;
  readonly social?: SocialIds;
}

export interface ChannelEntry {
  /** `discord`, `reddit`. */
  readonly id: string;
  readonly name: string;
}
