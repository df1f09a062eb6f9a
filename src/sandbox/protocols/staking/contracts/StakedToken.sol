// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IWETH9 {
    function deposit() external payable;
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function withdraw(uint256 value) external;
}

/// @title The sandbox's wrapped liquid staking token (stands in for Lido's wstETH).
/// @notice An ERC-20 whose exchange rate to its underlying (WETH, standing in for staked ETH) grows once a day, as
/// wstETH's does at each daily oracle report: `stEthPerToken()` is the underlying one token is worth, 1e18-scaled.
/// The rate is a pure function of the block's timestamp (rate at deployment, plus the yearly APR pro rata per whole
/// day since then, simple interest), so it is readable at any block and needs no report transaction. The backing is
/// WETH held by the contract; `wrap`/`stakeETH` mint at the current rate and `unwrap` pays WETH back at it.
contract StakedToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    IWETH9 public immutable underlying;
    /// The exchange rate at deployment, 1e18-scaled.
    uint256 public immutable initialRate;
    /// Yearly growth of the rate in basis points (350 = 3.5 %).
    uint256 public immutable aprBps;
    /// Deployment time: day 0 of the daily rate steps.
    uint256 public immutable startTimestamp;

    constructor(string memory name_, string memory symbol_, address underlying_, uint256 initialRate_, uint256 aprBps_) {
        name = name_;
        symbol = symbol_;
        underlying = IWETH9(underlying_);
        initialRate = initialRate_;
        aprBps = aprBps_;
        startTimestamp = block.timestamp;
    }

    /// Underlying per token (1e18 = 1:1) at this block: one step per whole day since deployment.
    function stEthPerToken() public view returns (uint256) {
        uint256 day = (block.timestamp - startTimestamp) / 1 days;
        return initialRate + (initialRate * aprBps * day) / (10_000 * 365);
    }

    /// wstETH's names for the two conversions.
    function getStETHByWstETH(uint256 amount) public view returns (uint256) {
        return (amount * stEthPerToken()) / 1e18;
    }

    function getWstETHByStETH(uint256 amount) public view returns (uint256) {
        return (amount * 1e18) / stEthPerToken();
    }

    function tokensPerStEth() external view returns (uint256) {
        return getWstETHByStETH(1e18);
    }

    /// Pulls `amount` of the underlying and mints its worth in tokens at the current rate.
    function wrap(uint256 amount) external returns (uint256 minted) {
        require(underlying.transferFrom(msg.sender, address(this), amount), "transfer failed");
        minted = getWstETHByStETH(amount);
        _mint(msg.sender, minted);
    }

    /// Stakes native ETH (held as the underlying) and mints its worth in tokens, like sending ETH to wstETH.
    function stakeETH() public payable returns (uint256 minted) {
        underlying.deposit{value: msg.value}();
        minted = getWstETHByStETH(msg.value);
        _mint(msg.sender, minted);
    }

    receive() external payable {
        stakeETH();
    }

    /// Burns `amount` tokens and pays their worth in the underlying at the current rate.
    function unwrap(uint256 amount) external returns (uint256 paid) {
        _burn(msg.sender, amount);
        paid = getStETHByWstETH(amount);
        require(underlying.transfer(msg.sender, paid), "transfer failed");
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) internal {
        require(to != address(0), "zero address");
        uint256 balance = balanceOf[from];
        require(balance >= value, "balance");
        balanceOf[from] = balance - value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _burn(address from, uint256 value) internal {
        uint256 balance = balanceOf[from];
        require(balance >= value, "balance");
        balanceOf[from] = balance - value;
        totalSupply -= value;
        emit Transfer(from, address(0), value);
    }
}
