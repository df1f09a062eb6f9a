/**
 * Solidity version pragmas: `^0.8.0`, `>=0.4.22 <0.9.0`, `0.6.12`, `0.4.24 - 0.5.0`, `^0.5.0 || ^0.6.0`, with the
 * npm-semver meaning solc gives them (a caret or tilde on 0.x stays within 0.x; a partial version is a range).
 */

export type Version = readonly [number, number, number];

interface Comparator {
  readonly op: '<' | '<=' | '>' | '>=' | '=';
  readonly version: Version;
}

/** One `||`-alternative: all of its comparators hold. */
type ComparatorSet = readonly Comparator[];

export function parseVersion(text: string): Version | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export const formatVersion = (v: Version): string => v.join('.');

/** Comparators of one term such as `^0.8`, `>=0.4.22`, `0.6.x`. */
function termComparators(op: string, literal: string): Comparator[] | undefined {
  const parts = literal.split('.').filter((p) => p !== '' && p !== 'x' && p !== 'X' && p !== '*');
  const nums = parts.map(Number);
  if (nums.some((n) => !Number.isInteger(n))) return undefined;
  const v: Version = [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 0];
  const precision = nums.length;
  // The version just above the range a partial version names (`0.8` → `0.9.0`).
  const bumpAt = (level: number): Version =>
    level === 0 ? [v[0] + 1, 0, 0] : level === 1 ? [v[0], v[1] + 1, 0] : [v[0], v[1], v[2] + 1];
  switch (op) {
    case '^': {
      // Caret: the leftmost non-zero part stays fixed.
      const level = v[0] !== 0 || precision === 1 ? 0 : v[1] !== 0 || precision === 2 ? 1 : 2;
      return [
        { op: '>=', version: v },
        { op: '<', version: bumpAt(level) },
      ];
    }
    case '~':
      return [
        { op: '>=', version: v },
        { op: '<', version: bumpAt(precision >= 2 ? 1 : 0) },
      ];
    case '>=':
    case '<':
      return [{ op, version: v }];
    case '>':
      return precision === 3 ? [{ op: '>', version: v }] : [{ op: '>=', version: bumpAt(precision - 1) }];
    case '<=':
      return precision === 3 ? [{ op: '<=', version: v }] : [{ op: '<', version: bumpAt(precision - 1) }];
    default:
      // Exact (`0.8.19`, `=0.8.19`) or partial (`0.8` = `>=0.8.0 <0.9.0`).
      return precision === 3
        ? [{ op: '=', version: v }]
        : [
            { op: '>=', version: v },
            { op: '<', version: bumpAt(Math.max(0, precision - 1)) },
          ];
  }
}

/** Parses a pragma's version expression; undefined when it is not one. */
export function parseVersionExpression(text: string): ComparatorSet[] | undefined {
  const sets: ComparatorSet[] = [];
  for (const alternative of text.split('||')) {
    const hyphen = /^\s*([\d.xX*]+)\s+-\s+([\d.xX*]+)\s*$/.exec(alternative);
    if (hyphen) {
      const low = termComparators('>=', hyphen[1]!);
      const high = termComparators('<=', hyphen[2]!);
      if (!low || !high) return undefined;
      sets.push([...low, ...high]);
      continue;
    }
    const set: Comparator[] = [];
    const termRe = /(\^|~|>=|<=|>|<|=)?\s*([\d]+(?:\.[\dxX*]+){0,2})/g;
    let rest = alternative;
    for (const m of alternative.matchAll(termRe)) {
      const comparators = termComparators(m[1] ?? '=', m[2]!);
      if (!comparators) return undefined;
      set.push(...comparators);
      rest = rest.replace(m[0], '');
    }
    if (set.length === 0 || rest.trim() !== '') return undefined;
    sets.push(set);
  }
  return sets;
}

function holds(v: Version, c: Comparator): boolean {
  const d = compareVersions(v, c.version);
  switch (c.op) {
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    default:
      return d === 0;
  }
}

export function satisfies(v: Version, sets: readonly ComparatorSet[]): boolean {
  return sets.some((set) => set.every((c) => holds(v, c)));
}

/** The versions of `available` (ascending) that every pragma allows; all of them when there is no pragma. */
export function allowedVersions(pragmas: readonly string[], available: readonly string[]): string[] {
  const parsed = pragmas.map(parseVersionExpression).filter((p): p is ComparatorSet[] => p !== undefined);
  return available.filter((a) => {
    const v = parseVersion(a)!;
    return parsed.every((p) => satisfies(v, p));
  });
}

/**
 * The version to parse a set of files with: the compiler version the input names when it is available, else the
 * newest available version that every pragma allows, else (contradictory or unknown pragmas) the newest available
 * one that the first pragma allows, else the newest available.
 */
export function chooseVersion(
  pragmas: readonly string[],
  available: readonly string[],
  compilerVersion?: string,
): { version: string; exact: boolean } {
  if (compilerVersion) {
    const named = parseVersion(compilerVersion);
    const match = named && available.find((a) => compareVersions(parseVersion(a)!, named) === 0);
    if (match) return { version: match, exact: true };
  }
  const all = allowedVersions(pragmas, available);
  if (all.length) return { version: all[all.length - 1]!, exact: false };
  for (const p of pragmas) {
    const one = allowedVersions([p], available);
    if (one.length) return { version: one[one.length - 1]!, exact: false };
  }
  return { version: available[available.length - 1]!, exact: false };
}

/** The lowest version a set of pragmas allows (of `available`), or undefined when they allow none. */
export function lowestAllowed(pragmas: readonly string[], available: readonly string[]): string | undefined {
  return allowedVersions(pragmas, available)[0];
}
