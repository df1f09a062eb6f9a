// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IChainlinkFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
    function getRoundData(uint80 roundId) external view returns (uint80, int256, uint256, uint256, uint80);
    function decimals() external view returns (uint8);
}

/// @title Liquity's ETH/USD price (18 decimals), from a Chainlink-style feed, as Liquity v1's PriceFeed without its
/// Tellor fallback: a round is trusted when it is positive, not from the future, at most 4 hours old and within
/// 50 % of the round before it; otherwise the last good price is used and the status says so.
contract PriceFeed {
    event LastGoodPriceUpdated(uint256 _lastGoodPrice);
    event PriceFeedStatusChanged(uint8 newStatus);

    /// Mainnet's statuses; this feed has no fallback oracle, so it is either working or frozen on its last price.
    uint8 internal constant CHAINLINK_WORKING = 0;
    uint8 internal constant BOTH_ORACLES_UNTRUSTED = 2;

    uint256 public constant TIMEOUT = 14400;
    uint256 public constant MAX_PRICE_DEVIATION_FROM_PREVIOUS_ROUND = 5e17;
    uint256 public constant TARGET_DIGITS = 18;

    IChainlinkFeed public immutable priceAggregator;
    uint256 public lastGoodPrice;
    uint8 public status;

    constructor(address aggregator) {
        priceAggregator = IChainlinkFeed(aggregator);
        uint256 price = _currentPrice();
        require(price > 0, "PriceFeed: Chainlink must be working and current");
        _storePrice(price);
    }

    /// The price the protocol uses in this transaction (stored as the last good price when the feed is trusted).
    function fetchPrice() external returns (uint256) {
        uint256 price = _currentPrice();
        if (price == 0) {
            _setStatus(BOTH_ORACLES_UNTRUSTED);
            return lastGoodPrice;
        }
        _setStatus(CHAINLINK_WORKING);
        _storePrice(price);
        return price;
    }

    /// The feed's latest answer scaled to 18 decimals, or 0 when it cannot be trusted.
    function _currentPrice() internal view returns (uint256) {
        (uint80 roundId, int256 answer,, uint256 updatedAt,) = priceAggregator.latestRoundData();
        if (roundId == 0 || answer <= 0 || updatedAt == 0 || updatedAt > block.timestamp) return 0;
        if (block.timestamp - updatedAt > TIMEOUT) return 0;
        uint256 scale = 10 ** (TARGET_DIGITS - priceAggregator.decimals());
        uint256 current = uint256(answer) * scale;
        if (roundId > 1) {
            (, int256 previousAnswer,,,) = priceAggregator.getRoundData(roundId - 1);
            if (previousAnswer > 0) {
                uint256 previous = uint256(previousAnswer) * scale;
                uint256 high = current > previous ? current : previous;
                uint256 low = current > previous ? previous : current;
                if (((high - low) * 1e18) / high > MAX_PRICE_DEVIATION_FROM_PREVIOUS_ROUND) return 0;
            }
        }
        return current;
    }

    function _setStatus(uint8 next) internal {
        if (status == next) return;
        status = next;
        emit PriceFeedStatusChanged(next);
    }

    function _storePrice(uint256 price) internal {
        lastGoodPrice = price;
        emit LastGoodPriceUpdated(price);
    }
}
