// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./GmxEventEmitter.sol";
import "./GmxTypes.sol";

/// @title The market engine's events as GMX v2 emits them (our own code; the names and items, in their order, of
/// GMX's PositionEventUtils and MarketEventUtils): `PositionIncrease`, `PositionDecrease`, `PositionFeesCollected`,
/// `OpenInterestUpdated`, `OpenInterestInTokensUpdated`, `CollateralSumUpdated`, `PoolAmountUpdated`,
/// `FundingFeeAmountPerSizeUpdated`, `ClaimableFundingAmountPerSizeUpdated`, `ClaimableFundingUpdated`,
/// `FundingFeesClaimed`, `CumulativeBorrowingFactorUpdated`: built from what the engine hands over and emitted
/// through the EventEmitter as EventLog1 (topic1: the account for positions and claims, else the market). Only the
/// engine calls it (a contract of its own keeps the engine under the contract size limit).
contract MarketEvents {
    using EventUtils for EventUtils.AddressItems;
    using EventUtils for EventUtils.UintItems;
    using EventUtils for EventUtils.IntItems;
    using EventUtils for EventUtils.BoolItems;
    using EventUtils for EventUtils.Bytes32Items;

    EventEmitter public immutable eventEmitter;
    address public immutable owner;
    address public engine;

    constructor(EventEmitter eventEmitter_) {
        eventEmitter = eventEmitter_;
        owner = msg.sender;
    }

    function setEngine(address engine_) external {
        require(msg.sender == owner && engine == address(0), "MarketEvents: wiring");
        engine = engine_;
    }

    modifier onlyEngine() {
        require(msg.sender == engine, "MarketEvents: not the engine");
        _;
    }

    function emitPositionFeesCollected(
        GmxTypes.Change memory c,
        GmxTypes.Position memory p,
        GmxTypes.Fees memory f,
        bool isIncrease
    ) external onlyEngine {
        EventUtils.EventLogData memory d;
        d.bytes32Items.initItems(3);
        d.bytes32Items.setItem(0, "orderKey", c.orderKey);
        d.bytes32Items.setItem(1, "positionKey", c.key);
        d.bytes32Items.setItem(2, "referralCode", bytes32(0));
        d.addressItems.initItems(5);
        d.addressItems.setItem(0, "market", p.market);
        d.addressItems.setItem(1, "collateralToken", p.collateralToken);
        d.addressItems.setItem(2, "affiliate", address(0));
        d.addressItems.setItem(3, "trader", p.account);
        d.addressItems.setItem(4, "uiFeeReceiver", address(0));
        d.uintItems.initItems(f.liquidationFeeAmount > 0 ? 31 : 28);
        d.uintItems.setItem(0, "collateralTokenPrice.min", f.collateralTokenPrice.min);
        d.uintItems.setItem(1, "collateralTokenPrice.max", f.collateralTokenPrice.max);
        d.uintItems.setItem(2, "tradeSizeUsd", f.tradeSizeUsd);
        d.uintItems.setItem(3, "totalRebateFactor", 0);
        d.uintItems.setItem(4, "traderDiscountFactor", 0);
        d.uintItems.setItem(5, "totalRebateAmount", 0);
        d.uintItems.setItem(6, "traderDiscountAmount", 0);
        d.uintItems.setItem(7, "affiliateRewardAmount", 0);
        d.uintItems.setItem(8, "fundingFeeAmount", f.fundingFeeAmount);
        d.uintItems.setItem(9, "claimableLongTokenAmount", f.claimableLongTokenAmount);
        d.uintItems.setItem(10, "claimableShortTokenAmount", f.claimableShortTokenAmount);
        d.uintItems.setItem(11, "latestFundingFeeAmountPerSize", f.latestFundingFeeAmountPerSize);
        d.uintItems.setItem(
            12,
            "latestLongTokenClaimableFundingAmountPerSize",
            f.latestLongTokenClaimableFundingAmountPerSize
        );
        d.uintItems.setItem(
            13,
            "latestShortTokenClaimableFundingAmountPerSize",
            f.latestShortTokenClaimableFundingAmountPerSize
        );
        d.uintItems.setItem(14, "borrowingFeeUsd", f.borrowingFeeUsd);
        d.uintItems.setItem(15, "borrowingFeeAmount", f.borrowingFeeAmount);
        d.uintItems.setItem(16, "borrowingFeeReceiverFactor", f.borrowingFeeReceiverFactor);
        d.uintItems.setItem(17, "borrowingFeeAmountForFeeReceiver", f.borrowingFeeAmountForFeeReceiver);
        d.uintItems.setItem(18, "positionFeeFactor", f.positionFeeFactor);
        d.uintItems.setItem(19, "protocolFeeAmount", f.feeReceiverAmount);
        d.uintItems.setItem(20, "positionFeeReceiverFactor", f.positionFeeReceiverFactor);
        d.uintItems.setItem(21, "feeReceiverAmount", f.feeReceiverAmount);
        d.uintItems.setItem(22, "feeAmountForPool", f.feeAmountForPool);
        d.uintItems.setItem(23, "positionFeeAmountForPool", f.positionFeeAmountForPool);
        d.uintItems.setItem(24, "positionFeeAmount", f.positionFeeAmount);
        d.uintItems.setItem(25, "totalCostAmount", f.totalCostAmount);
        d.uintItems.setItem(26, "uiFeeReceiverFactor", 0);
        d.uintItems.setItem(27, "uiFeeAmount", 0);
        if (f.liquidationFeeAmount > 0) {
            d.uintItems.setItem(28, "liquidationFeeAmount", f.liquidationFeeAmount);
            d.uintItems.setItem(29, "liquidationFeeReceiverFactor", f.liquidationFeeReceiverFactor);
            d.uintItems.setItem(30, "liquidationFeeAmountForFeeReceiver", f.liquidationFeeAmountForFeeReceiver);
        }
        d.boolItems.initItems(1);
        d.boolItems.setItem(0, "isIncrease", isIncrease);
        eventEmitter.emitEventLog1("PositionFeesCollected", bytes32(uint256(uint160(p.market))), d);
    }

    function _positionItems(EventUtils.EventLogData memory d, GmxTypes.Position memory p, uint256 uintCount)
        internal
        pure
    {
        d.addressItems.initItems(3);
        d.addressItems.setItem(0, "account", p.account);
        d.addressItems.setItem(1, "market", p.market);
        d.addressItems.setItem(2, "collateralToken", p.collateralToken);
        d.uintItems.initItems(uintCount);
        d.uintItems.setItem(0, "sizeInUsd", p.sizeInUsd);
        d.uintItems.setItem(1, "sizeInTokens", p.sizeInTokens);
        d.uintItems.setItem(2, "collateralAmount", p.collateralAmount);
        d.uintItems.setItem(3, "borrowingFactor", p.borrowingFactor);
        d.uintItems.setItem(4, "fundingFeeAmountPerSize", p.fundingFeeAmountPerSize);
        d.uintItems.setItem(5, "longTokenClaimableFundingAmountPerSize", p.longTokenClaimableFundingAmountPerSize);
        d.uintItems.setItem(6, "shortTokenClaimableFundingAmountPerSize", p.shortTokenClaimableFundingAmountPerSize);
        d.boolItems.initItems(1);
        d.boolItems.setItem(0, "isLong", p.isLong);
    }

    function _indexPrices(
        EventUtils.EventLogData memory d,
        GmxTypes.Change memory c,
        GmxTypes.Price memory ip,
        GmxTypes.Price memory cp
    ) internal pure {
        d.uintItems.setItem(7, "executionPrice", c.executionPrice);
        d.uintItems.setItem(8, "indexTokenPrice.max", ip.max);
        d.uintItems.setItem(9, "indexTokenPrice.min", ip.min);
        d.uintItems.setItem(10, "collateralTokenPrice.max", cp.max);
        d.uintItems.setItem(11, "collateralTokenPrice.min", cp.min);
        d.uintItems.setItem(12, "sizeDeltaUsd", c.sizeDeltaUsd);
        d.uintItems.setItem(13, "sizeDeltaInTokens", c.sizeDeltaInTokens);
        d.bytes32Items.initItems(2);
        d.bytes32Items.setItem(0, "orderKey", c.orderKey);
        d.bytes32Items.setItem(1, "positionKey", c.key);
    }

    function emitPositionIncrease(
        GmxTypes.Change memory c,
        GmxTypes.Position memory p,
        GmxTypes.Price memory ip,
        GmxTypes.Price memory cp
    ) external onlyEngine {
        EventUtils.EventLogData memory d;
        _positionItems(d, p, 16);
        _indexPrices(d, c, ip, cp);
        d.uintItems.setItem(14, "orderType", c.orderType);
        d.uintItems.setItem(15, "increasedAtTime", p.increasedAtTime);
        d.intItems.initItems(3);
        d.intItems.setItem(0, "collateralDeltaAmount", c.collateralDelta);
        d.intItems.setItem(1, "priceImpactUsd", 0);
        d.intItems.setItem(2, "priceImpactAmount", 0);
        eventEmitter.emitEventLog1("PositionIncrease", bytes32(uint256(uint160(p.account))), d);
    }

    function emitPositionDecrease(
        GmxTypes.Change memory c,
        GmxTypes.Position memory p,
        GmxTypes.Price memory ip,
        GmxTypes.Price memory cp
    ) external onlyEngine {
        EventUtils.EventLogData memory d;
        _positionItems(d, p, 18);
        _indexPrices(d, c, ip, cp);
        d.uintItems.setItem(14, "collateralDeltaAmount", uint256(c.collateralDelta));
        d.uintItems.setItem(15, "values.priceImpactDiffUsd", 0);
        d.uintItems.setItem(16, "orderType", c.orderType);
        d.uintItems.setItem(17, "decreasedAtTime", p.decreasedAtTime);
        d.intItems.initItems(3);
        d.intItems.setItem(0, "priceImpactUsd", 0);
        d.intItems.setItem(1, "basePnlUsd", c.basePnlUsd);
        d.intItems.setItem(2, "uncappedBasePnlUsd", c.basePnlUsd);
        eventEmitter.emitEventLog1("PositionDecrease", bytes32(uint256(uint160(p.account))), d);
    }

    function emitDelta(uint8 kind, address market, address collateralToken, bool isLong, int256 delta, uint256 next)
        external
        onlyEngine
    {
        EventUtils.EventLogData memory d;
        d.addressItems.initItems(2);
        d.addressItems.setItem(0, "market", market);
        d.addressItems.setItem(1, "collateralToken", collateralToken);
        d.boolItems.initItems(1);
        d.boolItems.setItem(0, "isLong", isLong);
        d.intItems.initItems(1);
        d.intItems.setItem(0, "delta", delta);
        d.uintItems.initItems(1);
        d.uintItems.setItem(0, "nextValue", next);
        string memory name = kind == 0
            ? "OpenInterestUpdated"
            : kind == 1 ? "OpenInterestInTokensUpdated" : "CollateralSumUpdated";
        eventEmitter.emitEventLog1(name, bytes32(uint256(uint160(market))), d);
    }

    function emitPoolAmountUpdated(address market, address token, int256 delta, uint256 next) external onlyEngine {
        EventUtils.EventLogData memory d;
        d.addressItems.initItems(2);
        d.addressItems.setItem(0, "market", market);
        d.addressItems.setItem(1, "token", token);
        d.intItems.initItems(1);
        d.intItems.setItem(0, "delta", delta);
        d.uintItems.initItems(1);
        d.uintItems.setItem(0, "nextValue", next);
        eventEmitter.emitEventLog1("PoolAmountUpdated", bytes32(uint256(uint160(market))), d);
    }

    /// `FundingFeeAmountPerSizeUpdated`, or `ClaimableFundingAmountPerSizeUpdated` when `claimable`.
    function emitPerSize(bool claimable, address market, address token, bool isLong, uint256 delta, uint256 value)
        external
        onlyEngine
    {
        EventUtils.EventLogData memory d;
        d.addressItems.initItems(2);
        d.addressItems.setItem(0, "market", market);
        d.addressItems.setItem(1, "collateralToken", token);
        d.boolItems.initItems(1);
        d.boolItems.setItem(0, "isLong", isLong);
        d.uintItems.initItems(2);
        d.uintItems.setItem(0, "delta", delta);
        d.uintItems.setItem(1, "value", value);
        string memory name = claimable ? "ClaimableFundingAmountPerSizeUpdated" : "FundingFeeAmountPerSizeUpdated";
        eventEmitter.emitEventLog1(name, bytes32(uint256(uint160(market))), d);
    }

    /// `ClaimableFundingUpdated` (delta, nextValue, nextPoolValue), or `FundingFeesClaimed` (amount, nextPoolValue)
    /// when `claimed` is not zero.
    function emitClaimable(
        address market,
        address token,
        address account,
        uint256 delta,
        uint256 next,
        uint256 pool,
        uint256 claimed
    ) external onlyEngine {
        EventUtils.EventLogData memory d;
        d.addressItems.initItems(3);
        d.addressItems.setItem(0, "market", market);
        d.addressItems.setItem(1, "token", token);
        d.addressItems.setItem(2, "account", account);
        if (claimed > 0) {
            d.uintItems.initItems(2);
            d.uintItems.setItem(0, "amount", claimed);
            d.uintItems.setItem(1, "nextPoolValue", pool);
        } else {
            d.uintItems.initItems(3);
            d.uintItems.setItem(0, "delta", delta);
            d.uintItems.setItem(1, "nextValue", next);
            d.uintItems.setItem(2, "nextPoolValue", pool);
        }
        string memory name = claimed > 0 ? "FundingFeesClaimed" : "ClaimableFundingUpdated";
        eventEmitter.emitEventLog1(name, bytes32(uint256(uint160(account))), d);
    }

    function emitBorrowing(address market, bool isLong, uint256 delta, uint256 next) external onlyEngine {
        EventUtils.EventLogData memory d;
        d.addressItems.initItems(1);
        d.addressItems.setItem(0, "market", market);
        d.boolItems.initItems(1);
        d.boolItems.setItem(0, "isLong", isLong);
        d.uintItems.initItems(2);
        d.uintItems.setItem(0, "delta", delta);
        d.uintItems.setItem(1, "nextValue", next);
        eventEmitter.emitEventLog1("CumulativeBorrowingFactorUpdated", bytes32(uint256(uint160(market))), d);
    }
}
