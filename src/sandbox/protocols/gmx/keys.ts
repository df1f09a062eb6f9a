/**
 * GMX v2's DataStore keys in TypeScript, derived as GMX's Keys.sol (and `@gmx-io/sdk`'s configs/dataStore): a name
 * is `keccak256(abi.encode("NAME"))`, a keyed value `keccak256(abi.encode(NAME, ...parts))`. The sandbox's contracts
 * (contracts/GmxKeys.sol) write under exactly these; the tests read the store through them.
 */
import { type Address, encodeAbiParameters, type Hex, keccak256 } from 'viem';

export const hashString = (name: string): Hex => keccak256(encodeAbiParameters([{ type: 'string' }], [name]));

const key = (name: string, types: readonly string[], values: readonly unknown[]): Hex =>
  keccak256(
    encodeAbiParameters([{ type: 'bytes32' }, ...types.map((type) => ({ type }))], [
      hashString(name),
      ...values,
    ] as never),
  );

export const GMX_KEYS = {
  MARKET_LIST: hashString('MARKET_LIST'),
  POSITION_LIST: hashString('POSITION_LIST'),
  poolAmount: (market: Address, token: Address) => key('POOL_AMOUNT', ['address', 'address'], [market, token]),
  openInterest: (market: Address, collateral: Address, isLong: boolean) =>
    key('OPEN_INTEREST', ['address', 'address', 'bool'], [market, collateral, isLong]),
  openInterestInTokens: (market: Address, collateral: Address, isLong: boolean) =>
    key('OPEN_INTEREST_IN_TOKENS', ['address', 'address', 'bool'], [market, collateral, isLong]),
  maxOpenInterest: (market: Address, isLong: boolean) =>
    key('MAX_OPEN_INTEREST', ['address', 'bool'], [market, isLong]),
  savedFundingFactorPerSecond: (market: Address) => key('SAVED_FUNDING_FACTOR_PER_SECOND', ['address'], [market]),
  fundingFeeAmountPerSize: (market: Address, collateral: Address, isLong: boolean) =>
    key('FUNDING_FEE_AMOUNT_PER_SIZE', ['address', 'address', 'bool'], [market, collateral, isLong]),
  cumulativeBorrowingFactor: (market: Address, isLong: boolean) =>
    key('CUMULATIVE_BORROWING_FACTOR', ['address', 'bool'], [market, isLong]),
} as const;

/** GMX's `Position.getPositionKey`: keccak256(abi.encode(account, market, collateralToken, isLong)). */
export function positionKeyOf(account: Address, market: Address, collateralToken: Address, isLong: boolean): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'bool' }],
      [account, market, collateralToken, isLong],
    ),
  );
}
