/**
 * The perpetual markets of a simulated order-book venue. A market follows a world token's reference price where the
 * world has one (`reference`), or, for an asset the world lacks, that token's returns with a `beta` from its own
 * `anchorUsd`. Sizes are whole steps (`stepDecimals`: a step is 10^-stepDecimals base units) and prices whole ticks
 * (10^-tickDecimals USD), so every figure a venue serves is an exact decimal.
 */
export interface PerpMarketSpec {
  /** The venue's name of the market (`BTC-USD` on dYdX, `BTC-USDT` on Synthetix's exchange). */
  readonly id: string;
  /** The base asset (`BTC`). */
  readonly base: string;
  /** The world token whose reference price drives it (`WBTC`). */
  readonly reference: string;
  /** For an asset the world lacks: its price at the world's initial prices, and its beta to `reference`. */
  readonly proxy?: { readonly anchorUsd: number; readonly beta: number };
  /** Typical open interest, USD (one side). */
  readonly openInterestUsd: number;
  /** Mean taker fills per hour in a calm hour. */
  readonly fillsPerHour: number;
  readonly stepDecimals: number;
  readonly tickDecimals: number;
  /** The venue's numeric id of the market (dYdX's `clobPairId`). */
  readonly index: number;
}

const m = (
  id: string,
  base: string,
  reference: string,
  index: number,
  openInterestUsd: number,
  fillsPerHour: number,
  stepDecimals: number,
  tickDecimals: number,
  proxy?: PerpMarketSpec['proxy'],
): PerpMarketSpec => ({
  id,
  base,
  reference,
  index,
  openInterestUsd,
  fillsPerHour,
  stepDecimals,
  tickDecimals,
  ...(proxy ? { proxy } : {}),
});

/**
 * dYdX v4's markets in the sandbox, with their mainnet `clobPairId`s: the world's assets, and a few it lacks that
 * follow ETH (SOL, DOGE, AVAX, ATOM, LTC, DYDX), which the registry's pair list may or may not name: the venue's
 * figures cover every market, listed or not.
 */
export const DYDX_MARKETS: readonly PerpMarketSpec[] = [
  m('BTC-USD', 'BTC', 'WBTC', 0, 60_000_000, 40, 4, 0),
  m('ETH-USD', 'ETH', 'WETH', 1, 40_000_000, 36, 3, 1),
  m('LINK-USD', 'LINK', 'LINK', 2, 4_000_000, 12, 1, 3),
  m('SOL-USD', 'SOL', 'WETH', 5, 12_000_000, 20, 2, 2, { anchorUsd: 150, beta: 1.3 }),
  m('AVAX-USD', 'AVAX', 'WETH', 7, 2_000_000, 8, 1, 3, { anchorUsd: 30, beta: 1.2 }),
  m('LTC-USD', 'LTC', 'WETH', 9, 1_500_000, 6, 2, 2, { anchorUsd: 80, beta: 0.8 }),
  m('DOGE-USD', 'DOGE', 'WETH', 10, 5_000_000, 14, -1, 5, { anchorUsd: 0.15, beta: 1.4 }),
  m('ATOM-USD', 'ATOM', 'WETH', 11, 1_000_000, 5, 1, 3, { anchorUsd: 7, beta: 1.1 }),
  m('UNI-USD', 'UNI', 'UNI', 13, 1_200_000, 6, 1, 3),
  m('PEPE-USD', 'PEPE', 'PEPE', 28, 2_500_000, 10, -5, 10),
  m('AAVE-USD', 'AAVE', 'AAVE', 44, 2_000_000, 7, 2, 2),
  m('DYDX-USD', 'DYDX', 'WETH', 35, 1_000_000, 5, 0, 4, { anchorUsd: 1.5, beta: 1.5 }),
];

/** Synthetix's perpetuals exchange's markets in the sandbox (its own symbols: USDT-quoted). */
export const SYNTHETIX_MARKETS: readonly PerpMarketSpec[] = [
  m('BTC-USDT', 'BTC', 'WBTC', 1, 20_000_000, 20, 4, 1),
  m('ETH-USDT', 'ETH', 'WETH', 2, 15_000_000, 18, 3, 2),
  m('SOL-USDT', 'SOL', 'WETH', 3, 3_000_000, 8, 2, 2, { anchorUsd: 150, beta: 1.3 }),
  m('LINK-USDT', 'LINK', 'LINK', 4, 800_000, 4, 1, 3),
  m('AAVE-USDT', 'AAVE', 'AAVE', 5, 600_000, 3, 2, 2),
];
