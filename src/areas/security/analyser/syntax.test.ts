import { describe, expect, it } from 'vitest';
import { lineOf, type Stmt } from './ast.js';
import { parseSource } from './syntax.js';

const OLD = `pragma solidity ^0.4.24;
// a comment before the contract
contract Old {
    address owner;
    function Old() public { owner = msg.sender; }
    function () payable {}
    function pay(address to) constant returns (uint) {
        if (msg.sender != owner) throw;
        to.call.value(1).gas(5000)();
        var x = 1;
        return x;
    }
}
`;

const NEW = `pragma solidity >=0.8.4 <0.9.0;
import {A as B} from "./a.sol";
interface I { function f() external returns (uint); }
abstract contract N is I {
    mapping(address => mapping(uint => bool)) private seen;
    uint256 public constant LIMIT = 10;
    function g(I target, bytes calldata data) external payable virtual {
        try target.f{gas: 100}() returns (uint v) { seen[msg.sender][v] = true; } catch { revert("no"); }
        unchecked { LIMIT + 1; }
        (bool ok, ) = address(target).call{value: msg.value}(data);
        assembly { sstore(seen.slot, ok) }
    }
    receive() external payable {}
}
`;

describe('syntax', () => {
  it('reads 0.4: constructor by name, unnamed fallback, constant as view, throw, .value().gas() call options', () => {
    const u = parseSource('old.sol', OLD, '0.4.24');
    expect(u.errors).toEqual([]);
    const c = u.contracts[0]!;
    expect(c.functions.map((f) => [f.name, f.kind, f.mutability])).toEqual([
      ['Old', 'constructor', 'nonpayable'],
      ['fallback', 'fallback', 'payable'],
      ['pay', 'function', 'view'],
    ]);
    const body = (c.functions[2]!.body as Extract<Stmt, { k: 'block' }>).body;
    expect(body[0]!.k).toBe('if');
    const call = body[1]!.k === 'expr' ? body[1]!.expr : undefined;
    expect(call?.k === 'call' && Object.keys(call.options).sort()).toEqual(['gas', 'value']);
    expect(call?.k === 'call' && call.callee.k === 'member' && call.callee.member).toBe('call');
    expect(body[2]!.k === 'var' && body[2]!.vars[0]!.type).toBeNull();
  });

  it('reads 0.8: imports, interfaces, abstract contracts, try/catch, unchecked blocks, call options, assembly', () => {
    const u = parseSource('new.sol', NEW, '0.8.20');
    expect(u.errors).toEqual([]);
    expect(u.imports.map((i) => i.path)).toEqual(['./a.sol']);
    expect(u.pragmas.map((p) => p.text)).toEqual(['>=0.8.4 <0.9.0']);
    expect(u.contracts.map((c) => [c.name, c.kind, c.abstract])).toEqual([
      ['I', 'interface', false],
      ['N', 'contract', true],
    ]);
    const n = u.contracts[1]!;
    expect(n.bases.map((b) => b.name)).toEqual(['I']);
    expect(n.stateVars.map((v) => [v.name, v.constant, v.visibility])).toEqual([
      ['seen', false, 'private'],
      ['LIMIT', true, 'public'],
    ]);
    const g = n.functions[0]!;
    expect([g.visibility, g.mutability, g.virtual]).toEqual(['external', 'payable', true]);
    const kinds = (g.body as Extract<Stmt, { k: 'block' }>).body.map((s) =>
      s.k === 'block' ? `block:${s.unchecked}` : s.k,
    );
    expect(kinds).toEqual(['try', 'block:true', 'var', 'assembly']);
    const asm = (g.body as Extract<Stmt, { k: 'block' }>).body[3]!;
    expect(asm.k === 'assembly' && [...asm.facts.builtins]).toEqual(['sstore']);
    expect(asm.k === 'assembly' && [...asm.facts.identifiers].sort()).toEqual(['ok', 'seen.slot', 'sstore']);
  });

  it('places nodes at their first token (not their leading comments) and counts lines of code', () => {
    const u = parseSource('old.sol', OLD, '0.4.24');
    const c = u.contracts[0]!;
    expect(lineOf(u, c.span.start)).toBe(3);
    expect(lineOf(u, c.functions[2]!.nameSpan.start)).toBe(7);
    // 13 lines of text, one of them a comment and one empty at the end.
    expect(u.codeLines.filter(Boolean).length).toBe(12);
  });
});
