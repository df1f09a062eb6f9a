// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./LiquityBase.sol";

/// @title LUSD: an ERC-20 whose supply only the protocol moves (minted against troves, burnt on repayment,
/// redemption and liquidation), as Liquity v1's LUSDToken. No EIP-2612 permit (nothing in the sandbox signs one).
contract LUSDToken is OnceWired {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event TroveManagerAddressChanged(address _troveManagerAddress);
    event StabilityPoolAddressChanged(address _newStabilityPoolAddress);
    event BorrowerOperationsAddressChanged(address _newBorrowerOperationsAddress);

    string public constant name = "LUSD Stablecoin";
    string public constant symbol = "LUSD";
    string public constant version = "1";
    uint8 public constant decimals = 18;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    address public troveManagerAddress;
    address public stabilityPoolAddress;
    address public borrowerOperationsAddress;

    function setAddresses(address troveManager, address stabilityPool, address borrowerOperations) external wiring {
        troveManagerAddress = troveManager;
        stabilityPoolAddress = stabilityPool;
        borrowerOperationsAddress = borrowerOperations;
        emit TroveManagerAddressChanged(troveManager);
        emit StabilityPoolAddressChanged(stabilityPool);
        emit BorrowerOperationsAddressChanged(borrowerOperations);
    }

    // --- protocol-only movements ---

    function mint(address account, uint256 amount) external {
        require(msg.sender == borrowerOperationsAddress, "LUSDToken: Caller is not BorrowerOperations");
        totalSupply += amount;
        balanceOf[account] += amount;
        emit Transfer(address(0), account, amount);
    }

    function burn(address account, uint256 amount) external {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == troveManagerAddress
                || msg.sender == stabilityPoolAddress,
            "LUSD: Caller is neither BorrowerOperations nor TroveManager nor StabilityPool"
        );
        balanceOf[account] -= amount;
        totalSupply -= amount;
        emit Transfer(account, address(0), amount);
    }

    function sendToPool(address sender, address pool, uint256 amount) external {
        require(msg.sender == stabilityPoolAddress, "LUSD: Caller is not the StabilityPool");
        _transfer(sender, pool, amount);
    }

    function returnFromPool(address pool, address receiver, uint256 amount) external {
        require(
            msg.sender == troveManagerAddress || msg.sender == stabilityPoolAddress,
            "LUSD: Caller is neither TroveManager nor StabilityPool"
        );
        _transfer(pool, receiver, amount);
    }

    // --- ERC-20 ---

    function transfer(address to, uint256 amount) external returns (bool) {
        _requireValidRecipient(to);
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _requireValidRecipient(to);
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= amount, "ERC20: transfer amount exceeds allowance");
        if (allowed != type(uint256).max) _approve(from, msg.sender, allowed - amount);
        _transfer(from, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function _approve(address owner, address spender, uint256 amount) internal {
        allowance[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    function _transfer(address from, address to, uint256 amount) internal {
        require(balanceOf[from] >= amount, "ERC20: transfer amount exceeds balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }

    /// As on mainnet: LUSD cannot be sent to the token itself or to the core contracts (it would be lost there).
    function _requireValidRecipient(address to) internal view {
        require(to != address(0) && to != address(this), "LUSD: Cannot transfer tokens directly to the LUSD token contract or the zero address");
        require(
            to != stabilityPoolAddress && to != troveManagerAddress && to != borrowerOperationsAddress,
            "LUSD: Cannot transfer tokens directly to the StabilityPool, TroveManager or BorrowerOps"
        );
    }
}
