/**
 * solhint's security rules as a third-party cross-check beside the analyser: its own engine name and version, its
 * own rule names, each mapped to the legacy buckets `low` (a rule about a possible vulnerability) or `none` (a
 * rule about style or practice). solhint reads each file on its own (its parser, @solidity-parser/parser, knows no
 * imports); a file it cannot parse is reported as such.
 */
import solhint from 'solhint';
import solhintPackage from 'solhint/package.json' with { type: 'json' };

const SOLHINT_VERSION: string = solhintPackage.version;

export const CROSS_CHECK_ENGINE = 'solhint';
export { SOLHINT_VERSION };

/**
 * solhint 6's security rules (lib/rules/security) and the bucket each is reported in: `low` where the rule points
 * at a possible vulnerability, `none` where it is about style or practice.
 */
export const SOLHINT_RULES: Readonly<Record<string, 'low' | 'none'>> = {
  'avoid-call-value': 'low',
  'avoid-low-level-calls': 'none',
  'avoid-sha3': 'none',
  'avoid-suicide': 'low',
  'avoid-throw': 'none',
  'avoid-tx-origin': 'low',
  'check-send-result': 'low',
  'compiler-version': 'none',
  'func-visibility': 'none',
  'multiple-sends': 'low',
  'no-complex-fallback': 'none',
  'no-immutable-before-declaration': 'none',
  'no-inline-assembly': 'none',
  'no-unchecked-calls': 'low',
  'not-rely-on-block-hash': 'low',
  'not-rely-on-time': 'low',
  reentrancy: 'low',
  'state-visibility': 'none',
};

export interface CrossCheckFinding {
  readonly rule: string;
  readonly impact: 'low' | 'none';
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export interface CrossCheckReport {
  readonly engine: { readonly name: string; readonly version: string };
  readonly findings: readonly CrossCheckFinding[];
  /** Files solhint's parser could not read. */
  readonly errors: readonly { readonly file: string; readonly line: number; readonly message: string }[];
}

const CONFIG = {
  rules: {
    ...Object.fromEntries(Object.keys(SOLHINT_RULES).map((r) => [r, 'warn'])),
    // Its default asks for the newest compiler; old compilers are what the cross-check should point at.
    'compiler-version': ['warn', '>=0.8.0'] as [string, string],
  },
};

/** Runs solhint's security rules over each source. */
export function crossCheck(sources: Readonly<Record<string, string>>): CrossCheckReport {
  const findings: CrossCheckFinding[] = [];
  const errors: CrossCheckReport['errors'][number][] = [];
  for (const file of Object.keys(sources).sort()) {
    const result = solhint.processStr(sources[file]!, CONFIG);
    for (const r of result.reports) {
      const impact = SOLHINT_RULES[r.ruleId];
      if (impact) findings.push({ rule: r.ruleId, impact, file, line: r.line, message: r.message.trim() });
      else if (r.severity === 2) errors.push({ file, line: r.line, message: r.message });
    }
  }
  return { engine: { name: CROSS_CHECK_ENGINE, version: SOLHINT_VERSION }, findings, errors };
}
