/**
 * The DEX side of the world's plan: the deployments (factory sets), the pools with their characters and depths, and
 * how each character trades. Data only: `deploy.ts` puts it on chain, the actors of this folder animate it.
 */
import type { PoolCharacter } from '../../world/manifest.js';

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
