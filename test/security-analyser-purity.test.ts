/**
 * The security analyser is pure (DESIGN.md; issue 29): its modules reach no `node:` module, no store, source,
 * network client or clock, so that the security area's compute can run it and its tests need no I/O. solhint's
 * cross-check (a CommonJS package that reads its own configuration files when loaded) is the one module that may
 * load such a package, and nothing else in the analyser imports it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve(import.meta.dirname, '../src/areas/security/analyser');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'));
const ALLOWED_PACKAGES = ['@nomicfoundation/slang/', '@noble/hashes/'];

const importsOf = (file: string) =>
  [...readFileSync(path.join(DIR, file), 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map(
    (m) => m[1]!,
  );

describe('security analyser: purity', () => {
  it('imports only its own modules, Slang and @noble/hashes (solhint.ts: solhint)', () => {
    expect(FILES.length).toBeGreaterThan(8);
    for (const file of FILES) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('./')) {
          expect(
            FILES.map((f) => `./${f.replace(/\.ts$/, '.js')}`),
            `${file} imports ${spec}`,
          ).toContain(spec);
          continue;
        }
        const allowed =
          ALLOWED_PACKAGES.some((p) => spec.startsWith(p)) || (file === 'solhint.ts' && spec.startsWith('solhint'));
        expect(allowed, `${file} imports ${spec}`).toBe(true);
      }
    }
  });

  it('keeps solhint out of the analysis', () => {
    const importers = FILES.filter((f) => f !== 'solhint.ts' && importsOf(f).includes('./solhint.js'));
    expect(importers).toEqual([]);
  });
});
