// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title GMX v2's DataStore keys (our own code, GMX's derivation as its Keys.sol and the npm package
/// gmx-io/sdk's configs/dataStore publish): a name is `keccak256(abi.encode("NAME"))`, a keyed value `keccak256(abi.encode(NAME,
/// ...parts))`. Units as GMX's: USD with 30 decimals, token amounts raw, factors with 30 decimals.
library Keys {
    bytes32 internal constant MARKET_LIST = keccak256(abi.encode("MARKET_LIST"));
    bytes32 internal constant POSITION_LIST = keccak256(abi.encode("POSITION_LIST"));
    bytes32 internal constant ACCOUNT_POSITION_LIST = keccak256(abi.encode("ACCOUNT_POSITION_LIST"));
    bytes32 internal constant NONCE = keccak256(abi.encode("NONCE"));
    bytes32 internal constant MARKET_TOKEN = keccak256(abi.encode("MARKET_TOKEN"));
    bytes32 internal constant INDEX_TOKEN = keccak256(abi.encode("INDEX_TOKEN"));
    bytes32 internal constant LONG_TOKEN = keccak256(abi.encode("LONG_TOKEN"));
    bytes32 internal constant SHORT_TOKEN = keccak256(abi.encode("SHORT_TOKEN"));
    bytes32 internal constant POOL_AMOUNT = keccak256(abi.encode("POOL_AMOUNT"));
    bytes32 internal constant OPEN_INTEREST = keccak256(abi.encode("OPEN_INTEREST"));
    bytes32 internal constant OPEN_INTEREST_IN_TOKENS = keccak256(abi.encode("OPEN_INTEREST_IN_TOKENS"));
    bytes32 internal constant MAX_OPEN_INTEREST = keccak256(abi.encode("MAX_OPEN_INTEREST"));
    bytes32 internal constant COLLATERAL_SUM = keccak256(abi.encode("COLLATERAL_SUM"));
    bytes32 internal constant FUNDING_FACTOR = keccak256(abi.encode("FUNDING_FACTOR"));
    bytes32 internal constant FUNDING_UPDATED_AT = keccak256(abi.encode("FUNDING_UPDATED_AT"));
    bytes32 internal constant SAVED_FUNDING_FACTOR_PER_SECOND = keccak256(abi.encode("SAVED_FUNDING_FACTOR_PER_SECOND"));
    bytes32 internal constant FUNDING_FEE_AMOUNT_PER_SIZE = keccak256(abi.encode("FUNDING_FEE_AMOUNT_PER_SIZE"));
    bytes32 internal constant CLAIMABLE_FUNDING_AMOUNT_PER_SIZE =
        keccak256(abi.encode("CLAIMABLE_FUNDING_AMOUNT_PER_SIZE"));
    bytes32 internal constant CLAIMABLE_FUNDING_AMOUNT = keccak256(abi.encode("CLAIMABLE_FUNDING_AMOUNT"));
    bytes32 internal constant BORROWING_FACTOR = keccak256(abi.encode("BORROWING_FACTOR"));
    bytes32 internal constant CUMULATIVE_BORROWING_FACTOR = keccak256(abi.encode("CUMULATIVE_BORROWING_FACTOR"));
    bytes32 internal constant CUMULATIVE_BORROWING_FACTOR_UPDATED_AT =
        keccak256(abi.encode("CUMULATIVE_BORROWING_FACTOR_UPDATED_AT"));
    bytes32 internal constant POSITION_FEE_FACTOR = keccak256(abi.encode("POSITION_FEE_FACTOR"));
    bytes32 internal constant POSITION_FEE_RECEIVER_FACTOR = keccak256(abi.encode("POSITION_FEE_RECEIVER_FACTOR"));
    bytes32 internal constant BORROWING_FEE_RECEIVER_FACTOR = keccak256(abi.encode("BORROWING_FEE_RECEIVER_FACTOR"));
    bytes32 internal constant LIQUIDATION_FEE_FACTOR = keccak256(abi.encode("LIQUIDATION_FEE_FACTOR"));
    bytes32 internal constant LIQUIDATION_FEE_RECEIVER_FACTOR =
        keccak256(abi.encode("LIQUIDATION_FEE_RECEIVER_FACTOR"));
    bytes32 internal constant MIN_COLLATERAL_FACTOR = keccak256(abi.encode("MIN_COLLATERAL_FACTOR"));
    bytes32 internal constant MIN_COLLATERAL_USD = keccak256(abi.encode("MIN_COLLATERAL_USD"));

    function accountPositionListKey(address account) internal pure returns (bytes32) {
        return keccak256(abi.encode(ACCOUNT_POSITION_LIST, account));
    }
    /// A market's properties (GMX's MarketStoreUtils): `keccak256(abi.encode(marketToken, FIELD))`.
    function marketField(address market, bytes32 field) internal pure returns (bytes32) {
        return keccak256(abi.encode(market, field));
    }
    function poolAmountKey(address market, address token) internal pure returns (bytes32) {
        return keccak256(abi.encode(POOL_AMOUNT, market, token));
    }
    function openInterestKey(address market, address collateralToken, bool isLong) internal pure returns (bytes32) {
        return keccak256(abi.encode(OPEN_INTEREST, market, collateralToken, isLong));
    }
    function openInterestInTokensKey(address market, address collateralToken, bool isLong)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(OPEN_INTEREST_IN_TOKENS, market, collateralToken, isLong));
    }
    function maxOpenInterestKey(address market, bool isLong) internal pure returns (bytes32) {
        return keccak256(abi.encode(MAX_OPEN_INTEREST, market, isLong));
    }
    function collateralSumKey(address market, address collateralToken, bool isLong) internal pure returns (bytes32) {
        return keccak256(abi.encode(COLLATERAL_SUM, market, collateralToken, isLong));
    }
    function fundingFactorKey(address market) internal pure returns (bytes32) {
        return keccak256(abi.encode(FUNDING_FACTOR, market));
    }
    function fundingUpdatedAtKey(address market) internal pure returns (bytes32) {
        return keccak256(abi.encode(FUNDING_UPDATED_AT, market));
    }
    function savedFundingFactorPerSecondKey(address market) internal pure returns (bytes32) {
        return keccak256(abi.encode(SAVED_FUNDING_FACTOR_PER_SECOND, market));
    }
    function fundingFeeAmountPerSizeKey(address market, address collateralToken, bool isLong)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(FUNDING_FEE_AMOUNT_PER_SIZE, market, collateralToken, isLong));
    }
    function claimableFundingAmountPerSizeKey(address market, address collateralToken, bool isLong)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(CLAIMABLE_FUNDING_AMOUNT_PER_SIZE, market, collateralToken, isLong));
    }
    function claimableFundingAmountKey(address market, address token) internal pure returns (bytes32) {
        return keccak256(abi.encode(CLAIMABLE_FUNDING_AMOUNT, market, token));
    }
    function claimableFundingAmountKey(address market, address token, address account)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(CLAIMABLE_FUNDING_AMOUNT, market, token, account));
    }
    function borrowingFactorKey(address market, bool isLong) internal pure returns (bytes32) {
        return keccak256(abi.encode(BORROWING_FACTOR, market, isLong));
    }
    function cumulativeBorrowingFactorKey(address market, bool isLong) internal pure returns (bytes32) {
        return keccak256(abi.encode(CUMULATIVE_BORROWING_FACTOR, market, isLong));
    }
    function cumulativeBorrowingFactorUpdatedAtKey(address market, bool isLong) internal pure returns (bytes32) {
        return keccak256(abi.encode(CUMULATIVE_BORROWING_FACTOR_UPDATED_AT, market, isLong));
    }
    function positionFeeFactorKey(address market, bool forPositiveImpact) internal pure returns (bytes32) {
        return keccak256(abi.encode(POSITION_FEE_FACTOR, market, forPositiveImpact));
    }
    function liquidationFeeFactorKey(address market) internal pure returns (bytes32) {
        return keccak256(abi.encode(LIQUIDATION_FEE_FACTOR, market));
    }
    function minCollateralFactorKey(address market) internal pure returns (bytes32) {
        return keccak256(abi.encode(MIN_COLLATERAL_FACTOR, market));
    }
}
