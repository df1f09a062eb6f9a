import { describe, expect, it } from 'vitest';
import { parseFile } from './analyse.js';
import { fromStandardJson, ImportResolver, InputError, normalisePath } from './input.js';
import { Project } from './model.js';

const project = (sources: Record<string, string>, remappings: string[] = []) =>
  new Project(
    Object.entries(sources).map(([f, t]) => parseFile(f, t)),
    remappings,
  );

describe('input', () => {
  it('reads standard JSON, also in Etherscan’s double-braced form, and says what is wrong with bad input', () => {
    const doc = {
      language: 'Solidity',
      sources: { 'a.sol': { content: 'contract A {}' } },
      settings: { remappings: ['x/=y/'] },
    };
    expect(fromStandardJson(doc, '0.8.10')).toEqual({
      sources: { 'a.sol': 'contract A {}' },
      remappings: ['x/=y/'],
      compilerVersion: '0.8.10',
    });
    expect(fromStandardJson(`{${JSON.stringify(doc)}}`).sources).toEqual({ 'a.sol': 'contract A {}' });
    expect(() => fromStandardJson({ language: 'Vyper', sources: { a: { content: '' } } })).toThrow(/only Solidity/);
    expect(() => fromStandardJson({ sources: {} })).toThrow(InputError);
    expect(() => fromStandardJson({ sources: { 'a.sol': { urls: ['ipfs://x'] } } })).toThrow(/has no "content"/);
    expect(() => fromStandardJson('{not json')).toThrow(/not a standard-JSON/);
    expect(() => fromStandardJson({ sources: { a: { content: '' } }, settings: { remappings: 'x' } })).toThrow(
      /remappings/,
    );
  });

  it('resolves imports as solc names source units: relative, remapped (longest context and prefix), by suffix', () => {
    expect(normalisePath('a/./b/../c.sol')).toBe('a/c.sol');
    const r = new ImportResolver(
      new Set(['contracts/A.sol', 'lib/oz/token/ERC20.sol', 'ctx/lib/oz2/token/ERC20.sol', 'pkg/contracts/X.sol']),
      ['@oz/=lib/oz/', 'ctx:@oz/=ctx/lib/oz2/'],
    );
    expect(r.resolve('contracts/B.sol', './A.sol')).toBe('contracts/A.sol');
    expect(r.resolve('contracts/sub/B.sol', '../A.sol')).toBe('contracts/A.sol');
    expect(r.resolve('contracts/B.sol', '@oz/token/ERC20.sol')).toBe('lib/oz/token/ERC20.sol');
    expect(r.resolve('ctx/B.sol', '@oz/token/ERC20.sol')).toBe('ctx/lib/oz2/token/ERC20.sol');
    expect(r.resolve('contracts/B.sol', '@scope/pkg/contracts/X.sol')).toBe('pkg/contracts/X.sol');
    expect(r.resolve('contracts/B.sol', './Missing.sol')).toBeUndefined();
  });
});

describe('project model', () => {
  it('linearises bases as solc does (C3, the last base listed is the most derived)', () => {
    const p = project({
      'a.sol': `pragma solidity ^0.8.0;
        contract X {} contract A is X {} contract B is X {} contract C is A, B {} contract D is B, A {}`,
    });
    const lin = (name: string) => p.linearisation(p.contracts.find((c) => c.def.name === name)!).map((c) => c.def.name);
    expect(lin('C')).toEqual(['C', 'B', 'A', 'X']);
    expect(lin('D')).toEqual(['D', 'A', 'B', 'X']);
  });

  it('resolves a contract name to the one the file imports when two files declare it', () => {
    const p = project({
      'one/Token.sol': 'pragma solidity ^0.8.0; contract Token { uint a; }',
      'two/Token.sol': 'pragma solidity ^0.8.0; contract Token { uint b; }',
      'two/User.sol': 'pragma solidity ^0.8.0; import "./Token.sol"; contract User is Token {}',
    });
    const user = p.contracts.find((c) => c.def.name === 'User')!;
    expect(p.linearisation(user)[1]!.unit.file).toBe('two/Token.sol');
    expect(p.unresolvedImports).toEqual([]);
  });

  it('resolves virtual calls in the most derived contract and super to the next base', () => {
    const p = project({
      'a.sol': `pragma solidity ^0.8.0;
        contract Base { function hook() internal virtual {} function run() public { hook(); } }
        contract Mid is Base { function hook() internal virtual override { super.hook(); } }
        contract Top is Mid { function hook() internal override { super.hook(); } }`,
    });
    const top = p.contracts.find((c) => c.def.name === 'Top')!;
    const ctx = p.context(top);
    expect(ctx.function('hook', 0)!.contract!.def.name).toBe('Top');
    expect(ctx.function('hook', 0, top)!.contract!.def.name).toBe('Mid');
    expect(ctx.functions().map((f) => `${f.contract!.def.name}.${f.def.name}`)).toEqual(['Top.hook', 'Base.run']);
  });
});
