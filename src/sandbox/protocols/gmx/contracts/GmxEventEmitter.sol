// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title The event payload of GMX v2 (our own code): `EventLogData` and its item structs with exactly the names,
/// types and order of GMX's published ABI (the npm package gmx-io/sdk, abis/EventEmitter), so a reader decodes our logs with GMX's
/// ABI. The builders (`initItems`/`setItem`) fill fixed-size arrays, items read by key name.
library EventUtils {
    struct AddressKeyValue { string key; address value; }
    struct AddressArrayKeyValue { string key; address[] value; }
    struct AddressItems { AddressKeyValue[] items; AddressArrayKeyValue[] arrayItems; }
    struct UintKeyValue { string key; uint256 value; }
    struct UintArrayKeyValue { string key; uint256[] value; }
    struct UintItems { UintKeyValue[] items; UintArrayKeyValue[] arrayItems; }
    struct IntKeyValue { string key; int256 value; }
    struct IntArrayKeyValue { string key; int256[] value; }
    struct IntItems { IntKeyValue[] items; IntArrayKeyValue[] arrayItems; }
    struct BoolKeyValue { string key; bool value; }
    struct BoolArrayKeyValue { string key; bool[] value; }
    struct BoolItems { BoolKeyValue[] items; BoolArrayKeyValue[] arrayItems; }
    struct Bytes32KeyValue { string key; bytes32 value; }
    struct Bytes32ArrayKeyValue { string key; bytes32[] value; }
    struct Bytes32Items { Bytes32KeyValue[] items; Bytes32ArrayKeyValue[] arrayItems; }
    struct BytesKeyValue { string key; bytes value; }
    struct BytesArrayKeyValue { string key; bytes[] value; }
    struct BytesItems { BytesKeyValue[] items; BytesArrayKeyValue[] arrayItems; }
    struct StringKeyValue { string key; string value; }
    struct StringArrayKeyValue { string key; string[] value; }
    struct StringItems { StringKeyValue[] items; StringArrayKeyValue[] arrayItems; }

    struct EventLogData {
        AddressItems addressItems;
        UintItems uintItems;
        IntItems intItems;
        BoolItems boolItems;
        Bytes32Items bytes32Items;
        BytesItems bytesItems;
        StringItems stringItems;
    }

    function initItems(AddressItems memory items, uint256 size) internal pure {
        items.items = new AddressKeyValue[](size);
    }
    function setItem(AddressItems memory items, uint256 index, string memory key, address value) internal pure {
        items.items[index] = AddressKeyValue(key, value);
    }
    function initItems(UintItems memory items, uint256 size) internal pure {
        items.items = new UintKeyValue[](size);
    }
    function setItem(UintItems memory items, uint256 index, string memory key, uint256 value) internal pure {
        items.items[index] = UintKeyValue(key, value);
    }
    function initItems(IntItems memory items, uint256 size) internal pure {
        items.items = new IntKeyValue[](size);
    }
    function setItem(IntItems memory items, uint256 index, string memory key, int256 value) internal pure {
        items.items[index] = IntKeyValue(key, value);
    }
    function initItems(BoolItems memory items, uint256 size) internal pure {
        items.items = new BoolKeyValue[](size);
    }
    function setItem(BoolItems memory items, uint256 index, string memory key, bool value) internal pure {
        items.items[index] = BoolKeyValue(key, value);
    }
    function initItems(Bytes32Items memory items, uint256 size) internal pure {
        items.items = new Bytes32KeyValue[](size);
    }
    function setItem(Bytes32Items memory items, uint256 index, string memory key, bytes32 value) internal pure {
        items.items[index] = Bytes32KeyValue(key, value);
    }
}

/// @title GMX v2's event emitter (our own code, GMX's ABI): every protocol event is one of `EventLog`, `EventLog1`,
/// `EventLog2`, named by `eventName` (and its hash, indexed), with up to two indexed topics and the key-named
/// payload. Only the market engine (the controllers the deployer names) emits.
contract EventEmitter {
    event EventLog(address msgSender, string eventName, string indexed eventNameHash, EventUtils.EventLogData eventData);
    event EventLog1(
        address msgSender,
        string eventName,
        string indexed eventNameHash,
        bytes32 indexed topic1,
        EventUtils.EventLogData eventData
    );
    event EventLog2(
        address msgSender,
        string eventName,
        string indexed eventNameHash,
        bytes32 indexed topic1,
        bytes32 indexed topic2,
        EventUtils.EventLogData eventData
    );

    address public immutable owner;
    mapping(address => bool) public isController;

    constructor() {
        owner = msg.sender;
    }

    /// Grants a contract of the protocol the controller role (GMX's RoleStore CONTROLLER), once, by the deployer.
    function addController(address controller) external {
        require(msg.sender == owner, "EventEmitter: not the owner");
        isController[controller] = true;
    }

    modifier onlyController() {
        require(isController[msg.sender], "EventEmitter: not a controller");
        _;
    }

    function emitEventLog(string memory eventName, EventUtils.EventLogData memory eventData) external onlyController {
        emit EventLog(msg.sender, eventName, eventName, eventData);
    }

    function emitEventLog1(string memory eventName, bytes32 topic1, EventUtils.EventLogData memory eventData)
        external
        onlyController
    {
        emit EventLog1(msg.sender, eventName, eventName, topic1, eventData);
    }

    function emitEventLog2(
        string memory eventName,
        bytes32 topic1,
        bytes32 topic2,
        EventUtils.EventLogData memory eventData
    ) external onlyController {
        emit EventLog2(msg.sender, eventName, eventName, topic1, topic2, eventData);
    }
}
