// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./LiquityBase.sol";

/// @title The ETH and LUSD debt of the active troves (their own collateral and debt, rewards not yet applied excluded).
contract ActivePool is OnceWired {
    event ActivePoolLUSDDebtUpdated(uint256 _LUSDDebt);
    event ActivePoolETHBalanceUpdated(uint256 _ETH);
    event EtherSent(address _to, uint256 _amount);

    address public borrowerOperationsAddress;
    address public troveManagerAddress;
    address public stabilityPoolAddress;
    address public defaultPoolAddress;

    uint256 internal ETH;
    uint256 internal LUSDDebt;

    function setAddresses(address borrowerOperations, address troveManager, address stabilityPool, address defaultPool)
        external
        wiring
    {
        borrowerOperationsAddress = borrowerOperations;
        troveManagerAddress = troveManager;
        stabilityPoolAddress = stabilityPool;
        defaultPoolAddress = defaultPool;
    }

    function getETH() external view returns (uint256) {
        return ETH;
    }

    function getLUSDDebt() external view returns (uint256) {
        return LUSDDebt;
    }

    function sendETH(address to, uint256 amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == troveManagerAddress
                || msg.sender == stabilityPoolAddress,
            "ActivePool: Caller is neither BorrowerOperations nor TroveManager nor StabilityPool"
        );
        ETH -= amount;
        emit ActivePoolETHBalanceUpdated(ETH);
        emit EtherSent(to, amount);
        (bool ok,) = to.call{value: amount}("");
        require(ok, "ActivePool: sending ETH failed");
    }

    function increaseLUSDDebt(uint256 amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == troveManagerAddress,
            "ActivePool: Caller is neither BorrowerOperations nor TroveManager"
        );
        LUSDDebt += amount;
        emit ActivePoolLUSDDebtUpdated(LUSDDebt);
    }

    function decreaseLUSDDebt(uint256 amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == troveManagerAddress
                || msg.sender == stabilityPoolAddress,
            "ActivePool: Caller is neither BorrowerOperations nor TroveManager nor StabilityPool"
        );
        LUSDDebt -= amount;
        emit ActivePoolLUSDDebtUpdated(LUSDDebt);
    }

    receive() external payable {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == defaultPoolAddress,
            "ActivePool: Caller is neither BO nor Default Pool"
        );
        ETH += msg.value;
        emit ActivePoolETHBalanceUpdated(ETH);
    }
}

/// @title The collateral and debt redistributed from liquidated troves, owed to the active troves until applied.
contract DefaultPool is OnceWired {
    event DefaultPoolLUSDDebtUpdated(uint256 _LUSDDebt);
    event DefaultPoolETHBalanceUpdated(uint256 _ETH);
    event EtherSent(address _to, uint256 _amount);

    address public troveManagerAddress;
    address public activePoolAddress;

    uint256 internal ETH;
    uint256 internal LUSDDebt;

    function setAddresses(address troveManager, address activePool) external wiring {
        troveManagerAddress = troveManager;
        activePoolAddress = activePool;
    }

    function getETH() external view returns (uint256) {
        return ETH;
    }

    function getLUSDDebt() external view returns (uint256) {
        return LUSDDebt;
    }

    function sendETHToActivePool(uint256 amount) external {
        require(msg.sender == troveManagerAddress, "DefaultPool: Caller is not the TroveManager");
        ETH -= amount;
        emit DefaultPoolETHBalanceUpdated(ETH);
        emit EtherSent(activePoolAddress, amount);
        (bool ok,) = activePoolAddress.call{value: amount}("");
        require(ok, "DefaultPool: sending ETH failed");
    }

    function increaseLUSDDebt(uint256 amount) external {
        require(msg.sender == troveManagerAddress, "DefaultPool: Caller is not the TroveManager");
        LUSDDebt += amount;
        emit DefaultPoolLUSDDebtUpdated(LUSDDebt);
    }

    function decreaseLUSDDebt(uint256 amount) external {
        require(msg.sender == troveManagerAddress, "DefaultPool: Caller is not the TroveManager");
        LUSDDebt -= amount;
        emit DefaultPoolLUSDDebtUpdated(LUSDDebt);
    }

    receive() external payable {
        require(msg.sender == activePoolAddress, "DefaultPool: Caller is not the ActivePool");
        ETH += msg.value;
        emit DefaultPoolETHBalanceUpdated(ETH);
    }
}

/// @title Collateral left over for owners of troves closed by redemption or by a capped recovery-mode liquidation.
contract CollSurplusPool is OnceWired {
    event CollBalanceUpdated(address indexed _account, uint256 _newBalance);
    event EtherSent(address _to, uint256 _amount);

    address public borrowerOperationsAddress;
    address public troveManagerAddress;
    address public activePoolAddress;

    uint256 internal ETH;
    mapping(address => uint256) internal balances;

    function setAddresses(address borrowerOperations, address troveManager, address activePool) external wiring {
        borrowerOperationsAddress = borrowerOperations;
        troveManagerAddress = troveManager;
        activePoolAddress = activePool;
    }

    function getETH() external view returns (uint256) {
        return ETH;
    }

    function getCollateral(address account) external view returns (uint256) {
        return balances[account];
    }

    function accountSurplus(address account, uint256 amount) external {
        require(msg.sender == troveManagerAddress, "CollSurplusPool: Caller is not TroveManager");
        balances[account] += amount;
        emit CollBalanceUpdated(account, balances[account]);
    }

    function claimColl(address account) external {
        require(msg.sender == borrowerOperationsAddress, "CollSurplusPool: Caller is not Borrower Operations");
        uint256 claimable = balances[account];
        require(claimable > 0, "CollSurplusPool: No collateral available to claim");
        balances[account] = 0;
        emit CollBalanceUpdated(account, 0);
        ETH -= claimable;
        emit EtherSent(account, claimable);
        (bool ok,) = account.call{value: claimable}("");
        require(ok, "CollSurplusPool: sending ETH failed");
    }

    receive() external payable {
        require(msg.sender == activePoolAddress, "CollSurplusPool: Caller is not Active Pool");
        ETH += msg.value;
    }
}

/// @title Holds the troves' liquidation reserves (200 LUSD each) until a trove is closed or liquidated.
contract GasPool {}
