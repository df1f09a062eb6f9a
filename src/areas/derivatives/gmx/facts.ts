import type { GmxEvent } from './events.js';

/**
 * The GMX part's facts as code sees them: events with their place and time, and the venue's DataStore state at a
 * block. Amounts are exact (bigint); GMX's USD values and prices have 30 decimals (`PRICE_DECIMALS`).
 */

/** `OrderType` of gmx-synthetics `contracts/order/Order.sol` (the enum's order). */
export const ORDER_TYPE = {
  MarketSwap: 0,
  LimitSwap: 1,
  MarketIncrease: 2,
  LimitIncrease: 3,
  MarketDecrease: 4,
  LimitDecrease: 5,
  StopLossDecrease: 6,
  Liquidation: 7,
  StopIncrease: 8,
} as const;

export interface GmxMarketFact {
  readonly chain: string;
  readonly dataStore: string;
  readonly market: string;
  readonly indexToken: string;
  readonly longToken: string;
  readonly shortToken: string;
  readonly createdBlock: number | null;
}

export interface GmxEventFact {
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly txHash: string;
  readonly timestamp: number;
  readonly event: GmxEvent;
}

/** Open interest of one market, collateral token and side, as the DataStore keeps it. */
export interface GmxOpenInterestState {
  readonly collateralToken: string;
  readonly isLong: boolean;
  /** `OPEN_INTEREST`: cost basis, USD with 30 decimals. */
  readonly usd: bigint;
  /** `OPEN_INTEREST_IN_TOKENS`: index token units. */
  readonly tokens: bigint;
}

/** One market's state at a block. */
export interface GmxMarketState {
  readonly market: string;
  readonly indexToken: string;
  readonly longToken: string;
  readonly shortToken: string;
  /** Per collateral token (the long token, then the short token; once when they are the same) and side. */
  readonly openInterest: readonly GmxOpenInterestState[];
  /** `POOL_AMOUNT` per pool token (long, then short; once when they are the same), in that token's units. */
  readonly poolAmounts: readonly { readonly token: string; readonly amount: bigint }[];
  /**
   * What the market token holds of each pool token (ERC-20 `balanceOf(market)`, same order): the pool, the positions'
   * collateral and the fees not yet claimed. Absent in snapshots taken before it was read (2026-11-29).
   */
  readonly heldAmounts?: readonly { readonly token: string; readonly amount: bigint }[];
  /** `SAVED_FUNDING_FACTOR_PER_SECOND` (int, 30 decimals): positive while longs pay shorts (adaptive funding). */
  readonly savedFundingFactorPerSecond: bigint;
  /** `FUNDING_INCREASE_FACTOR_PER_SECOND`: non-zero when the market's funding is adaptive. */
  readonly fundingIncreaseFactorPerSecond: bigint;
  /** `MAX_OPEN_INTEREST` per side: the caps in USD, 30 decimals. */
  readonly maxOpenInterestLong: bigint;
  readonly maxOpenInterestShort: bigint;
  readonly disabled: boolean;
  /**
   * The oracle's last min and max price of the index token at or before the block (`OraclePriceUpdate`, 30 decimals
   * per raw unit), when one was found in the blocks searched: the index price of the state's instant.
   */
  readonly oracleIndexPrice?: { readonly min: bigint; readonly max: bigint };
}

export interface GmxStateSnapshot {
  readonly chain: string;
  readonly dataStore: string;
  readonly blockNumber: number;
  readonly timestamp: number;
  readonly markets: readonly GmxMarketState[];
}

/** Field names holding big integers in the JSON of events and snapshots (written as decimal strings). */
const BIGINT_FIELDS = new Set([
  'sizeDeltaUsd',
  'sizeDeltaInTokens',
  'executionPrice',
  'indexTokenPriceMin',
  'indexTokenPriceMax',
  'collateralTokenPriceMin',
  'collateralTokenPriceMax',
  'tradeSizeUsd',
  'positionFeeAmount',
  'borrowingFeeAmount',
  'fundingFeeAmount',
  'liquidationFeeAmount',
  'delta',
  'nextValue',
  'factorPerSecond',
  'usd',
  'tokens',
  'amount',
  'savedFundingFactorPerSecond',
  'fundingIncreaseFactorPerSecond',
  'maxOpenInterestLong',
  'maxOpenInterestShort',
  'min',
  'max',
]);

/** JSON text with big integers as decimal strings. */
export const factJson = (value: unknown): string =>
  JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v));

/** The inverse of `factJson` for the part's fact shapes. */
export function parseFactJson<T>(text: string): T {
  return JSON.parse(text, (k, v) => (BIGINT_FIELDS.has(k) && typeof v === 'string' ? BigInt(v) : v)) as T;
}
