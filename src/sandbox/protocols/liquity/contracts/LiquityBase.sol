// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// The sandbox's own implementation of Liquity v1's rules, written for the protoscore sandbox (MIT). It follows the
// protocol as Liquity's whitepaper and documentation describe it and answers the same views and emits the same
// events as the mainnet deployment, so a reader written for mainnet reads it unchanged. See docs/sandbox.md.

interface IPriceFeedLike {
    function fetchPrice() external returns (uint256);
}

interface IPoolLike {
    function getETH() external view returns (uint256);
    function getLUSDDebt() external view returns (uint256);
    function increaseLUSDDebt(uint256 amount) external;
    function decreaseLUSDDebt(uint256 amount) external;
}

interface IActivePoolLike is IPoolLike {
    function sendETH(address to, uint256 amount) external;
}

interface IDefaultPoolLike is IPoolLike {
    function sendETHToActivePool(uint256 amount) external;
}

interface ICollSurplusPoolLike {
    function accountSurplus(address account, uint256 amount) external;
    function claimColl(address account) external;
}

interface ILUSDTokenLike {
    function mint(address account, uint256 amount) external;
    function burn(address account, uint256 amount) external;
    function sendToPool(address sender, address pool, uint256 amount) external;
    function returnFromPool(address pool, address receiver, uint256 amount) external;
    function balanceOf(address account) external view returns (uint256);
}

interface ISortedTrovesLike {
    function insert(address id, uint256 nicr, address prevId, address nextId) external;
    function remove(address id) external;
    function reInsert(address id, uint256 newNicr, address prevId, address nextId) external;
    function getFirst() external view returns (address);
    function getLast() external view returns (address);
    function getPrev(address id) external view returns (address);
    function getNext(address id) external view returns (address);
    function getSize() external view returns (uint256);
}

interface IStabilityPoolLike {
    function offset(uint256 debtToOffset, uint256 collToAdd) external;
    function getTotalLUSDDeposits() external view returns (uint256);
}

interface ITroveManagerLike {
    function getNominalICR(address borrower) external view returns (uint256);
    function getCurrentICR(address borrower, uint256 price) external view returns (uint256);
    function getTroveDebt(address borrower) external view returns (uint256);
    function getTroveColl(address borrower) external view returns (uint256);
    function getTroveStatus(address borrower) external view returns (uint256);
    function getPendingETHReward(address borrower) external view returns (uint256);
    function getPendingLUSDDebtReward(address borrower) external view returns (uint256);
    function checkRecoveryMode(uint256 price) external view returns (bool);
    function getBorrowingFee(uint256 lusdDebt) external view returns (uint256);
    function decayBaseRateFromBorrowing() external;
    function applyPendingRewards(address borrower) external;
    function setTroveStatus(address borrower, uint256 status) external;
    function increaseTroveColl(address borrower, uint256 amount) external returns (uint256);
    function decreaseTroveColl(address borrower, uint256 amount) external returns (uint256);
    function increaseTroveDebt(address borrower, uint256 amount) external returns (uint256);
    function decreaseTroveDebt(address borrower, uint256 amount) external returns (uint256);
    function updateTroveRewardSnapshots(address borrower) external;
    function updateStakeAndTotalStakes(address borrower) external returns (uint256);
    function addTroveOwnerToArray(address borrower) external returns (uint256);
    function removeStake(address borrower) external;
    function closeTrove(address borrower) external;
}

/// @notice The protocol's constants and the system-wide figures every Liquity contract computes the same way.
abstract contract LiquityBase {
    uint256 public constant DECIMAL_PRECISION = 1e18;
    uint256 internal constant _100pct = 1e18;
    /// Minimum collateral ratio of a trove: 110 %.
    uint256 public constant MCR = 1.1e18;
    /// Critical system collateral ratio: below 150 % the system is in recovery mode.
    uint256 public constant CCR = 1.5e18;
    /// LUSD set aside per trove (the liquidation reserve) and paid to whoever liquidates it.
    uint256 public constant LUSD_GAS_COMPENSATION = 200e18;
    /// Minimum debt of a trove, net of the liquidation reserve (mainnet's value).
    uint256 public constant MIN_NET_DEBT = 1800e18;
    /// The liquidator's collateral compensation: 1/200 = 0.5 % of the trove's collateral.
    uint256 public constant PERCENT_DIVISOR = 200;
    uint256 public constant BORROWING_FEE_FLOOR = 0.005e18;

    IActivePoolLike public activePool;
    IDefaultPoolLike public defaultPool;
    IPriceFeedLike public priceFeed;

    function getEntireSystemColl() public view returns (uint256) {
        return activePool.getETH() + defaultPool.getETH();
    }

    function getEntireSystemDebt() public view returns (uint256) {
        return activePool.getLUSDDebt() + defaultPool.getLUSDDebt();
    }

    function _getTCR(uint256 price) internal view returns (uint256) {
        return _computeCR(getEntireSystemColl(), getEntireSystemDebt(), price);
    }

    function _checkRecoveryMode(uint256 price) internal view returns (bool) {
        return _getTCR(price) < CCR;
    }

    function _getCompositeDebt(uint256 netDebt) internal pure returns (uint256) {
        return netDebt + LUSD_GAS_COMPENSATION;
    }

    function _getNetDebt(uint256 debt) internal pure returns (uint256) {
        return debt - LUSD_GAS_COMPENSATION;
    }

    function _getCollGasCompensation(uint256 coll) internal pure returns (uint256) {
        return coll / PERCENT_DIVISOR;
    }

    function _requireUserAcceptsFee(uint256 fee, uint256 amount, uint256 maxFeePercentage) internal pure {
        require((fee * DECIMAL_PRECISION) / amount <= maxFeePercentage, "Fee exceeded provided maximum");
    }

    function _min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }

    /// Collateral ratio at `price` (USD per ETH, 1e18): coll × price / debt; "infinite" without debt.
    function _computeCR(uint256 coll, uint256 debt, uint256 price) internal pure returns (uint256) {
        if (debt > 0) return (coll * price) / debt;
        return type(uint256).max;
    }

    /// Nominal collateral ratio (no price), 1e20-scaled: the key the troves are sorted by.
    function _computeNominalCR(uint256 coll, uint256 debt) internal pure returns (uint256) {
        if (debt > 0) return (coll * 1e20) / debt;
        return type(uint256).max;
    }

    function _decMul(uint256 x, uint256 y) internal pure returns (uint256) {
        return (x * y + DECIMAL_PRECISION / 2) / DECIMAL_PRECISION;
    }

    /// base^minutes in 18-decimal fixed point, by squaring; minutes capped at 1000 years as on mainnet.
    function _decPow(uint256 base, uint256 minutes_) internal pure returns (uint256) {
        if (minutes_ > 525_600_000) minutes_ = 525_600_000;
        if (minutes_ == 0) return DECIMAL_PRECISION;
        uint256 y = DECIMAL_PRECISION;
        uint256 x = base;
        uint256 n = minutes_;
        while (n > 1) {
            if (n % 2 == 0) {
                x = _decMul(x, x);
                n = n / 2;
            } else {
                y = _decMul(x, y);
                x = _decMul(x, x);
                n = (n - 1) / 2;
            }
        }
        return _decMul(x, y);
    }
}

/// @notice Setup by the deployer once: every contract learns the addresses of the others, then nobody can change them.
abstract contract OnceWired {
    address private _wirer;

    constructor() {
        _wirer = msg.sender;
    }

    modifier wiring() {
        require(msg.sender == _wirer, "only the deployer, once");
        _;
        _wirer = address(0);
    }
}
