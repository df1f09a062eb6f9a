// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
    function decimals() external view returns (uint8);
}

/// @title A Morpho Blue oracle (implements Morpho's IOracle) from two Chainlink-style USD feeds.
/// @notice `price()` is one unit of collateral quoted in units of the loan token, scaled by 1e36 and adjusted for
/// the tokens' decimals, as Morpho expects: base feed answer / quote feed answer × 10^(36 + loan decimals +
/// quote feed decimals − collateral decimals − base feed decimals), like morpho-blue-oracles' ChainlinkOracle.
contract FeedPriceOracle {
    IFeed public immutable baseFeed;
    IFeed public immutable quoteFeed;
    uint256 public immutable scaleFactor;

    constructor(address baseFeed_, address quoteFeed_, uint8 collateralDecimals, uint8 loanDecimals) {
        baseFeed = IFeed(baseFeed_);
        quoteFeed = IFeed(quoteFeed_);
        uint256 up = 36 + uint256(loanDecimals) + IFeed(quoteFeed_).decimals();
        uint256 down = uint256(collateralDecimals) + IFeed(baseFeed_).decimals();
        require(up >= down, "decimals");
        scaleFactor = 10 ** (up - down);
    }

    function price() external view returns (uint256) {
        (, int256 base,,,) = baseFeed.latestRoundData();
        (, int256 quote,,,) = quoteFeed.latestRoundData();
        require(base > 0 && quote > 0, "no price");
        return uint256(base) * scaleFactor / uint256(quote);
    }
}
