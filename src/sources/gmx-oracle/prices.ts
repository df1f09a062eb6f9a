import { toFloat } from '../../core/decimal.js';
import { ServiceError } from '../../core/errors.js';
import type { GmxTicker, GmxToken } from './schemas.js';

/**
 * GMX's price convention (gmx-io/gmx-synthetics `utils/prices.ts`, gmx-interface `parseContractPrice`): a price is
 * USD per smallest unit of the token scaled by 10^30, so USD per whole token = price / 10^(30 − decimals). Pure:
 * the derivatives area calls it on the tickers it read.
 */

/** USD per whole token of a ticker: the minimum, the maximum and their midpoint (the index price GMX marks at). */
export interface TickerUsd {
  readonly min: number;
  readonly max: number;
  /** (min + max) / 2, exact in 30-decimal integers before the one conversion to a float. */
  readonly mid: number;
  /** The keeper's update time, Unix milliseconds. */
  readonly updatedAtMs: number;
}

/** A 30-decimal GMX price (USD per smallest unit × 10^30) as USD per whole token of `decimals` decimals. */
export function gmxPriceToUsd(price: bigint, decimals: number): number {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 30) {
    throw new RangeError(`GMX price: token decimals ${decimals} outside 0..30`);
  }
  return toFloat(price, 30 - decimals);
}

/** USD per whole token as GMX's 30-decimal integer price, for a token of `decimals` decimals (rounded down). */
export function usdToGmxPrice(usd: number, decimals: number): bigint {
  const [whole, fraction = ''] = usd.toFixed(20).split('.');
  const scale = 30 - decimals;
  const digits = `${whole}${fraction.padEnd(scale, '0').slice(0, Math.max(0, scale))}`;
  return scale >= 0 ? BigInt(digits) : BigInt(whole!) / 10n ** BigInt(-scale);
}

/**
 * A ticker's prices in USD per whole token. `decimals` are the token's: its ERC-20 decimals, or for a synthetic
 * index token (no contract) the decimals the keeper's `/tokens` lists for it (`tokenDecimals`). Never
 * `oracleDecimals`, which is the keeper's price precision.
 */
export function tickerUsd(ticker: GmxTicker, decimals: number): TickerUsd {
  const min = BigInt(ticker.minPrice);
  const max = BigInt(ticker.maxPrice);
  return {
    min: gmxPriceToUsd(min, decimals),
    max: gmxPriceToUsd(max, decimals),
    mid: toFloat(min + max, 30 - decimals) / 2,
    updatedAtMs: updatedAtMs(ticker.updatedAt),
  };
}

/** `updatedAt` in milliseconds: the live keeper sends milliseconds, GMX's documentation examples seconds. */
export function updatedAtMs(updatedAt: number): number {
  return updatedAt < 1e12 ? updatedAt * 1000 : updatedAt;
}

/** A token's decimals from the keeper's `/tokens` list (by address, case-insensitive); throws when it is absent. */
export function tokenDecimals(tokens: readonly GmxToken[], address: string): number {
  const wanted = address.toLowerCase();
  const token = tokens.find((t) => t.address.toLowerCase() === wanted);
  if (!token) throw new ServiceError(`GMX oracle /tokens lists no token ${address}`, false);
  return token.decimals;
}

/** The ticker of a token address (case-insensitive), or undefined. */
export function tickerOf(tickers: readonly GmxTicker[], address: string): GmxTicker | undefined {
  const wanted = address.toLowerCase();
  return tickers.find((t) => t.tokenAddress.toLowerCase() === wanted);
}
