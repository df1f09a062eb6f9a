import { describe, expect, it } from 'vitest';
import {
  type Balance,
  concentration,
  concentrationWithout,
  giniSorted,
  hhiOf,
  holdersAndGini,
  holdersAndGiniChanged,
  holdersOf,
  nakamotoSorted,
  ZERO_ADDRESS,
} from './concentration.js';

const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const list = (xs: readonly bigint[]): Balance[] => xs.map((balance, i) => ({ address: addr(i + 1), balance }));

/** The definition, O(n²): Σ_i Σ_j |x_i − x_j| / (2 n² μ). */
function giniBrute(xs: readonly number[]): number {
  const n = xs.length;
  const mu = xs.reduce((a, b) => a + b, 0) / n;
  let s = 0;
  for (const a of xs) for (const b of xs) s += Math.abs(a - b);
  return s / (2 * n * n * mu);
}

describe('concentration measures on known distributions', () => {
  const cases: { name: string; xs: bigint[]; gini: number; hhi: number; nakamoto: number }[] = [
    { name: 'one holder', xs: [100n], gini: 0, hhi: 10_000, nakamoto: 1 },
    { name: 'two equal', xs: [5n, 5n], gini: 0, hhi: 5_000, nakamoto: 2 },
    { name: 'four equal', xs: [7n, 7n, 7n, 7n], gini: 0, hhi: 2_500, nakamoto: 3 },
    // |1−3| pairs: G = 2·2 / (2·4·2) = 0.25
    { name: 'one and three', xs: [1n, 3n], gini: 0.25, hhi: 6_250, nakamoto: 1 },
    // all on one of n: G = (n − 1)/n
    { name: 'one of five holds all but dust', xs: [1n, 1n, 1n, 1n, 996n], gini: 0, hhi: 0, nakamoto: 1 },
  ];
  cases[4]!.gini = giniBrute([1, 1, 1, 1, 996]);
  cases[4]!.hhi = ((4 * 1 + 996 * 996) / 1000 ** 2) * 10_000;
  for (const c of cases) {
    it(c.name, () => {
      const sorted = [...c.xs].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
      expect(giniSorted(sorted)).toBeCloseTo(c.gini, 12);
      expect(hhiOf(sorted)).toBeCloseTo(c.hhi, 9);
      expect(nakamotoSorted(sorted)).toBe(c.nakamoto);
    });
  }

  it('exactly half is not more than half (Nakamoto)', () => {
    expect(nakamotoSorted([50n, 30n, 20n])).toBe(2);
    expect(nakamotoSorted([50n, 49n, 1n])).toBe(2);
    expect(nakamotoSorted([51n, 49n])).toBe(1);
  });

  it('the O(n log n) Gini equals the O(n²) definition on a random distribution', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const xs = Array.from({ length: 300 }, () => BigInt(rnd() % 1_000_000) + 1n);
    const sorted = [...xs].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    const brute = giniBrute(xs.map(Number));
    expect(Math.abs(giniSorted(sorted)! - brute) / brute).toBeLessThan(1e-12);
  });

  it('an empty distribution has no figures', () => {
    expect(giniSorted([])).toBeNull();
    expect(hhiOf([])).toBeNull();
    expect(nakamotoSorted([])).toBeNull();
  });
});

describe('concentration of a balance list', () => {
  const E18 = 10n ** 18n;
  const balances: Balance[] = [
    { address: ZERO_ADDRESS, balance: 5n * E18 },
    ...list([
      600_000n * E18, // whale
      200_000n * E18, // whale
      50_000n * E18,
      2_000n * E18,
      500n * E18,
      1n * E18, // exactly the dust threshold: not a holder
      0n,
    ]),
  ];
  const totalSupply = 1_000_000n * E18;

  it('holders are strictly above dust, the zero address excluded', () => {
    const c = concentration({ balances, totalSupply, decimals: 18, dustRaw: E18 });
    expect(c.holders).toBe(5);
    expect(c.heldRaw).toBe(852_500n * E18);
    expect(c.largest).toEqual({ address: addr(1), balance: 600_000n * E18 });
    expect(c.top5Percent).toBe(85.25);
    expect(c.top10Percent).toBe(85.25);
    expect(c.nakamoto).toBe(1);
    expect(c.whales).toBe(2);
    expect(c.whaleRatioPercent).toBe(40);
    expect(c.whaleBandsRaw).toEqual({ '0': 500n * E18, '1000': 52_000n * E18, '100000': 800_000n * E18 });
    const xs = [600_000, 200_000, 50_000, 2_000, 500];
    expect(c.gini).toBeCloseTo(giniBrute(xs), 12);
    const held = 852_500;
    expect(c.hhi).toBeCloseTo(xs.reduce((a, x) => a + (x / held) ** 2, 0) * 10_000, 8);
  });

  it('excluding addresses removes them from the holders and their balances from the supply base', () => {
    const c = concentration({ balances, totalSupply, decimals: 18, dustRaw: E18, exclude: new Set([addr(1)]) });
    expect(c.holders).toBe(4);
    expect(c.supplyBaseRaw).toBe(400_000n * E18);
    expect(c.top5Percent).toBe(63.125);
    expect(c.nakamoto).toBe(1);
    expect(c.largest?.address).toBe(addr(2));
  });

  it('the figures without a set, derived from the raw pass, equal those computed afresh', () => {
    let seed = 11;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 20; round++) {
      const n = 1 + (rnd() % 60);
      const bs: Balance[] = Array.from({ length: n }, (_, i) => ({
        address: addr(i + 1),
        balance: BigInt(rnd() % 5) === 0n ? BigInt(rnd() % 3) : BigInt(rnd() % 1_000_000) * E18,
      }));
      bs.push({ address: ZERO_ADDRESS, balance: 7n * E18 });
      const exclude = new Set(bs.filter(() => rnd() % 4 === 0).map((b) => b.address));
      let total = 0n;
      for (const b of bs) total += b.balance;
      const base = { balances: bs, totalSupply: total, decimals: 18, dustRaw: 1n };
      const raw = concentration(base, undefined, exclude);
      const fast = concentrationWithout(raw, { ...base, exclude });
      const direct = concentration({ ...base, exclude });
      for (const k of [
        'holders',
        'heldRaw',
        'supplyBaseRaw',
        'largest',
        'top5Percent',
        'top10Percent',
        'gini',
        'hhi',
        'nakamoto',
        'squaresRaw',
        'rankWeightedRaw',
        'sorted',
      ] as const)
        expect(fast[k], `${k} in round ${round}`).toEqual(direct[k]);
    }
  });

  it('holders and Gini alone equal the full figures', () => {
    const full = concentration({ balances, totalSupply, decimals: 18, dustRaw: E18 });
    expect(holdersAndGini(balances, E18)).toEqual({ holders: full.holders, gini: full.gini });
    expect(holdersAndGini([], E18)).toEqual({ holders: 0, gini: null });
  });

  it('holders and Gini after some balances changed, merged into the sorted list, equal those sorted afresh', () => {
    let seed = 5;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 20; round++) {
      const bs: Balance[] = Array.from({ length: 1 + (rnd() % 50) }, (_, i) => ({
        address: addr(i + 1),
        balance: BigInt(rnd() % 100) * E18,
      }));
      const changes = new Map<string, bigint>();
      for (let i = 0; i < rnd() % 8; i++) changes.set(addr(1 + (rnd() % 70)), BigInt(rnd() % 100) * E18);
      changes.set(ZERO_ADDRESS, 5n * E18);
      const after = new Map(bs.map((b) => [b.address, b.balance]));
      for (const [a, b] of changes) after.set(a, b);
      const afresh = holdersAndGini(
        [...after].map(([address, balance]) => ({ address, balance })),
        E18,
      );
      expect(holdersAndGiniChanged(holdersOf(bs, E18), changes, E18), `round ${round}`).toEqual(afresh);
    }
  });

  it('refuses figures without an address the raw pass did not track', () => {
    const base = { balances, totalSupply, decimals: 18, dustRaw: E18 };
    expect(() => concentrationWithout(concentration(base), { ...base, exclude: new Set([addr(1)]) })).toThrow(/track/);
  });

  it('no holders: null figures, zero counts', () => {
    const c = concentration({ balances: list([1n]), totalSupply: 1n, decimals: 0, dustRaw: 1n });
    expect(c.holders).toBe(0);
    expect([c.gini, c.hhi, c.nakamoto, c.top5Percent, c.whaleRatioPercent, c.largest]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('ranks a million holders in well under the time budget', () => {
    const many: Balance[] = Array.from({ length: 1_000_000 }, (_, i) => ({
      address: addr(i + 1),
      balance: BigInt((i * 7919) % 1_000_003) * 10n ** 15n + 1n,
    }));
    const t0 = performance.now();
    const c = concentration({ balances: many, totalSupply: 10n ** 30n, decimals: 18, dustRaw: 0n });
    const ms = performance.now() - t0;
    expect(c.holders).toBe(1_000_000);
    expect(ms).toBeLessThan(45_000); // about 4 s alone on a loaded 2-core machine
  }, 90_000);
});
