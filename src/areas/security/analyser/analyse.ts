/**
 * The analyser's entry point: sources in, a report out (engine, rule-set hash, contracts with their compiler
 * version, lines of code and counts by impact, findings with their source location). Pure: same input, same
 * report; no file, network or clock.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { LanguageFacts } from '@nomicfoundation/slang/utils';
import { lineOf, type SourceUnit } from './ast.js';
import {
  type Confidence,
  DETECTOR,
  DETECTORS,
  type Impact,
  OLDEST_ACCEPTED_COMPILER,
  ONE_TIME_MODIFIER,
  PRIVILEGED_NAME,
  runDetectors,
} from './detectors.js';
import { type AnalysisInput, InputError } from './input.js';
import { Project } from './model.js';
import { GUARD_NAME, Summaries, TUNING } from './summary.js';
import { parseSource } from './syntax.js';
import { chooseVersion, parseVersion } from './version.js';

export const ENGINE = 'protoscore-solidity-analyser';
/** The analyser's version: bump the minor with new detectors, the patch with fixes (docs: version history). */
export const ENGINE_VERSION = '1.0.0';
/** The Slang release that parses (pinned in package.json; a unit test checks they agree). */
export const PARSER = '@nomicfoundation/slang@1.3.8';

export const IMPACTS: readonly Impact[] = ['high', 'medium', 'low', 'informational', 'optimization'];

/**
 * The hash of the rule set: every detector's name, rating and revision, and the lists and thresholds they apply.
 * A change of counts with the same hash is a change of the code analysed.
 */
export const RULESET_HASH = bytesToHex(
  sha256(
    utf8ToBytes(
      JSON.stringify({
        detectors: DETECTORS.map((d) => [d.id, d.impact, d.confidence, d.revision]),
        oldestCompiler: OLDEST_ACCEPTED_COMPILER,
        privileged: PRIVILEGED_NAME.source,
        oneTime: ONE_TIME_MODIFIER.source,
        guard: GUARD_NAME.source,
        tuning: TUNING,
      }),
    ),
  ),
).slice(0, 16);

export interface Finding {
  readonly detector: string;
  readonly impact: Impact;
  readonly confidence: Confidence;
  /** The contract whose code it is in; null for a file-level finding (a pragma). */
  readonly contract: string | null;
  readonly function: string | null;
  readonly file: string;
  readonly line: number;
  /** The most derived contract it was found in, when the code sits in a base contract. */
  readonly context?: string;
}

export type ImpactCounts = Record<Impact, number>;

export interface ContractReport {
  readonly name: string;
  readonly kind: 'contract' | 'abstract' | 'interface' | 'library';
  readonly file: string;
  /** The version the input names, else the file's pragma. */
  readonly compiler_version: string | null;
  /** The version the source was parsed as. */
  readonly parsed_as: string;
  readonly lines_of_code: number;
  /** Findings in the code this contract deploys: its own functions and those it inherits. */
  readonly counts: ImpactCounts;
}

export interface AnalysisReport {
  readonly engine: {
    readonly name: string;
    readonly version: string;
    readonly parser: string;
    readonly ruleset_hash: string;
  };
  readonly analysed: true;
  readonly contracts: readonly ContractReport[];
  readonly findings: readonly Finding[];
  readonly totals: ImpactCounts;
  /** Parse errors: the parts of a file Slang could not read are left out of the analysis. */
  readonly errors: readonly { readonly file: string; readonly line: number; readonly message: string }[];
  readonly unresolved_imports: readonly { readonly file: string; readonly path: string }[];
}

export const emptyCounts = (): ImpactCounts => ({ high: 0, medium: 0, low: 0, informational: 0, optimization: 0 });

const AVAILABLE = LanguageFacts.allVersions();

/** Pragmas found by a scan that skips comments and strings, to choose the parser's version before parsing. */
export function scanPragmas(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < n && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === 'p' && text.startsWith('pragma', i) && !/[\w$]/.test(text[i - 1] ?? ' ')) {
      const end = text.indexOf(';', i);
      const body = text.slice(i + 6, end < 0 ? n : end).trim();
      if (body.startsWith('solidity')) out.push(body.slice(8).trim());
      i = end < 0 ? n : end + 1;
    } else i++;
  }
  return out;
}

const parsedUnits = new Map<string, SourceUnit>();

/** Parses a file (memoised by path, version and text: a second analysis of unchanged files does not reparse). */
export function parseFile(file: string, text: string, compilerVersion?: string): SourceUnit {
  const { version } = chooseVersion(scanPragmas(text), AVAILABLE, compilerVersion);
  const key = `${file}\u0000${version}\u0000${text}`;
  const found = parsedUnits.get(key);
  if (found) return found;
  const unit = parseSource(file, text, version);
  if (parsedUnits.size > 2000) parsedUnits.clear();
  parsedUnits.set(key, unit);
  return unit;
}

/** Analyses Solidity sources. Throws InputError on input it cannot read at all. */
export function analyse(input: AnalysisInput): AnalysisReport {
  const files = Object.keys(input.sources).sort();
  if (!files.length) throw new InputError('no Solidity sources to analyse');
  const units = files.map((f) => parseFile(f, input.sources[f]!, input.compilerVersion));
  const project = new Project(units, input.remappings);
  const summaries = new Summaries(project);
  // Findings in a contract's own context first: the same code found again from a derived contract adds nothing.
  const raw = runDetectors(project, summaries, AVAILABLE).sort((a, b) => Number(!!a.context) - Number(!!b.context));
  const targets = new Set(input.targets ?? files);

  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const r of raw) {
    if (!targets.has(r.file)) continue;
    const unit = units.find((u) => u.file === r.file)!;
    const line = lineOf(unit, r.span.start);
    const info = DETECTOR[r.detector]!;
    const contract = r.contract?.def.name ?? null;
    const fn = r.func
      ? r.func.def.kind === 'function' || r.func.def.kind === 'modifier'
        ? r.func.def.name
        : r.func.def.kind
      : null;
    const key = `${r.detector}|${r.file}|${line}|${contract}|${fn}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({
      detector: r.detector,
      impact: info.impact,
      confidence: info.confidence,
      contract,
      function: fn,
      file: r.file,
      line,
      ...(r.context ? { context: r.context.def.name } : {}),
    });
  }
  findings.sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.detector.localeCompare(b.detector) ||
      (a.function ?? '').localeCompare(b.function ?? ''),
  );

  const byContract = new Map<string, Finding[]>();
  for (const f of findings) {
    if (!f.contract) continue;
    const k = `${f.file}:${f.contract}`;
    const list = byContract.get(k);
    if (list) list.push(f);
    else byContract.set(k, [f]);
  }
  const contracts: ContractReport[] = [];
  for (const c of project.contracts) {
    if (!targets.has(c.unit.file)) continue;
    const counts = emptyCounts();
    for (const base of project.linearisation(c)) {
      for (const f of byContract.get(base.id) ?? []) {
        counts[f.impact]++;
      }
    }
    const from = lineOf(c.unit, c.def.span.start);
    const to = lineOf(c.unit, Math.max(c.def.span.start, c.def.span.end - 1));
    let loc = 0;
    for (let l = from; l <= to; l++) if (c.unit.codeLines[l - 1]) loc++;
    const named = input.compilerVersion ? parseVersion(input.compilerVersion) : undefined;
    contracts.push({
      name: c.def.name,
      kind: c.def.kind === 'contract' && c.def.abstract ? 'abstract' : c.def.kind,
      file: c.unit.file,
      compiler_version: named ? named.join('.') : c.unit.pragmas.map((p) => p.text).join(' ') || null,
      parsed_as: c.unit.parsedAs,
      lines_of_code: loc,
      counts,
    });
  }
  const totals = emptyCounts();
  for (const f of findings) totals[f.impact]++;
  return {
    engine: { name: ENGINE, version: ENGINE_VERSION, parser: PARSER, ruleset_hash: RULESET_HASH },
    analysed: true,
    contracts,
    findings,
    totals,
    errors: units.flatMap((u) =>
      targets.has(u.file)
        ? u.errors.map((e) => ({ file: u.file, line: lineOf(u, e.span.start), message: e.message }))
        : [],
    ),
    unresolved_imports: project.unresolvedImports.filter((u) => targets.has(u.file)),
  };
}
