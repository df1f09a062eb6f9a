/**
 * The security analyser on its labelled set (test/fixtures/security/<detector>/): every detector fires on its
 * vulnerable twins at the labelled function and not on its fixed twins, and its precision and recall over the
 * whole set stay at or above the committed floors (test/fixtures/security/floors.json). The per-detector table
 * in docs/methodology/security-analyser.md is this test's `scoreByDetector`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../src/areas/security/analyser/detectors.js';
import { evaluateLabelledSet, FIXTURES, scoreByDetector } from './support/security-labels.js';

const files = evaluateLabelledSet();
const floors = JSON.parse(readFileSync(path.join(FIXTURES, 'floors.json'), 'utf8')) as Record<
  string,
  { precision: number; recall: number }
>;

describe('security analyser: labelled set', () => {
  it('has a vulnerable and a fixed twin for every detector, across compiler versions 0.4 to 0.8', () => {
    for (const d of DETECTORS) {
      const twins = files.filter((f) => f.folder === d.id);
      expect(
        twins.some((f) => f.twin === 'vulnerable'),
        `${d.id}: vulnerable twin`,
      ).toBe(true);
      expect(
        twins.some((f) => f.twin === 'fixed'),
        `${d.id}: fixed twin`,
      ).toBe(true);
      for (const f of twins.filter((t) => t.twin === 'vulnerable')) {
        expect(
          [...f.expected].some((k) => k.startsWith(`${d.id}|`)),
          `${f.file} labels its own detector`,
        ).toBe(true);
      }
    }
    const minors = new Set(
      files.map((f) => /pragma solidity[^0-9]*0\.(\d+)/.exec(readFileSync(path.join(FIXTURES, f.file), 'utf8'))![1]),
    );
    expect([...minors].sort()).toEqual(expect.arrayContaining(['4', '5', '6', '8']));
  });

  for (const f of files) {
    it(`${f.file}: ${f.twin === 'vulnerable' ? 'fires at the labelled function' : `no ${f.folder} finding`}`, () => {
      const own = (keys: ReadonlySet<string>) => [...keys].filter((k) => k.startsWith(`${f.folder}|`)).sort();
      if (f.twin === 'vulnerable') expect(own(f.actual)).toEqual(own(f.expected));
      else expect(own(f.actual)).toEqual([]);
    });
  }

  it('keeps every detector at or above its precision and recall floors over the whole set', () => {
    const scores = scoreByDetector(files);
    expect(Object.keys(floors).sort()).toEqual(DETECTORS.map((d) => d.id).sort());
    for (const s of scores) {
      const floor = floors[s.detector]!;
      expect(s.precision, `${s.detector} precision (${s.tp} TP, ${s.fp} FP)`).toBeGreaterThanOrEqual(floor.precision);
      expect(s.recall, `${s.detector} recall (${s.tp} TP, ${s.fn} FN)`).toBeGreaterThanOrEqual(floor.recall);
    }
  });
});
