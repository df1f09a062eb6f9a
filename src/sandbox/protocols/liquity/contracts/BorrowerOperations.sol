// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./LiquityBase.sol";

/// @title What borrowers do with their troves: open (native ETH collateral, LUSD minted less nothing: the fee is
/// added to the debt), adjust (collateral in or out, debt up or down), close, and claim a collateral surplus.
/// Liquity v1's rules: 110 % MCR per trove, no operation may take the system below the 150 % CCR, and in recovery
/// mode no collateral withdrawal, new debt only at or above CCR and without the borrowing fee.
contract BorrowerOperations is LiquityBase, OnceWired {
    event TroveManagerAddressChanged(address _newTroveManagerAddress);
    event ActivePoolAddressChanged(address _activePoolAddress);
    event DefaultPoolAddressChanged(address _defaultPoolAddress);
    event StabilityPoolAddressChanged(address _stabilityPoolAddress);
    event GasPoolAddressChanged(address _gasPoolAddress);
    event CollSurplusPoolAddressChanged(address _collSurplusPoolAddress);
    event PriceFeedAddressChanged(address _newPriceFeedAddress);
    event SortedTrovesAddressChanged(address _sortedTrovesAddress);
    event LUSDTokenAddressChanged(address _lusdTokenAddress);
    event TroveCreated(address indexed _borrower, uint256 arrayIndex);
    /// operation = BorrowerOperation: 0 openTrove, 1 closeTrove, 2 adjustTrove.
    event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 stake, uint8 operation);
    event LUSDBorrowingFeePaid(address indexed _borrower, uint256 _LUSDFee);

    uint8 internal constant OP_OPEN = 0;
    uint8 internal constant OP_CLOSE = 1;
    uint8 internal constant OP_ADJUST = 2;
    uint256 internal constant STATUS_ACTIVE = 1;

    ITroveManagerLike public troveManager;
    address public stabilityPoolAddress;
    address public gasPoolAddress;
    ICollSurplusPoolLike public collSurplusPool;
    ILUSDTokenLike public lusdToken;
    ISortedTrovesLike public sortedTroves;
    /// Receives the borrowing fees (on mainnet: LQTY stakers).
    address public feeRecipient;

    function setAddresses(
        address troveManager_,
        address activePool_,
        address defaultPool_,
        address stabilityPool_,
        address gasPool,
        address collSurplusPool_,
        address priceFeed_,
        address sorted,
        address lusd,
        address feeRecipient_
    ) external wiring {
        troveManager = ITroveManagerLike(troveManager_);
        activePool = IActivePoolLike(activePool_);
        defaultPool = IDefaultPoolLike(defaultPool_);
        stabilityPoolAddress = stabilityPool_;
        gasPoolAddress = gasPool;
        collSurplusPool = ICollSurplusPoolLike(collSurplusPool_);
        priceFeed = IPriceFeedLike(priceFeed_);
        sortedTroves = ISortedTrovesLike(sorted);
        lusdToken = ILUSDTokenLike(lusd);
        feeRecipient = feeRecipient_;
        emit TroveManagerAddressChanged(troveManager_);
        emit ActivePoolAddressChanged(activePool_);
        emit DefaultPoolAddressChanged(defaultPool_);
        emit StabilityPoolAddressChanged(stabilityPool_);
        emit GasPoolAddressChanged(gasPool);
        emit CollSurplusPoolAddressChanged(collSurplusPool_);
        emit PriceFeedAddressChanged(priceFeed_);
        emit SortedTrovesAddressChanged(sorted);
        emit LUSDTokenAddressChanged(lusd);
    }

    // --- open ---

    /// Opens a trove with `msg.value` ETH, minting `lusdAmount` LUSD to the caller; the debt is that plus the
    /// borrowing fee plus the 200 LUSD liquidation reserve.
    function openTrove(uint256 maxFeePercentage, uint256 lusdAmount, address upperHint, address lowerHint)
        external
        payable
    {
        uint256 price = priceFeed.fetchPrice();
        bool recovery = _checkRecoveryMode(price);
        _requireValidMaxFeePercentage(maxFeePercentage, recovery);
        require(troveManager.getTroveStatus(msg.sender) != STATUS_ACTIVE, "BorrowerOps: Trove is active");

        uint256 fee;
        if (!recovery) fee = _triggerBorrowingFee(lusdAmount, maxFeePercentage);
        uint256 netDebt = lusdAmount + fee;
        require(netDebt >= MIN_NET_DEBT, "BorrowerOps: Trove's net debt must be greater than minimum");
        uint256 compositeDebt = _getCompositeDebt(netDebt);
        uint256 icr = _computeCR(msg.value, compositeDebt, price);
        if (recovery) {
            require(icr >= CCR, "BorrowerOps: Operation must leave trove with ICR >= CCR");
        } else {
            require(icr >= MCR, "BorrowerOps: An operation that would result in ICR < MCR is not permitted");
            _requireNewTCRisAboveCCR(_getNewTCR(msg.value, true, compositeDebt, true, price));
        }

        troveManager.setTroveStatus(msg.sender, STATUS_ACTIVE);
        troveManager.increaseTroveColl(msg.sender, msg.value);
        troveManager.increaseTroveDebt(msg.sender, compositeDebt);
        troveManager.updateTroveRewardSnapshots(msg.sender);
        uint256 stake = troveManager.updateStakeAndTotalStakes(msg.sender);
        sortedTroves.insert(msg.sender, _computeNominalCR(msg.value, compositeDebt), upperHint, lowerHint);
        uint256 arrayIndex = troveManager.addTroveOwnerToArray(msg.sender);
        emit TroveCreated(msg.sender, arrayIndex);

        _sendETHToActivePool(msg.value);
        activePool.increaseLUSDDebt(netDebt);
        lusdToken.mint(msg.sender, lusdAmount);
        activePool.increaseLUSDDebt(LUSD_GAS_COMPENSATION);
        lusdToken.mint(gasPoolAddress, LUSD_GAS_COMPENSATION);

        emit TroveUpdated(msg.sender, compositeDebt, msg.value, stake, OP_OPEN);
        emit LUSDBorrowingFeePaid(msg.sender, fee);
    }

    // --- adjust ---

    function addColl(address upperHint, address lowerHint) external payable {
        _adjustTrove(msg.sender, 0, 0, false, upperHint, lowerHint, 0);
    }

    function withdrawColl(uint256 amount, address upperHint, address lowerHint) external {
        _adjustTrove(msg.sender, amount, 0, false, upperHint, lowerHint, 0);
    }

    function withdrawLUSD(uint256 maxFeePercentage, uint256 amount, address upperHint, address lowerHint) external {
        _adjustTrove(msg.sender, 0, amount, true, upperHint, lowerHint, maxFeePercentage);
    }

    function repayLUSD(uint256 amount, address upperHint, address lowerHint) external {
        _adjustTrove(msg.sender, 0, amount, false, upperHint, lowerHint, 0);
    }

    function adjustTrove(
        uint256 maxFeePercentage,
        uint256 collWithdrawal,
        uint256 lusdChange,
        bool isDebtIncrease,
        address upperHint,
        address lowerHint
    ) external payable {
        _adjustTrove(msg.sender, collWithdrawal, lusdChange, isDebtIncrease, upperHint, lowerHint, maxFeePercentage);
    }

    struct Adjustment {
        uint256 price;
        uint256 collChange;
        bool isCollIncrease;
        uint256 netDebtChange;
        uint256 fee;
        uint256 debt;
        uint256 coll;
        uint256 newDebt;
        uint256 newColl;
        uint256 stake;
    }

    function _adjustTrove(
        address borrower,
        uint256 collWithdrawal,
        uint256 lusdChange,
        bool isDebtIncrease,
        address upperHint,
        address lowerHint,
        uint256 maxFeePercentage
    ) internal {
        Adjustment memory a;
        a.price = priceFeed.fetchPrice();
        bool recovery = _checkRecoveryMode(a.price);
        if (isDebtIncrease) {
            _requireValidMaxFeePercentage(maxFeePercentage, recovery);
            require(lusdChange > 0, "BorrowerOps: Debt increase requires non-zero debtChange");
        }
        require(msg.value == 0 || collWithdrawal == 0, "BorrowerOperations: Cannot withdraw and add coll");
        require(
            msg.value != 0 || collWithdrawal != 0 || lusdChange != 0,
            "BorrowerOps: There must be either a collateral change or a debt change"
        );
        require(troveManager.getTroveStatus(borrower) == STATUS_ACTIVE, "BorrowerOps: Trove does not exist or is closed");

        troveManager.applyPendingRewards(borrower);
        (a.collChange, a.isCollIncrease) = msg.value != 0 ? (msg.value, true) : (collWithdrawal, false);
        a.netDebtChange = lusdChange;
        if (isDebtIncrease && !recovery) {
            a.fee = _triggerBorrowingFee(lusdChange, maxFeePercentage);
            a.netDebtChange += a.fee;
        }
        a.debt = troveManager.getTroveDebt(borrower);
        a.coll = troveManager.getTroveColl(borrower);
        require(collWithdrawal <= a.coll, "BorrowerOps: Cannot withdraw more collateral than the trove holds");
        a.newColl = a.isCollIncrease ? a.coll + a.collChange : a.coll - a.collChange;
        if (!isDebtIncrease && lusdChange > 0) {
            require(
                a.netDebtChange <= a.debt - LUSD_GAS_COMPENSATION,
                "BorrowerOps: Amount repaid must not be larger than the Trove's debt"
            );
            require(
                _getNetDebt(a.debt) - a.netDebtChange >= MIN_NET_DEBT,
                "BorrowerOps: Trove's net debt must be greater than minimum"
            );
            require(lusdToken.balanceOf(borrower) >= lusdChange, "BorrowerOps: Caller doesnt have enough LUSD to make repayment");
        }
        a.newDebt = isDebtIncrease ? a.debt + a.netDebtChange : a.debt - a.netDebtChange;
        _requireValidAdjustmentInCurrentMode(recovery, collWithdrawal, isDebtIncrease, a);

        if (a.isCollIncrease) troveManager.increaseTroveColl(borrower, a.collChange);
        else if (a.collChange > 0) troveManager.decreaseTroveColl(borrower, a.collChange);
        if (isDebtIncrease) troveManager.increaseTroveDebt(borrower, a.netDebtChange);
        else if (a.netDebtChange > 0) troveManager.decreaseTroveDebt(borrower, a.netDebtChange);
        a.stake = troveManager.updateStakeAndTotalStakes(borrower);
        sortedTroves.reInsert(borrower, _computeNominalCR(a.newColl, a.newDebt), upperHint, lowerHint);

        emit TroveUpdated(borrower, a.newDebt, a.newColl, a.stake, OP_ADJUST);
        emit LUSDBorrowingFeePaid(borrower, a.fee);

        if (isDebtIncrease) {
            activePool.increaseLUSDDebt(a.netDebtChange);
            lusdToken.mint(borrower, lusdChange);
        } else if (lusdChange > 0) {
            activePool.decreaseLUSDDebt(lusdChange);
            lusdToken.burn(borrower, lusdChange);
        }
        if (a.isCollIncrease) _sendETHToActivePool(a.collChange);
        else if (a.collChange > 0) activePool.sendETH(borrower, a.collChange);
    }

    function _requireValidAdjustmentInCurrentMode(
        bool recovery,
        uint256 collWithdrawal,
        bool isDebtIncrease,
        Adjustment memory a
    ) internal view {
        uint256 oldICR = _computeCR(a.coll, a.debt, a.price);
        uint256 newICR = _computeCR(a.newColl, a.newDebt, a.price);
        if (recovery) {
            require(collWithdrawal == 0, "BorrowerOps: Collateral withdrawal not permitted Recovery Mode");
            if (isDebtIncrease) {
                require(newICR >= CCR, "BorrowerOps: Operation must leave trove with ICR >= CCR");
                require(newICR >= oldICR, "BorrowerOps: Cannot decrease your Trove's ICR in Recovery Mode");
            }
        } else {
            require(newICR >= MCR, "BorrowerOps: An operation that would result in ICR < MCR is not permitted");
            _requireNewTCRisAboveCCR(_getNewTCR(a.collChange, a.isCollIncrease, a.netDebtChange, isDebtIncrease, a.price));
        }
    }

    // --- close ---

    /// Closes the caller's trove: burns its debt less the reserve from the caller, the reserve from the gas pool,
    /// and returns the collateral. Not in recovery mode, and not if it would take the system below CCR.
    function closeTrove() external {
        require(troveManager.getTroveStatus(msg.sender) == STATUS_ACTIVE, "BorrowerOps: Trove does not exist or is closed");
        uint256 price = priceFeed.fetchPrice();
        require(!_checkRecoveryMode(price), "BorrowerOps: Operation not permitted during Recovery Mode");
        troveManager.applyPendingRewards(msg.sender);
        uint256 coll = troveManager.getTroveColl(msg.sender);
        uint256 debt = troveManager.getTroveDebt(msg.sender);
        require(
            lusdToken.balanceOf(msg.sender) >= debt - LUSD_GAS_COMPENSATION,
            "BorrowerOps: Caller doesnt have enough LUSD to make repayment"
        );
        _requireNewTCRisAboveCCR(_getNewTCR(coll, false, debt, false, price));

        troveManager.removeStake(msg.sender);
        troveManager.closeTrove(msg.sender);
        emit TroveUpdated(msg.sender, 0, 0, 0, OP_CLOSE);

        activePool.decreaseLUSDDebt(debt - LUSD_GAS_COMPENSATION);
        lusdToken.burn(msg.sender, debt - LUSD_GAS_COMPENSATION);
        activePool.decreaseLUSDDebt(LUSD_GAS_COMPENSATION);
        lusdToken.burn(gasPoolAddress, LUSD_GAS_COMPENSATION);
        activePool.sendETH(msg.sender, coll);
    }

    /// Sends the caller the collateral left after a redemption or a capped liquidation closed its trove.
    function claimCollateral() external {
        collSurplusPool.claimColl(msg.sender);
    }

    // --- helpers ---

    function _triggerBorrowingFee(uint256 lusdAmount, uint256 maxFeePercentage) internal returns (uint256 fee) {
        troveManager.decayBaseRateFromBorrowing();
        fee = troveManager.getBorrowingFee(lusdAmount);
        _requireUserAcceptsFee(fee, lusdAmount, maxFeePercentage);
        lusdToken.mint(feeRecipient, fee);
    }

    function _requireValidMaxFeePercentage(uint256 maxFeePercentage, bool recovery) internal pure {
        if (recovery) {
            require(maxFeePercentage <= DECIMAL_PRECISION, "Max fee percentage must less than or equal to 100%");
        } else {
            require(
                maxFeePercentage >= BORROWING_FEE_FLOOR && maxFeePercentage <= DECIMAL_PRECISION,
                "Max fee percentage must be between 0.5% and 100%"
            );
        }
    }

    function _requireNewTCRisAboveCCR(uint256 newTCR) internal pure {
        require(newTCR >= CCR, "BorrowerOps: An operation that would result in TCR < CCR is not permitted");
    }

    /// The system's collateral ratio after a trove's change.
    function _getNewTCR(uint256 collChange, bool isCollIncrease, uint256 debtChange, bool isDebtIncrease, uint256 price)
        internal
        view
        returns (uint256)
    {
        uint256 coll = getEntireSystemColl();
        uint256 debt = getEntireSystemDebt();
        coll = isCollIncrease ? coll + collChange : coll - collChange;
        debt = isDebtIncrease ? debt + debtChange : debt - debtChange;
        return _computeCR(coll, debt, price);
    }

    function _sendETHToActivePool(uint256 amount) internal {
        (bool ok,) = address(activePool).call{value: amount}("");
        require(ok, "BorrowerOps: Sending ETH to ActivePool failed");
    }
}

/// @title Off-chain helpers of mainnet's HintHelpers: the hint a partial redemption needs.
contract HintHelpers is LiquityBase {
    ITroveManagerLike public immutable troveManager;
    ISortedTrovesLike public immutable sortedTroves;

    constructor(address troveManager_, address sortedTroves_) {
        troveManager = ITroveManagerLike(troveManager_);
        sortedTroves = ISortedTrovesLike(sortedTroves_);
    }

    /// Walks the troves a redemption of `lusdAmount` at `price` would, and returns where it starts, the NICR the
    /// partially redeemed trove will have, and the amount that can actually be redeemed.
    function getRedemptionHints(uint256 lusdAmount, uint256 price, uint256 maxIterations)
        external
        view
        returns (address firstRedemptionHint, uint256 partialRedemptionHintNICR, uint256 truncatedLUSDamount)
    {
        uint256 remaining = lusdAmount;
        address current = sortedTroves.getLast();
        while (current != address(0) && troveManager.getCurrentICR(current, price) < MCR) {
            current = sortedTroves.getPrev(current);
        }
        firstRedemptionHint = current;
        if (maxIterations == 0) maxIterations = type(uint256).max;
        while (current != address(0) && remaining > 0 && maxIterations > 0) {
            maxIterations--;
            uint256 netDebt =
                _getNetDebt(troveManager.getTroveDebt(current)) + troveManager.getPendingLUSDDebtReward(current);
            if (netDebt > remaining) {
                if (netDebt > MIN_NET_DEBT) {
                    uint256 redeemable = _min(remaining, netDebt - MIN_NET_DEBT);
                    uint256 coll = troveManager.getTroveColl(current) + troveManager.getPendingETHReward(current);
                    uint256 newColl = coll - (redeemable * DECIMAL_PRECISION) / price;
                    partialRedemptionHintNICR = _computeNominalCR(newColl, _getCompositeDebt(netDebt - redeemable));
                    remaining -= redeemable;
                }
                break;
            }
            remaining -= netDebt;
            current = sortedTroves.getPrev(current);
        }
        truncatedLUSDamount = lusdAmount - remaining;
    }
}
