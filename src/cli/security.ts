/**
 * `protoscore security scan <path>`: the security area's analyser on anything an auditor has — a Solidity file, a
 * folder, or a standard-JSON compiler input — with findings as JSON lines. Imports that point outside the path are
 * read from disk (relative paths, remappings, node_modules up the tree) to resolve inheritance; only the path's own
 * files are reported.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { type AnalysisReport, analyse, IMPACTS, parseFile } from '../areas/security/analyser/analyse.js';
import type { Impact } from '../areas/security/analyser/detectors.js';
import { type AnalysisInput, fromStandardJson, ImportResolver, InputError } from '../areas/security/analyser/input.js';
import { type CrossCheckReport, crossCheck } from '../areas/security/analyser/solhint.js';

const SKIPPED_DIRS = new Set(['node_modules', '.git', 'cache', 'out', 'artifacts']);

/** Exit codes, as README documents them. */
export const EXIT = { clean: 0, findings: 1, badInput: 2 } as const;

const posix = (p: string) => p.split(path.sep).join('/');

function solidityFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : solidityFiles(p);
    return e.name.endsWith('.sol') ? [p] : [];
  });
}

/** Foundry's remappings.txt, when the folder has one. */
function remappingsFile(dir: string): string[] {
  const file = path.join(dir, 'remappings.txt');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && l.includes('='));
}

/** Reads the imports the sources name but do not hold, from disk, until nothing more can be found. */
function addImportedFiles(sources: Record<string, string>, root: string, remappings: readonly string[]): void {
  const queue = Object.keys(sources);
  const tried = new Set<string>();
  while (queue.length) {
    const file = queue.shift()!;
    const resolver = new ImportResolver(new Set(Object.keys(sources)), remappings);
    for (const imp of parseFile(file, sources[file]!).imports) {
      if (resolver.resolve(file, imp.path)) continue;
      const name = resolver.unitName(file, imp.path);
      if (tried.has(name)) continue;
      tried.add(name);
      const candidates = [path.resolve(root, name)];
      for (let dir = root; ; dir = path.dirname(dir)) {
        candidates.push(path.join(dir, 'node_modules', imp.path), path.join(dir, 'node_modules', name));
        if (path.dirname(dir) === dir) break;
      }
      const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
      if (!found) continue;
      const key = posix(path.relative(root, found));
      if (key in sources) continue;
      sources[key] = readFileSync(found, 'utf8');
      queue.push(key);
    }
  }
}

export interface ScanOptions {
  readonly compilerVersion?: string;
  readonly remap?: readonly string[];
}

/** What `scan` analyses: a file, a folder, or a standard-JSON input. Throws InputError on bad input. */
export function scanInput(target: string, opts: ScanOptions = {}): AnalysisInput {
  if (!existsSync(target)) throw new InputError(`no such file or folder: ${target}`);
  const stat = statSync(target);
  const remap = [...(opts.remap ?? [])];
  if (stat.isFile() && target.endsWith('.json')) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(target, 'utf8'));
    } catch (err) {
      throw new InputError(`${target} is not JSON: ${(err as Error).message}`);
    }
    const input = fromStandardJson(doc, opts.compilerVersion);
    return { ...input, remappings: [...(input.remappings ?? []), ...remap] };
  }
  const root = stat.isDirectory() ? path.resolve(target) : path.dirname(path.resolve(target));
  const files = stat.isDirectory() ? solidityFiles(root) : [path.resolve(target)];
  if (stat.isFile() && !target.endsWith('.sol')) {
    throw new InputError(`${target}: expected a .sol file, a folder or a standard-JSON input (.json)`);
  }
  if (!files.length) throw new InputError(`no .sol files under ${target}`);
  const sources: Record<string, string> = {};
  for (const f of files) sources[posix(path.relative(root, f))] = readFileSync(f, 'utf8');
  const targets = Object.keys(sources);
  const remappings = [...remappingsFile(root), ...remap];
  addImportedFiles(sources, root, remappings);
  return {
    sources,
    targets,
    ...(remappings.length ? { remappings } : {}),
    ...(opts.compilerVersion ? { compilerVersion: opts.compilerVersion } : {}),
  };
}

const isFailOn = (text: string): text is Impact | 'none' =>
  text === 'none' || (IMPACTS as readonly string[]).includes(text);

/** Findings at or above an impact (`none`: never). */
export function atOrAbove(report: AnalysisReport, impact: Impact | 'none'): number {
  if (impact === 'none') return 0;
  const rank = IMPACTS.indexOf(impact);
  return report.findings.filter((f) => IMPACTS.indexOf(f.impact) <= rank).length;
}

function summaryLine(report: AnalysisReport, files: number): string {
  const t = report.totals;
  const e = report.engine;
  return (
    `protoscore security scan: ${files} files, ${report.contracts.length} contracts; ` +
    `high ${t.high}, medium ${t.medium}, low ${t.low}, informational ${t.informational} ` +
    `(${e.name} ${e.version}, rules ${e.ruleset_hash}, ${e.parser})`
  );
}

export function securityCommand(): Command {
  const security = new Command('security').description('Security analysis of smart-contract code');
  security
    .command('scan')
    .description(
      'Analyse Solidity sources (a .sol file, a folder, or a standard-JSON compiler input) and print findings as JSON lines',
    )
    .argument('<path>', 'a .sol file, a folder of them, or a standard-JSON input (.json)')
    .option('--fail-on <impact>', 'exit 1 when a finding is at or above this impact (none: never)', 'high')
    .option('--compiler-version <version>', 'the compiler version the sources were built with (e.g. 0.8.10)')
    .option('--remap <mapping...>', 'solc remappings, prefix=target (added to remappings.txt and the input)')
    .option('--cross-check', 'also run solhint\'s security rules; their lines carry "engine": "solhint@<version>"')
    .option('--report', 'print one JSON document (engine, contracts, totals, findings) instead of JSON lines')
    .action(
      (
        target: string,
        opts: { failOn: string; compilerVersion?: string; remap?: string[]; crossCheck?: boolean; report?: boolean },
      ) => {
        const failOn = opts.failOn;
        if (!isFailOn(failOn)) {
          process.stderr.write(`protoscore: --fail-on expects one of ${[...IMPACTS, 'none'].join(', ')}\n`);
          process.exitCode = EXIT.badInput;
          return;
        }
        let input: AnalysisInput;
        let report: AnalysisReport;
        try {
          input = scanInput(target, {
            ...(opts.compilerVersion ? { compilerVersion: opts.compilerVersion } : {}),
            ...(opts.remap ? { remap: opts.remap } : {}),
          });
          report = analyse(input);
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          process.stderr.write(`protoscore: ${err.message}\n`);
          process.exitCode = EXIT.badInput;
          return;
        }
        const targets = input.targets ?? Object.keys(input.sources);
        let cross: CrossCheckReport | undefined;
        if (opts.crossCheck) {
          cross = crossCheck(Object.fromEntries(targets.map((f) => [f, input.sources[f]!])));
        }
        if (opts.report) {
          process.stdout.write(`${JSON.stringify({ ...report, ...(cross ? { cross_check: cross } : {}) }, null, 2)}\n`);
        } else {
          const lines = report.findings.map((f) =>
            JSON.stringify({
              file: f.file,
              line: f.line,
              contract: f.contract,
              function: f.function,
              detector: f.detector,
              impact: f.impact,
              confidence: f.confidence,
            }),
          );
          if (cross) {
            const engine = `${cross.engine.name}@${cross.engine.version}`;
            for (const c of cross.findings) {
              lines.push(
                JSON.stringify({
                  engine,
                  file: c.file,
                  line: c.line,
                  rule: c.rule,
                  impact: c.impact,
                  message: c.message,
                }),
              );
            }
          }
          if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
        }
        for (const e of report.errors)
          process.stderr.write(`protoscore: ${e.file}:${e.line}: could not parse: ${e.message}\n`);
        for (const u of report.unresolved_imports) {
          process.stderr.write(
            `protoscore: ${u.file}: import ${JSON.stringify(u.path)} not found; its contracts are unknown\n`,
          );
        }
        process.stderr.write(`${summaryLine(report, targets.length)}\n`);
        process.exitCode = atOrAbove(report, failOn) > 0 ? EXIT.findings : EXIT.clean;
      },
    );
  return security;
}
