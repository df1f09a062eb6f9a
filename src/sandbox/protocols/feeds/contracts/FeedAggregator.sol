// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// @title A Chainlink-style price feed of the sandbox.
/// @notice Implements AggregatorV2V3Interface and emits the events of Chainlink's aggregators, in the order and
/// with the arguments OffchainAggregator's transmit emits them, so an indexer reads it as it reads mainnet feeds.
/// One account (the deployer, standing in for the oracle network) transmits each round's answer.
contract FeedAggregator {
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    struct Round {
        int192 answer;
        uint32 updatedAt;
    }

    address public immutable owner;
    uint8 public immutable decimals;
    string public description;
    /// OffchainAggregator reports version 4.
    uint256 public constant version = 4;
    uint80 private latestRoundId;
    mapping(uint80 => Round) private rounds;

    constructor(uint8 decimals_, string memory description_) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
    }

    function transmit(int192 answer) external {
        require(msg.sender == owner, "only the transmitter");
        uint80 roundId = latestRoundId + 1;
        latestRoundId = roundId;
        rounds[roundId] = Round(answer, uint32(block.timestamp));
        // OffchainAggregator: nobody "starts" an OCR round, so startedBy is the zero address.
        emit NewRound(roundId, address(0), block.timestamp);
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }

    function getRoundData(uint80 roundId) public view returns (uint80, int256, uint256, uint256, uint80) {
        Round memory r = rounds[roundId];
        require(r.updatedAt > 0, "No data present");
        return (roundId, r.answer, r.updatedAt, r.updatedAt, roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData(latestRoundId);
    }

    function latestAnswer() external view returns (int256) {
        return rounds[latestRoundId].answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return rounds[latestRoundId].updatedAt;
    }

    function latestRound() external view returns (uint256) {
        return latestRoundId;
    }

    function getAnswer(uint256 roundId) external view returns (int256) {
        return roundId > type(uint80).max ? int256(0) : rounds[uint80(roundId)].answer;
    }

    function getTimestamp(uint256 roundId) external view returns (uint256) {
        return roundId > type(uint80).max ? 0 : rounds[uint80(roundId)].updatedAt;
    }
}
