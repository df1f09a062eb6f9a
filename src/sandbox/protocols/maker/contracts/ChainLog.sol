// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// @title MakerDAO's Chainlog, as `dss-chain-log` defines it (mainnet 0xdA0Ab1e0017DEbCd72Be8599041a2aa3bA7e740F).
/// @notice Written for the sandbox, because no npm package ships the real one's bytecode: the same ABI and events
/// (`getAddress(bytes32)`, `setAddress`, `removeAddress`, `list`, `count`, `get`, `version`, `wards`/`rely`/`deny`),
/// so a reader written for mainnet's Chainlog reads this one unchanged. Keys are mainnet's (`MCD_VAT`, `MCD_DAI`, …).
contract ChainLog {
    event Rely(address usr);
    event Deny(address usr);
    event UpdateVersion(string version);
    event UpdateSha256sum(string sha256sum);
    event UpdateIPFS(string ipfs);
    event UpdateAddress(bytes32 key, address addr);
    event RemoveAddress(bytes32 key);

    mapping(address => uint256) public wards;

    string public version;
    string public sha256sum;
    string public ipfs;

    bytes32[] private keys_;
    /// @dev 1-based position of a key in `keys_` (0: absent), and its address.
    mapping(bytes32 => uint256) private position;
    mapping(bytes32 => address) private addresses;

    modifier auth() {
        require(wards[msg.sender] == 1, "ChainLog/not-authorized");
        _;
    }

    constructor() {
        wards[msg.sender] = 1;
        emit Rely(msg.sender);
    }

    function rely(address usr) external auth {
        wards[usr] = 1;
        emit Rely(usr);
    }

    function deny(address usr) external auth {
        wards[usr] = 0;
        emit Deny(usr);
    }

    function setVersion(string calldata _version) external auth {
        version = _version;
        emit UpdateVersion(_version);
    }

    function setSha256sum(string calldata _sha256sum) external auth {
        sha256sum = _sha256sum;
        emit UpdateSha256sum(_sha256sum);
    }

    function setIPFS(string calldata _ipfs) external auth {
        ipfs = _ipfs;
        emit UpdateIPFS(_ipfs);
    }

    function setAddress(bytes32 _key, address _addr) public auth {
        if (position[_key] == 0) {
            keys_.push(_key);
            position[_key] = keys_.length;
        }
        addresses[_key] = _addr;
        emit UpdateAddress(_key, _addr);
    }

    function removeAddress(bytes32 _key) public auth {
        uint256 pos = position[_key];
        require(pos != 0, "dss-chain-log/invalid-key");
        bytes32 last = keys_[keys_.length - 1];
        keys_[pos - 1] = last;
        position[last] = pos;
        keys_.pop();
        delete position[_key];
        delete addresses[_key];
        emit RemoveAddress(_key);
    }

    function count() public view returns (uint256) {
        return keys_.length;
    }

    function get(uint256 _index) public view returns (bytes32, address) {
        bytes32 key = keys_[_index];
        return (key, addresses[key]);
    }

    function list() public view returns (bytes32[] memory) {
        return keys_;
    }

    function getAddress(bytes32 _key) public view returns (address addr) {
        addr = addresses[_key];
        require(addr != address(0), "dss-chain-log/invalid-key");
    }
}
