// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Like {
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title A GMX v2 market token ("GM", 18 decimals, our own code): the ERC-20 of a market's liquidity providers,
/// which holds the market's long and short tokens (the pool, the positions' collateral, the funding fees to claim).
/// Only the market engine and the factory mint, burn and move the tokens it holds.
contract MarketToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    string public constant name = "GMX Market";
    string public constant symbol = "GM";
    uint8 public constant decimals = 18;
    address public immutable engine;
    /// The factory that created it (mints on deposits).
    address public immutable factory;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    constructor(address engine_) {
        engine = engine_;
        factory = msg.sender;
    }

    modifier onlyEngine() {
        require(msg.sender == engine || msg.sender == factory, "MarketToken: not the engine");
        _;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }
    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    function mint(address to, uint256 amount) external onlyEngine {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }
    function burn(address from, uint256 amount) external onlyEngine {
        balanceOf[from] -= amount;
        totalSupply -= amount;
        emit Transfer(from, address(0), amount);
    }
    /// Pays out `amount` of a token the market holds.
    function transferOut(address token, address to, uint256 amount) external onlyEngine {
        require(IERC20Like(token).transfer(to, amount), "MarketToken: transfer failed");
    }

    function _move(address from, address to, uint256 amount) private {
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}
