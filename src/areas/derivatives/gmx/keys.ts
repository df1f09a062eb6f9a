import { encodeAbiParameters, type Hex, keccak256, parseAbi } from 'viem';

/**
 * GMX v2's DataStore keys, derived as gmx-synthetics `contracts/data/Keys.sol` does: a name's key is
 * `keccak256(abi.encode(name))` and a keyed value's is `keccak256(abi.encode(nameKey, ...args))`; market
 * properties are `keccak256(abi.encode(market, PROPERTY))` (`contracts/market/MarketStoreUtils.sol`).
 */
export const hashString = (name: string): Hex => keccak256(encodeAbiParameters([{ type: 'string' }], [name]));

export const KEY = {
  OPEN_INTEREST: hashString('OPEN_INTEREST'),
  OPEN_INTEREST_IN_TOKENS: hashString('OPEN_INTEREST_IN_TOKENS'),
  POOL_AMOUNT: hashString('POOL_AMOUNT'),
  MARKET_LIST: hashString('MARKET_LIST'),
  SAVED_FUNDING_FACTOR_PER_SECOND: hashString('SAVED_FUNDING_FACTOR_PER_SECOND'),
  FUNDING_FACTOR: hashString('FUNDING_FACTOR'),
  FUNDING_EXPONENT_FACTOR: hashString('FUNDING_EXPONENT_FACTOR'),
  FUNDING_INCREASE_FACTOR_PER_SECOND: hashString('FUNDING_INCREASE_FACTOR_PER_SECOND'),
  MAX_FUNDING_FACTOR_PER_SECOND: hashString('MAX_FUNDING_FACTOR_PER_SECOND'),
  BORROWING_FACTOR: hashString('BORROWING_FACTOR'),
  BORROWING_EXPONENT_FACTOR: hashString('BORROWING_EXPONENT_FACTOR'),
  CUMULATIVE_BORROWING_FACTOR: hashString('CUMULATIVE_BORROWING_FACTOR'),
  MAX_OPEN_INTEREST: hashString('MAX_OPEN_INTEREST'),
  MAX_POOL_AMOUNT: hashString('MAX_POOL_AMOUNT'),
  IS_MARKET_DISABLED: hashString('IS_MARKET_DISABLED'),
  USE_OPEN_INTEREST_IN_TOKENS_FOR_BALANCE: hashString('USE_OPEN_INTEREST_IN_TOKENS_FOR_BALANCE'),
  MARKET_TOKEN: hashString('MARKET_TOKEN'),
  INDEX_TOKEN: hashString('INDEX_TOKEN'),
  LONG_TOKEN: hashString('LONG_TOKEN'),
  SHORT_TOKEN: hashString('SHORT_TOKEN'),
} as const;

const hash = (types: readonly string[], values: readonly unknown[]): Hex =>
  keccak256(encodeAbiParameters(types.map((type) => ({ type })) as never, values as never));

/** `Keys.openInterestKey(market, collateralToken, isLong)`: cost basis in USD, 30 decimals. */
export const openInterestKey = (market: string, collateralToken: string, isLong: boolean) =>
  hash(['bytes32', 'address', 'address', 'bool'], [KEY.OPEN_INTEREST, market, collateralToken, isLong]);
/** `Keys.openInterestInTokensKey(market, collateralToken, isLong)`: index token units. */
export const openInterestInTokensKey = (market: string, collateralToken: string, isLong: boolean) =>
  hash(['bytes32', 'address', 'address', 'bool'], [KEY.OPEN_INTEREST_IN_TOKENS, market, collateralToken, isLong]);
/** `Keys.poolAmountKey(market, token)`: the market token's holding of `token`. */
export const poolAmountKey = (market: string, token: string) =>
  hash(['bytes32', 'address', 'address'], [KEY.POOL_AMOUNT, market, token]);
export const maxPoolAmountKey = (market: string, token: string) =>
  hash(['bytes32', 'address', 'address'], [KEY.MAX_POOL_AMOUNT, market, token]);
/** `Keys.maxOpenInterestKey(market, isLong)`: the open interest cap in USD, 30 decimals. */
export const maxOpenInterestKey = (market: string, isLong: boolean) =>
  hash(['bytes32', 'address', 'bool'], [KEY.MAX_OPEN_INTEREST, market, isLong]);
/** `Keys.savedFundingFactorPerSecondKey(market)`: an int; positive means longs pay shorts (adaptive funding). */
export const savedFundingFactorPerSecondKey = (market: string) =>
  hash(['bytes32', 'address'], [KEY.SAVED_FUNDING_FACTOR_PER_SECOND, market]);
export const fundingFactorKey = (market: string) => hash(['bytes32', 'address'], [KEY.FUNDING_FACTOR, market]);
export const fundingExponentFactorKey = (market: string) =>
  hash(['bytes32', 'address'], [KEY.FUNDING_EXPONENT_FACTOR, market]);
export const fundingIncreaseFactorPerSecondKey = (market: string) =>
  hash(['bytes32', 'address'], [KEY.FUNDING_INCREASE_FACTOR_PER_SECOND, market]);
export const maxFundingFactorPerSecondKey = (market: string) =>
  hash(['bytes32', 'address'], [KEY.MAX_FUNDING_FACTOR_PER_SECOND, market]);
export const borrowingFactorKey = (market: string, isLong: boolean) =>
  hash(['bytes32', 'address', 'bool'], [KEY.BORROWING_FACTOR, market, isLong]);
export const cumulativeBorrowingFactorKey = (market: string, isLong: boolean) =>
  hash(['bytes32', 'address', 'bool'], [KEY.CUMULATIVE_BORROWING_FACTOR, market, isLong]);
export const isMarketDisabledKey = (market: string) => hash(['bytes32', 'address'], [KEY.IS_MARKET_DISABLED, market]);
/** A market's property (`MarketStoreUtils`): `MARKET_TOKEN`, `INDEX_TOKEN`, `LONG_TOKEN`, `SHORT_TOKEN`. */
export const marketPropertyKey = (
  market: string,
  property: 'MARKET_TOKEN' | 'INDEX_TOKEN' | 'LONG_TOKEN' | 'SHORT_TOKEN',
) => hash(['address', 'bytes32'], [market, KEY[property]]);

/** The DataStore getters the part reads (gmx-synthetics `contracts/data/DataStore.sol`). */
export const DATA_STORE_ABI = parseAbi([
  'function getUint(bytes32 key) view returns (uint256)',
  'function getInt(bytes32 key) view returns (int256)',
  'function getAddress(bytes32 key) view returns (address)',
  'function getBool(bytes32 key) view returns (bool)',
  'function getAddressCount(bytes32 setKey) view returns (uint256)',
  'function getAddressValuesAt(bytes32 setKey, uint256 start, uint256 end) view returns (address[])',
]);
