import { describe, expect, it } from 'vitest';
import { Rng, seedState } from './random.js';

function draws(rng: Rng, n: number, f: (r: Rng) => number): number[] {
  return Array.from({ length: n }, () => f(rng));
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function variance(xs: readonly number[]): number {
  const m = mean(xs);
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
}

describe('Rng', () => {
  it('is a pure function of seed and stream', () => {
    const a = draws(Rng.fromSeed(42, 'x'), 20, (r) => r.nextUint32());
    expect(draws(Rng.fromSeed(42, 'x'), 20, (r) => r.nextUint32())).toEqual(a);
    expect(draws(Rng.fromSeed(43, 'x'), 20, (r) => r.nextUint32())).not.toEqual(a);
    expect(draws(Rng.fromSeed(42, 'y'), 20, (r) => r.nextUint32())).not.toEqual(a);
  });

  it('pins the sequence (a change here changes every sandbox world)', () => {
    expect(seedState(1, 'prices')).toMatchInlineSnapshot(`
      [
        2711018010,
        3725216997,
        583059353,
        802277767,
      ]
    `);
    expect(draws(Rng.fromSeed(1, 'prices'), 3, (r) => r.nextUint32())).toMatchInlineSnapshot(`
      [
        2943545478,
        1191057324,
        536788730,
      ]
    `);
  });

  it('resumes from a saved state, through JSON', () => {
    const rng = Rng.fromSeed(7, 'agents');
    draws(rng, 5, (r) => r.next());
    const saved = JSON.parse(JSON.stringify(rng.state())) as ReturnType<Rng['state']>;
    const rest = draws(rng, 10, (r) => r.normal());
    expect(draws(new Rng(saved), 10, (r) => r.normal())).toEqual(rest);
  });

  it.each([
    ['next', (r: Rng) => r.next(), 0.5, 1 / 12],
    ['uniform(2, 4)', (r: Rng) => r.uniform(2, 4), 3, 4 / 12],
    ['normal', (r: Rng) => r.normal(), 0, 1],
    ['exponential(3)', (r: Rng) => r.exponential(3), 3, 9],
    ['poisson(2.5)', (r: Rng) => r.poisson(2.5), 2.5, 2.5],
    ['poisson(80)', (r: Rng) => r.poisson(80), 80, 80],
  ])('%s has the right mean and variance', (_name, f, m, v) => {
    const xs = draws(Rng.fromSeed(3, 'moments'), 40_000, f);
    expect(mean(xs)).toBeCloseTo(m, 1);
    expect(variance(xs) / v).toBeGreaterThan(0.95);
    expect(variance(xs) / v).toBeLessThan(1.05);
  });

  it('keeps uniforms in [0, 1) and integers in range', () => {
    const rng = Rng.fromSeed(5, 'range');
    for (let i = 0; i < 10_000; i++) {
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
      const k = rng.int(7);
      expect(Number.isInteger(k) && k >= 0 && k < 7).toBe(true);
    }
  });

  it('log-normal has the given median', () => {
    const xs = draws(Rng.fromSeed(9, 'ln'), 20_001, (r) => r.logNormal(1500, 1.3)).sort((a, b) => a - b);
    expect(xs[10_000]! / 1500).toBeGreaterThan(0.95);
    expect(xs[10_000]! / 1500).toBeLessThan(1.05);
  });

  it('poisson of zero or a negative mean is zero', () => {
    const rng = Rng.fromSeed(1, 'p');
    expect(rng.poisson(0)).toBe(0);
    expect(rng.poisson(-1)).toBe(0);
    expect(rng.poisson(Number.NaN)).toBe(0);
  });

  it('weightedIndex follows the weights and ignores zero weights', () => {
    const rng = Rng.fromSeed(11, 'w');
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[rng.weightedIndex([1, 0, 3])]! += 1;
    expect(counts[1]).toBe(0);
    expect(counts[2]! / counts[0]!).toBeGreaterThan(2.8);
    expect(counts[2]! / counts[0]!).toBeLessThan(3.2);
  });

  it('shuffle permutes and sample draws distinct elements', () => {
    const rng = Rng.fromSeed(13, 's');
    const items = Array.from({ length: 50 }, (_, i) => i);
    const shuffled = rng.shuffle([...items]);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items);
    expect(shuffled).not.toEqual(items);
    const picked = rng.sample(items, 10);
    expect(new Set(picked).size).toBe(10);
    expect(rng.sample(items, 80)).toHaveLength(50);
    expect(() => rng.pick([])).toThrow();
  });
});
