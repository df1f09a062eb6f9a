import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pow } from './pow.js';

/** A fixed set of (x, y) pairs: the shapes the simulation uses and the edges of the algorithm. */
function inputs(): Array<[number, number]> {
  let state = 0x2545f491;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const pairs: Array<[number, number]> = [];
  const edges = [0, -0, 1, -1, 2, -2, 0.5, -0.5, 3, -3, 10, 1.0001, 0.9999, 5e-324, 2.2250738585072014e-308, 1e308];
  const more = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, 52, 96, 1023, 1024, -1074, -1075];
  for (const x of [...edges, ...more])
    for (const y of [...edges, ...more, 2 ** 31 + 1, 2 ** 64, 1 / 3]) pairs.push([x, y]);
  for (let i = 0; i < 20_000; i++) {
    pairs.push([10, Math.floor(next() * 80) - 40]); // decimals
    pairs.push([1.0001, Math.floor((next() - 0.5) * 1_774_544) / 2]); // Uniswap ticks
    pairs.push([0.5, next() * 60]); // half-lives
    pairs.push([next() * 20, (next() - 0.5) * 60]);
    pairs.push([(next() - 0.5) * 100, Math.floor((next() - 0.5) * 40)]); // negative bases, integer exponents
    pairs.push([1 + (next() - 0.5) * 1e-6, (next() - 0.5) * 1e10]); // |y| > 2^31 near 1
    pairs.push([next() * 2, (next() - 0.5) * 2200]); // overflow, underflow, subnormal results
  }
  return pairs;
}

function digest(values: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 8));
  for (const [i, v] of values.entries()) view.setFloat64(i * 8, v, true);
  return createHash('sha256').update(new Uint8Array(view.buffer)).digest('hex');
}

/** Node.js 20's V8 runs fdlibm's pow for `Math.pow`; 22 and later the C library's (`--use-std-math-pow`). */
const fdlibmMathPow = 10 ** 29 === 1.0000000000000001e29;

describe('pow (the sandbox simulation, the same on every Node.js line)', () => {
  it('gives fixed results: Node.js 20 Math.pow values, bit for bit (pinned)', () => {
    const results = inputs().map(([x, y]) => pow(x, y));
    expect(digest(results)).toBe('a25f4609a8019a2969fe9f1902a0b13c3d9c08db45b81c9bad275749b25e1107');
  });

  it.runIf(fdlibmMathPow)('equals `**` on a V8 that runs fdlibm (Node.js 20)', () => {
    const differ = inputs().filter(([x, y]) => !Object.is(pow(x, y), x ** y));
    expect(differ).toEqual([]);
  });

  it('follows the ECMAScript rules at the edges', () => {
    expect(pow(Number.NaN, 0)).toBe(1);
    expect(pow(2, Number.NaN)).toBeNaN();
    expect(pow(1, Number.POSITIVE_INFINITY)).toBeNaN();
    expect(pow(-1, Number.NEGATIVE_INFINITY)).toBeNaN();
    expect(pow(0.5, Number.POSITIVE_INFINITY)).toBe(0);
    expect(pow(2, Number.NEGATIVE_INFINITY)).toBe(0);
    expect(pow(-0, 3)).toBe(-0);
    expect(pow(-0, -3)).toBe(Number.NEGATIVE_INFINITY);
    expect(pow(-8, 1 / 3)).toBeNaN();
    expect(pow(-2, 3)).toBe(-8);
    expect(pow(2, -1074)).toBe(5e-324);
    expect(pow(2, 1024)).toBe(Number.POSITIVE_INFINITY);
    expect(pow(10, 22)).toBe(1e22);
    expect(pow(10, 29)).toBe(1.0000000000000001e29); // not 1e29: Node.js 20's value, which worlds were built with
  });

  it('is what every number `**` and `Math.pow` in src/sandbox goes through', () => {
    const root = join(import.meta.dirname, '..');
    const files = (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('world/pow.ts'))
      .map((f) => join(root, f));
    const found: string[] = [];
    for (const file of files) {
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
        .replace(/\/\/.*$/gm, '');
      code.split('\n').forEach((line, i) => {
        const where = `${relative(root, file)}:${i + 1}`;
        if (/Math\.pow\b|\*\*=/.test(line)) found.push(where);
        for (const m of line.matchAll(/(\S+)\s*\*\*\s*(\S+)/g)) {
          // bigint exponentiation (10n ** 18n, 10n ** BigInt(d)) is exact
          if (!/\d+n\)*$/.test(m[1]!) && !/^\(*\d+n\b/.test(m[2]!)) found.push(`${where}: ${m[0]}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
