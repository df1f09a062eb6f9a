/**
 * `protoscore security scan`: JSON lines with paths relative to the path given, imports read from node_modules
 * for inheritance but not reported, standard-JSON input, and the documented exit codes (0 clean, 1 findings at or
 * above --fail-on, 2 bad input).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildCli } from '../src/cli/main.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/security');
// Inside the repository, so that node_modules is found up the tree as it would be in a project.
const TMP = mkdtempSync(path.join(ROOT, 'test/.scan-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

async function scan(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    stderr += String(s);
    return true;
  });
  process.exitCode = undefined;
  try {
    await buildCli().parseAsync(['node', 'protoscore', 'security', 'scan', ...args]);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { stdout, stderr, code };
}

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('protoscore security scan', () => {
  it('prints findings as JSON lines, files relative to the folder, and exits 1 on a high finding', async () => {
    const { stdout, stderr, code } = await scan(path.join(FIXTURES, 'reentrancy-eth'));
    const found = lines(stdout);
    expect(Object.keys(found[0]!)).toEqual([
      'file',
      'line',
      'contract',
      'function',
      'detector',
      'impact',
      'confidence',
    ]);
    expect(found).toContainEqual({
      file: 'vulnerable.sol',
      line: 17,
      contract: 'EtherBank',
      function: 'withdraw',
      detector: 'reentrancy-eth',
      impact: 'high',
      confidence: 'medium',
    });
    expect(stderr).toMatch(/4 files, 4 contracts; high 2/);
    expect(code).toBe(1);
    expect((await scan(path.join(FIXTURES, 'reentrancy-eth'), '--fail-on', 'none')).code).toBe(0);
    expect((await scan(path.join(FIXTURES, 'low-level-calls/vulnerable.sol'))).code).toBe(0);
    expect((await scan(path.join(FIXTURES, 'low-level-calls/vulnerable.sol'), '--fail-on', 'informational')).code).toBe(
      1,
    );
  });

  it('reads imported packages from node_modules to resolve inheritance, and reports only the path’s own files', async () => {
    const file = path.join(TMP, 'Box.sol');
    writeFileSync(
      file,
      `pragma solidity ^0.7.0;
import "@openzeppelin/contracts/access/Ownable.sol";
contract Box is Ownable {
    function close() external onlyOwner { selfdestruct(msg.sender); }
    function open() external { selfdestruct(msg.sender); }
}
`,
    );
    const { stdout, stderr, code } = await scan(file);
    expect(stderr).not.toMatch(/not found/);
    expect(lines(stdout).map((f) => `${f.file}:${f.function}:${f.detector}`)).toEqual([
      'Box.sol:null:solc-version',
      'Box.sol:open:suicidal',
    ]);
    expect(code).toBe(1);
  });

  it('reads a standard-JSON input, and --report prints one document with the engine and contracts', async () => {
    const file = path.join(TMP, 'input.json');
    writeFileSync(
      file,
      JSON.stringify({
        language: 'Solidity',
        sources: {
          'contracts/Jar.sol': {
            content: 'pragma solidity ^0.8.0; contract Jar { function put() external payable {} }',
          },
        },
      }),
    );
    const lined = await scan(file);
    expect(lines(lined.stdout)).toEqual([
      {
        file: 'contracts/Jar.sol',
        line: 1,
        contract: 'Jar',
        function: null,
        detector: 'locked-ether',
        impact: 'medium',
        confidence: 'high',
      },
    ]);
    expect(lined.code).toBe(0);
    const doc = JSON.parse((await scan(file, '--report', '--cross-check')).stdout);
    expect(doc.engine.name).toBe('protoscore-solidity-analyser');
    expect(doc.contracts[0]).toMatchObject({ name: 'Jar', lines_of_code: 1 });
    expect(doc.cross_check.engine.name).toBe('solhint');
  });

  it('exits 2 with a clear message on bad input', async () => {
    const missing = await scan(path.join(TMP, 'nope'));
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      `protoscore: no such file or folder: ${path.join(TMP, 'nope')}`,
    ]);
    const bad = path.join(TMP, 'bad.json');
    writeFileSync(bad, '{"language": "Vyper", "sources": {"a.vy": {"content": ""}}}');
    expect(await scan(bad)).toMatchObject({ code: 2, stderr: expect.stringMatching(/only Solidity is analysed/) });
    writeFileSync(path.join(TMP, 'notes.txt'), 'hello');
    expect((await scan(path.join(TMP, 'notes.txt'))).code).toBe(2);
    expect((await scan(FIXTURES, '--fail-on', 'severe')).stderr).toMatch(/--fail-on expects one of/);
  });
});
