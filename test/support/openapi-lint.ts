import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import * as Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

/**
 * The two independent linters of outcome 7, each at its recommended rules, run as libraries on a document's text:
 * Redocly (`recommended`) and Spectral (`spectral:oas`). Every problem is returned, whatever its severity.
 */
export interface LintProblem {
  readonly linter: 'redocly' | 'spectral';
  readonly rule: string;
  readonly severity: string;
  readonly message: string;
  readonly where: string;
}

export async function redoclyProblems(source: string): Promise<LintProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((p) => ({
    linter: 'redocly',
    rule: p.ruleId,
    severity: p.severity,
    message: p.message,
    where: p.location[0]?.pointer ?? '',
  }));
}

/** Spectral's severities are numbers: 0 error, 1 warning, 2 information, 3 hint. */
const SPECTRAL_SEVERITY = ['error', 'warn', 'info', 'hint'];

export async function spectralProblems(source: string): Promise<LintProblem[]> {
  const spectral = new Spectral();
  // The packages are CommonJS: under ESM interop their exports may sit under `default`.
  spectral.setRuleset({ extends: [oas as never] });
  const Json = (Parsers as unknown as { Json?: unknown; default: { Json: unknown } }).Json ?? Parsers.default.Json;
  const results = await spectral.run(new Document(source, Json as never, 'openapi.json'));
  return results.map((r) => ({
    linter: 'spectral',
    rule: String(r.code),
    severity: SPECTRAL_SEVERITY[r.severity] ?? String(r.severity),
    message: r.message,
    where: r.path.join('/'),
  }));
}

export function formatProblems(problems: readonly LintProblem[]): string {
  return problems.map((p) => `${p.linter} ${p.severity} ${p.rule}: ${p.message} at ${p.where}`).join('\n');
}
