// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./GmxDataStore.sol";
import "./GmxEventEmitter.sol";
import "./GmxKeys.sol";
import "./GmxMarketToken.sol";
import "./GmxOracle.sol";
import "./GmxMarketEvents.sol";
import "./GmxTypes.sol";

interface IERC20Pull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title The sandbox's GMX v2 market engine (our own code; GMX's bytecode is BUSL and not used). One transaction per
/// action: it updates the DataStore under GMX's keys and emits GMX's events through the EventEmitter, by GMX's names
/// and item keys, and moves the tokens into and out of the market tokens. Simplified against GMX (docs/sandbox.md,
/// "GMX v2 on Arbitrum"): market orders execute at once at the keeper's last prices (no order book, no price
/// impact, no swaps); funding is `FUNDING_FACTOR × |long − short| / (long + short)` per second, paid by the larger
/// side; borrowing is `BORROWING_FACTOR × utilisation` per second on each side.
contract MarketEngine {

    uint256 internal constant FLOAT = 1e30;
    uint256 internal constant FLOAT_SQRT = 1e15;
    /// GMX's `Order.OrderType`.
    uint256 internal constant MARKET_INCREASE = 2;
    uint256 internal constant MARKET_DECREASE = 4;
    uint256 internal constant LIQUIDATION = 7;

    DataStore public immutable dataStore;
    EventEmitter public immutable eventEmitter;
    Oracle public immutable oracle;
    MarketEvents public immutable marketEvents;
    /// The keeper: liquidates (the sandbox's deployer, who also sets the oracle's prices).
    address public immutable keeper;
    address public immutable feeReceiver;

    mapping(bytes32 => GmxTypes.Position) public positions;

    constructor(
        DataStore dataStore_,
        EventEmitter eventEmitter_,
        Oracle oracle_,
        MarketEvents marketEvents_,
        address feeReceiver_
    ) {
        dataStore = dataStore_;
        eventEmitter = eventEmitter_;
        oracle = oracle_;
        marketEvents = marketEvents_;
        keeper = msg.sender;
        feeReceiver = feeReceiver_;
    }

    modifier onlyKeeper() {
        require(msg.sender == keeper, "MarketEngine: not the keeper");
        _;
    }

    // --- keeper --------------------------------------------------------------------------------------------------

    /// Liquidates a position the keeper's prices leave under-collateralised (GMX's `Liquidation` order type);
    /// nothing when it is healthy (or gone) by the time the transaction runs. Returns whether it liquidated.
    function liquidate(bytes32 key) external onlyKeeper returns (bool) {
        GmxTypes.Position storage p = positions[key];
        if (p.sizeInUsd == 0) return false;
        GmxTypes.Props memory m = _market(p.market);
        _updateMarket(m);
        if (!isLiquidatable(key)) return false;
        _decrease(key, p.sizeInUsd, LIQUIDATION);
        return true;
    }

    // --- traders ---------------------------------------------------------------------------------------------------

    /// A market increase: adds `collateralAmount` and `sizeDeltaUsd` (30 decimals) to the sender's position, the size
    /// cut to the side's `MAX_OPEN_INTEREST`.
    function increasePosition(
        address market,
        address collateralToken,
        bool isLong,
        uint256 collateralAmount,
        uint256 sizeDeltaUsd
    ) external {
        GmxTypes.Props memory m = _market(market);
        require(collateralToken == m.longToken || collateralToken == m.shortToken, "MarketEngine: collateral");
        _updateMarket(m);
        bytes32 key = _openPosition(m, collateralToken, isLong);
        _pull(collateralToken, msg.sender, market, collateralAmount);
        _increase(key, m, collateralAmount, _capped(market, isLong, sizeDeltaUsd));
    }

    function _capped(address market, bool isLong, uint256 sizeDeltaUsd) internal view returns (uint256) {
        uint256 oi = openInterest(market, isLong);
        uint256 cap = dataStore.getUint(Keys.maxOpenInterestKey(market, isLong));
        if (oi + sizeDeltaUsd <= cap) return sizeDeltaUsd;
        return oi >= cap ? 0 : cap - oi;
    }

    function _openPosition(GmxTypes.Props memory m, address collateralToken, bool isLong) internal returns (bytes32 key) {
        key = positionKey(msg.sender, m.marketToken, collateralToken, isLong);
        GmxTypes.Position storage p = positions[key];
        if (p.account != address(0)) return key;
        p.account = msg.sender;
        p.market = m.marketToken;
        p.collateralToken = collateralToken;
        p.isLong = isLong;
        p.borrowingFactor = dataStore.getUint(Keys.cumulativeBorrowingFactorKey(m.marketToken, isLong));
        _snapshotFunding(p, m);
        dataStore.addBytes32(Keys.POSITION_LIST, key);
        dataStore.addBytes32(Keys.accountPositionListKey(msg.sender), key);
    }

    function _increase(bytes32 key, GmxTypes.Props memory m, uint256 collateralAmount, uint256 sizeDeltaUsd) internal {
        GmxTypes.Position storage p = positions[key];
        GmxTypes.Change memory c;
        c.key = key;
        c.orderKey = _nextOrderKey();
        c.orderType = MARKET_INCREASE;
        c.sizeDeltaUsd = sizeDeltaUsd;
        c.collateralDelta = int256(collateralAmount);
        GmxTypes.Price memory ip = oracle.getPrice(m.indexToken);
        c.executionPrice = p.isLong ? ip.max : ip.min;
        c.sizeDeltaInTokens = p.isLong ? sizeDeltaUsd / c.executionPrice : _ceilDiv(sizeDeltaUsd, c.executionPrice);

        GmxTypes.Fees memory f = _fees(p, m, sizeDeltaUsd, false);
        uint256 collateral = p.collateralAmount + collateralAmount;
        require(collateral >= f.totalCostAmount, "MarketEngine: collateral below fees");
        p.collateralAmount = collateral - f.totalCostAmount;
        _settleFees(p, m, f, 0);
        _applyCollateralSum(p, int256(collateralAmount) - int256(f.totalCostAmount));
        marketEvents.emitPositionFeesCollected(c, p, f, true);

        p.sizeInUsd += c.sizeDeltaUsd;
        p.sizeInTokens += c.sizeDeltaInTokens;
        p.borrowingFactor = dataStore.getUint(Keys.cumulativeBorrowingFactorKey(p.market, p.isLong));
        _snapshotFunding(p, m);
        p.increasedAtTime = block.timestamp;
        _applyOpenInterest(p, int256(c.sizeDeltaUsd), int256(c.sizeDeltaInTokens));
        _saveFundingFactor(m);
        marketEvents.emitPositionIncrease(c, p, ip, oracle.getPrice(p.collateralToken));
    }

    /// A market decrease of the sender's position by `sizeDeltaUsd` (the whole position at most: a close); the
    /// collateral comes back in proportion, with the profit in the side's token. Nothing when there is no position.
    function decreasePosition(address market, address collateralToken, bool isLong, uint256 sizeDeltaUsd) external {
        bytes32 key = positionKey(msg.sender, market, collateralToken, isLong);
        GmxTypes.Position storage p = positions[key];
        if (p.sizeInUsd == 0) return;
        _updateMarket(_market(market));
        _decrease(key, sizeDeltaUsd > p.sizeInUsd ? p.sizeInUsd : sizeDeltaUsd, MARKET_DECREASE);
    }

    /// Pays the sender the funding fees it may claim in `token`.
    function claimFundingFees(address market, address token) external returns (uint256 amount) {
        bytes32 key = Keys.claimableFundingAmountKey(market, token, msg.sender);
        amount = dataStore.getUint(key);
        if (amount == 0) return 0;
        dataStore.setUint(key, 0);
        uint256 pool = dataStore.applyDeltaToUint(Keys.claimableFundingAmountKey(market, token), -int256(amount));
        MarketToken(market).transferOut(token, msg.sender, amount);
        marketEvents.emitClaimable(market, token, msg.sender, 0, 0, pool, amount);
    }

    // --- views -----------------------------------------------------------------------------------------------------

    /// GMX's `Position.getPositionKey`.
    function positionKey(address account, address market, address collateralToken, bool isLong)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(account, market, collateralToken, isLong));
    }

    /// A side's open interest in USD (cost basis): once per position (a single-token market keeps it under one key).
    function openInterest(address market, bool isLong) public view returns (uint256) {
        GmxTypes.Props memory m = _market(market);
        uint256 oi = dataStore.getUint(Keys.openInterestKey(market, m.longToken, isLong));
        if (m.shortToken != m.longToken) oi += dataStore.getUint(Keys.openInterestKey(market, m.shortToken, isLong));
        return oi;
    }

    /// Whether the position's collateral, with its PnL and its closing costs, is below GMX's minimum (the larger of
    /// `MIN_COLLATERAL_USD` and size × `MIN_COLLATERAL_FACTOR`), at the keeper's prices and the stored accruals.
    function isLiquidatable(bytes32 key) public view returns (bool) {
        GmxTypes.Position storage p = positions[key];
        if (p.sizeInUsd == 0) return false;
        GmxTypes.Props memory m = _market(p.market);
        GmxTypes.Fees memory f = _fees(p, m, p.sizeInUsd, true);
        int256 remaining = int256(p.collateralAmount * f.collateralTokenPrice.min) + _pnl(p, m, p.sizeInTokens) -
            int256(f.totalCostAmount * f.collateralTokenPrice.min);
        uint256 minUsd = (p.sizeInUsd * dataStore.getUint(Keys.minCollateralFactorKey(p.market))) / FLOAT;
        uint256 floorUsd = dataStore.getUint(Keys.MIN_COLLATERAL_USD);
        if (floorUsd > minUsd) minUsd = floorUsd;
        return remaining < int256(minUsd);
    }

    /// Positions by key: size (USD, 30 decimals), collateral amount, and whether the keeper may liquidate it.
    function positionStates(bytes32[] calldata keys)
        external
        view
        returns (uint256[] memory sizes, uint256[] memory collaterals, bool[] memory liquidatable)
    {
        sizes = new uint256[](keys.length);
        collaterals = new uint256[](keys.length);
        liquidatable = new bool[](keys.length);
        for (uint256 i = 0; i < keys.length; i++) {
            sizes[i] = positions[keys[i]].sizeInUsd;
            collaterals[i] = positions[keys[i]].collateralAmount;
            liquidatable[i] = isLiquidatable(keys[i]);
        }
    }

    // --- internals -------------------------------------------------------------------------------------------------

    /// A market's tokens, from its properties in the DataStore (GMX's MarketStoreUtils keys).
    function _market(address market) internal view returns (GmxTypes.Props memory m) {
        m.marketToken = dataStore.getAddress(Keys.marketField(market, Keys.MARKET_TOKEN));
        require(m.marketToken != address(0), "MarketEngine: no market");
        m.indexToken = dataStore.getAddress(Keys.marketField(market, Keys.INDEX_TOKEN));
        m.longToken = dataStore.getAddress(Keys.marketField(market, Keys.LONG_TOKEN));
        m.shortToken = dataStore.getAddress(Keys.marketField(market, Keys.SHORT_TOKEN));
    }

    function _decrease(bytes32 key, uint256 sizeDeltaUsd, uint256 orderType) internal {
        GmxTypes.Position storage p = positions[key];
        GmxTypes.Props memory m = _market(p.market);
        GmxTypes.Change memory c;
        c.key = key;
        c.orderKey = _nextOrderKey();
        c.orderType = orderType;
        c.sizeDeltaUsd = sizeDeltaUsd;
        c.sizeDeltaInTokens =
            sizeDeltaUsd == p.sizeInUsd ? p.sizeInTokens : (p.sizeInTokens * sizeDeltaUsd) / p.sizeInUsd;
        GmxTypes.Price memory ip = oracle.getPrice(m.indexToken);
        c.executionPrice = p.isLong ? ip.min : ip.max;
        c.basePnlUsd = _pnl(p, m, c.sizeDeltaInTokens);
        GmxTypes.Fees memory f = _fees(p, m, sizeDeltaUsd, orderType == LIQUIDATION);
        _settleDecrease(p, m, c, f);
        marketEvents.emitPositionFeesCollected(c, p, f, false);
        _finishDecrease(p, m, c, ip);
    }

    /// The decrease's money: fees first (a shortfall the pool bears), then a loss into the pool, the collateral
    /// back in proportion to the size (all of it on a close), a profit from the pool in the side's token.
    function _settleDecrease(
        GmxTypes.Position storage p,
        GmxTypes.Props memory m,
        GmxTypes.Change memory c,
        GmxTypes.Fees memory f
    ) internal {
        uint256 collateral = p.collateralAmount;
        uint256 shortfall;
        if (collateral >= f.totalCostAmount) collateral -= f.totalCostAmount;
        else (shortfall, collateral) = (f.totalCostAmount - collateral, 0);
        uint256 lossPaid;
        if (c.basePnlUsd < 0) {
            lossPaid = _ceilDiv(uint256(-c.basePnlUsd), f.collateralTokenPrice.min);
            if (lossPaid > collateral) lossPaid = collateral;
            collateral -= lossPaid;
        }
        _settleFees(p, m, f, lossPaid);
        if (shortfall > 0) {
            uint256 pool = dataStore.getUint(Keys.poolAmountKey(p.market, p.collateralToken));
            _applyPool(p.market, p.collateralToken, -int256(shortfall > pool ? pool : shortfall));
        }
        uint256 out = c.sizeDeltaUsd == p.sizeInUsd ? collateral : (p.collateralAmount * c.sizeDeltaUsd) / p.sizeInUsd;
        if (out > collateral) out = collateral;
        _applyCollateralSum(p, int256(collateral - out) - int256(p.collateralAmount));
        p.collateralAmount = collateral - out;
        c.collateralDelta = int256(out);
        if (out > 0) MarketToken(p.market).transferOut(p.collateralToken, p.account, out);
        if (c.basePnlUsd > 0) _payProfit(p, m, uint256(c.basePnlUsd));
    }

    function _finishDecrease(
        GmxTypes.Position storage p,
        GmxTypes.Props memory m,
        GmxTypes.Change memory c,
        GmxTypes.Price memory ip
    ) internal {
        p.sizeInUsd -= c.sizeDeltaUsd;
        p.sizeInTokens -= c.sizeDeltaInTokens;
        p.borrowingFactor = dataStore.getUint(Keys.cumulativeBorrowingFactorKey(p.market, p.isLong));
        _snapshotFunding(p, m);
        p.decreasedAtTime = block.timestamp;
        _applyOpenInterest(p, -int256(c.sizeDeltaUsd), -int256(c.sizeDeltaInTokens));
        _saveFundingFactor(m);
        marketEvents.emitPositionDecrease(c, p, ip, oracle.getPrice(p.collateralToken));
        if (p.sizeInUsd > 0) return;
        dataStore.removeBytes32(Keys.POSITION_LIST, c.key);
        dataStore.removeBytes32(Keys.accountPositionListKey(p.account), c.key);
        delete positions[c.key];
    }

    /// The PnL of `tokens` of the position at the keeper's prices (longs at the minimum, shorts at the maximum), in
    /// USD against their cost basis.
    function _pnl(GmxTypes.Position storage p, GmxTypes.Props memory m, uint256 tokens) internal view returns (int256) {
        if (p.sizeInTokens == 0) return 0;
        GmxTypes.Price memory ip = oracle.getPrice(m.indexToken);
        uint256 cost = (p.sizeInUsd * tokens) / p.sizeInTokens;
        int256 value = int256(tokens * (p.isLong ? ip.min : ip.max));
        return p.isLong ? value - int256(cost) : int256(cost) - value;
    }

    function _payProfit(GmxTypes.Position storage p, GmxTypes.Props memory m, uint256 profitUsd) internal {
        address token = p.isLong ? m.longToken : m.shortToken;
        uint256 amount = profitUsd / oracle.getPrice(token).max;
        uint256 pool = dataStore.getUint(Keys.poolAmountKey(p.market, token));
        if (amount > pool) amount = pool;
        if (amount == 0) return;
        _applyPool(p.market, token, -int256(amount));
        MarketToken(p.market).transferOut(token, p.account, amount);
    }

    function _fees(GmxTypes.Position storage p, GmxTypes.Props memory m, uint256 sizeDeltaUsd, bool liquidation)
        internal
        view
        returns (GmxTypes.Fees memory f)
    {
        f.collateralTokenPrice = oracle.getPrice(p.collateralToken);
        f.tradeSizeUsd = sizeDeltaUsd;
        f.latestFundingFeeAmountPerSize =
            dataStore.getUint(Keys.fundingFeeAmountPerSizeKey(p.market, p.collateralToken, p.isLong));
        f.latestLongTokenClaimableFundingAmountPerSize =
            dataStore.getUint(Keys.claimableFundingAmountPerSizeKey(p.market, m.longToken, p.isLong));
        f.latestShortTokenClaimableFundingAmountPerSize =
            dataStore.getUint(Keys.claimableFundingAmountPerSizeKey(p.market, m.shortToken, p.isLong));
        if (p.sizeInUsd > 0) {
            f.fundingFeeAmount =
                (p.sizeInUsd * (f.latestFundingFeeAmountPerSize - p.fundingFeeAmountPerSize)) / (FLOAT * FLOAT_SQRT);
            f.claimableLongTokenAmount = (p.sizeInUsd *
                (f.latestLongTokenClaimableFundingAmountPerSize - p.longTokenClaimableFundingAmountPerSize)) /
                (FLOAT * FLOAT_SQRT);
            if (m.shortToken != m.longToken) {
                f.claimableShortTokenAmount = (p.sizeInUsd *
                    (f.latestShortTokenClaimableFundingAmountPerSize - p.shortTokenClaimableFundingAmountPerSize)) /
                    (FLOAT * FLOAT_SQRT);
            }
            uint256 cumulative = dataStore.getUint(Keys.cumulativeBorrowingFactorKey(p.market, p.isLong));
            f.borrowingFeeUsd = (p.sizeInUsd * (cumulative - p.borrowingFactor)) / FLOAT;
        }
        uint256 price = f.collateralTokenPrice.min;
        f.borrowingFeeAmount = f.borrowingFeeUsd / price;
        f.borrowingFeeReceiverFactor = dataStore.getUint(Keys.BORROWING_FEE_RECEIVER_FACTOR);
        f.borrowingFeeAmountForFeeReceiver = (f.borrowingFeeAmount * f.borrowingFeeReceiverFactor) / FLOAT;
        f.positionFeeFactor = dataStore.getUint(Keys.positionFeeFactorKey(p.market, false));
        f.positionFeeAmount = (sizeDeltaUsd * f.positionFeeFactor) / FLOAT / price;
        f.positionFeeReceiverFactor = dataStore.getUint(Keys.POSITION_FEE_RECEIVER_FACTOR);
        uint256 positionForReceiver = (f.positionFeeAmount * f.positionFeeReceiverFactor) / FLOAT;
        f.positionFeeAmountForPool = f.positionFeeAmount - positionForReceiver;
        if (liquidation) {
            f.liquidationFeeAmount =
                (sizeDeltaUsd * dataStore.getUint(Keys.liquidationFeeFactorKey(p.market))) / FLOAT / price;
            f.liquidationFeeReceiverFactor = dataStore.getUint(Keys.LIQUIDATION_FEE_RECEIVER_FACTOR);
            f.liquidationFeeAmountForFeeReceiver = (f.liquidationFeeAmount * f.liquidationFeeReceiverFactor) / FLOAT;
        }
        f.feeReceiverAmount = positionForReceiver + f.borrowingFeeAmountForFeeReceiver +
            f.liquidationFeeAmountForFeeReceiver;
        f.feeAmountForPool = f.positionFeeAmountForPool + (f.borrowingFeeAmount - f.borrowingFeeAmountForFeeReceiver) +
            (f.liquidationFeeAmount - f.liquidationFeeAmountForFeeReceiver);
        f.totalCostAmount = f.positionFeeAmount + f.borrowingFeeAmount + f.liquidationFeeAmount + f.fundingFeeAmount;
    }

    /// The fees' destinations: the pool's share and `lossPaid` (a loss kept from the collateral) into the pool, the
    /// fee receiver's share out, the funding fee kept for the other side's claims, their claimable funding credited.
    function _settleFees(GmxTypes.Position storage p, GmxTypes.Props memory m, GmxTypes.Fees memory f, uint256 lossPaid) internal {
        if (f.feeAmountForPool + lossPaid > 0) {
            _applyPool(p.market, p.collateralToken, int256(f.feeAmountForPool + lossPaid));
        }
        if (f.feeReceiverAmount > 0) {
            MarketToken(p.market).transferOut(p.collateralToken, feeReceiver, f.feeReceiverAmount);
        }
        if (f.claimableLongTokenAmount > 0) _creditClaimable(p.market, m.longToken, p.account, f.claimableLongTokenAmount);
        if (f.claimableShortTokenAmount > 0) {
            _creditClaimable(p.market, m.shortToken, p.account, f.claimableShortTokenAmount);
        }
    }

    function _creditClaimable(address market, address token, address account, uint256 amount) internal {
        uint256 next = dataStore.applyDeltaToUint(Keys.claimableFundingAmountKey(market, token, account), int256(amount));
        uint256 pool = dataStore.applyDeltaToUint(Keys.claimableFundingAmountKey(market, token), int256(amount));
        marketEvents.emitClaimable(market, token, account, amount, next, pool, 0);
    }

    function _snapshotFunding(GmxTypes.Position storage p, GmxTypes.Props memory m) internal {
        p.fundingFeeAmountPerSize =
            dataStore.getUint(Keys.fundingFeeAmountPerSizeKey(p.market, p.collateralToken, p.isLong));
        p.longTokenClaimableFundingAmountPerSize =
            dataStore.getUint(Keys.claimableFundingAmountPerSizeKey(p.market, m.longToken, p.isLong));
        p.shortTokenClaimableFundingAmountPerSize =
            dataStore.getUint(Keys.claimableFundingAmountPerSizeKey(p.market, m.shortToken, p.isLong));
    }

    /// Accrues funding and borrowing since the market's last update (per second, at the saved factors).
    function _updateMarket(GmxTypes.Props memory m) internal {
        uint256 updatedAt = dataStore.getUint(Keys.fundingUpdatedAtKey(m.marketToken));
        if (block.timestamp <= updatedAt) return;
        uint256 dt = block.timestamp - updatedAt;
        dataStore.setUint(Keys.fundingUpdatedAtKey(m.marketToken), block.timestamp);
        _accrueFunding(m, dt);
        _accrueBorrowing(m, true, dt);
        _accrueBorrowing(m, false, dt);
    }

    function _accrueFunding(GmxTypes.Props memory m, uint256 dt) internal {
        int256 factor = dataStore.getInt(Keys.savedFundingFactorPerSecondKey(m.marketToken));
        uint256 longOi = openInterest(m.marketToken, true);
        uint256 shortOi = openInterest(m.marketToken, false);
        if (factor == 0 || longOi == 0 || shortOi == 0) return;
        bool longsPay = factor > 0;
        uint256 larger = longOi > shortOi ? longOi : shortOi;
        uint256 fundingUsd = (larger * dt * uint256(factor > 0 ? factor : -factor)) / FLOAT;
        uint256 payingOi = longsPay ? longOi : shortOi;
        uint256 receivingOi = longsPay ? shortOi : longOi;
        _accrueFundingIn(m, m.longToken, longsPay, fundingUsd, payingOi, receivingOi);
        if (m.shortToken != m.longToken) _accrueFundingIn(m, m.shortToken, longsPay, fundingUsd, payingOi, receivingOi);
    }

    /// The paying side's positions collateralised in `token` pay their share of `fundingUsd` in it; the receiving
    /// side may claim it, in `token`, per size.
    function _accrueFundingIn(
        GmxTypes.Props memory m,
        address token,
        bool longsPay,
        uint256 fundingUsd,
        uint256 payingOi,
        uint256 receivingOi
    ) internal {
        uint256 oiIn = dataStore.getUint(Keys.openInterestKey(m.marketToken, token, longsPay));
        if (oiIn == 0) return;
        uint256 usdIn = (fundingUsd * oiIn) / payingOi;
        uint256 price = oracle.getPrice(token).max;
        uint256 payDelta = (((usdIn * FLOAT) / oiIn) * FLOAT_SQRT) / price;
        uint256 receiveDelta = (((usdIn * FLOAT) / receivingOi) * FLOAT_SQRT) / price;
        if (payDelta > 0) {
            bytes32 k = Keys.fundingFeeAmountPerSizeKey(m.marketToken, token, longsPay);
            uint256 next = dataStore.applyDeltaToUint(k, int256(payDelta));
            marketEvents.emitPerSize(false, m.marketToken, token, longsPay, payDelta, next);
        }
        if (receiveDelta > 0) {
            bytes32 k = Keys.claimableFundingAmountPerSizeKey(m.marketToken, token, !longsPay);
            uint256 next = dataStore.applyDeltaToUint(k, int256(receiveDelta));
            marketEvents.emitPerSize(true, m.marketToken, token, !longsPay, receiveDelta, next);
        }
    }

    function _accrueBorrowing(GmxTypes.Props memory m, bool isLong, uint256 dt) internal {
        address token = isLong ? m.longToken : m.shortToken;
        uint256 poolUsd = dataStore.getUint(Keys.poolAmountKey(m.marketToken, token)) * oracle.getPrice(token).min;
        if (m.longToken == m.shortToken) poolUsd /= 2;
        uint256 oi = openInterest(m.marketToken, isLong);
        dataStore.setUint(Keys.cumulativeBorrowingFactorUpdatedAtKey(m.marketToken, isLong), block.timestamp);
        if (poolUsd == 0 || oi == 0) return;
        if (oi > poolUsd) oi = poolUsd;
        uint256 delta = (dataStore.getUint(Keys.borrowingFactorKey(m.marketToken, isLong)) * oi * dt) / poolUsd;
        if (delta == 0) return;
        uint256 next =
            dataStore.applyDeltaToUint(Keys.cumulativeBorrowingFactorKey(m.marketToken, isLong), int256(delta));
        marketEvents.emitBorrowing(m.marketToken, isLong, delta, next);
    }

    /// The funding factor per second for the open interest as it now is (positive: longs pay shorts).
    function _saveFundingFactor(GmxTypes.Props memory m) internal {
        uint256 longOi = openInterest(m.marketToken, true);
        uint256 shortOi = openInterest(m.marketToken, false);
        int256 factor;
        if (longOi + shortOi > 0) {
            uint256 diff = longOi > shortOi ? longOi - shortOi : shortOi - longOi;
            uint256 f = (dataStore.getUint(Keys.fundingFactorKey(m.marketToken)) * diff) / (longOi + shortOi);
            factor = longOi >= shortOi ? int256(f) : -int256(f);
        }
        dataStore.setInt(Keys.savedFundingFactorPerSecondKey(m.marketToken), factor);
    }

    function _applyOpenInterest(GmxTypes.Position storage p, int256 deltaUsd, int256 deltaTokens) internal {
        uint256 next = dataStore.applyDeltaToUint(Keys.openInterestKey(p.market, p.collateralToken, p.isLong), deltaUsd);
        marketEvents.emitDelta(0, p.market, p.collateralToken, p.isLong, deltaUsd, next);
        next = dataStore.applyDeltaToUint(
            Keys.openInterestInTokensKey(p.market, p.collateralToken, p.isLong),
            deltaTokens
        );
        marketEvents.emitDelta(1, p.market, p.collateralToken, p.isLong, deltaTokens, next);
    }

    function _applyCollateralSum(GmxTypes.Position storage p, int256 delta) internal {
        if (delta == 0) return;
        uint256 next = dataStore.applyDeltaToUint(Keys.collateralSumKey(p.market, p.collateralToken, p.isLong), delta);
        marketEvents.emitDelta(2, p.market, p.collateralToken, p.isLong, delta, next);
    }

    function _applyPool(address market, address token, int256 delta) internal {
        uint256 next = dataStore.applyDeltaToUint(Keys.poolAmountKey(market, token), delta);
        marketEvents.emitPoolAmountUpdated(market, token, delta, next);
    }

    function _pull(address token, address from, address to, uint256 amount) internal {
        if (amount > 0) require(IERC20Pull(token).transferFrom(from, to, amount), "MarketEngine: transfer failed");
    }

    function _nextOrderKey() internal returns (bytes32) {
        uint256 nonce = dataStore.applyDeltaToUint(Keys.NONCE, 1);
        return keccak256(abi.encode(address(dataStore), nonce));
    }

    function _ceilDiv(uint256 a, uint256 b) internal pure returns (uint256) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }
}
