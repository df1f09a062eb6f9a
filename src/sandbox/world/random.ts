/**
 * Seeded randomness for the sandbox. The sandbox must be reproducible (same seed ⇒ byte-identical chain), so
 * nothing here touches `Math.random` or the clock, and the generator's whole state is four 32-bit integers that
 * the scenario saves between calls.
 *
 * The generator is sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of state, passes
 * PractRand, and needs only 32-bit integer operations, which JavaScript does exactly on every platform.
 * `Math.log`/`Math.exp`/`Math.cos` used by the samplers come from V8's fdlibm port, identical on every machine and on
 * Node.js 20, 24 and 26; `**` is not (V8 moved it to the C library's `pow`): the sandbox uses `pow` of pow.ts instead.
 */

/** The serialisable state of a generator: four unsigned 32-bit integers. */
export type RngState = [number, number, number, number];

/** splitmix32 step: spreads a small seed over 32 bits, so seeds 1 and 2 start far apart. */
function splitmix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** The initial state for `seed` and a named stream, so that independent parts of the world draw independently. */
export function seedState(seed: number, stream: string): RngState {
  // Fold the stream name into the seed (FNV-1a), then expand with splitmix32.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  h = Math.imul(h, 0x01000193);
  h ^= Math.floor(seed / 0x100000000) >>> 0;
  for (let i = 0; i < stream.length; i++) {
    h ^= stream.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const a = splitmix32(h);
  const b = splitmix32(a);
  const c = splitmix32(b);
  const d = splitmix32(c);
  const rng = new Rng([a, b, c, d]);
  // sfc32 recommends discarding the first outputs after seeding.
  for (let i = 0; i < 15; i++) rng.nextUint32();
  return rng.state();
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(state: RngState) {
    [this.a, this.b, this.c, this.d] = state.map((v) => v >>> 0) as RngState;
  }

  static fromSeed(seed: number, stream: string): Rng {
    return new Rng(seedState(seed, stream));
  }

  /** A copy of the state, to save and resume later. */
  state(): RngState {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal by Box–Muller; the second value is discarded so the state stays four integers. */
  normal(): number {
    // 1 − u keeps the logarithm's argument in (0, 1].
    const u1 = 1 - this.next();
    const u2 = this.next();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** Log-normal with the given median and log-space standard deviation. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /**
   * Poisson count with mean `lambda`: Knuth's product method for small means (exact), a rounded normal above
   * 30, where the two distributions differ by less than the scenario's own noise.
   */
  poisson(lambda: number): number {
    if (!(lambda > 0)) return 0;
    if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }

  /** One element, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** An index drawn with probability proportional to `weights[i]` (non-negative; all zero ⇒ uniform). */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    if (!(total > 0)) return this.int(weights.length);
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** Fisher–Yates, in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }

  /** `k` distinct elements, in draw order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle([...items]).slice(0, Math.min(k, items.length));
  }
}
