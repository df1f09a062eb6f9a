/**
 * The security area's control decisions are pure (DESIGN.md; issue 29): every module of `src/areas/security/control/`
 * but the reader reaches only its siblings, the pure analyser modules it names, `core/` and two data packages, so
 * that the area's compute can classify, and its tests run, without I/O. `reader.ts` is the one module that reads the
 * chain, and no pure module imports it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve(import.meta.dirname, '../src/areas/security/control');
const READER = 'reader.ts';
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== READER);
const ALLOWED_PACKAGES = ['@noble/hashes/', '@safe-global/safe-deployments'];
/** What the pure modules may import outside their folder: the analyser's pure modules and core's. */
const ALLOWED_INTERNAL = /^\.\.\/analyser\/(bytecode|input)\.js$|^(\.\.\/){3}core\/[a-z-]+\.js$/;

const importsOf = (file: string) =>
  [...readFileSync(path.join(DIR, file), 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map(
    (m) => m[1]!,
  );

describe('security control: purity', () => {
  it('the pure modules import their siblings (not the reader), the pure analyser, core and data packages only', () => {
    expect(FILES).toEqual(expect.arrayContaining(['classify.ts', 'history.ts', 'model.ts', 'proxy.ts']));
    for (const file of FILES) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('./')) {
          expect(
            FILES.map((f) => `./${f.replace(/\.ts$/, '.js')}`),
            `${file} imports ${spec}`,
          ).toContain(spec);
          continue;
        }
        const allowed = ALLOWED_PACKAGES.some((p) => spec.startsWith(p)) || ALLOWED_INTERNAL.test(spec);
        expect(allowed, `${file} imports ${spec}`).toBe(true);
      }
    }
  });
});
