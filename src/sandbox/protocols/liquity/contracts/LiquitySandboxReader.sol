// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IReaderTroveManager {
    function getEntireSystemColl() external view returns (uint256);
    function getEntireSystemDebt() external view returns (uint256);
    function getBorrowingRateWithDecay() external view returns (uint256);
    function getRedemptionRateWithDecay() external view returns (uint256);
    function getEntireDebtAndColl(address borrower) external view returns (uint256, uint256, uint256, uint256);
}

interface IReaderStabilityPool {
    function getTotalLUSDDeposits() external view returns (uint256);
    function getCompoundedLUSDDeposit(address depositor) external view returns (uint256);
}

interface IReaderPriceFeed {
    function lastGoodPrice() external view returns (uint256);
}

interface IReaderPair {
    function getReserves() external view returns (uint112, uint112, uint32);
}

/// @title Not part of Liquity: the sandbox's actors read everything they need in one call (one eth_call a block
/// instead of dozens), through Liquity's own public views.
contract LiquitySandboxReader {
    struct System {
        uint256 lastGoodPrice;
        uint256 systemColl;
        uint256 systemDebt;
        uint256 spDeposits;
        uint256 borrowingRate;
        uint256 redemptionRate;
        uint256 reserve0;
        uint256 reserve1;
    }

    function read(
        address troveManager,
        address stabilityPool,
        address priceFeed,
        address pair,
        address[] calldata troves,
        address[] calldata depositors
    ) external view returns (System memory s, uint256[] memory debts, uint256[] memory colls, uint256[] memory deposits) {
        IReaderTroveManager tm = IReaderTroveManager(troveManager);
        s.lastGoodPrice = IReaderPriceFeed(priceFeed).lastGoodPrice();
        s.systemColl = tm.getEntireSystemColl();
        s.systemDebt = tm.getEntireSystemDebt();
        s.spDeposits = IReaderStabilityPool(stabilityPool).getTotalLUSDDeposits();
        s.borrowingRate = tm.getBorrowingRateWithDecay();
        s.redemptionRate = tm.getRedemptionRateWithDecay();
        (uint112 r0, uint112 r1,) = IReaderPair(pair).getReserves();
        (s.reserve0, s.reserve1) = (r0, r1);
        debts = new uint256[](troves.length);
        colls = new uint256[](troves.length);
        for (uint256 i = 0; i < troves.length; i++) (debts[i], colls[i],,) = tm.getEntireDebtAndColl(troves[i]);
        deposits = new uint256[](depositors.length);
        for (uint256 i = 0; i < depositors.length; i++) {
            deposits[i] = IReaderStabilityPool(stabilityPool).getCompoundedLUSDDeposit(depositors[i]);
        }
    }
}
