// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title GMX v2's DataStore (our own code, GMX's getters): a key-value store of uints, ints, addresses, bools and
/// sets of addresses and bytes32 under GMX's keys (GmxKeys.sol). Readers call the getters; only the market engine
/// (the controllers the deployer names) writes.
contract DataStore {
    address public immutable owner;
    mapping(address => bool) public isController;

    mapping(bytes32 => uint256) public uintValues;
    mapping(bytes32 => int256) public intValues;
    mapping(bytes32 => address) public addressValues;
    mapping(bytes32 => bool) public boolValues;
    mapping(bytes32 => bytes32[]) private bytes32Sets;
    mapping(bytes32 => mapping(bytes32 => uint256)) private bytes32Index; // position + 1
    mapping(bytes32 => address[]) private addressSets;
    mapping(bytes32 => mapping(address => uint256)) private addressIndex; // position + 1

    constructor() {
        owner = msg.sender;
    }

    /// Grants a contract of the protocol the controller role (GMX's RoleStore CONTROLLER), once, by the deployer.
    function addController(address controller) external {
        require(msg.sender == owner, "DataStore: not the owner");
        isController[controller] = true;
    }

    modifier onlyController() {
        require(isController[msg.sender], "DataStore: not a controller");
        _;
    }

    function getUint(bytes32 key) external view returns (uint256) {
        return uintValues[key];
    }
    function getInt(bytes32 key) external view returns (int256) {
        return intValues[key];
    }
    function getAddress(bytes32 key) external view returns (address) {
        return addressValues[key];
    }
    function getBool(bytes32 key) external view returns (bool) {
        return boolValues[key];
    }

    function setUint(bytes32 key, uint256 value) external onlyController returns (uint256) {
        uintValues[key] = value;
        return value;
    }
    /// Adds a signed delta (reverts below zero, as GMX's applyDeltaToUint); returns the next value.
    function applyDeltaToUint(bytes32 key, int256 delta) external onlyController returns (uint256) {
        int256 next = int256(uintValues[key]) + delta;
        require(next >= 0, "DataStore: negative");
        uintValues[key] = uint256(next);
        return uint256(next);
    }
    function setInt(bytes32 key, int256 value) external onlyController returns (int256) {
        intValues[key] = value;
        return value;
    }
    function setAddress(bytes32 key, address value) external onlyController returns (address) {
        addressValues[key] = value;
        return value;
    }
    function setBool(bytes32 key, bool value) external onlyController returns (bool) {
        boolValues[key] = value;
        return value;
    }

    function containsBytes32(bytes32 setKey, bytes32 value) external view returns (bool) {
        return bytes32Index[setKey][value] != 0;
    }
    function getBytes32Count(bytes32 setKey) external view returns (uint256) {
        return bytes32Sets[setKey].length;
    }
    function getBytes32ValuesAt(bytes32 setKey, uint256 start, uint256 end) external view returns (bytes32[] memory) {
        bytes32[] storage set = bytes32Sets[setKey];
        if (end > set.length) end = set.length;
        if (start > end) start = end;
        bytes32[] memory values = new bytes32[](end - start);
        for (uint256 i = start; i < end; i++) values[i - start] = set[i];
        return values;
    }
    function addBytes32(bytes32 setKey, bytes32 value) external onlyController {
        if (bytes32Index[setKey][value] != 0) return;
        bytes32Sets[setKey].push(value);
        bytes32Index[setKey][value] = bytes32Sets[setKey].length;
    }
    function removeBytes32(bytes32 setKey, bytes32 value) external onlyController {
        uint256 at = bytes32Index[setKey][value];
        if (at == 0) return;
        bytes32[] storage set = bytes32Sets[setKey];
        bytes32 last = set[set.length - 1];
        set[at - 1] = last;
        bytes32Index[setKey][last] = at;
        set.pop();
        delete bytes32Index[setKey][value];
    }

    function containsAddress(bytes32 setKey, address value) external view returns (bool) {
        return addressIndex[setKey][value] != 0;
    }
    function getAddressCount(bytes32 setKey) external view returns (uint256) {
        return addressSets[setKey].length;
    }
    function getAddressValuesAt(bytes32 setKey, uint256 start, uint256 end) external view returns (address[] memory) {
        address[] storage set = addressSets[setKey];
        if (end > set.length) end = set.length;
        if (start > end) start = end;
        address[] memory values = new address[](end - start);
        for (uint256 i = start; i < end; i++) values[i - start] = set[i];
        return values;
    }
    function addAddress(bytes32 setKey, address value) external onlyController {
        if (addressIndex[setKey][value] != 0) return;
        addressSets[setKey].push(value);
        addressIndex[setKey][value] = addressSets[setKey].length;
    }
}
