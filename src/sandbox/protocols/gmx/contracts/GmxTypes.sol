// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title The sandbox GMX v2 contracts' shared types (our own code; field names as GMX's Market.Props, Price.Props,
/// Position.Props and PositionPricingUtils.PositionFees, whose items the events carry).
library GmxTypes {
    struct Props {
        address marketToken;
        address indexToken;
        address longToken;
        address shortToken;
    }
    struct Price {
        uint256 min;
        uint256 max;
    }
    struct Position {
        address account;
        address market;
        address collateralToken;
        bool isLong;
        uint256 sizeInUsd;
        uint256 sizeInTokens;
        uint256 collateralAmount;
        uint256 borrowingFactor;
        uint256 fundingFeeAmountPerSize;
        uint256 longTokenClaimableFundingAmountPerSize;
        uint256 shortTokenClaimableFundingAmountPerSize;
        uint256 increasedAtTime;
        uint256 decreasedAtTime;
    }
    struct MarketConfig {
        uint256 fundingFactor;
        uint256 borrowingFactor;
        uint256 maxOpenInterest;
        uint256 positionFeeFactor;
        uint256 liquidationFeeFactor;
        uint256 minCollateralFactor;
    }
    /// What a position change costs, in collateral tokens (GMX's PositionFees, the items it emits).
    struct Fees {
        Price collateralTokenPrice;
        uint256 tradeSizeUsd;
        uint256 fundingFeeAmount;
        uint256 claimableLongTokenAmount;
        uint256 claimableShortTokenAmount;
        uint256 latestFundingFeeAmountPerSize;
        uint256 latestLongTokenClaimableFundingAmountPerSize;
        uint256 latestShortTokenClaimableFundingAmountPerSize;
        uint256 borrowingFeeUsd;
        uint256 borrowingFeeAmount;
        uint256 borrowingFeeReceiverFactor;
        uint256 borrowingFeeAmountForFeeReceiver;
        uint256 positionFeeFactor;
        uint256 positionFeeReceiverFactor;
        uint256 positionFeeAmount;
        uint256 positionFeeAmountForPool;
        uint256 liquidationFeeAmount;
        uint256 liquidationFeeReceiverFactor;
        uint256 liquidationFeeAmountForFeeReceiver;
        uint256 feeReceiverAmount;
        uint256 feeAmountForPool;
        uint256 totalCostAmount;
    }
    struct Change {
        bytes32 key;
        bytes32 orderKey;
        uint256 orderType;
        uint256 sizeDeltaUsd;
        uint256 sizeDeltaInTokens;
        uint256 executionPrice;
        int256 collateralDelta;
        int256 basePnlUsd;
    }
}
