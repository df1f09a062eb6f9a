/**
 * What the sandbox world is: the manifest of what got deployed (addresses, kept by `world.ts`), the plan it is
 * deployed from (tokens, pools and their characters), and the state the scenario carries between calls.
 * Data and types only; `deploy.ts` puts the plan on chain and `scenario.ts` animates it. `docs/sandbox.md`
 * describes the same world in prose.
 */

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

/** A Chainlink-style price feed the sandbox deployed (`contracts/FeedAggregator.sol`); see `oracles.ts`. */
export interface ManifestOracle {
  readonly oracle: 'chainlink';
  /** The registry's pair, `BASE-QUOTE`. */
  readonly pair: string;
  /** Symbol of the sandbox token whose reference USD price the feed reports (ETH-USD reports WETH's). */
  readonly token: string;
  readonly address: `0x${string}`;
  readonly heartbeatSeconds: number;
  readonly deviationThresholdPct: number;
  /** Decimals of the answers. */
  readonly decimals: number;
  readonly startBlock: number;
}

export interface WorldManifest {
  seed: number;
  chain: 'ethereum';
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
}

/**
 * The lending protocols of the sandbox. Aave-design markets (`aave` V3 and its fork `spark` V1) are `AaveMarket`s
 * as `aave.ts` deploys them; Morpho Blue is one singleton with isolated markets.
 */
export interface ManifestLending {
  readonly aave: readonly ManifestAaveMarket[];
  readonly morpho: readonly ManifestMorpho[];
}

/** An Aave V3 design market (the JSON of `AaveMarket` in aave.ts, repeated here so the manifest stands alone). */
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
  /** The `wstETH-USD` feed (in `lendingFeeds`) the lending markets price the token with: its market price. */
  readonly priceFeed?: `0x${string}`;
}

/** JSON-serialisable state the scenario carries between calls (saved to disk by world.ts). */
export interface SimulationState {
  lastTimestamp: number;
  /** per token symbol: the reference ("true") USD price at lastTimestamp */
  prices: Record<string, number>;
  step: number;
  [k: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------------------------

const HOURS_PER_YEAR = 365 * 24;

export interface TokenPlan {
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly kind: TokenKind;
  readonly initialPriceUsd: number;
  /**
   * Yearly volatility of the log price. For stablecoins, the instantaneous volatility of the mean-reverting
   * deviation from the peg (see `stable`).
   */
  readonly volatility: number;
  /** Correlation of the token's shocks with the common crypto-market factor (one-factor model). */
  readonly marketCorrelation: number;
  /** Stablecoins: the peg's mean reversion (Ornstein–Uhlenbeck on the log price). */
  readonly stable?: { readonly halfLifeHours: number; readonly deviation: number };
  /**
   * A wrapped liquid staking token (`contracts/StakedToken.sol`): no random walk of its own. Its price is the
   * underlying's × the exchange rate × (1 − the market discount of `MARKET_EVENTS.depeg`).
   */
  readonly liquidStaking?: {
    readonly underlying: string;
    /** Registry protocol id it stands in for. */
    readonly protocol: string;
    /** Exchange rate at genesis (underlying per token). */
    readonly initialRate: number;
    /** Yearly growth of the rate, basis points (added pro rata once per whole day). */
    readonly aprBps: number;
  };
}

/** Instantaneous yearly volatility of an OU process with the given stationary deviation and half-life. */
function ouVolatility(deviation: number, halfLifeHours: number): number {
  const theta = Math.LN2 / (halfLifeHours / HOURS_PER_YEAR);
  return deviation * Math.sqrt(2 * theta);
}

/** Stablecoin peg: a ~6 h half-life and ~0.08 % typical deviation, the order of USDC/USDT/DAI on quiet days. */
const PEG = { halfLifeHours: 6, deviation: 0.0008 } as const;

/**
 * Tokens, with real-world decimals. Prices are round late-2024 levels; volatilities are the order of the tokens'
 * realised yearly volatilities (BTC ~50 %, ETH ~65 %, DeFi blue chips 80–90 %, memecoins well above 100 %).
 */
export const TOKEN_PLAN: readonly TokenPlan[] = [
  {
    symbol: 'USDC',
    name: 'USD Coin',
    decimals: 6,
    kind: 'stable',
    initialPriceUsd: 1,
    volatility: ouVolatility(PEG.deviation, PEG.halfLifeHours),
    marketCorrelation: 0,
    stable: PEG,
  },
  {
    symbol: 'USDT',
    name: 'Tether USD',
    decimals: 6,
    kind: 'stable',
    initialPriceUsd: 1,
    volatility: ouVolatility(PEG.deviation, PEG.halfLifeHours),
    marketCorrelation: 0,
    stable: PEG,
  },
  {
    symbol: 'DAI',
    name: 'Dai Stablecoin',
    decimals: 18,
    kind: 'stable',
    initialPriceUsd: 1,
    volatility: ouVolatility(PEG.deviation, PEG.halfLifeHours),
    marketCorrelation: 0,
    stable: PEG,
  },
  // WETH9 hard-codes its name, symbol and 18 decimals.
  {
    symbol: 'WETH',
    name: 'Wrapped Ether',
    decimals: 18,
    kind: 'weth',
    initialPriceUsd: 3000,
    volatility: 0.65,
    marketCorrelation: 0.85,
  },
  {
    symbol: 'WBTC',
    name: 'Wrapped BTC',
    decimals: 8,
    kind: 'volatile',
    initialPriceUsd: 60000,
    volatility: 0.5,
    marketCorrelation: 0.75,
  },
  {
    symbol: 'UNI',
    name: 'Uniswap',
    decimals: 18,
    kind: 'volatile',
    initialPriceUsd: 8,
    volatility: 0.85,
    marketCorrelation: 0.6,
  },
  {
    symbol: 'LINK',
    name: 'ChainLink Token',
    decimals: 18,
    kind: 'volatile',
    initialPriceUsd: 15,
    volatility: 0.8,
    marketCorrelation: 0.6,
  },
  {
    symbol: 'AAVE',
    name: 'Aave Token',
    decimals: 18,
    kind: 'volatile',
    initialPriceUsd: 150,
    volatility: 0.9,
    marketCorrelation: 0.55,
  },
  {
    symbol: 'PEPE',
    name: 'Pepe',
    decimals: 18,
    kind: 'volatile',
    initialPriceUsd: 0.00001,
    volatility: 1.6,
    marketCorrelation: 0.35,
  },
  // Our own wstETH (contracts/StakedToken.sol), deployed after everything above: 1.18 WETH per token at genesis
  // (wstETH's late-2024 rate), growing ~3.5 % a year. Its volatility is WETH's (it moves with ETH).
  {
    symbol: 'wstETH',
    name: 'Wrapped liquid staked Ether 2.0',
    decimals: 18,
    kind: 'volatile',
    initialPriceUsd: 3000 * 1.18,
    volatility: 0.65,
    marketCorrelation: 0.85,
    liquidStaking: { underlying: 'WETH', protocol: 'lido', initialRate: 1.18, aprBps: 350 },
  },
];

/**
 * Scheduled market events, in hours after genesis, deterministic (no random draw), so that even a 5-day test world
 * holds liquidations. They multiply the random walk; they do not replace it.
 * - `ethCrash`: a market-wide drop over a few hours that stays (the walk goes on from the new level). WETH falls by
 *   `drop`; every other volatile token by `drop` × its market correlation / WETH's (WBTC ~12 %, PEPE ~6 %).
 *   Borrowers with volatile collateral and HF below ~1.16 get liquidated.
 * - `depeg`: the liquid staking token trades below its exchange rate: the discount ramps to `discount`, holds, then
 *   recovers. Its feed (and so Aave's oracle) reports the market price, so leveraged stakers (wstETH collateral,
 *   WETH debt, E-mode) below HF ~1/(1 − discount) get liquidated.
 */
export const MARKET_EVENTS = {
  ethCrash: { startHour: 30, hours: 3, drop: 0.14 },
  depeg: { startHour: 76, rampHours: 4, holdHours: 8, recoverHours: 12, discount: 0.06 },
} as const;

/** Whether a pool holds a liquid staking token of the plan. */
export function isLiquidStakingPool(
  manifest: { readonly tokens: readonly { readonly symbol: string; readonly address: string }[] },
  pool: { readonly token0: string; readonly token1: string },
): boolean {
  return [pool.token0, pool.token1].some((address) => {
    const symbol = manifest.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase())?.symbol;
    return TOKEN_PLAN.some((t) => t.symbol === symbol && t.liquidStaking);
  });
}

/** The multiplier the ETH crash puts on a token's walk at `hours` after genesis (1 before it starts). */
export function crashFactor(hours: number, marketCorrelation: number): number {
  const { startHour, hours: length, drop } = MARKET_EVENTS.ethCrash;
  const share = Math.min(1, Math.max(0, (hours - startHour) / length));
  const weth = 0.85;
  return 1 - drop * Math.min(1, marketCorrelation / weth) * share;
}

/** The liquid staking token's market discount to its exchange rate at `hours` after genesis (0 = at par). */
export function depegDiscount(hours: number): number {
  const { startHour, rampHours, holdHours, recoverHours, discount } = MARKET_EVENTS.depeg;
  const t = hours - startHour;
  if (t <= 0) return 0;
  if (t < rampHours) return (discount * t) / rampHours;
  if (t < rampHours + holdHours) return discount;
  const r = t - rampHours - holdHours;
  return r < recoverHours ? discount * (1 - r / recoverHours) : 0;
}

/** The (protocol, version) pairs the sandbox deploys a factory set for, in deployment order. */
export const DEX_PLAN: readonly { readonly protocol: string; readonly version: 'V2' | 'V3' }[] = [
  { protocol: 'uniswap', version: 'V2' },
  { protocol: 'uniswap', version: 'V3' },
  { protocol: 'pancakeswap', version: 'V3' },
  { protocol: 'fraxfinance', version: 'V2' },
];

export interface PoolPlan {
  readonly protocol: string;
  readonly version: 'V2' | 'V3';
  /** Token symbols, in any order (the factories sort them). */
  readonly tokens: readonly [string, string];
  /** Hundredths of a bp; V2 pools are always 3000. */
  readonly fee: number;
  readonly character: PoolCharacter;
  /** USD value seeded by the deployer's permanent positions. */
  readonly depthUsd: number;
  /** V3: half-width of the concentrated seed position as a fraction of the price (the rest is full range). */
  readonly rangeWidth?: number;
}

/**
 * Pools: the majors on every deployment, with the characters spread over protocols and versions so that every
 * listing mixes them. Depths are scaled-down mainnet orders of magnitude (the deep pools hold tens of millions).
 */
export const POOL_PLAN: readonly PoolPlan[] = [
  // Uniswap V3
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['USDC', 'WETH'],
    fee: 500,
    character: 'deep-busy',
    depthUsd: 40e6,
    rangeWidth: 0.15,
  },
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['WBTC', 'WETH'],
    fee: 3000,
    character: 'ordinary',
    depthUsd: 15e6,
    rangeWidth: 0.15,
  },
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['USDC', 'USDT'],
    fee: 100,
    character: 'ordinary',
    depthUsd: 10e6,
    rangeWidth: 0.005,
  },
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['DAI', 'USDC'],
    fee: 100,
    character: 'thin-steady',
    depthUsd: 250e3,
    rangeWidth: 0.005,
  },
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['UNI', 'WETH'],
    fee: 3000,
    character: 'ordinary',
    depthUsd: 3e6,
    rangeWidth: 0.25,
  },
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['PEPE', 'WETH'],
    fee: 10000,
    character: 'bursty',
    depthUsd: 2e6,
    rangeWidth: 0.5,
  },
  // Uniswap V2
  { protocol: 'uniswap', version: 'V2', tokens: ['USDC', 'WETH'], fee: 3000, character: 'deep-busy', depthUsd: 30e6 },
  { protocol: 'uniswap', version: 'V2', tokens: ['DAI', 'WETH'], fee: 3000, character: 'ordinary', depthUsd: 5e6 },
  { protocol: 'uniswap', version: 'V2', tokens: ['WETH', 'USDT'], fee: 3000, character: 'ordinary', depthUsd: 5e6 },
  {
    protocol: 'uniswap',
    version: 'V2',
    tokens: ['LINK', 'WETH'],
    fee: 3000,
    character: 'thin-steady',
    depthUsd: 150e3,
  },
  // PancakeSwap V3
  {
    protocol: 'pancakeswap',
    version: 'V3',
    tokens: ['USDT', 'WETH'],
    fee: 500,
    character: 'ordinary',
    depthUsd: 8e6,
    rangeWidth: 0.15,
  },
  {
    protocol: 'pancakeswap',
    version: 'V3',
    tokens: ['AAVE', 'WETH'],
    fee: 3000,
    character: 'single-trader',
    depthUsd: 1e6,
    rangeWidth: 0.25,
  },
  {
    protocol: 'pancakeswap',
    version: 'V3',
    tokens: ['LINK', 'WETH'],
    fee: 10000,
    character: 'dormant',
    depthUsd: 400e3,
    rangeWidth: 0.3,
  },
  // Frax Finance (Fraxswap) V2
  { protocol: 'fraxfinance', version: 'V2', tokens: ['DAI', 'USDC'], fee: 3000, character: 'ordinary', depthUsd: 6e6 },
  { protocol: 'fraxfinance', version: 'V2', tokens: ['PEPE', 'WETH'], fee: 3000, character: 'bursty', depthUsd: 1.5e6 },
  { protocol: 'fraxfinance', version: 'V2', tokens: ['WBTC', 'USDC'], fee: 3000, character: 'ordinary', depthUsd: 3e6 },
  // The liquid staking token against its underlying, like mainnet's wstETH/WETH 0.01 % pool: deep and concentrated
  // (±10 % holds the depeg episode), seeded after the token exists (the last pool).
  {
    protocol: 'uniswap',
    version: 'V3',
    tokens: ['wstETH', 'WETH'],
    fee: 100,
    character: 'ordinary',
    depthUsd: 20e6,
    rangeWidth: 0.1,
  },
];

/** V3 tick spacing per fee tier (the factory's defaults, plus the 0.01 % tier the sandbox enables). */
export const V3_TICK_SPACING: Readonly<Record<number, number>> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };

/**
 * How each character trades. Rates are per hour at scale 1 and at the daily mean (a diurnal curve moves them
 * ±40 %); `scale` multiplies those marked `scaled`. Sizes are the trader's own habit times `sizeFactor`, capped at
 * `maxTradeShare` of the pool's depth (which grows with √scale, see `depthForScale`).
 */
export interface CharacterProfile {
  /** Swaps per hour by the clientele (outside bursts / dormancy). */
  readonly swapsPerHour: number;
  /**
   * Whether `scale` multiplies the rate. Not for the characters defined by how little happens (a thin pool's few
   * trades, one bot): a bigger world has more of everything else, not a busier thin pool.
   */
  readonly scaled: boolean;
  /** Lower bound after scaling (scaled characters): a steady pool must stay steady in a small world. */
  readonly minSwapsPerHour: number;
  /** Share of the trader population that trades the pool… */
  readonly clienteleShare: number;
  /** …and at least this many traders (single-trader pools use their own bot instead). */
  readonly minClientele: number;
  readonly sizeFactor: number;
  /** Largest trade as a share of depth: aggregators split bigger orders across pools (bursts: memecoin FOMO, 1 %). */
  readonly maxTradeShare: number;
  /** Liquidity adds or removes by LP agents per hour. */
  readonly lpEventsPerHour: number;
  /** Traders' slippage tolerance beyond the fee, against the reference price (wallet defaults are 0.5–3 %). */
  readonly slippageTolerance: number;
}

export const CHARACTERS: Readonly<Record<PoolCharacter, CharacterProfile>> = {
  // Dozens of trades an hour by a large crowd, whales included: the USDC/WETH flagship pools.
  'deep-busy': {
    swapsPerHour: 36,
    scaled: true,
    minSwapsPerHour: 10,
    clienteleShare: 0.6,
    minClientele: 10,
    sizeFactor: 1,
    maxTradeShare: 0.005,
    lpEventsPerHour: 1 / 6,
    slippageTolerance: 0.02,
  },
  // A few small trades most hours from a handful of regulars.
  'thin-steady': {
    swapsPerHour: 3,
    scaled: false,
    minSwapsPerHour: 3,
    clienteleShare: 0.06,
    minClientele: 5,
    sizeFactor: 0.05,
    maxTradeShare: 0.003,
    lpEventsPerHour: 1 / 48,
    slippageTolerance: 0.02,
  },
  // Nearly silent between bursts (see BURSTS); during a burst a crowd piles in, with the wide slippage settings
  // memecoin traders use (a burst still makes some swaps revert: the price runs away within the hour).
  bursty: {
    swapsPerHour: 0.3,
    scaled: true,
    minSwapsPerHour: 0,
    clienteleShare: 0.4,
    minClientele: 8,
    sizeFactor: 0.3,
    maxTradeShare: 0.01,
    lpEventsPerHour: 1 / 24,
    slippageTolerance: 0.05,
  },
  // One bot does nearly everything (see SINGLE_TRADER).
  'single-trader': {
    swapsPerHour: 5,
    scaled: false,
    minSwapsPerHour: 5,
    clienteleShare: 0.03,
    minClientele: 2,
    sizeFactor: 1,
    maxTradeShare: 0.005,
    lpEventsPerHour: 1 / 48,
    slippageTolerance: 0.02,
  },
  // Trades only while awake (see DORMANCY), like pools nobody routes through any more.
  dormant: {
    swapsPerHour: 5,
    scaled: true,
    minSwapsPerHour: 3,
    clienteleShare: 0.15,
    minClientele: 4,
    sizeFactor: 0.3,
    maxTradeShare: 0.005,
    lpEventsPerHour: 1 / 8,
    slippageTolerance: 0.02,
  },
  // Steady mid-size activity.
  ordinary: {
    swapsPerHour: 6,
    scaled: true,
    minSwapsPerHour: 2,
    clienteleShare: 0.25,
    minClientele: 5,
    sizeFactor: 0.5,
    maxTradeShare: 0.005,
    lpEventsPerHour: 1 / 12,
    slippageTolerance: 0.02,
  },
};

/** Bursty pools: a burst every day or so, lasting one to four hours, with a crowd trading every couple of minutes. */
export const BURSTS = {
  swapsPerHour: 30,
  minHours: 1,
  maxHours: 4,
  /** Mean quiet time between bursts. */
  meanGapHours: 20,
  /** The first burst starts within this window after genesis, so that even a one-day world shows one. */
  firstWithinHours: [4, 14] as const,
} as const;

/** Dormant pools are awake for the first hours of every period (hours 0–7 of days 0, 7, 14, … after genesis). */
export const DORMANCY = { periodDays: 7, awakeHours: 8 } as const;

/** Single-trader pools: the bot's own size habit, and how rarely anyone else trades there (capped smaller). */
export const SINGLE_TRADER = { medianTradeUsd: 4000, otherTraderShare: 0.03, otherTraderMaxUsd: 1000 } as const;

// ---------------------------------------------------------------------------------------------------------------
// Scenario state (what `SimulationState`'s open part holds)
// ---------------------------------------------------------------------------------------------------------------

export type AgentRole =
  | 'deployer'
  | 'arbitrageur'
  | 'trader'
  | 'bot'
  | 'lp'
  | 'supplier'
  | 'borrower'
  | 'looper'
  | 'liquidator';

export interface AgentState {
  /** Index in the key derivation (-1: the deployer, anvil's account 0). */
  readonly key: number;
  readonly address: `0x${string}`;
  readonly role: AgentRole;
  /** Next nonce. */
  nonce: number;
  /** Raw token balances by lowercase token address, as decimal strings (exact, from the chain's logs). */
  balances: Record<string, string>;
  /** `token>spender` pairs (lowercase) already approved for the maximum amount. */
  approvals: string[];
  /** Traders: median trade size in USD. */
  medianTradeUsd: number;
  /** Traders: relative frequency (log-normal across traders: a few very active ones, many occasional). */
  activity: number;
  /** Traders: first UTC hour of the daily active window… */
  activeFromHour: number;
  /** …and its length in hours. */
  activeHours: number;
}

export interface PoolRuntimeState {
  /** Lowercase pool address. */
  readonly address: string;
  readonly character: PoolCharacter;
  readonly depthUsd: number;
  /** Indices into `agents` of the traders who trade this pool. */
  readonly clientele: number[];
  /** Single-trader pools: index of the bot. */
  readonly bot?: number;
  /** Bursty pools: unix seconds. */
  burstStart?: number;
  burstEnd?: number;
}

export interface V3PositionState {
  readonly tokenId: string;
  readonly pool: string;
  /** Index into `agents`. */
  readonly owner: number;
  liquidity: string;
}

export interface V2ShareState {
  readonly pool: string;
  readonly owner: number;
  liquidity: string;
}

export interface ScenarioStats {
  blocks: number;
  transactions: number;
  swaps: number;
  liquidityChanges: number;
  /** Reverted transactions that the scenario tolerates (slippage on swaps, arbitrage that came too late). */
  revertedTolerated: number;
  /** Reverted transactions that should not revert (funding, approvals, liquidity): a bug if not zero. */
  revertedUnexpected: number;
}

/** A feed's reporter between steps (`oracles.ts`). Answers are raw integers as decimal strings. */
export interface FeedRuntimeState {
  readonly pair: string;
  /** The newest answer on chain, and the time of its block. */
  answer: string;
  updatedAt: number;
  /** A round sent but not yet on chain: it lands in the first block at or after `landsAt`. */
  pending: { answer: string; landsAt: number } | null;
}

export interface OracleRuntimeState {
  /** The reporter's own generator stream (`oracles`): feeds never change what traders draw. */
  rng: [number, number, number, number];
  feeds: FeedRuntimeState[];
  stats: {
    rounds: number;
    deviationRounds: number;
    heartbeatRounds: number;
    /** Rounds that landed in a later block than the one of the step that sent them. */
    delayed: number;
    /** Rounds caught in an outage (see `REPORTER.outage`). */
    outages: number;
  };
}

export interface ScenarioState extends SimulationState {
  readonly format: 1;
  readonly seed: number;
  /** The scale the agents were created for. */
  readonly scale: number;
  /** Generator states: prices and agents draw from separate streams, so the price path does not depend on scale. */
  rngPrices: [number, number, number, number];
  rngAgents: [number, number, number, number];
  /**
   * The pools of the liquid staking token draw their clientele, swaps and liquidity events from their own stream
   * (`liquid-staking-pools`), after the other pools' actions in each block: adding them changed nothing the other
   * pools draw. Absent in worlds saved before they existed.
   */
  rngLiquidStakingPools?: [number, number, number, number];
  agents: AgentState[];
  pools: PoolRuntimeState[];
  v3Positions: V3PositionState[];
  v2Shares: V2ShareState[];
  stats: ScenarioStats;
  /** Absent with the manifest's `oracles` (worlds saved before feeds existed). */
  oracles?: OracleRuntimeState;
  /** Absent with the manifest's `lending` (worlds saved before lending existed); see lending.ts. */
  lending?: LendingRuntimeState;
  /**
   * Collateral the liquidators seized and still sell back into the asset they repaid (`sellSeized` in
   * scenario.ts). Absent in worlds saved before liquidators sold.
   */
  seizedSales?: SeizedSaleState[];
}

/** Seized collateral a liquidator is selling on the DEX pools, a chunk per block. */
export interface SeizedSaleState {
  /** Index into `agents`. */
  readonly liquidator: number;
  /** Token symbols: what it sells, and what it wants back (the debt asset it repaid). */
  readonly sell: string;
  readonly buy: string;
  /** Raw amount of `sell` still to sell. */
  amount: string;
}

/** A borrower's position in one market, as the scenario planned it (the chain is the truth for amounts). */
export interface LendingPositionState {
  /** Index into `agents`. */
  readonly owner: number;
  /** `aave`/`spark` (Aave design) or `morpho`. */
  readonly protocol: string;
  /** Morpho: the market id. */
  readonly marketId?: string;
  readonly collateral: string;
  /**
   * Aave: a second collateral asset, supplied beside the first (a third of the safe and leveraged borrowers; absent
   * for the others and in worlds saved before). Liquidations seize the first until one of them reverts, then the
   * other (`liquidateSecond`), and so on.
   */
  readonly secondCollateral?: string;
  liquidateSecond?: boolean;
  readonly debt: string;
  readonly kind: 'safe' | 'leveraged' | 'near' | 'looper';
  /** The health factor aimed at when opening. */
  targetHf: number;
  open: boolean;
  /** Raw collateral supplied and debt borrowed by the scenario (principal; interest and liquidations not counted). */
  collateralRaw: string;
  debtRaw: string;
  /**
   * The health factor the liquidators last read, and when (unix seconds; absent after the owner acted on it): short
   * (live) steps re-read only positions that could be near liquidation (see `needsRead` in lending.ts).
   */
  hf?: number;
  readAt?: number;
}

/** Morpho Blue's actors between steps (`morpho.ts`): their own stream, positions and supplies by market id. */
export interface MorphoRuntimeState {
  rng: [number, number, number, number];
  seeded: boolean;
  /** Per supplier (agent index) and market id: raw USDC supplied (principal). */
  supplies: Record<string, Record<string, string>>;
  positions: LendingPositionState[];
  stats: LendingRuntimeState['stats'];
}

export interface LendingRuntimeState {
  /** The lending actors' own generator stream (`lending`): lending never changes what traders draw. */
  rng: [number, number, number, number];
  /** Whether the suppliers' initial deposits and the first cohort of borrowers went in. */
  seeded: boolean;
  /** Per supplier (agent index) and `protocol|symbol` (Morpho: `morpho|<market id>`): raw supplied principal. */
  supplies: Record<string, Record<string, string>>;
  positions: LendingPositionState[];
  stats: {
    supplies: number;
    withdrawals: number;
    borrows: number;
    repays: number;
    liquidations: number;
    /** Liquidations that reverted (the position recovered before the transaction ran). */
    liquidationsMissed: number;
  };
  /** Morpho Blue's actors (absent without Morpho in the manifest). */
  morpho?: MorphoRuntimeState;
}
