/**
 * The plan the world is deployed from and moves along: its tokens (with their price models) and the scheduled
 * market events. Data only; the pools and their characters are the DEX's plan (`protocols/uniswap/plan.ts`).
 */
import type { TokenKind } from './manifest.js';

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
 *   Borrowers with volatile collateral and HF below ~1.16 get liquidated. It comes back every `repeatHours` (hours
 *   126, 222, …) as a deeper shock (`repeatDrop`: WETH −20 %) that recovers over `recoverHours`, so that every published week of a world longer than
 *   five days (the service's week: 7 UTC days; the default world is 8 days old at its first start, and a live world
 *   ages) holds a crash and the liquidations, auctions and takes it brings, and prices do not ratchet down. The first
 *   crash stays as it always has, so that worlds of up to five days are as before.
 * - `depeg`: the liquid staking token trades below its exchange rate: the discount ramps to `discount`, holds, then
 *   recovers. Its feed (and so Aave's oracle) reports the market price, so leveraged stakers (wstETH collateral,
 *   WETH debt, E-mode) below HF ~1/(1 − discount) get liquidated.
 */
export const MARKET_EVENTS = {
  ethCrash: { startHour: 30, hours: 3, drop: 0.14, repeatHours: 96, repeatDrop: 0.2, recoverHours: 48 },
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

/**
 * The multiplier the ETH crashes put on a token's walk at `hours` after genesis (1 before the first): the first
 * crash's, which stays, times the current repeat's, which recovers.
 */
export function crashFactor(hours: number, marketCorrelation: number): number {
  const { startHour, hours: length, drop, repeatHours, repeatDrop, recoverHours } = MARKET_EVENTS.ethCrash;
  const weth = 0.85;
  const share = Math.min(1, marketCorrelation / weth);
  const first = 1 - drop * share * Math.min(1, Math.max(0, (hours - startHour) / length));
  const k = Math.floor((hours - startHour) / repeatHours);
  if (k < 1) return first;
  // Hours into the k-th repeat (recovered before the next: `hours` + `recoverHours` < `repeatHours`).
  const t = hours - startHour - k * repeatHours;
  const into = t < length ? t / length : Math.max(0, 1 - (t - length) / recoverHours);
  return first * (1 - repeatDrop * share * into);
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
