/**
 * What the sandbox world is: the manifest of what got deployed (addresses, kept by `world.ts`), and the open shape
 * of the state the scenario carries between calls. Types only: the plan the world is deployed from is in `plan.ts`
 * (tokens, market events) and `protocols/uniswap/plan.ts` (pools and their characters), the scenario's own state
 * in `state.ts`. `docs/sandbox.md` describes the same world in prose.
 */
import type { TokenomicsCategory, TokenomicsKind } from '../../registry/address-book.js';

export type TokenKind = 'stable' | 'weth' | 'volatile';
export type PoolCharacter = 'deep-busy' | 'thin-steady' | 'bursty' | 'single-trader' | 'dormant' | 'ordinary';

export interface ManifestToken {
  symbol: string;
  name: string;
  address: `0x${string}`;
  decimals: number;
  kind: TokenKind;
  /** starting USD price */
  initialPriceUsd: number;
  /** yearly volatility used by the GBM */
  volatility: number;
}

export interface ManifestDex {
  protocol: string;
  version: 'V2' | 'V3';
  design: 'uniswap-v2' | 'uniswap-v3';
  factory: `0x${string}`;
  router: `0x${string}`;
  positionManager?: `0x${string}`;
  startBlock: number;
}

export interface ManifestPool {
  address: `0x${string}`;
  protocol: string;
  version: 'V2' | 'V3';
  token0: `0x${string}`;
  token1: `0x${string}`;
  /** hundredths of a bp: 3000 = 0.3 % */
  fee: number;
  character: PoolCharacter;
}

/**
 * A Chainlink-style price feed the sandbox deployed, as on mainnet: an aggregator (`contracts/FeedAggregator.sol`)
 * that receives the rounds and emits their events, behind a proxy (`contracts/FeedProxy.sol`) that consumers read and
 * that names it (`aggregator()`); see `protocols/feeds`.
 */
export interface ManifestOracle {
  readonly oracle: 'chainlink';
  /** The registry's pair, `BASE-QUOTE`. */
  readonly pair: string;
  /** Symbol of the sandbox token whose reference USD price the feed reports (ETH-USD reports WETH's). */
  readonly token: string;
  /** The aggregator: rounds are transmitted to it, and it emits `AnswerUpdated`. */
  readonly address: `0x${string}`;
  /** The proxy consumers read (the lending markets' oracles, the service through the address book). */
  readonly proxy: `0x${string}`;
  readonly heartbeatSeconds: number;
  readonly deviationThresholdPct: number;
  /** Decimals of the answers. */
  readonly decimals: number;
  readonly startBlock: number;
}

export interface WorldManifest {
  seed: number;
  /** The sandbox chain this world is of (`ethereum`; `optimism` and `arbitrum` for the layer-2 chains' hosted protocols). */
  chain: 'ethereum' | 'optimism' | 'arbitrum';
  chainId: number;
  genesisTimestamp: number;
  deployer: `0x${string}`;
  tokens: ManifestToken[];
  dex: ManifestDex[];
  pools: ManifestPool[];
  weth: `0x${string}`;
  /** Price feeds. Absent in worlds saved before feeds existed: such a world has none (remove it to get them). */
  oracles?: ManifestOracle[];
  /** Lending markets. Absent in worlds saved before lending existed (remove such a world to get them). */
  lending?: ManifestLending;
  /** Liquid staking tokens of the sandbox (absent in older worlds). */
  liquidStaking?: ManifestLiquidStaking[];
  /**
   * Feeds of our own that are not registry oracle pairs (`wstETH-USD`: the lending markets' price source for the
   * liquid staking token, reporting its market price). Reported like `oracles`, but no oracle-area pair.
   */
  lendingFeeds?: ManifestOracle[];
  /** Liquity v1 from contracts of our own (protocols/liquity; absent in older worlds). */
  liquity?: ManifestLiquity;
  /** MakerDAO (protocols/maker: the testchain's MCD deployment). Absent in worlds saved before it existed. */
  maker?: ManifestMaker;
  /** The tokenomics tokens UNI, LINK and AAVE (protocols/tokenomics). Absent in worlds saved before it existed. */
  tokenomics?: ManifestTokenomics;
  /**
   * Sections of protocols this type does not name, by protocol name: a protocol outside the production list (a
   * test's own) writes its section here, as the scenario state's open part takes its runtime state.
   */
  sections?: Record<string, unknown>;
}

/**
 * MakerDAO's multi-collateral DAI as `@makerdao/testchain` ships it, loaded into the world (protocols/maker). The
 * Chainlog is the entry point the service is given; the rest is what it holds, repeated for the sandbox's actors.
 */
/** A stablecoin/USDC Uniswap V2 pair of the world's factory (Liquity's LUSD/USDC, Maker's DAI/USDC). */
export interface ManifestStablePair {
  readonly address: `0x${string}`;
  readonly factory: `0x${string}`;
  readonly router: `0x${string}`;
  readonly token0: `0x${string}`;
  readonly token1: `0x${string}`;
  readonly usdc: `0x${string}`;
  readonly usdcDecimals: number;
}

export interface ManifestMaker {
  readonly protocol: 'makerdao';
  /** `@makerdao/testchain@<version>`: where the contracts' state comes from. */
  readonly package: string;
  readonly chainlog: `0x${string}`;
  /** The testchain's deployer: owns the price values (DSValue) and the IlkRegistry. */
  readonly deployer: `0x${string}`;
  readonly vat: `0x${string}`;
  readonly dai: `0x${string}`;
  readonly daiJoin: `0x${string}`;
  readonly spot: `0x${string}`;
  readonly jug: `0x${string}`;
  readonly dog: `0x${string}`;
  readonly pot: `0x${string}`;
  readonly vow: `0x${string}`;
  readonly ilkRegistry: `0x${string}`;
  /** The collateral types wired to the world's tokens. */
  readonly ilks: readonly {
    readonly ilk: string;
    /** The world token's symbol (`WETH`, `LINK`). */
    readonly token: string;
    readonly gem: `0x${string}`;
    readonly join: `0x${string}`;
    /** The DSValue the spotter reads. */
    readonly pip: `0x${string}`;
    /** The Clipper (absent: a Flipper type, which the Dog does not liquidate). */
    readonly clip?: `0x${string}`;
  }[];
  /**
   * The DAI/USDC Uniswap V2 pair (not Maker's: the sandbox's market for DAI's peg), seeded by the Maker actors'
   * market maker once ETH-A's ceiling has room (the second step). Absent in worlds saved before it.
   */
  readonly pool?: ManifestStablePair;
  readonly startBlock: number;
}

/**
 * The lending protocols of the sandbox. Aave-design markets (`aave` V3 and its fork `spark` V1) are `AaveMarket`s
 * as `protocols/aave` deploys them; Morpho Blue is one singleton with isolated markets.
 */
export interface ManifestLending {
  readonly aave: readonly ManifestAaveMarket[];
  readonly morpho: readonly ManifestMorpho[];
}

/** An Aave V3 design market (the JSON of `AaveMarket` in protocols/aave, repeated here so the manifest stands alone). */
export interface ManifestAaveMarket {
  readonly protocol: string;
  readonly chain: 'ethereum';
  readonly version: string;
  readonly baseAsset: string;
  readonly marketId: string;
  readonly design: 'aave-v3';
  readonly deployer: `0x${string}`;
  readonly treasury: `0x${string}`;
  readonly addressesProvider: `0x${string}`;
  readonly aclManager: `0x${string}`;
  readonly pool: `0x${string}`;
  readonly poolConfigurator: `0x${string}`;
  readonly oracle: `0x${string}`;
  readonly dataProvider: `0x${string}`;
  readonly reserves: readonly {
    readonly symbol: string;
    readonly decimals: number;
    readonly token: `0x${string}`;
    readonly aToken: `0x${string}`;
    readonly variableDebtToken: `0x${string}`;
    readonly stableDebtToken: `0x${string}`;
    readonly interestRateStrategy: `0x${string}`;
    readonly priceSource: `0x${string}`;
  }[];
  /** The implementations behind the proxies and the linked libraries; absent in worlds saved before. */
  readonly implementations?: {
    readonly pool: `0x${string}`;
    readonly poolConfigurator: `0x${string}`;
    readonly aToken: `0x${string}`;
    readonly stableDebtToken: `0x${string}`;
    readonly variableDebtToken: `0x${string}`;
    readonly libraries: Readonly<Record<string, `0x${string}`>>;
  };
  readonly startBlock: number;
}

/** Morpho Blue (compiled offline from `@morpho-org/morpho-blue`): one singleton, isolated markets. */
export interface ManifestMorpho {
  readonly protocol: 'morpho';
  readonly chain: 'ethereum';
  /** The registry's version (`V1`). */
  readonly version: string;
  /** The loan token's symbol: the registry's base asset (`USDC`). */
  readonly baseAsset: string;
  readonly design: 'morpho-blue';
  /** The Morpho singleton (every market's events come from it). */
  readonly morpho: `0x${string}`;
  readonly markets: readonly ManifestMorphoMarket[];
  readonly startBlock: number;
}

/** One isolated Morpho Blue market: `MarketParams` and its id (keccak256 of the ABI-encoded params). */
export interface ManifestMorphoMarket {
  readonly id: `0x${string}`;
  readonly loanToken: `0x${string}`;
  readonly collateralToken: `0x${string}`;
  readonly collateralSymbol: string;
  /** An `IOracle` (`price()`: collateral priced in loan token, scaled by 1e36 adjusted for decimals). */
  readonly oracle: `0x${string}`;
  readonly irm: `0x${string}`;
  /** Liquidation loan-to-value, WAD (1e18 = 100 %), as a decimal string. */
  readonly lltv: string;
}

/**
 * A wrapped liquid staking token of the sandbox's own (`contracts/StakedToken.sol`), read like wstETH:
 * `stEthPerToken()` is the amount of underlying one token is worth (1e18 scale) and grows daily.
 */
export interface ManifestLiquidStaking {
  /** Registry protocol id whose token it stands in for (`lido`). */
  readonly protocol: string;
  readonly symbol: string;
  readonly token: `0x${string}`;
  readonly decimals: number;
  /** The underlying asset on chain (WETH). */
  readonly underlying: `0x${string}`;
  /** DEX pools holding the token against its underlying. */
  readonly pools: readonly `0x${string}`[];
  readonly startBlock: number;
  /** The proxy of the `wstETH-USD` feed (in `lendingFeeds`) the lending markets price the token with: its market price. */
  readonly priceFeed?: `0x${string}`;
}

/**
 * Liquity v1 as protocols/liquity deploys it: the core contracts (mainnet's names; the service needs only the
 * TroveManager, whose getters name the others), LUSD, and the LUSD/USDC Uniswap V2 pair seeded at genesis.
 */
export interface ManifestLiquity {
  readonly protocol: 'liquity';
  readonly chain: 'ethereum';
  readonly troveManager: `0x${string}`;
  readonly borrowerOperations: `0x${string}`;
  readonly stabilityPool: `0x${string}`;
  readonly activePool: `0x${string}`;
  readonly defaultPool: `0x${string}`;
  readonly collSurplusPool: `0x${string}`;
  readonly gasPool: `0x${string}`;
  readonly sortedTroves: `0x${string}`;
  readonly priceFeed: `0x${string}`;
  readonly hintHelpers: `0x${string}`;
  /** Not Liquity's: the sandbox actors' one-call reader of its views (contracts/LiquitySandboxReader.sol). */
  readonly reader: `0x${string}`;
  /** LUSD (18 decimals). */
  readonly lusd: `0x${string}`;
  /** Receives the borrowing and redemption fees (LQTY stakers on mainnet): the deployer. */
  readonly feeRecipient: `0x${string}`;
  /** The ETH/USD feed proxy the PriceFeed reads. */
  readonly ethUsdFeed: `0x${string}`;
  readonly pool: ManifestStablePair;

  readonly startBlock: number;
}

/** JSON-serialisable state the scenario carries between calls (saved to disk by world.ts). */
export interface SimulationState {
  lastTimestamp: number;
  /** per token symbol: the reference ("true") USD price at lastTimestamp */
  prices: Record<string, number>;
  step: number;
  [k: string]: unknown;
}

/**
 * The tokenomics tokens (protocols/tokenomics): fixed-supply tokens issued at genesis, each with its labelled holders
 * (vesting and distributor contracts, treasuries, exchange hot wallets, the burn address).
 */
export interface ManifestTokenomics {
  /** The genesis block, where every token and contract here was deployed. */
  startBlock: number;
  tokens: ManifestTokenomicsToken[];
}

export interface ManifestTokenomicsToken {
  symbol: string;
  /** The registry's protocol whose `token` this is (`uniswap`, `chainlink`, `aave`). */
  protocol: string;
  address: `0x${string}`;
  /** `uni`: Uniswap's `Uni` (@uniswap/governance); `oz-fixed-supply`: OpenZeppelin's ERC20PresetFixedSupply. */
  standard: 'uni' | 'oz-fixed-supply';
  /** Raw total supply, all minted at genesis to `issuer`, who distributed it in the same block. */
  totalSupply: string;
  issuer: `0x${string}`;
  holders: ManifestTokenomicsHolder[];
  /** The merkle airdrop's claims (index, account, raw amount), as Uniswap published its tree. */
  airdrop?: { distributor: `0x${string}`; merkleRoot: `0x${string}`; claims: ManifestAirdropClaim[] };
}

export interface ManifestAirdropClaim {
  index: number;
  account: `0x${string}`;
  amount: string;
}

/** A labelled holder: `bookKey.tokenomics(protocol, category, kind, label)`. */
export interface ManifestTokenomicsHolder {
  address: `0x${string}`;
  category: TokenomicsCategory;
  kind: TokenomicsKind;
  label: string;
  /** The contract deployed there (`TreasuryVester`, `VestingWallet`…); absent for an EOA or the burn address. */
  contract?: string;
  /** Raw amount it received at genesis. */
  amount: string;
  /** Who its tokens vest to (a vester's recipient, a wallet's or timelock's beneficiary). */
  beneficiary?: `0x${string}`;
  /** Unix seconds: cliff then linear from `start` to `end` (cliff = start: linear), or a step (all three equal). */
  schedule?: { start: number; cliff: number; end: number };
}
