import { readFileSync } from 'node:fs';
import { LanguageFacts } from '@nomicfoundation/slang/utils';
import { describe, expect, it } from 'vitest';
import { analyse, ENGINE, PARSER, RULESET_HASH, scanPragmas } from './analyse.js';
import { DETECTORS } from './detectors.js';
import { fromStandardJson, InputError } from './input.js';

describe('analyse', () => {
  it('names its engine, the parser package it was built on, and the hash of its rule set', () => {
    const pkg = JSON.parse(readFileSync('node_modules/@nomicfoundation/slang/package.json', 'utf8')) as {
      version: string;
    };
    expect(PARSER).toBe(`@nomicfoundation/slang@${pkg.version}`);
    const report = analyse({ sources: { 'a.sol': 'pragma solidity ^0.8.0; contract A {}' } });
    expect(report.engine).toEqual({
      name: ENGINE,
      version: expect.any(String),
      parser: PARSER,
      ruleset_hash: RULESET_HASH,
    });
    expect(RULESET_HASH).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(DETECTORS.map((d) => d.id)).size).toBe(DETECTORS.length);
    expect(LanguageFacts.earliestVersion()).toBe('0.4.11');
  });

  it('analyses a standard-JSON input across files with remappings, per contract with its version and size', () => {
    const input = fromStandardJson(
      {
        language: 'Solidity',
        sources: {
          'src/Vault.sol': {
            content: `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
import {Owned} from "@lib/Owned.sol";

contract Vault is Owned {
    function sweep(address payable to) external {
        to.transfer(address(this).balance);
    }

    function close() external onlyOwner {
        selfdestruct(payable(owner));
    }
}
`,
          },
          'lib/Owned.sol': {
            content: `pragma solidity ^0.8.0;
abstract contract Owned {
    address public owner = msg.sender;
    modifier onlyOwner() { require(msg.sender == owner); _; }
}
`,
          },
        },
        settings: { remappings: ['@lib/=lib/'] },
      },
      'v0.8.21+commit.d9974bed',
    );
    const report = analyse(input);
    expect(report.unresolved_imports).toEqual([]);
    expect(
      report.findings.map((f) => [f.detector, f.contract, f.function, f.file, f.line, f.impact, f.confidence]),
    ).toEqual([
      ['missing-zero-check', 'Vault', 'sweep', 'src/Vault.sol', 6, 'low', 'medium'],
      ['arbitrary-send-eth', 'Vault', 'sweep', 'src/Vault.sol', 7, 'high', 'medium'],
    ]);
    const vault = report.contracts.find((c) => c.name === 'Vault')!;
    expect(vault).toMatchObject({
      kind: 'contract',
      compiler_version: '0.8.21',
      parsed_as: '0.8.21',
      lines_of_code: 8,
    });
    expect(vault.counts).toEqual({ high: 1, medium: 0, low: 1, informational: 0, optimization: 0 });
    expect(report.contracts.find((c) => c.name === 'Owned')).toMatchObject({ kind: 'abstract', lines_of_code: 4 });
    expect(report.totals.high).toBe(1);
  });

  it('reads pragmas before parsing, past comments and strings', () => {
    expect(
      scanPragmas(
        '// pragma solidity ^0.4.0;\n/* pragma solidity 0.5.0; */ string s = "pragma solidity 1;";\npragma solidity >=0.6.0 <0.8.0;',
      ),
    ).toEqual(['>=0.6.0 <0.8.0']);
  });

  it('reports what it could not parse or import, and refuses an empty input', () => {
    const report = analyse({
      sources: { 'a.sol': 'pragma solidity ^0.8.0;\nimport "./missing.sol";\ncontract A { function f( external {} }' },
    });
    expect(report.errors.length).toBeGreaterThan(0);
    expect(report.errors[0]!.line).toBe(3);
    expect(report.unresolved_imports).toEqual([{ file: 'a.sol', path: './missing.sol' }]);
    expect(() => analyse({ sources: {} })).toThrow(InputError);
  });
});
