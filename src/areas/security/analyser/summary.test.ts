import { describe, expect, it } from 'vitest';
import { analyse } from './analyse.js';

/** `detector@function` of the findings of one source. */
const found = (source: string, detector?: string) =>
  analyse({ sources: { 'a.sol': `pragma solidity ^0.8.19;\n${source}` } })
    .findings.filter((f) => !detector || f.detector === detector)
    .map((f) => `${f.detector}@${f.function}`);

const BANK = (body: string, extra = '') => `
  contract Bank {
    mapping(address => uint256) public balances;
    ${extra}
    function deposit() external payable { balances[msg.sender] += msg.value; }
    function withdraw(bool fast) external ${body}
  }`;

describe('flow: reentrancy', () => {
  it('follows branches apart: a write in one branch does not follow a call in the other', () => {
    const split = BANK(`{
      uint256 a = balances[msg.sender];
      if (fast) { (bool ok, ) = msg.sender.call{value: a}(""); require(ok); }
      else { balances[msg.sender] = 0; }
    }`);
    expect(found(split, 'reentrancy-eth')).toEqual([]);
    const joined = BANK(`{
      uint256 a = balances[msg.sender];
      if (fast) { (bool ok, ) = msg.sender.call{value: a}(""); require(ok); }
      balances[msg.sender] = 0;
    }`);
    expect(found(joined, 'reentrancy-eth')).toEqual(['reentrancy-eth@withdraw']);
  });

  it('ends a path at a revert or return', () => {
    const src = BANK(`{
      uint256 a = balances[msg.sender];
      if (fast) { (bool ok, ) = msg.sender.call{value: a}(""); require(ok); return; }
      balances[msg.sender] = 0;
    }`);
    expect(found(src, 'reentrancy-eth')).toEqual([]);
  });

  it('sees a write at the top of a loop after a call at the bottom of the previous iteration', () => {
    const src = BANK(`{
      for (uint256 i = 0; i < 2; i++) {
        balances[msg.sender] = balances[msg.sender] / 2;
        (bool ok, ) = msg.sender.call{value: 1}("");
        require(ok);
      }
    }`);
    expect(found(src, 'reentrancy-eth')).toEqual(['reentrancy-eth@withdraw']);
  });

  it('folds internal calls in at the call site, storage parameters included', () => {
    const src = BANK(
      `{
      uint256 a = balances[msg.sender];
      _pay(msg.sender, a);
      _clear(balances, msg.sender);
    }`,
      `function _pay(address to, uint256 a) internal { (bool ok, ) = to.call{value: a}(""); require(ok); }
       function _clear(mapping(address => uint256) storage b, address who) internal { b[who] = 0; }`,
    );
    expect(found(src, 'reentrancy-eth')).toEqual(['reentrancy-eth@withdraw']);
  });

  it('accepts OpenZeppelin-style and custom locks, and calls to contracts it has just deployed', () => {
    const guarded = BANK(
      `nonReentrant {
      uint256 a = balances[msg.sender];
      (bool ok, ) = msg.sender.call{value: a}(""); require(ok);
      balances[msg.sender] = 0;
    }`,
      `uint256 private _status = 1;
       modifier nonReentrant() { require(_status != 2); _status = 2; _; _status = 1; }`,
    );
    expect(found(guarded, 'reentrancy-eth')).toEqual([]);
    const created = `
      contract Child { function init(address) external {} }
      contract Factory {
        mapping(uint256 => address) public children;
        function make(uint256 id) external {
          require(children[id] == address(0));
          Child c = new Child();
          c.init(msg.sender);
          children[id] = address(c);
        }
      }`;
    expect(found(created, 'reentrancy-no-eth')).toEqual([]);
  });
});

describe('flow: access control', () => {
  const SAFE = (check: string, extra = '') => `
    interface IAcl { function isAdmin(address) external view returns (bool); }
    contract Box {
      address public owner = msg.sender;
      mapping(address => bool) public admins;
      IAcl public acl;
      ${extra}
      function kill(address a) external { ${check} selfdestruct(payable(owner)); }
    }`;

  it('recognises the caller compared with an account, looked up as a role, or answered for by a call', () => {
    for (const check of [
      'require(msg.sender == owner);',
      'require(owner == msg.sender, "no");',
      'if (msg.sender != owner) revert();',
      'require(admins[msg.sender]);',
      'require(acl.isAdmin(msg.sender));',
      '_checkOwner();',
    ]) {
      expect(
        found(SAFE(check, 'function _checkOwner() internal view { require(msg.sender == owner); }'), 'suicidal'),
        check,
      ).toEqual([]);
    }
  });

  it('does not take a comparison with the caller’s own argument, or a condition that guards nothing, for a check', () => {
    for (const check of [
      'require(msg.sender == a);',
      'bool isOwner = msg.sender == owner;',
      'if (msg.sender == owner) { a = address(0); }',
    ]) {
      expect(found(SAFE(check), 'suicidal'), check).toEqual(['suicidal@kill']);
    }
  });

  it('does not report what depends on code the input does not hold (an unresolved modifier or function)', () => {
    expect(found(SAFE('', 'modifier guard() virtual;').replace('external {', 'external guard {'), 'suicidal')).toEqual(
      [],
    );
    expect(found(SAFE('_authorize();', 'function _authorize() internal virtual;'), 'suicidal')).toEqual([]);
  });
});
