import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crossCheck, SOLHINT_RULES, SOLHINT_VERSION } from './solhint.js';

describe('solhint cross-check', () => {
  it("maps exactly solhint's security rules, each to low or none", () => {
    const dir = 'node_modules/solhint/lib/rules/security';
    const rules = readdirSync(dir)
      .filter((f) => f.endsWith('.js') && f !== 'index.js')
      .map((f) => /ruleId = '([^']+)'/.exec(readFileSync(`${dir}/${f}`, 'utf8'))![1]!);
    expect(Object.keys(SOLHINT_RULES).sort()).toEqual(rules.sort());
    expect(SOLHINT_VERSION).toBe(JSON.parse(readFileSync('node_modules/solhint/package.json', 'utf8')).version);
  });

  it('reports under its own engine name and rule names', () => {
    const report = crossCheck({
      'p.sol': readFileSync('test/fixtures/security/tx-origin/vulnerable.sol', 'utf8'),
    });
    expect(report.engine).toEqual({ name: 'solhint', version: SOLHINT_VERSION });
    expect(report.findings).toContainEqual(
      expect.objectContaining({ rule: 'avoid-tx-origin', impact: 'low', file: 'p.sol', line: 16 }),
    );
    expect(report.findings).toContainEqual(expect.objectContaining({ rule: 'compiler-version', impact: 'none' }));
  });
});
