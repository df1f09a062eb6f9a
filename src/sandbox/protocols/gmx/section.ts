/**
 * GMX v2's section of the Arbitrum sandbox chain's manifest (`sections.gmx`) and the units it shares with the
 * readers: GMX's prices are 30-decimal USD per raw token unit (price × 10^(30 − decimals)); a synthetic index token
 * has no contract, only a pseudo-address and the decimals the oracle keeper states (`oracleDecimals` = 30 − decimals).
 */
import { getAddress, keccak256, toHex } from 'viem';
import { pow } from '../../world/pow.js';

/** A token the GMX oracle prices (a market's index, long or short token). */
export interface GmxToken {
  /** GMX's symbol (`WETH`, `USDC`, `BTC`). */
  readonly symbol: string;
  /** Its contract, or its pseudo-address when synthetic (checksummed). */
  readonly address: `0x${string}`;
  readonly decimals: number;
  /** 30 − decimals: the decimals of its 30-decimal price per raw unit, as the oracle keeper's tickers state them. */
  readonly oracleDecimals: number;
  /** The world token whose price it takes (`WBTC` for the synthetic BTC). */
  readonly priceSymbol: string;
  readonly synthetic: boolean;
}

export interface GmxMarket {
  /** The market token (GM), which holds the pool and the collateral. */
  readonly marketToken: `0x${string}`;
  /** GMX's display name: `ETH/USD [WETH-USDC]` style, with the sandbox's symbols (`WETH/USD [WETH-USDC]`). */
  readonly name: string;
  readonly indexToken: `0x${string}`;
  readonly longToken: `0x${string}`;
  readonly shortToken: `0x${string}`;
  readonly indexSymbol: string;
  readonly longSymbol: string;
  readonly shortSymbol: string;
  /** Whether the index token is synthetic (no contract). */
  readonly synthetic: boolean;
  /** The genesis deposit (raw amounts, decimal strings). */
  readonly seed: { readonly longAmount: string; readonly shortAmount: string };
}

/** `sections.gmx` of the Arbitrum manifest. */
export interface GmxSection {
  readonly dataStore: `0x${string}`;
  readonly eventEmitter: `0x${string}`;
  readonly oracle: `0x${string}`;
  readonly marketEvents: `0x${string}`;
  readonly marketEngine: `0x${string}`;
  readonly marketFactory: `0x${string}`;
  /** Sets the oracle's prices each block and liquidates (the chain's deployer). */
  readonly keeper: `0x${string}`;
  readonly feeReceiver: `0x${string}`;
  /** The genesis block (every contract and market exists from it). */
  readonly startBlock: number;
  readonly tokens: readonly GmxToken[];
  readonly markets: readonly GmxMarket[];
}

/** A synthetic index token's pseudo-address: the last 20 bytes of keccak256 of its name in the sandbox. */
export function syntheticAddress(symbol: string): `0x${string}` {
  return getAddress(`0x${keccak256(toHex(`protoscore/sandbox/gmx/synthetic/${symbol}`)).slice(26)}`);
}

/** One basis point either side of the price: the oracle's minimum and maximum. */
export const SPREAD_BPS = 1n;

/** A USD price as GMX's 30-decimal price per raw unit, and the oracle's minimum and maximum around it. */
export function gmxPrice(priceUsd: number, decimals: number): { mid: bigint; min: bigint; max: bigint } {
  if (!(priceUsd > 0) || decimals > 30) throw new Error(`gmx: no price for ${priceUsd} at ${decimals} decimals`);
  // 15 significant digits of the float, then the 30 − decimals scale.
  const exponent = Math.floor(Math.log10(priceUsd));
  const digits = BigInt(Math.round(priceUsd / pow(10, exponent - 14)));
  const shift = 30 - decimals + exponent - 14;
  const mid = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  return { mid, min: (mid * (10_000n - SPREAD_BPS)) / 10_000n, max: (mid * (10_000n + SPREAD_BPS)) / 10_000n };
}
