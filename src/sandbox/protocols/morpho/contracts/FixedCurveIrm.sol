// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Morpho Blue's market parameters and state (IMorpho.sol), repeated so that this file stands alone: the ABI of
/// `borrowRate((address,address,address,address,uint256),(uint128,uint128,uint128,uint128,uint128,uint128))` is
/// what Morpho calls.
struct MarketParams {
    address loanToken;
    address collateralToken;
    address oracle;
    address irm;
    uint256 lltv;
}

struct Market {
    uint128 totalSupplyAssets;
    uint128 totalSupplyShares;
    uint128 totalBorrowAssets;
    uint128 totalBorrowShares;
    uint128 lastUpdate;
    uint128 fee;
}

/// @title An interest rate model for the sandbox's Morpho Blue markets (implements Morpho's IIrm).
/// @notice The curve of Morpho's AdaptiveCurveIrm without its adaptation (that IRM ships in a separate repository,
/// not on npm): the borrow rate is `rateAtTarget` at 90 % utilisation, a quarter of it at 0 % and four times it at
/// 100 %, linear in between on each side of the kink. Rates are per second, WAD-scaled, as Morpho expects.
contract FixedCurveIrm {
    uint256 private constant WAD = 1e18;
    uint256 public constant TARGET_UTILIZATION = 0.9 ether;
    uint256 public constant CURVE_STEEPNESS = 4 ether;
    /// Borrow rate per second at the target utilisation.
    uint256 public immutable rateAtTarget;

    constructor(uint256 rateAtTargetPerSecond) {
        rateAtTarget = rateAtTargetPerSecond;
    }

    function borrowRate(MarketParams memory marketParams, Market memory market) external view returns (uint256) {
        return borrowRateView(marketParams, market);
    }

    function borrowRateView(MarketParams memory, Market memory market) public view returns (uint256) {
        uint256 utilization =
            market.totalSupplyAssets > 0 ? uint256(market.totalBorrowAssets) * WAD / market.totalSupplyAssets : 0;
        if (utilization > WAD) utilization = WAD;
        if (utilization <= TARGET_UTILIZATION) {
            // From rateAtTarget / steepness at 0 % up to rateAtTarget at the target.
            uint256 low = rateAtTarget * WAD / CURVE_STEEPNESS;
            return low + (rateAtTarget - low) * utilization / TARGET_UTILIZATION;
        }
        // From rateAtTarget at the target up to rateAtTarget × steepness at 100 %.
        uint256 high = rateAtTarget * CURVE_STEEPNESS / WAD;
        return rateAtTarget + (high - rateAtTarget) * (utilization - TARGET_UTILIZATION) / (WAD - TARGET_UTILIZATION);
    }
}
