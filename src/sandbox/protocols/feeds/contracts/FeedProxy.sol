// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IFeedAggregator {
    function decimals() external view returns (uint8);
    function description() external view returns (string memory);
    function version() external view returns (uint256);
    function getRoundData(uint80 roundId) external view returns (uint80, int256, uint256, uint256, uint80);
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
    function latestAnswer() external view returns (int256);
    function latestTimestamp() external view returns (uint256);
    function latestRound() external view returns (uint256);
    function getAnswer(uint256 roundId) external view returns (int256);
    function getTimestamp(uint256 roundId) external view returns (uint256);
}

/// @title The address consumers of a sandbox price feed read, as mainnet consumers read an EACAggregatorProxy.
/// @notice Like Chainlink's proxies it emits no round events and forwards every read to the aggregator it points at
/// (`aggregator()`), which its owner may replace; an indexer resolves `aggregator()` and reads that contract's
/// `AnswerUpdated` logs. Unlike Chainlink's proxies it does not prefix round ids with a phase: the sandbox never
/// replaces an aggregator during a world's life, so the aggregator's own round ids are the proxy's.
contract FeedProxy {
    event AggregatorConfirmed(address indexed previous, address indexed latest);

    address public immutable owner;
    address public aggregator;

    constructor(address aggregator_) {
        owner = msg.sender;
        aggregator = aggregator_;
        emit AggregatorConfirmed(address(0), aggregator_);
    }

    function confirmAggregator(address aggregator_) external {
        require(msg.sender == owner, "only the owner");
        emit AggregatorConfirmed(aggregator, aggregator_);
        aggregator = aggregator_;
    }

    function decimals() external view returns (uint8) {
        return IFeedAggregator(aggregator).decimals();
    }

    function description() external view returns (string memory) {
        return IFeedAggregator(aggregator).description();
    }

    function version() external view returns (uint256) {
        return IFeedAggregator(aggregator).version();
    }

    function getRoundData(uint80 roundId) external view returns (uint80, int256, uint256, uint256, uint80) {
        return IFeedAggregator(aggregator).getRoundData(roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return IFeedAggregator(aggregator).latestRoundData();
    }

    function latestAnswer() external view returns (int256) {
        return IFeedAggregator(aggregator).latestAnswer();
    }

    function latestTimestamp() external view returns (uint256) {
        return IFeedAggregator(aggregator).latestTimestamp();
    }

    function latestRound() external view returns (uint256) {
        return IFeedAggregator(aggregator).latestRound();
    }

    function getAnswer(uint256 roundId) external view returns (int256) {
        return IFeedAggregator(aggregator).getAnswer(roundId);
    }

    function getTimestamp(uint256 roundId) external view returns (uint256) {
        return IFeedAggregator(aggregator).getTimestamp(roundId);
    }
}
