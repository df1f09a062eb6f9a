import { pow } from '../../world/pow.js';
import { Rng } from '../../world/random.js';

/**
 * Seeded generation helpers for stand-in worlds. A stand-in's world is a pure function of (seed, clock): the same
 * seed and the same "now" give the same data, and a later "now" only adds to what an earlier one showed.
 *
 * The way to get the second property: draw each day of each stream from its own generator
 * (`Rng.fromSeed(seed, "<stream>/<day>")`), on a calendar fixed independently of the clock, and hide what lies
 * after "now" when answering rather than when generating. `DailySeries` does the sequencing and caching.
 */

export const DAY_MS = 86_400_000;

/** UTC day index (days since the Unix epoch) of an instant in milliseconds. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** A generator for one named part of the world: independent of every other stream of the same seed. */
export function streamRng(seed: number, ...parts: readonly (string | number)[]): Rng {
  return Rng.fromSeed(seed, parts.join('/'));
}

/** `length` lowercase hex digits. */
export function hexDigits(rng: Rng, length: number): string {
  const words: string[] = [];
  for (let n = 0; n < length; n += 8) words.push((rng.nextUint32() + 0x100000000).toString(16).slice(1));
  const out = words.join('');
  return out.length === length ? out : out.slice(0, length);
}

/**
 * A stable positive integer for a name (ids of users, repositories, events): the same name always gets the same
 * id, whatever else the world holds, so adding an entity never renumbers the others. At most 2^bits, safe in JSON.
 */
export function stableId(name: string, bits = 40): number {
  // cyrb53: two interleaved 32-bit multiplicative hashes, 53 bits out; fast, well mixed, not cryptographic.
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < name.length; i++) {
    const ch = name.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return (value % pow(2, bits)) + 1;
}

/** Zipf-like weights 1/(k+1)^s: a few heavy contributors and a long tail. */
export function zipfWeights(n: number, exponent: number): number[] {
  return Array.from({ length: n }, (_, k) => 1 / pow(k + 1, exponent));
}

/** `count` instants uniformly inside the UTC day `day`, ascending, whole seconds. */
export function instantsInDay(rng: Rng, day: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(day * DAY_MS + rng.int(86_400) * 1000);
  return out.sort((a, b) => a - b);
}

/** Index of the first element whose key is greater than `bound`, in an array sorted ascending by key. */
export function upperBound<T>(items: readonly T[], bound: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid]!) <= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Days generated one by one from `firstDay`, in order, each once: `step(day)` stores what the day holds wherever
 * the caller keeps it (append-only lists) and may carry state to the next day (counters, the previous commit…),
 * which is why days are generated strictly in sequence. Callers hide what lies after "now" when answering.
 */
export class DailySeries {
  private nextDay: number;

  constructor(
    readonly firstDay: number,
    private readonly step: (day: number) => void,
  ) {
    this.nextDay = firstDay;
  }

  /** Generates the days up to `day` included that are not generated yet. */
  advanceTo(day: number): void {
    while (this.nextDay <= day) this.step(this.nextDay++);
  }

  /** The first day not generated yet. */
  get generatedUntil(): number {
    return this.nextDay;
  }
}
