// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./LiquityBase.sol";

/// @title The troves' ledger: their debt, collateral and stakes, the redistribution of liquidated troves to the
/// active ones (L_ETH, L_LUSDDebt), liquidations (normal and recovery mode), redemptions, and the base rate behind
/// the borrowing and redemption fees. Liquity v1's rules; no LQTY (fees go to a fee recipient instead of staking).
contract TroveManager is LiquityBase, OnceWired {
    // Mainnet's event set (operation = TroveManagerOperation: 0 applyPendingRewards, 1 liquidateInNormalMode,
    // 2 liquidateInRecoveryMode, 3 redeemCollateral).
    event BorrowerOperationsAddressChanged(address _newBorrowerOperationsAddress);
    event PriceFeedAddressChanged(address _newPriceFeedAddress);
    event LUSDTokenAddressChanged(address _newLUSDTokenAddress);
    event ActivePoolAddressChanged(address _activePoolAddress);
    event DefaultPoolAddressChanged(address _defaultPoolAddress);
    event StabilityPoolAddressChanged(address _stabilityPoolAddress);
    event GasPoolAddressChanged(address _gasPoolAddress);
    event CollSurplusPoolAddressChanged(address _collSurplusPoolAddress);
    event SortedTrovesAddressChanged(address _sortedTrovesAddress);
    event Liquidation(uint256 _liquidatedDebt, uint256 _liquidatedColl, uint256 _collGasCompensation, uint256 _LUSDGasCompensation);
    event Redemption(uint256 _attemptedLUSDAmount, uint256 _actualLUSDAmount, uint256 _ETHSent, uint256 _ETHFee);
    event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 _stake, uint8 _operation);
    event TroveLiquidated(address indexed _borrower, uint256 _debt, uint256 _coll, uint8 _operation);
    event BaseRateUpdated(uint256 _baseRate);
    event LastFeeOpTimeUpdated(uint256 _lastFeeOpTime);
    event TotalStakesUpdated(uint256 _newTotalStakes);
    event SystemSnapshotsUpdated(uint256 _totalStakesSnapshot, uint256 _totalCollateralSnapshot);
    event LTermsUpdated(uint256 _L_ETH, uint256 _L_LUSDDebt);
    event TroveSnapshotsUpdated(uint256 _L_ETH, uint256 _L_LUSDDebt);
    event TroveIndexUpdated(address _borrower, uint256 _newIndex);

    uint8 internal constant OP_APPLY_PENDING_REWARDS = 0;
    uint8 internal constant OP_LIQUIDATE_NORMAL = 1;
    uint8 internal constant OP_LIQUIDATE_RECOVERY = 2;
    uint8 internal constant OP_REDEEM = 3;

    enum Status {
        nonExistent,
        active,
        closedByOwner,
        closedByLiquidation,
        closedByRedemption
    }

    struct Trove {
        uint256 debt;
        uint256 coll;
        uint256 stake;
        Status status;
        uint128 arrayIndex;
    }

    struct RewardSnapshot {
        uint256 ETH;
        uint256 LUSDDebt;
    }

    /// Half-life of the base rate: 12 hours (0.5^(1/720) per minute).
    uint256 public constant MINUTE_DECAY_FACTOR = 999037758833783000;
    uint256 public constant SECONDS_IN_ONE_MINUTE = 60;
    uint256 public constant REDEMPTION_FEE_FLOOR = 0.005e18;
    uint256 public constant MAX_BORROWING_FEE = 0.05e18;
    /// Redeeming a fraction f of the supply raises the base rate by f / BETA.
    uint256 public constant BETA = 2;

    address public borrowerOperationsAddress;
    IStabilityPoolLike public stabilityPool;
    address public gasPoolAddress;
    ICollSurplusPoolLike public collSurplusPool;
    ILUSDTokenLike public lusdToken;
    ISortedTrovesLike public sortedTroves;
    /// Receives the redemption fees (on mainnet: LQTY stakers).
    address public feeRecipient;

    uint256 public baseRate;
    uint256 public lastFeeOperationTime;

    mapping(address => Trove) public Troves;
    uint256 public totalStakes;
    uint256 public totalStakesSnapshot;
    uint256 public totalCollateralSnapshot;

    /// Per unit staked: the ETH and debt redistributed so far; a trove's pending share is stake × (L − its snapshot).
    uint256 public L_ETH;
    uint256 public L_LUSDDebt;
    mapping(address => RewardSnapshot) public rewardSnapshots;

    address[] public TroveOwners;

    uint256 public lastETHError_Redistribution;
    uint256 public lastLUSDDebtError_Redistribution;

    constructor() {
        lastFeeOperationTime = block.timestamp;
    }

    function setAddresses(
        address borrowerOperations,
        address activePool_,
        address defaultPool_,
        address stabilityPool_,
        address gasPool,
        address collSurplusPool_,
        address priceFeed_,
        address lusd,
        address sorted,
        address feeRecipient_
    ) external wiring {
        borrowerOperationsAddress = borrowerOperations;
        activePool = IActivePoolLike(activePool_);
        defaultPool = IDefaultPoolLike(defaultPool_);
        stabilityPool = IStabilityPoolLike(stabilityPool_);
        gasPoolAddress = gasPool;
        collSurplusPool = ICollSurplusPoolLike(collSurplusPool_);
        priceFeed = IPriceFeedLike(priceFeed_);
        lusdToken = ILUSDTokenLike(lusd);
        sortedTroves = ISortedTrovesLike(sorted);
        feeRecipient = feeRecipient_;
        emit BorrowerOperationsAddressChanged(borrowerOperations);
        emit ActivePoolAddressChanged(activePool_);
        emit DefaultPoolAddressChanged(defaultPool_);
        emit StabilityPoolAddressChanged(stabilityPool_);
        emit GasPoolAddressChanged(gasPool);
        emit CollSurplusPoolAddressChanged(collSurplusPool_);
        emit PriceFeedAddressChanged(priceFeed_);
        emit LUSDTokenAddressChanged(lusd);
        emit SortedTrovesAddressChanged(sorted);
    }

    // --- views ---

    function getTroveOwnersCount() external view returns (uint256) {
        return TroveOwners.length;
    }

    function getTroveFromTroveOwnersArray(uint256 index) external view returns (address) {
        return TroveOwners[index];
    }

    function getNominalICR(address borrower) public view returns (uint256) {
        (uint256 debt, uint256 coll) = _getCurrentTroveAmounts(borrower);
        return _computeNominalCR(coll, debt);
    }

    function getCurrentICR(address borrower, uint256 price) public view returns (uint256) {
        (uint256 debt, uint256 coll) = _getCurrentTroveAmounts(borrower);
        return _computeCR(coll, debt, price);
    }

    function _getCurrentTroveAmounts(address borrower) internal view returns (uint256 debt, uint256 coll) {
        debt = Troves[borrower].debt + getPendingLUSDDebtReward(borrower);
        coll = Troves[borrower].coll + getPendingETHReward(borrower);
    }

    function getPendingETHReward(address borrower) public view returns (uint256) {
        uint256 snapshot = rewardSnapshots[borrower].ETH;
        if (snapshot == L_ETH || Troves[borrower].status != Status.active) return 0;
        return (Troves[borrower].stake * (L_ETH - snapshot)) / DECIMAL_PRECISION;
    }

    function getPendingLUSDDebtReward(address borrower) public view returns (uint256) {
        uint256 snapshot = rewardSnapshots[borrower].LUSDDebt;
        if (snapshot == L_LUSDDebt || Troves[borrower].status != Status.active) return 0;
        return (Troves[borrower].stake * (L_LUSDDebt - snapshot)) / DECIMAL_PRECISION;
    }

    function hasPendingRewards(address borrower) public view returns (bool) {
        if (Troves[borrower].status != Status.active) return false;
        return rewardSnapshots[borrower].ETH < L_ETH;
    }

    function getEntireDebtAndColl(address borrower)
        public
        view
        returns (uint256 debt, uint256 coll, uint256 pendingLUSDDebtReward, uint256 pendingETHReward)
    {
        pendingLUSDDebtReward = getPendingLUSDDebtReward(borrower);
        pendingETHReward = getPendingETHReward(borrower);
        debt = Troves[borrower].debt + pendingLUSDDebtReward;
        coll = Troves[borrower].coll + pendingETHReward;
    }

    function getTCR(uint256 price) external view returns (uint256) {
        return _getTCR(price);
    }

    function checkRecoveryMode(uint256 price) external view returns (bool) {
        return _checkRecoveryMode(price);
    }

    function getTroveStatus(address borrower) external view returns (uint256) {
        return uint256(Troves[borrower].status);
    }

    function getTroveStake(address borrower) external view returns (uint256) {
        return Troves[borrower].stake;
    }

    function getTroveDebt(address borrower) external view returns (uint256) {
        return Troves[borrower].debt;
    }

    function getTroveColl(address borrower) external view returns (uint256) {
        return Troves[borrower].coll;
    }

    // --- liquidations ---

    /// Amounts of one liquidation, and of a sequence of them added up.
    struct LiquidationValues {
        uint256 entireTroveDebt;
        uint256 entireTroveColl;
        uint256 collGasCompensation;
        uint256 LUSDGasCompensation;
        uint256 debtToOffset;
        uint256 collToSendToSP;
        uint256 debtToRedistribute;
        uint256 collToRedistribute;
        uint256 collSurplus;
    }

    function liquidate(address borrower) external {
        require(Troves[borrower].status == Status.active, "TroveManager: Trove does not exist or is closed");
        address[] memory one = new address[](1);
        one[0] = borrower;
        batchLiquidateTroves(one);
    }

    /// Liquidates up to `n` troves from the riskiest up, while they are liquidatable.
    function liquidateTroves(uint256 n) external {
        uint256 price = priceFeed.fetchPrice();
        uint256 lusdInSP = stabilityPool.getTotalLUSDDeposits();
        LiquidationValues memory totals;
        bool recovery = _checkRecoveryMode(price);
        uint256 systemColl = getEntireSystemColl();
        uint256 systemDebt = getEntireSystemDebt();
        for (uint256 i = 0; i < n; i++) {
            address borrower = sortedTroves.getLast();
            if (borrower == address(0) || sortedTroves.getSize() <= 1) break;
            LiquidationValues memory single;
            (single, recovery) = _liquidateOne(borrower, price, lusdInSP, recovery, systemColl, systemDebt);
            if (single.entireTroveDebt == 0) break; // the riskiest trove is safe: so are all the others
            lusdInSP -= single.debtToOffset;
            systemDebt -= single.debtToOffset;
            systemColl -= single.collToSendToSP + single.collGasCompensation + single.collSurplus;
            _add(totals, single);
        }
        _finishLiquidations(totals);
    }

    /// Liquidates the given troves that are liquidatable, in the order given (others are skipped).
    function batchLiquidateTroves(address[] memory troves) public {
        require(troves.length != 0, "TroveManager: Calldata address array must not be empty");
        uint256 price = priceFeed.fetchPrice();
        uint256 lusdInSP = stabilityPool.getTotalLUSDDeposits();
        LiquidationValues memory totals;
        bool recovery = _checkRecoveryMode(price);
        uint256 systemColl = getEntireSystemColl();
        uint256 systemDebt = getEntireSystemDebt();
        for (uint256 i = 0; i < troves.length; i++) {
            address borrower = troves[i];
            if (Troves[borrower].status != Status.active || sortedTroves.getSize() <= 1) continue;
            LiquidationValues memory single;
            (single, recovery) = _liquidateOne(borrower, price, lusdInSP, recovery, systemColl, systemDebt);
            if (single.entireTroveDebt == 0) continue;
            lusdInSP -= single.debtToOffset;
            systemDebt -= single.debtToOffset;
            systemColl -= single.collToSendToSP + single.collGasCompensation + single.collSurplus;
            _add(totals, single);
        }
        _finishLiquidations(totals);
    }

    /// Liquidates `borrower` if the mode allows it (nothing when it does not); returns the amounts and whether the
    /// system is (still) in recovery mode afterwards, judged on the system's figures after this liquidation.
    function _liquidateOne(
        address borrower,
        uint256 price,
        uint256 lusdInSP,
        bool recovery,
        uint256 systemColl,
        uint256 systemDebt
    ) internal returns (LiquidationValues memory single, bool stillRecovery) {
        uint256 icr = getCurrentICR(borrower, price);
        if (!recovery) {
            if (icr < MCR) single = _liquidateNormalMode(borrower, lusdInSP);
            return (single, false);
        }
        uint256 tcr = _computeCR(systemColl, systemDebt, price);
        single = _liquidateRecoveryMode(borrower, icr, lusdInSP, tcr, price);
        systemDebt -= single.debtToOffset;
        systemColl -= single.collToSendToSP + single.collGasCompensation + single.collSurplus;
        stillRecovery = _computeCR(systemColl, systemDebt, price) < CCR;
    }

    function _liquidateNormalMode(address borrower, uint256 lusdInSP) internal returns (LiquidationValues memory v) {
        _takeTrove(borrower, v);
        (v.debtToOffset, v.collToSendToSP, v.debtToRedistribute, v.collToRedistribute) =
            _getOffsetAndRedistributionVals(v.entireTroveDebt, v.entireTroveColl - v.collGasCompensation, lusdInSP);
        _closeTrove(borrower, Status.closedByLiquidation);
        emit TroveLiquidated(borrower, v.entireTroveDebt, v.entireTroveColl, OP_LIQUIDATE_NORMAL);
        emit TroveUpdated(borrower, 0, 0, 0, OP_LIQUIDATE_NORMAL);
    }

    /// Recovery mode: below 100 % everything is redistributed; below MCR as in normal mode; from MCR up to the TCR
    /// the pool absorbs the whole debt (when it can) for collateral worth 110 % of it, the rest kept for the owner.
    function _liquidateRecoveryMode(address borrower, uint256 icr, uint256 lusdInSP, uint256 tcr, uint256 price)
        internal
        returns (LiquidationValues memory v)
    {
        if (TroveOwners.length <= 1) return v;
        if (icr <= _100pct) {
            _takeTrove(borrower, v);
            v.debtToRedistribute = v.entireTroveDebt;
            v.collToRedistribute = v.entireTroveColl - v.collGasCompensation;
        } else if (icr < MCR) {
            _takeTrove(borrower, v);
            (v.debtToOffset, v.collToSendToSP, v.debtToRedistribute, v.collToRedistribute) =
                _getOffsetAndRedistributionVals(v.entireTroveDebt, v.entireTroveColl - v.collGasCompensation, lusdInSP);
        } else if (icr < tcr && Troves[borrower].debt + getPendingLUSDDebtReward(borrower) <= lusdInSP) {
            _takeTrove(borrower, v);
            uint256 collToOffset = (v.entireTroveDebt * MCR) / price;
            v.collGasCompensation = _getCollGasCompensation(collToOffset);
            v.debtToOffset = v.entireTroveDebt;
            v.collToSendToSP = collToOffset - v.collGasCompensation;
            v.collSurplus = v.entireTroveColl - collToOffset;
            if (v.collSurplus > 0) collSurplusPool.accountSurplus(borrower, v.collSurplus);
        } else {
            return v; // not liquidatable now
        }
        _closeTrove(borrower, Status.closedByLiquidation);
        emit TroveLiquidated(borrower, v.entireTroveDebt, v.entireTroveColl, OP_LIQUIDATE_RECOVERY);
        emit TroveUpdated(borrower, 0, 0, 0, OP_LIQUIDATE_RECOVERY);
    }

    /// The trove's entire debt and collateral (its pending rewards moved to the active pool), its stake removed.
    function _takeTrove(address borrower, LiquidationValues memory v) internal {
        uint256 pendingDebt;
        uint256 pendingColl;
        (v.entireTroveDebt, v.entireTroveColl, pendingDebt, pendingColl) = getEntireDebtAndColl(borrower);
        _movePendingTroveRewardsToActivePool(pendingDebt, pendingColl);
        _removeStake(borrower);
        v.collGasCompensation = _getCollGasCompensation(v.entireTroveColl);
        v.LUSDGasCompensation = LUSD_GAS_COMPENSATION;
    }

    /// The part of the debt the pool can absorb (with the same share of the collateral), and the rest.
    function _getOffsetAndRedistributionVals(uint256 debt, uint256 coll, uint256 lusdInSP)
        internal
        pure
        returns (uint256 debtToOffset, uint256 collToSendToSP, uint256 debtToRedistribute, uint256 collToRedistribute)
    {
        if (lusdInSP > 0) {
            debtToOffset = _min(debt, lusdInSP);
            collToSendToSP = (coll * debtToOffset) / debt;
            debtToRedistribute = debt - debtToOffset;
            collToRedistribute = coll - collToSendToSP;
        } else {
            debtToRedistribute = debt;
            collToRedistribute = coll;
        }
    }

    function _add(LiquidationValues memory t, LiquidationValues memory s) internal pure {
        t.entireTroveDebt += s.entireTroveDebt;
        t.entireTroveColl += s.entireTroveColl;
        t.collGasCompensation += s.collGasCompensation;
        t.LUSDGasCompensation += s.LUSDGasCompensation;
        t.debtToOffset += s.debtToOffset;
        t.collToSendToSP += s.collToSendToSP;
        t.debtToRedistribute += s.debtToRedistribute;
        t.collToRedistribute += s.collToRedistribute;
        t.collSurplus += s.collSurplus;
    }

    /// Moves the funds of a sequence of liquidations and pays the liquidator.
    function _finishLiquidations(LiquidationValues memory t) internal {
        require(t.entireTroveDebt > 0, "TroveManager: nothing to liquidate");
        stabilityPool.offset(t.debtToOffset, t.collToSendToSP);
        _redistributeDebtAndColl(t.debtToRedistribute, t.collToRedistribute);
        if (t.collSurplus > 0) activePool.sendETH(address(collSurplusPool), t.collSurplus);
        _updateSystemSnapshotsExcludeCollRemainder(t.collGasCompensation);
        emit Liquidation(
            t.entireTroveDebt,
            t.entireTroveColl - t.collGasCompensation - t.collSurplus,
            t.collGasCompensation,
            t.LUSDGasCompensation
        );
        if (t.LUSDGasCompensation > 0) lusdToken.returnFromPool(gasPoolAddress, msg.sender, t.LUSDGasCompensation);
        if (t.collGasCompensation > 0) activePool.sendETH(msg.sender, t.collGasCompensation);
    }

    /// Shares the debt and collateral the pool could not absorb among the active troves, by stake.
    function _redistributeDebtAndColl(uint256 debt, uint256 coll) internal {
        if (debt == 0) return;
        uint256 ethNumerator = coll * DECIMAL_PRECISION + lastETHError_Redistribution;
        uint256 debtNumerator = debt * DECIMAL_PRECISION + lastLUSDDebtError_Redistribution;
        uint256 ethPerUnitStaked = ethNumerator / totalStakes;
        uint256 debtPerUnitStaked = debtNumerator / totalStakes;
        lastETHError_Redistribution = ethNumerator - ethPerUnitStaked * totalStakes;
        lastLUSDDebtError_Redistribution = debtNumerator - debtPerUnitStaked * totalStakes;
        L_ETH += ethPerUnitStaked;
        L_LUSDDebt += debtPerUnitStaked;
        emit LTermsUpdated(L_ETH, L_LUSDDebt);
        activePool.decreaseLUSDDebt(debt);
        defaultPool.increaseLUSDDebt(debt);
        activePool.sendETH(address(defaultPool), coll);
    }

    function _movePendingTroveRewardsToActivePool(uint256 debt, uint256 coll) internal {
        if (debt > 0) {
            defaultPool.decreaseLUSDDebt(debt);
            activePool.increaseLUSDDebt(debt);
        }
        if (coll > 0) defaultPool.sendETHToActivePool(coll);
    }

    /// The stakes of new troves are scaled so that earlier redistributions are not diluted (mainnet's snapshots).
    function _updateSystemSnapshotsExcludeCollRemainder(uint256 collRemainder) internal {
        totalStakesSnapshot = totalStakes;
        totalCollateralSnapshot = activePool.getETH() - collRemainder + defaultPool.getETH();
        emit SystemSnapshotsUpdated(totalStakesSnapshot, totalCollateralSnapshot);
    }

    // --- redemptions ---

    struct RedemptionTotals {
        uint256 remainingLUSD;
        uint256 totalLUSDToRedeem;
        uint256 totalETHDrawn;
        uint256 ETHFee;
        uint256 decayedBaseRate;
        uint256 price;
        uint256 totalLUSDSupplyAtStart;
    }

    /// Swaps `amount` LUSD for ETH at face value (less the redemption fee), from the troves with the lowest
    /// collateral ratio at or above MCR up. A partial redemption of the last trove needs the hint
    /// `partialRedemptionHintNICR` (HintHelpers.getRedemptionHints); if it no longer matches, the redemption stops
    /// there. The other hints are accepted for compatibility and unused.
    function redeemCollateral(
        uint256 amount,
        address,
        address,
        address,
        uint256 partialRedemptionHintNICR,
        uint256 maxIterations,
        uint256 maxFeePercentage
    ) external {
        require(
            maxFeePercentage >= REDEMPTION_FEE_FLOOR && maxFeePercentage <= DECIMAL_PRECISION,
            "Max fee percentage must be between 0.5% and 100%"
        );
        RedemptionTotals memory t;
        t.price = priceFeed.fetchPrice();
        require(_getTCR(t.price) >= MCR, "TroveManager: Cannot redeem when TCR < MCR");
        require(amount > 0, "TroveManager: Amount must be greater than zero");
        require(lusdToken.balanceOf(msg.sender) >= amount, "TroveManager: Requested redemption amount must be <= user's LUSD token balance");
        t.totalLUSDSupplyAtStart = getEntireSystemDebt();
        t.remainingLUSD = amount;

        address current = sortedTroves.getLast();
        while (current != address(0) && getCurrentICR(current, t.price) < MCR) current = sortedTroves.getPrev(current);
        if (maxIterations == 0) maxIterations = type(uint256).max;
        while (current != address(0) && t.remainingLUSD > 0 && maxIterations > 0) {
            maxIterations--;
            address next = sortedTroves.getPrev(current);
            _applyPendingRewards(current);
            (uint256 lusdLot, uint256 ethLot, bool cancelled) =
                _redeemCollateralFromTrove(current, t.remainingLUSD, t.price, partialRedemptionHintNICR);
            if (cancelled) break;
            t.totalLUSDToRedeem += lusdLot;
            t.totalETHDrawn += ethLot;
            t.remainingLUSD -= lusdLot;
            current = next;
        }
        require(t.totalETHDrawn > 0, "TroveManager: Unable to redeem any amount");

        _updateBaseRateFromRedemption(t.totalETHDrawn, t.price, t.totalLUSDSupplyAtStart);
        t.ETHFee = _calcRedemptionFee(getRedemptionRate(), t.totalETHDrawn);
        _requireUserAcceptsFee(t.ETHFee, t.totalETHDrawn, maxFeePercentage);
        activePool.sendETH(feeRecipient, t.ETHFee);

        emit Redemption(amount, t.totalLUSDToRedeem, t.totalETHDrawn, t.ETHFee);
        lusdToken.burn(msg.sender, t.totalLUSDToRedeem);
        activePool.decreaseLUSDDebt(t.totalLUSDToRedeem);
        activePool.sendETH(msg.sender, t.totalETHDrawn - t.ETHFee);
    }

    function _redeemCollateralFromTrove(address borrower, uint256 maxLUSD, uint256 price, uint256 hintNICR)
        internal
        returns (uint256 lusdLot, uint256 ethLot, bool cancelledPartial)
    {
        Trove storage trove = Troves[borrower];
        lusdLot = _min(maxLUSD, trove.debt - LUSD_GAS_COMPENSATION);
        ethLot = (lusdLot * DECIMAL_PRECISION) / price;
        uint256 newDebt = trove.debt - lusdLot;
        uint256 newColl = trove.coll - ethLot;
        if (newDebt == LUSD_GAS_COMPENSATION) {
            // Fully redeemed: the trove closes, its reserve is burnt, its remaining collateral kept for the owner.
            _removeStake(borrower);
            _closeTrove(borrower, Status.closedByRedemption);
            lusdToken.burn(gasPoolAddress, LUSD_GAS_COMPENSATION);
            activePool.decreaseLUSDDebt(LUSD_GAS_COMPENSATION);
            collSurplusPool.accountSurplus(borrower, newColl);
            activePool.sendETH(address(collSurplusPool), newColl);
            emit TroveUpdated(borrower, 0, 0, 0, OP_REDEEM);
            return (lusdLot, ethLot, false);
        }
        uint256 newNICR = _computeNominalCR(newColl, newDebt);
        if (newNICR != hintNICR || _getNetDebt(newDebt) < MIN_NET_DEBT) return (0, 0, true);
        trove.debt = newDebt;
        trove.coll = newColl;
        sortedTroves.reInsert(borrower, newNICR, address(0), address(0));
        uint256 stake = _updateStakeAndTotalStakes(borrower);
        emit TroveUpdated(borrower, newDebt, newColl, stake, OP_REDEEM);
    }

    // --- fees and the base rate ---

    function _updateBaseRateFromRedemption(uint256 ethDrawn, uint256 price, uint256 totalLUSDSupply) internal {
        uint256 redeemedFraction = (ethDrawn * price) / totalLUSDSupply;
        uint256 newBaseRate = _min(_calcDecayedBaseRate() + redeemedFraction / BETA, DECIMAL_PRECISION);
        require(newBaseRate > 0, "TroveManager: base rate must be positive");
        baseRate = newBaseRate;
        emit BaseRateUpdated(newBaseRate);
        _updateLastFeeOpTime();
    }

    /// Called by BorrowerOperations before a fee is charged on new debt: the base rate decays, nothing adds to it.
    function decayBaseRateFromBorrowing() external {
        _requireCallerIsBorrowerOperations();
        uint256 decayed = _calcDecayedBaseRate();
        baseRate = decayed;
        emit BaseRateUpdated(decayed);
        _updateLastFeeOpTime();
    }

    function _updateLastFeeOpTime() internal {
        if (block.timestamp - lastFeeOperationTime >= SECONDS_IN_ONE_MINUTE) {
            lastFeeOperationTime = block.timestamp;
            emit LastFeeOpTimeUpdated(block.timestamp);
        }
    }

    function _calcDecayedBaseRate() internal view returns (uint256) {
        uint256 minutesPassed = (block.timestamp - lastFeeOperationTime) / SECONDS_IN_ONE_MINUTE;
        return (baseRate * _decPow(MINUTE_DECAY_FACTOR, minutesPassed)) / DECIMAL_PRECISION;
    }

    function getRedemptionRate() public view returns (uint256) {
        return _min(REDEMPTION_FEE_FLOOR + baseRate, DECIMAL_PRECISION);
    }

    function getRedemptionRateWithDecay() public view returns (uint256) {
        return _min(REDEMPTION_FEE_FLOOR + _calcDecayedBaseRate(), DECIMAL_PRECISION);
    }

    function getRedemptionFeeWithDecay(uint256 ethDrawn) external view returns (uint256) {
        return _calcRedemptionFee(getRedemptionRateWithDecay(), ethDrawn);
    }

    function _calcRedemptionFee(uint256 rate, uint256 ethDrawn) internal pure returns (uint256 fee) {
        fee = (rate * ethDrawn) / DECIMAL_PRECISION;
        require(fee < ethDrawn, "TroveManager: Fee would eat up all returned collateral");
    }

    function getBorrowingRate() public view returns (uint256) {
        return _min(BORROWING_FEE_FLOOR + baseRate, MAX_BORROWING_FEE);
    }

    function getBorrowingRateWithDecay() public view returns (uint256) {
        return _min(BORROWING_FEE_FLOOR + _calcDecayedBaseRate(), MAX_BORROWING_FEE);
    }

    function getBorrowingFee(uint256 lusdDebt) external view returns (uint256) {
        return (getBorrowingRate() * lusdDebt) / DECIMAL_PRECISION;
    }

    function getBorrowingFeeWithDecay(uint256 lusdDebt) external view returns (uint256) {
        return (getBorrowingRateWithDecay() * lusdDebt) / DECIMAL_PRECISION;
    }

    // --- trove bookkeeping (BorrowerOperations) ---

    function _requireCallerIsBorrowerOperations() internal view {
        require(msg.sender == borrowerOperationsAddress, "TroveManager: Caller is not the BorrowerOperations contract");
    }

    function applyPendingRewards(address borrower) external {
        _requireCallerIsBorrowerOperations();
        _applyPendingRewards(borrower);
    }

    /// Adds the trove's share of the redistributions to it (moving the funds from the default to the active pool).
    function _applyPendingRewards(address borrower) internal {
        if (!hasPendingRewards(borrower)) return;
        uint256 pendingColl = getPendingETHReward(borrower);
        uint256 pendingDebt = getPendingLUSDDebtReward(borrower);
        Trove storage trove = Troves[borrower];
        trove.coll += pendingColl;
        trove.debt += pendingDebt;
        _updateTroveRewardSnapshots(borrower);
        _movePendingTroveRewardsToActivePool(pendingDebt, pendingColl);
        emit TroveUpdated(borrower, trove.debt, trove.coll, trove.stake, OP_APPLY_PENDING_REWARDS);
    }

    function updateTroveRewardSnapshots(address borrower) external {
        _requireCallerIsBorrowerOperations();
        _updateTroveRewardSnapshots(borrower);
    }

    function _updateTroveRewardSnapshots(address borrower) internal {
        rewardSnapshots[borrower] = RewardSnapshot(L_ETH, L_LUSDDebt);
        emit TroveSnapshotsUpdated(L_ETH, L_LUSDDebt);
    }

    function updateStakeAndTotalStakes(address borrower) external returns (uint256) {
        _requireCallerIsBorrowerOperations();
        return _updateStakeAndTotalStakes(borrower);
    }

    function _updateStakeAndTotalStakes(address borrower) internal returns (uint256 newStake) {
        uint256 coll = Troves[borrower].coll;
        newStake = totalCollateralSnapshot == 0 ? coll : (coll * totalStakesSnapshot) / totalCollateralSnapshot;
        totalStakes = totalStakes - Troves[borrower].stake + newStake;
        Troves[borrower].stake = newStake;
        emit TotalStakesUpdated(totalStakes);
    }

    function removeStake(address borrower) external {
        _requireCallerIsBorrowerOperations();
        _removeStake(borrower);
    }

    function _removeStake(address borrower) internal {
        totalStakes -= Troves[borrower].stake;
        Troves[borrower].stake = 0;
    }

    function closeTrove(address borrower) external {
        _requireCallerIsBorrowerOperations();
        _closeTrove(borrower, Status.closedByOwner);
    }

    function _closeTrove(address borrower, Status closedStatus) internal {
        uint256 count = TroveOwners.length;
        require(count > 1 && sortedTroves.getSize() > 1, "TroveManager: Only one trove in the system");
        Trove storage trove = Troves[borrower];
        trove.status = closedStatus;
        trove.coll = 0;
        trove.debt = 0;
        delete rewardSnapshots[borrower];
        // Swap-and-pop from the owners array.
        uint128 index = trove.arrayIndex;
        address last = TroveOwners[count - 1];
        TroveOwners[index] = last;
        Troves[last].arrayIndex = index;
        emit TroveIndexUpdated(last, index);
        TroveOwners.pop();
        sortedTroves.remove(borrower);
    }

    function addTroveOwnerToArray(address borrower) external returns (uint256 index) {
        _requireCallerIsBorrowerOperations();
        TroveOwners.push(borrower);
        index = TroveOwners.length - 1;
        Troves[borrower].arrayIndex = uint128(index);
    }

    function setTroveStatus(address borrower, uint256 num) external {
        _requireCallerIsBorrowerOperations();
        Troves[borrower].status = Status(num);
    }

    function increaseTroveColl(address borrower, uint256 amount) external returns (uint256) {
        _requireCallerIsBorrowerOperations();
        return Troves[borrower].coll += amount;
    }

    function decreaseTroveColl(address borrower, uint256 amount) external returns (uint256) {
        _requireCallerIsBorrowerOperations();
        return Troves[borrower].coll -= amount;
    }

    function increaseTroveDebt(address borrower, uint256 amount) external returns (uint256) {
        _requireCallerIsBorrowerOperations();
        return Troves[borrower].debt += amount;
    }

    function decreaseTroveDebt(address borrower, uint256 amount) external returns (uint256) {
        _requireCallerIsBorrowerOperations();
        return Troves[borrower].debt -= amount;
    }
}
