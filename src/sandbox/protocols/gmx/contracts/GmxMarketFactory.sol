// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./GmxDataStore.sol";
import "./GmxEventEmitter.sol";
import "./GmxKeys.sol";
import "./GmxMarketToken.sol";
import "./GmxOracle.sol";
import "./GmxTypes.sol";

interface IERC20From {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title The sandbox GMX v2 market factory and deposit handler (our own code): creates market tokens (CREATE2 with
/// GMX's salt), writes their properties and configuration under GMX's keys and emits `MarketCreated`; takes
/// liquidity providers' deposits into a market's pool (`PoolAmountUpdated`) and mints its market tokens at the pool's
/// value.
contract MarketFactory {
    using EventUtils for EventUtils.AddressItems;
    using EventUtils for EventUtils.UintItems;
    using EventUtils for EventUtils.IntItems;
    using EventUtils for EventUtils.Bytes32Items;

    DataStore public immutable dataStore;
    EventEmitter public immutable eventEmitter;
    Oracle public immutable oracle;
    address public immutable engine;
    address public immutable keeper;

    constructor(DataStore dataStore_, EventEmitter eventEmitter_, Oracle oracle_, address engine_) {
        dataStore = dataStore_;
        eventEmitter = eventEmitter_;
        oracle = oracle_;
        engine = engine_;
        keeper = msg.sender;
    }

    /// The fee receiver's shares and the collateral floor (GMX's global keys, 30 decimals).
    function setGlobals(uint256 position, uint256 borrowing, uint256 liquidation, uint256 minCollateralUsd) external {
        require(msg.sender == keeper, "MarketFactory: not the keeper");
        dataStore.setUint(Keys.POSITION_FEE_RECEIVER_FACTOR, position);
        dataStore.setUint(Keys.BORROWING_FEE_RECEIVER_FACTOR, borrowing);
        dataStore.setUint(Keys.LIQUIDATION_FEE_RECEIVER_FACTOR, liquidation);
        dataStore.setUint(Keys.MIN_COLLATERAL_USD, minCollateralUsd);
    }

    function createMarket(address indexToken, address longToken, address shortToken, GmxTypes.MarketConfig calldata c)
        external
        returns (address market)
    {
        require(msg.sender == keeper, "MarketFactory: not the keeper");
        bytes32 salt = keccak256(abi.encode("GMX_MARKET", indexToken, longToken, shortToken));
        market = address(new MarketToken{salt: salt}(engine));
        dataStore.addAddress(Keys.MARKET_LIST, market);
        dataStore.setAddress(Keys.marketField(market, Keys.MARKET_TOKEN), market);
        dataStore.setAddress(Keys.marketField(market, Keys.INDEX_TOKEN), indexToken);
        dataStore.setAddress(Keys.marketField(market, Keys.LONG_TOKEN), longToken);
        dataStore.setAddress(Keys.marketField(market, Keys.SHORT_TOKEN), shortToken);
        dataStore.setUint(Keys.fundingFactorKey(market), c.fundingFactor);
        dataStore.setUint(Keys.fundingUpdatedAtKey(market), block.timestamp);
        for (uint256 i = 0; i < 2; i++) {
            bool isLong = i == 0;
            dataStore.setUint(Keys.borrowingFactorKey(market, isLong), c.borrowingFactor);
            dataStore.setUint(Keys.cumulativeBorrowingFactorUpdatedAtKey(market, isLong), block.timestamp);
            dataStore.setUint(Keys.maxOpenInterestKey(market, isLong), c.maxOpenInterest);
            dataStore.setUint(Keys.positionFeeFactorKey(market, isLong), c.positionFeeFactor);
        }
        dataStore.setUint(Keys.liquidationFeeFactorKey(market), c.liquidationFeeFactor);
        dataStore.setUint(Keys.minCollateralFactorKey(market), c.minCollateralFactor);

        EventUtils.EventLogData memory d;
        d.addressItems.initItems(4);
        d.addressItems.setItem(0, "marketToken", market);
        d.addressItems.setItem(1, "indexToken", indexToken);
        d.addressItems.setItem(2, "longToken", longToken);
        d.addressItems.setItem(3, "shortToken", shortToken);
        d.bytes32Items.initItems(1);
        d.bytes32Items.setItem(0, "salt", salt);
        eventEmitter.emitEventLog1("MarketCreated", bytes32(uint256(uint160(market))), d);
    }

    /// The pool's tokens at the oracle's minimum prices (30 decimals), traders' pending PnL not deducted.
    function poolValueUsd(address market) public view returns (uint256 usd) {
        address longToken = dataStore.getAddress(Keys.marketField(market, Keys.LONG_TOKEN));
        address shortToken = dataStore.getAddress(Keys.marketField(market, Keys.SHORT_TOKEN));
        usd = dataStore.getUint(Keys.poolAmountKey(market, longToken)) * oracle.getPrice(longToken).min;
        if (shortToken != longToken) {
            usd += dataStore.getUint(Keys.poolAmountKey(market, shortToken)) * oracle.getPrice(shortToken).min;
        }
    }

    /// Deposits long and short tokens into a market's pool; mints market tokens at the pool's value ($1 each first).
    function deposit(address market, uint256 longAmount, uint256 shortAmount) external returns (uint256 minted) {
        address longToken = dataStore.getAddress(Keys.marketField(market, Keys.LONG_TOKEN));
        address shortToken = dataStore.getAddress(Keys.marketField(market, Keys.SHORT_TOKEN));
        require(longToken != address(0), "MarketFactory: no market");
        uint256 poolUsd = poolValueUsd(market);
        uint256 depositUsd = longAmount * oracle.getPrice(longToken).min + shortAmount * oracle.getPrice(shortToken).min;
        uint256 supply = MarketToken(market).totalSupply();
        minted = supply == 0 || poolUsd == 0 ? depositUsd / 1e12 : (depositUsd * supply) / poolUsd;
        _add(market, longToken, longAmount);
        _add(market, shortToken, shortAmount);
        MarketToken(market).mint(msg.sender, minted);
    }

    function _add(address market, address token, uint256 amount) private {
        if (amount == 0) return;
        require(IERC20From(token).transferFrom(msg.sender, market, amount), "MarketFactory: transfer failed");
        uint256 next = dataStore.applyDeltaToUint(Keys.poolAmountKey(market, token), int256(amount));
        EventUtils.EventLogData memory d;
        d.addressItems.initItems(2);
        d.addressItems.setItem(0, "market", market);
        d.addressItems.setItem(1, "token", token);
        d.intItems.initItems(1);
        d.intItems.setItem(0, "delta", int256(amount));
        d.uintItems.initItems(1);
        d.uintItems.setItem(0, "nextValue", next);
        eventEmitter.emitEventLog1("PoolAmountUpdated", bytes32(uint256(uint160(market))), d);
    }
}
