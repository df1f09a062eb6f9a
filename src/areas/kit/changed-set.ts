/**
 * State kept incrementally for a set of accounts (Maker's vaults; any area whose snapshot reads one value per account
 * an event names): a snapshot reads again only the accounts the events between it and a base snapshot touched, and
 * carries every other account's value from the base, which is exact as long as those events are the only way the
 * value changes. A periodic full read (the reconciliation) reads every account of the set again and counts the ones
 * whose value differs from what was carried (`drift`: a change no event announced, which should never happen).
 *
 * Pure: the caller reads the values and stores the set; keys are the caller's text keys of an account.
 */

/** What a snapshot starts from: the set of accounts at a base snapshot and their values there. */
export interface ChangedSetBase<V> {
  /** Every account of the set at the base (those whose value is empty included: an event may name them again). */
  readonly keys: Iterable<string>;
  /** The accounts' values at the base; an account of `keys` absent here has the empty value. */
  readonly values: ReadonlyMap<string, V>;
  /** Unix seconds of the newest full read this base descends from (the base's own time when it was one). */
  readonly reconciledAt: number;
}

/** Which accounts a snapshot reads. */
export interface ChangedSetPlan {
  /** Every account of the set after the snapshot, sorted: the base's and those the events named. */
  readonly keys: readonly string[];
  /** The accounts to read: every key on a full read, else those the events touched (sorted). */
  readonly read: readonly string[];
  /** A full read: no base (the first snapshot, or a base that kept no set) or the reconciliation is due. */
  readonly full: boolean;
  /** Unix seconds of the full read the snapshot's carried values descend from. */
  readonly reconciledAt: number;
}

/**
 * Whether a snapshot at `at` must read every account: `everySeconds` or more of chain time lie between it and the
 * last full read its base descends from (either way: a snapshot below its base, a past day's, counts the same).
 */
export function reconciliationDue(reconciledAt: number, at: number, everySeconds: number): boolean {
  return Math.abs(at - reconciledAt) >= everySeconds;
}

/**
 * The plan of a snapshot at time `at`: with no base, every account `touched` names (then the events up to the
 * snapshot) is read; with one, the accounts the events between the base and the snapshot touched, or every account
 * of the set when the reconciliation is due.
 */
export function planChangedSet<V>(
  base: ChangedSetBase<V> | null,
  touched: Iterable<string>,
  at: number,
  everySeconds: number,
): ChangedSetPlan {
  const changed = new Set(touched);
  const all = new Set(base ? base.keys : []);
  for (const k of changed) all.add(k);
  const keys = [...all].sort();
  const full = base === null || reconciliationDue(base.reconciledAt, at, everySeconds);
  return {
    keys,
    read: full ? keys : [...changed].sort(),
    full,
    reconciledAt: full ? at : base.reconciledAt,
  };
}

/**
 * The values after a snapshot: those read, and for every other account of the set its value at the base (absent:
 * empty). On a full read with a base, `drift` names the accounts the events did not touch whose value read differs
 * from the base's (`same` compares two values, `undefined` being the empty value).
 */
export function mergeChangedSet<V>(
  plan: ChangedSetPlan,
  base: ChangedSetBase<V> | null,
  read: ReadonlyMap<string, V | undefined>,
  touched: Iterable<string>,
  same: (a: V | undefined, b: V | undefined) => boolean,
): { values: Map<string, V | undefined>; drift: string[] } {
  const changed = new Set(touched);
  const toRead = new Set(plan.read);
  const values = new Map<string, V | undefined>();
  const drift: string[] = [];
  for (const k of plan.keys) {
    if (read.has(k)) {
      const value = read.get(k);
      values.set(k, value);
      if (plan.full && base && !changed.has(k) && !same(value, base.values.get(k))) drift.push(k);
    } else if (toRead.has(k)) {
      throw new Error(`changed set: ${k} was to be read and was not`);
    } else values.set(k, base?.values.get(k));
  }
  return { values, drift };
}
