// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./GmxEventEmitter.sol";
import "./GmxTypes.sol";

/// @title The sandbox GMX v2 oracle (our own code): the keeper sets each block's minimum and maximum prices (GMX's
/// 30-decimal USD per raw unit: price × 10^(30 − decimals)), and each update emits GMX's `OraclePriceUpdate`
/// (EventLog1, topic1 the token). The engine and the factory read the last ones.
contract Oracle {
    using EventUtils for EventUtils.AddressItems;
    using EventUtils for EventUtils.UintItems;
    using EventUtils for EventUtils.BoolItems;

    EventEmitter public immutable eventEmitter;
    address public immutable keeper;
    mapping(address => GmxTypes.Price) private prices;

    constructor(EventEmitter eventEmitter_) {
        eventEmitter = eventEmitter_;
        keeper = msg.sender;
    }

    function getPrice(address token) external view returns (GmxTypes.Price memory price) {
        price = prices[token];
        require(price.min > 0, "Oracle: no price");
    }

    function setPrices(address[] calldata tokens, uint256[] calldata mins, uint256[] calldata maxs) external {
        require(msg.sender == keeper, "Oracle: not the keeper");
        for (uint256 i = 0; i < tokens.length; i++) {
            require(mins[i] > 0 && mins[i] <= maxs[i], "Oracle: price");
            prices[tokens[i]] = GmxTypes.Price(mins[i], maxs[i]);
            EventUtils.EventLogData memory d;
            d.addressItems.initItems(2);
            d.addressItems.setItem(0, "token", tokens[i]);
            d.addressItems.setItem(1, "provider", msg.sender);
            d.uintItems.initItems(3);
            d.uintItems.setItem(0, "minPrice", mins[i]);
            d.uintItems.setItem(1, "maxPrice", maxs[i]);
            d.uintItems.setItem(2, "timestamp", block.timestamp);
            d.boolItems.initItems(1);
            d.boolItems.setItem(0, "isPriceFeed", false);
            eventEmitter.emitEventLog1("OraclePriceUpdate", bytes32(uint256(uint160(tokens[i]))), d);
        }
    }
}
