/**
 * Holder concentration of a token from its balances at one block (docs/methodology/tokenomics.md "Holders and
 * concentration"). Pure and exact: sums, the Gini numerator and the HHI are bigint; a share becomes a float once, at
 * the end, as the float nearest to the exact ratio (`ratioToFloat`). Balances are sorted once (O(n log n)).
 *
 * - holders: every address whose balance is STRICTLY above the dust threshold, the zero address excluded (burn
 *   addresses and contracts included in the raw figures);
 * - top-k share: Σ of the k largest holders' balances / the supply base × 100 (percent, the legacy unit); the base is
 *   the total supply for the raw figures, the total supply minus every excluded address's balance otherwise;
 * - Gini (population): G = Σ_i Σ_j |x_i − x_j| / (2 n² μ) over the holders' balances, computed on the sorted balances
 *   as Σ_k (n − 1 − 2k) x_k / (n Σx) with x sorted largest first (k from 0);
 * - HHI: Σ (x_i / Σx)² × 10,000 over the holders (shares of the held supply in percent, squared: 0–10,000, the
 *   competition authorities' scale; 10,000 = one holder);
 * - Nakamoto coefficient: the smallest number of holders whose balances sum to MORE than half of the held supply;
 * - whale holdings by balance bands: key `"0"`, `"1000"`, `"100000"` (tokens) = tokens held by holders whose balance
 *   is strictly above the key and at most the next key (the last band unbounded); whales = holders above 100,000
 *   tokens; whale ratio = whales / holders × 100.
 */
import { pow10, ratioToFloat } from '../../core/decimal.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The whale bands' lower bounds in tokens (legacy keys of `whale_holdings`). */
export const WHALE_BANDS = [0n, 1000n, 100_000n] as const;
/** A whale holds strictly more than this many tokens (the top band). */
export const WHALE_THRESHOLD_TOKENS = 100_000n;

export interface Balance {
  /** Lowercase 0x address. */
  readonly address: string;
  /** Raw units. */
  readonly balance: bigint;
}

export interface ConcentrationInput {
  readonly balances: readonly Balance[];
  /** The token's total supply (raw): the base of the raw top-k shares. */
  readonly totalSupply: bigint;
  readonly decimals: number;
  /** A holder holds strictly more (raw). */
  readonly dustRaw: bigint;
  /** Addresses left out (the `*_ex_infrastructure` figures): their balances also leave the supply base. */
  readonly exclude?: ReadonlySet<string>;
}

/** A holder the raw pass was asked to track: its rank, the held supply before it, its balance. */
export interface Tracked {
  readonly address: string;
  readonly rank: number;
  readonly prefix: bigint;
  readonly balance: bigint;
}

/** The figures with and without a set of addresses. */
export interface CoreConcentration {
  readonly holders: number;
  /** Σ of the holders' balances (raw). */
  readonly heldRaw: bigint;
  /** The base of the top-k shares (raw): total supply, less the excluded addresses' balances. */
  readonly supplyBaseRaw: bigint;
  readonly largest: Balance | null;
  /** Percent of the supply base; null without holders or without a positive base. */
  readonly top5Percent: number | null;
  readonly top10Percent: number | null;
  /** Population Gini in [0, 1); null without holders. */
  readonly gini: number | null;
  /** 0–10,000; null without holders. */
  readonly hhi: number | null;
  /** Null without holders. */
  readonly nakamoto: number | null;
  /** The holders, largest first (address ascending as tie-break). */
  readonly sorted: readonly Balance[];
  /** Σx² over the holders (raw²). */
  readonly squaresRaw: bigint;
  /** Σ_k k x_k over the holders sorted largest first (k from 0). */
  readonly rankWeightedRaw: bigint;
}

export interface Concentration extends CoreConcentration {
  /** Raw tokens per whale band (keys of WHALE_BANDS as strings). */
  readonly whaleBandsRaw: Readonly<Record<string, bigint>>;
  readonly whales: number;
  /** Whales / holders × 100; null without holders. */
  readonly whaleRatioPercent: number | null;
  /** The holders of `track`, in rank order. */
  readonly tracked: readonly Tracked[];
}

const byBalanceDesc = (a: Balance, b: Balance): number =>
  a.balance > b.balance ? -1 : a.balance < b.balance ? 1 : a.address < b.address ? -1 : a.address > b.address ? 1 : 0;

/**
 * The holders (above dust, not the zero address, not excluded), largest first, address ascending as tie-break. Sorted
 * on a float key first (cheap), the exact bigint order only where two keys are equal: the float of a bigint is
 * monotone, so the order is the exact one.
 */
export function holdersOf(balances: readonly Balance[], dustRaw: bigint, exclude?: ReadonlySet<string>): Balance[] {
  const kept: Balance[] = [];
  for (const b of balances) {
    if (b.balance <= dustRaw || b.address === ZERO_ADDRESS) continue;
    if (exclude?.has(b.address)) continue;
    kept.push(b);
  }
  const keys = new Float64Array(kept.length);
  for (let i = 0; i < kept.length; i++) keys[i] = Number(kept[i]!.balance);
  const order = new Uint32Array(kept.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((i, j) => keys[j]! - keys[i]! || byBalanceDesc(kept[i]!, kept[j]!));
  return Array.from(order, (i) => kept[i]!);
}

/** Population Gini of balances sorted largest first: Σ_k (n − 1 − 2k) x_k / (n Σx). */
export function giniSorted(sortedDesc: readonly bigint[]): number | null {
  const n = sortedDesc.length;
  if (n === 0) return null;
  // Σ_k (n − 1 − 2k) x_k = (n − 1) S − 2 Σ_k k x_k, and Σ_k k x_k = Σ_{j ≥ 1} (S − P_j) with P_j = Σ_{k < j} x_k:
  // additions only.
  let total = 0n;
  for (const x of sortedDesc) total += x;
  if (total === 0n) return 0;
  let prefix = 0n;
  let weighted = 0n;
  for (let j = 1; j < n; j++) {
    prefix += sortedDesc[j - 1]!;
    weighted += total - prefix;
  }
  const bn = BigInt(n);
  return ratioToFloat((bn - 1n) * total - 2n * weighted, bn * total);
}

/** Σ share² × 10,000 of the amounts; null when there is none or their sum is 0. */
export function hhiOf(amounts: readonly bigint[]): number | null {
  let total = 0n;
  let squares = 0n;
  for (const x of amounts) {
    total += x;
    squares += x * x;
  }
  if (total === 0n) return null;
  return ratioToFloat(squares * 10_000n, total * total);
}

/** Smallest number of the largest amounts (sorted largest first) whose sum is more than half of all. */
export function nakamotoSorted(sortedDesc: readonly bigint[]): number | null {
  let total = 0n;
  for (const x of sortedDesc) total += x;
  if (total === 0n) return null;
  let running = 0n;
  for (let k = 0; k < sortedDesc.length; k++) {
    running += sortedDesc[k]!;
    if (2n * running > total) return k + 1;
  }
  return null;
}

/**
 * The figures of one balance list. `sorted`, when given, is `holdersOf(balances, dustRaw)` already computed (the
 * `*_ex_infrastructure` figures reuse the raw figures' order: the excluded holders are filtered out of it, not
 * sorted again).
 */
export function concentration(
  input: ConcentrationInput,
  sorted?: readonly Balance[],
  track?: ReadonlySet<string>,
): Concentration {
  const exclude = input.exclude;
  const tracked: Tracked[] = [];
  const all = sorted ?? holdersOf(input.balances, input.dustRaw);
  const holders = exclude ? all.filter((b) => !exclude.has(b.address)) : [...all];
  let base = input.totalSupply;
  if (exclude) for (const b of input.balances) if (exclude.has(b.address) && b.balance > 0n) base -= b.balance;
  const unit = pow10(input.decimals);
  const bounds = WHALE_BANDS.map((t) => t * unit);
  const bandSums = WHALE_BANDS.map(() => 0n);
  const whaleRaw = WHALE_THRESHOLD_TOKENS * unit;
  const n = holders.length;
  // One pass: Σx, Σx², the top-k sums, the bands, and for the Gini Σ_{j ≥ 1} (S − P_j) = (n − 1) S − Σ_{j ≥ 1} P_j.
  let held = 0n;
  let squares = 0n;
  let prefixSum = 0n;
  let top5 = 0n;
  let top10 = 0n;
  let whales = 0;
  for (let k = 0; k < n; k++) {
    const x = holders[k]!.balance;
    if (track?.has(holders[k]!.address))
      tracked.push({ address: holders[k]!.address, rank: k, prefix: held, balance: x });
    if (k > 0) prefixSum += held;
    held += x;
    squares += x * x;
    if (k < 5) top5 += x;
    if (k < 10) top10 += x;
    if (x > whaleRaw) whales++;
    for (let i = bounds.length - 1; i >= 0; i--) {
      if (x > bounds[i]!) {
        bandSums[i] = bandSums[i]! + x;
        break;
      }
    }
  }
  const bn = BigInt(n);
  let gini: number | null = null;
  if (n > 0) gini = held === 0n ? 0 : ratioToFloat((bn - 1n) * held - 2n * ((bn - 1n) * held - prefixSum), bn * held);
  let nakamoto: number | null = null;
  if (held > 0n) {
    // 2r > S ⟺ r > ⌊S / 2⌋ for integers: no multiplication per step.
    const half = held / 2n;
    let running = 0n;
    for (let k = 0; k < n; k++) {
      running += holders[k]!.balance;
      if (running > half) {
        nakamoto = k + 1;
        break;
      }
    }
  }
  const share = (s: bigint): number | null => (n === 0 || base <= 0n ? null : ratioToFloat(s * 100n, base));
  const whaleBandsRaw: Record<string, bigint> = {};
  WHALE_BANDS.forEach((t, i) => {
    whaleBandsRaw[t.toString()] = bandSums[i]!;
  });
  return {
    holders: n,
    heldRaw: held,
    supplyBaseRaw: base,
    largest: holders[0] ?? null,
    top5Percent: share(top5),
    top10Percent: share(top10),
    gini,
    hhi: held === 0n ? null : ratioToFloat(squares * 10_000n, held * held),
    nakamoto,
    whaleBandsRaw,
    whales,
    whaleRatioPercent: n === 0 ? null : ratioToFloat(BigInt(whales) * 100n, bn),
    sorted: holders,
    squaresRaw: squares,
    rankWeightedRaw: (bn - 1n) * held - prefixSum,
    tracked,
  };
}

/**
 * The figures without `exclude`, from the raw figures of the same balances (computed with `track` ⊇ the excluded
 * holders): the sums lose the excluded balances, and Σ r·y_r over the remaining holders (r their new rank) is
 * Σ_{k∉E} k x_k − Σ_{k∉E} e(k) x_k, e(k) the excluded holders ranked before k; the second sum is, over the excluded
 * ranks p, the remaining holders' balances after p. No second pass over BigInts for the sums: O(n) to filter, O(m)
 * for the m excluded. Equal to `concentration({ ...input, exclude })` (a test holds it to it).
 */
export function concentrationWithout(
  raw: Concentration,
  input: ConcentrationInput & { readonly exclude: ReadonlySet<string> },
): CoreConcentration {
  const exclude = input.exclude;
  const gone = raw.tracked.filter((t) => exclude.has(t.address));
  let held = raw.heldRaw;
  let squares = raw.squaresRaw;
  let weighted = raw.rankWeightedRaw;
  for (const t of gone) {
    held -= t.balance;
    squares -= t.balance * t.balance;
    weighted -= BigInt(t.rank) * t.balance;
  }
  let after = 0n;
  for (let j = gone.length - 1; j >= 0; j--) {
    const t = gone[j]!;
    weighted -= raw.heldRaw - t.prefix - t.balance - after;
    after += t.balance;
  }
  const holders = exclude.size === 0 ? raw.sorted : raw.sorted.filter((b) => !exclude.has(b.address));
  if (holders.length !== raw.holders - gone.length)
    throw new Error('concentrationWithout: the raw figures did not track every excluded holder');
  let base = input.totalSupply;
  for (const b of input.balances) if (exclude.has(b.address) && b.balance > 0n) base -= b.balance;
  const n = holders.length;
  const bn = BigInt(n);
  const topSum = (k: number) => {
    let s = 0n;
    for (let i = 0; i < Math.min(k, n); i++) s += holders[i]!.balance;
    return s;
  };
  const share = (s: bigint): number | null => (n === 0 || base <= 0n ? null : ratioToFloat(s * 100n, base));
  let nakamoto: number | null = null;
  if (held > 0n) {
    // 2r > S ⟺ r > ⌊S / 2⌋ for integers: no multiplication per step.
    const half = held / 2n;
    let running = 0n;
    for (let k = 0; k < n; k++) {
      running += holders[k]!.balance;
      if (running > half) {
        nakamoto = k + 1;
        break;
      }
    }
  }
  let gini: number | null = null;
  if (n > 0) gini = held === 0n ? 0 : ratioToFloat((bn - 1n) * held - 2n * weighted, bn * held);
  return {
    holders: n,
    heldRaw: held,
    supplyBaseRaw: base,
    largest: holders[0] ?? null,
    top5Percent: share(topSum(5)),
    top10Percent: share(topSum(10)),
    gini,
    hhi: held === 0n ? null : ratioToFloat(squares * 10_000n, held * held),
    nakamoto,
    sorted: holders,
    squaresRaw: squares,
    rankWeightedRaw: weighted,
  };
}

/** Only the holder count and the Gini of a balance list (the figures 24 hours before: no whale bands, no HHI). */
export function holdersAndGini(
  balances: readonly Balance[],
  dustRaw: bigint,
): { readonly holders: number; readonly gini: number | null } {
  const sorted = holdersOf(balances, dustRaw);
  let held = 0n;
  let prefixSum = 0n;
  for (let k = 0; k < sorted.length; k++) {
    if (k > 0) prefixSum += held;
    held += sorted[k]!.balance;
  }
  const n = sorted.length;
  if (n === 0) return { holders: 0, gini: null };
  const bn = BigInt(n);
  // As concentration(): numerator (n − 1) S − 2 Σ_k k x_k, with Σ_k k x_k = (n − 1) S − Σ_{j ≥ 1} P_j.
  return { holders: n, gini: held === 0n ? 0 : ratioToFloat(2n * prefixSum - (bn - 1n) * held, bn * held) };
}

/**
 * The holder count and Gini after some balances changed, from the holders sorted before the change: the unchanged
 * holders keep their order, the changed ones (a few: the addresses of a day's transfers) are sorted apart and merged
 * in. O(n) with no second sort of the whole list. `changes` maps an address to its balance in the other list.
 */
export function holdersAndGiniChanged(
  sorted: readonly Balance[],
  changes: ReadonlyMap<string, bigint>,
  dustRaw: bigint,
): { readonly holders: number; readonly gini: number | null } {
  const moved: Balance[] = [];
  for (const [address, balance] of changes)
    if (balance > dustRaw && address !== ZERO_ADDRESS) moved.push({ address, balance });
  moved.sort(byBalanceDesc);
  let held = 0n;
  let prefixSum = 0n;
  let n = 0;
  const add = (x: bigint) => {
    if (n > 0) prefixSum += held;
    held += x;
    n++;
  };
  let m = 0;
  for (const b of sorted) {
    if (changes.has(b.address)) continue;
    while (m < moved.length && byBalanceDesc(moved[m]!, b) < 0) add(moved[m++]!.balance);
    add(b.balance);
  }
  while (m < moved.length) add(moved[m++]!.balance);
  if (n === 0) return { holders: 0, gini: null };
  const bn = BigInt(n);
  return { holders: n, gini: held === 0n ? 0 : ratioToFloat(2n * prefixSum - (bn - 1n) * held, bn * held) };
}
