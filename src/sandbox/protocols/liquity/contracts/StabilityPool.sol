// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./LiquityBase.sol";

/// @title The Stability Pool: LUSD deposits that absorb liquidated debt in exchange for the troves' collateral.
/// @notice Each deposit's share of every liquidation is tracked without iterating over depositors, by the product
/// P (how much of a deposit made at P = 1 survives) and the sum S (ETH gained per unit deposited), as in Liquity's
/// "scalable reward distribution with compounding stakes": P is rescaled by 1e9 when it gets small (a new scale)
/// and reset when a liquidation empties the pool (a new epoch). No LQTY rewards (no G) and no front ends.
contract StabilityPool is LiquityBase, OnceWired {
    event StabilityPoolETHBalanceUpdated(uint256 _newBalance);
    event StabilityPoolLUSDBalanceUpdated(uint256 _newBalance);
    event P_Updated(uint256 _P);
    event S_Updated(uint256 _S, uint128 _epoch, uint128 _scale);
    event EpochUpdated(uint128 _currentEpoch);
    event ScaleUpdated(uint128 _currentScale);
    event DepositSnapshotUpdated(address indexed _depositor, uint256 _P, uint256 _S, uint256 _G);
    event UserDepositChanged(address indexed _depositor, uint256 _newDeposit);
    event ETHGainWithdrawn(address indexed _depositor, uint256 _ETH, uint256 _LUSDLoss);
    event EtherSent(address _to, uint256 _amount);

    struct Snapshots {
        uint256 S;
        uint256 P;
        uint256 G;
        uint128 scale;
        uint128 epoch;
    }

    uint256 public constant SCALE_FACTOR = 1e9;

    address public borrowerOperationsAddress;
    address public troveManagerAddress;
    ILUSDTokenLike public lusdToken;
    ISortedTrovesLike public sortedTroves;

    uint256 internal ETH;
    uint256 internal totalLUSDDeposits;

    mapping(address => uint256) internal initialDeposits;
    mapping(address => Snapshots) public depositSnapshots;

    uint256 public P = DECIMAL_PRECISION;
    uint128 public currentScale;
    uint128 public currentEpoch;
    mapping(uint128 => mapping(uint128 => uint256)) public epochToScaleToSum;

    uint256 public lastETHError_Offset;
    uint256 public lastLUSDLossError_Offset;

    function setAddresses(
        address borrowerOperations,
        address troveManager,
        address activePool_,
        address lusd,
        address sorted,
        address priceFeed_
    ) external wiring {
        borrowerOperationsAddress = borrowerOperations;
        troveManagerAddress = troveManager;
        activePool = IActivePoolLike(activePool_);
        lusdToken = ILUSDTokenLike(lusd);
        sortedTroves = ISortedTrovesLike(sorted);
        priceFeed = IPriceFeedLike(priceFeed_);
    }

    function getETH() external view returns (uint256) {
        return ETH;
    }

    function getTotalLUSDDeposits() external view returns (uint256) {
        return totalLUSDDeposits;
    }

    /// Mainnet's `deposits(address)`: the deposit as last recorded, and its front end (none in the sandbox).
    function deposits(address depositor) external view returns (uint256 initialValue, address frontEndTag) {
        return (initialDeposits[depositor], address(0));
    }

    // --- depositors ---

    /// Deposits LUSD; pays out the ETH gained so far. The front end tag is accepted and ignored.
    function provideToSP(uint256 amount, address) external {
        require(amount > 0, "StabilityPool: Amount must be non-zero");
        uint256 initialDeposit = initialDeposits[msg.sender];
        uint256 ethGain = getDepositorETHGain(msg.sender);
        uint256 compounded = getCompoundedLUSDDeposit(msg.sender);
        uint256 lusdLoss = initialDeposit - compounded;

        lusdToken.sendToPool(msg.sender, address(this), amount);
        totalLUSDDeposits += amount;
        emit StabilityPoolLUSDBalanceUpdated(totalLUSDDeposits);

        uint256 newDeposit = compounded + amount;
        _updateDepositAndSnapshots(msg.sender, newDeposit);
        emit UserDepositChanged(msg.sender, newDeposit);
        emit ETHGainWithdrawn(msg.sender, ethGain, lusdLoss);
        _sendETHGainToDepositor(ethGain);
    }

    /// Withdraws up to `amount` of the compounded deposit (0: only the ETH gain). Refused while a trove is below MCR,
    /// so depositors cannot run from a liquidation that is due.
    function withdrawFromSP(uint256 amount) external {
        if (amount != 0) _requireNoUnderCollateralizedTroves();
        uint256 initialDeposit = initialDeposits[msg.sender];
        require(initialDeposit > 0, "StabilityPool: User must have a non-zero deposit");
        uint256 ethGain = getDepositorETHGain(msg.sender);
        uint256 compounded = getCompoundedLUSDDeposit(msg.sender);
        uint256 toWithdraw = _min(amount, compounded);
        uint256 lusdLoss = initialDeposit - compounded;

        if (toWithdraw > 0) {
            lusdToken.returnFromPool(address(this), msg.sender, toWithdraw);
            totalLUSDDeposits -= toWithdraw;
            emit StabilityPoolLUSDBalanceUpdated(totalLUSDDeposits);
        }
        uint256 newDeposit = compounded - toWithdraw;
        _updateDepositAndSnapshots(msg.sender, newDeposit);
        emit UserDepositChanged(msg.sender, newDeposit);
        emit ETHGainWithdrawn(msg.sender, ethGain, lusdLoss);
        _sendETHGainToDepositor(ethGain);
    }

    function _requireNoUnderCollateralizedTroves() internal {
        uint256 price = priceFeed.fetchPrice();
        address lowest = sortedTroves.getLast();
        require(
            lowest == address(0) || ITroveManagerLike(troveManagerAddress).getCurrentICR(lowest, price) >= MCR,
            "StabilityPool: Cannot withdraw while there are troves with ICR < MCR"
        );
    }

    // --- what a deposit is worth ---

    function getDepositorETHGain(address depositor) public view returns (uint256) {
        uint256 initialDeposit = initialDeposits[depositor];
        if (initialDeposit == 0) return 0;
        Snapshots memory s = depositSnapshots[depositor];
        // Gains at the deposit's scale, plus those one scale later (P had been multiplied by 1e9 there).
        uint256 firstPortion = epochToScaleToSum[s.epoch][s.scale] - s.S;
        uint256 secondPortion = epochToScaleToSum[s.epoch][s.scale + 1] / SCALE_FACTOR;
        return (initialDeposit * (firstPortion + secondPortion)) / s.P / DECIMAL_PRECISION;
    }

    function getCompoundedLUSDDeposit(address depositor) public view returns (uint256) {
        uint256 initialDeposit = initialDeposits[depositor];
        if (initialDeposit == 0) return 0;
        Snapshots memory s = depositSnapshots[depositor];
        if (s.epoch < currentEpoch) return 0; // the pool was emptied since
        uint256 scaleDiff = currentScale - s.scale;
        uint256 compounded;
        if (scaleDiff == 0) compounded = (initialDeposit * P) / s.P;
        else if (scaleDiff == 1) compounded = (initialDeposit * P) / s.P / SCALE_FACTOR;
        else return 0; // more than a billion-fold reduction: nothing is left
        // Below a billionth of the deposit the figure is rounding noise.
        if (compounded < initialDeposit / 1e9) return 0;
        return compounded;
    }

    function _updateDepositAndSnapshots(address depositor, uint256 newValue) internal {
        initialDeposits[depositor] = newValue;
        if (newValue == 0) {
            delete depositSnapshots[depositor];
            emit DepositSnapshotUpdated(depositor, 0, 0, 0);
            return;
        }
        uint256 currentS = epochToScaleToSum[currentEpoch][currentScale];
        depositSnapshots[depositor] = Snapshots(currentS, P, 0, currentScale, currentEpoch);
        emit DepositSnapshotUpdated(depositor, P, currentS, 0);
    }

    function _sendETHGainToDepositor(uint256 amount) internal {
        if (amount == 0) return;
        ETH -= amount;
        emit StabilityPoolETHBalanceUpdated(ETH);
        emit EtherSent(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "StabilityPool: sending ETH failed");
    }

    // --- liquidations ---

    /// Cancels `debtToOffset` of liquidated debt against the deposits and takes `collToAdd` ETH for them.
    function offset(uint256 debtToOffset, uint256 collToAdd) external {
        require(msg.sender == troveManagerAddress, "StabilityPool: Caller is not TroveManager");
        uint256 total = totalLUSDDeposits;
        if (total == 0 || debtToOffset == 0) return;
        (uint256 ethGainPerUnit, uint256 lusdLossPerUnit) = _computeRewardsPerUnitStaked(collToAdd, debtToOffset, total);
        _updateRewardSumAndProduct(ethGainPerUnit, lusdLossPerUnit);

        activePool.decreaseLUSDDebt(debtToOffset);
        totalLUSDDeposits = total - debtToOffset;
        emit StabilityPoolLUSDBalanceUpdated(totalLUSDDeposits);
        lusdToken.burn(address(this), debtToOffset);
        activePool.sendETH(address(this), collToAdd);
    }

    /// Per unit deposited: the ETH gained (rounded down) and the LUSD lost (rounded up, so deposits never claim
    /// more than is left); the rounding errors carry over to the next liquidation.
    function _computeRewardsPerUnitStaked(uint256 collToAdd, uint256 debtToOffset, uint256 total)
        internal
        returns (uint256 ethGainPerUnit, uint256 lusdLossPerUnit)
    {
        uint256 ethNumerator = collToAdd * DECIMAL_PRECISION + lastETHError_Offset;
        require(debtToOffset <= total, "StabilityPool: offset exceeds deposits");
        if (debtToOffset == total) {
            lusdLossPerUnit = DECIMAL_PRECISION; // the pool is emptied
            lastLUSDLossError_Offset = 0;
        } else {
            uint256 lossNumerator = debtToOffset * DECIMAL_PRECISION - lastLUSDLossError_Offset;
            lusdLossPerUnit = lossNumerator / total + 1;
            lastLUSDLossError_Offset = lusdLossPerUnit * total - lossNumerator;
        }
        ethGainPerUnit = ethNumerator / total;
        lastETHError_Offset = ethNumerator - ethGainPerUnit * total;
    }

    function _updateRewardSumAndProduct(uint256 ethGainPerUnit, uint256 lusdLossPerUnit) internal {
        uint256 currentP = P;
        uint256 newProductFactor = DECIMAL_PRECISION - lusdLossPerUnit;
        uint128 epoch = currentEpoch;
        uint128 scale = currentScale;
        uint256 newS = epochToScaleToSum[epoch][scale] + ethGainPerUnit * currentP;
        epochToScaleToSum[epoch][scale] = newS;
        emit S_Updated(newS, epoch, scale);

        uint256 newP;
        if (newProductFactor == 0) {
            // The pool was emptied: every deposit is now zero; a new epoch starts with P = 1.
            currentEpoch = epoch + 1;
            emit EpochUpdated(currentEpoch);
            currentScale = 0;
            emit ScaleUpdated(0);
            newP = DECIMAL_PRECISION;
        } else if ((currentP * newProductFactor) / DECIMAL_PRECISION < SCALE_FACTOR) {
            newP = (currentP * newProductFactor * SCALE_FACTOR) / DECIMAL_PRECISION;
            currentScale = scale + 1;
            emit ScaleUpdated(currentScale);
        } else {
            newP = (currentP * newProductFactor) / DECIMAL_PRECISION;
        }
        require(newP > 0, "StabilityPool: P became zero");
        P = newP;
        emit P_Updated(newP);
    }

    receive() external payable {
        require(msg.sender == address(activePool), "StabilityPool: Caller is not ActivePool");
        ETH += msg.value;
        emit StabilityPoolETHBalanceUpdated(ETH);
    }
}
