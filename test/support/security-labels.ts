/**
 * The labelled set of the security analyser: every `.sol` file under test/fixtures/security/<detector>/ declares,
 * in `// @expect <detector> [<Contract>[.<function>]]` lines, every finding a correct analysis reports on it (the
 * detector its folder is named after on the vulnerable twins, and whatever else is truly there). Scoring compares
 * the analyser's findings with those labels by detector, contract and function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { analyse } from '../../src/areas/security/analyser/analyse.js';
import { DETECTORS } from '../../src/areas/security/analyser/detectors.js';

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/security');

export interface LabelledFile {
  /** `<detector>/<file>.sol` */
  readonly file: string;
  readonly folder: string;
  readonly twin: 'vulnerable' | 'fixed';
  readonly expected: ReadonlySet<string>;
  readonly actual: ReadonlySet<string>;
}

/** `detector|Contract|function` (empty parts for contract- and file-level findings). */
export const labelKey = (detector: string, contract: string | null, fn: string | null) =>
  `${detector}|${contract ?? ''}|${fn ?? ''}`;

export function parseLabels(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(
    /^\s*\/\/\s*@expect\s+([a-z0-9-]+)(?:\s+([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?)?\s*$/gm,
  )) {
    out.add(labelKey(m[1]!, m[2] ?? null, m[3] ?? null));
  }
  return out;
}

export function evaluateLabelledSet(): LabelledFile[] {
  const out: LabelledFile[] = [];
  for (const folder of readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const name of readdirSync(path.join(FIXTURES, folder.name))
      .filter((f) => f.endsWith('.sol'))
      .sort()) {
      const file = `${folder.name}/${name}`;
      const text = readFileSync(path.join(FIXTURES, file), 'utf8');
      const report = analyse({ sources: { [file]: text } });
      out.push({
        file,
        folder: folder.name,
        twin: name.startsWith('fixed') ? 'fixed' : 'vulnerable',
        expected: parseLabels(text),
        actual: new Set(report.findings.map((f) => labelKey(f.detector, f.contract, f.function))),
      });
    }
  }
  return out;
}

export interface DetectorScore {
  readonly detector: string;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  /** TP / (TP + FP); 1 when it reported nothing. */
  readonly precision: number;
  /** TP / (TP + FN); 1 when nothing was expected of it. */
  readonly recall: number;
}

export function scoreByDetector(files: readonly LabelledFile[]): DetectorScore[] {
  return DETECTORS.map(({ id }) => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const f of files) {
      for (const k of f.actual) if (k.startsWith(`${id}|`)) f.expected.has(k) ? tp++ : fp++;
      for (const k of f.expected) if (k.startsWith(`${id}|`) && !f.actual.has(k)) fn++;
    }
    const round = (x: number) => Math.round(x * 1000) / 1000;
    return {
      detector: id,
      tp,
      fp,
      fn,
      precision: tp + fp === 0 ? 1 : round(tp / (tp + fp)),
      recall: tp + fn === 0 ? 1 : round(tp / (tp + fn)),
    };
  });
}
