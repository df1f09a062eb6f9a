// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./LiquityBase.sol";

/// @title The active troves as a doubly linked list sorted by nominal collateral ratio (NICR), highest first: the
/// last trove is the riskiest, where liquidations and redemptions start. A valid (prev, next) hint inserts in O(1);
/// otherwise the position is found by walking from the head (mainnet walks from the hints; same result).
contract SortedTroves is OnceWired {
    event TroveManagerAddressChanged(address _troveManagerAddress);
    event BorrowerOperationsAddressChanged(address _borrowerOperationsAddress);
    event NodeAdded(address _id, uint256 _NICR);
    event NodeRemoved(address _id);

    struct Node {
        bool exists;
        address nextId; // towards the tail (lower NICR)
        address prevId; // towards the head (higher NICR)
    }

    ITroveManagerLike public troveManager;
    address public borrowerOperationsAddress;

    address internal head;
    address internal tail;
    uint256 internal size;
    uint256 public maxSize;
    mapping(address => Node) internal nodes;

    function setParams(uint256 size_, address troveManager_, address borrowerOperations) external wiring {
        require(size_ > 0, "SortedTroves: Size can't be zero");
        maxSize = size_;
        troveManager = ITroveManagerLike(troveManager_);
        borrowerOperationsAddress = borrowerOperations;
        emit TroveManagerAddressChanged(troveManager_);
        emit BorrowerOperationsAddressChanged(borrowerOperations);
    }

    modifier onlyBOorTM() {
        require(
            msg.sender == borrowerOperationsAddress || msg.sender == address(troveManager),
            "SortedTroves: Caller is neither BO nor TroveM"
        );
        _;
    }

    function insert(address id, uint256 nicr, address prevId, address nextId) external onlyBOorTM {
        _insert(id, nicr, prevId, nextId);
    }

    function remove(address id) external {
        require(msg.sender == address(troveManager), "SortedTroves: Caller is not the TroveManager");
        _remove(id);
    }

    function reInsert(address id, uint256 newNicr, address prevId, address nextId) external onlyBOorTM {
        require(contains(id), "SortedTroves: List does not contain the id");
        _remove(id);
        _insert(id, newNicr, prevId, nextId);
    }

    function _insert(address id, uint256 nicr, address prevId, address nextId) internal {
        require(size < maxSize, "SortedTroves: List is full");
        require(!contains(id), "SortedTroves: List already contains the node");
        require(id != address(0), "SortedTroves: Id cannot be zero");
        require(nicr > 0, "SortedTroves: NICR must be positive");
        if (!validInsertPosition(nicr, prevId, nextId)) (prevId, nextId) = _findFromHead(nicr);
        nodes[id].exists = true;
        nodes[id].prevId = prevId;
        nodes[id].nextId = nextId;
        if (prevId == address(0)) head = id;
        else nodes[prevId].nextId = id;
        if (nextId == address(0)) tail = id;
        else nodes[nextId].prevId = id;
        size += 1;
        emit NodeAdded(id, nicr);
    }

    function _remove(address id) internal {
        require(contains(id), "SortedTroves: List does not contain the id");
        Node memory node = nodes[id];
        if (node.prevId == address(0)) head = node.nextId;
        else nodes[node.prevId].nextId = node.nextId;
        if (node.nextId == address(0)) tail = node.prevId;
        else nodes[node.nextId].prevId = node.prevId;
        delete nodes[id];
        size -= 1;
        emit NodeRemoved(id);
    }

    /// The first node whose NICR is below `nicr` and the one before it (ties go after the existing nodes).
    function _findFromHead(uint256 nicr) internal view returns (address prevId, address nextId) {
        nextId = head;
        while (nextId != address(0) && troveManager.getNominalICR(nextId) >= nicr) {
            prevId = nextId;
            nextId = nodes[nextId].nextId;
        }
    }

    /// Whether (prevId, nextId) are adjacent (or the ends of the list) and `nicr` fits between them.
    function validInsertPosition(uint256 nicr, address prevId, address nextId) public view returns (bool) {
        if (prevId == address(0) && nextId == address(0)) return size == 0;
        if (prevId == address(0)) return head == nextId && nicr >= troveManager.getNominalICR(nextId);
        if (nextId == address(0)) return tail == prevId && nicr <= troveManager.getNominalICR(prevId);
        return nodes[prevId].nextId == nextId && troveManager.getNominalICR(prevId) >= nicr
            && nicr >= troveManager.getNominalICR(nextId);
    }

    function findInsertPosition(uint256 nicr, address, address) external view returns (address, address) {
        return _findFromHead(nicr);
    }

    function contains(address id) public view returns (bool) {
        return nodes[id].exists;
    }

    function isFull() external view returns (bool) {
        return size == maxSize;
    }

    function isEmpty() external view returns (bool) {
        return size == 0;
    }

    function getSize() external view returns (uint256) {
        return size;
    }

    function getMaxSize() external view returns (uint256) {
        return maxSize;
    }

    function getFirst() external view returns (address) {
        return head;
    }

    function getLast() external view returns (address) {
        return tail;
    }

    function getNext(address id) external view returns (address) {
        return nodes[id].nextId;
    }

    function getPrev(address id) external view returns (address) {
        return nodes[id].prevId;
    }
}
