/**
 * Figures that depend on a field GitHub's answer left out (docs/methodology/development.md "Missing fields"). Pure.
 *
 * GitHub's REST description lets a commit's git author and committer lack their date, name and e-mail, and an
 * event lack its time. The ingest keeps such a fact with its time as a span, `(timeFrom, time]` (where GitHub's
 * answer puts it: after the `since` it was listed with, between its dated neighbours), and notes the missing fields.
 * A window `(a, b]` then holds it for certain when it holds the whole span and for certain not when it holds none
 * of it; a boundary strictly inside the span makes every count of that window unknown. Such a count is published
 * as null with `no_data`, and the record names the missing fields behind it: never a count that silently left the
 * fact out or put it in.
 */

export interface SpannedFact {
  /** null: the time is exact. */
  readonly timeFrom: number | null;
  readonly missing: readonly string[];
}

/**
 * The missing fields of the facts whose span a boundary cuts (`timeFrom < b < time`): windows ending at these
 * boundaries cannot count them. Sorted, without repeats; empty when every window is exact.
 */
export function cutBy<T extends SpannedFact>(
  facts: readonly T[],
  time: (fact: T) => number,
  boundaries: readonly number[],
): string[] {
  const out = new Set<string>();
  for (const f of facts) {
    if (f.timeFrom === null) continue;
    const to = time(f);
    if (boundaries.some((b) => f.timeFrom! < b && b < to)) for (const m of f.missing) out.add(m);
  }
  return [...out].sort();
}

/** Whether a fact may lie in `(a, b]`: its exact time does, or its span meets the window. */
export function mayLieIn<T extends SpannedFact>(fact: T, time: (fact: T) => number, a: number, b: number): boolean {
  const to = time(fact);
  return fact.timeFrom === null ? a < to && to <= b : to > a && fact.timeFrom < b;
}

/** A commit whose author has no account, e-mail or name: nobody can say whose it is (`ingest.ts` keys it so). */
export const UNKNOWN_AUTHOR_PREFIX = 'unknown:';

/**
 * The missing fields of commits of unknown authorship that may lie in `(a, b]`: counts of distinct people over
 * that window are unknown while there are any.
 */
export function unknownAuthorsIn<
  T extends SpannedFact & { readonly authorKey: string; readonly committerDate: number; readonly bot: boolean },
>(commits: readonly T[], a: number, b: number): string[] {
  const out = new Set<string>();
  for (const c of commits) {
    if (c.bot || !c.authorKey.startsWith(UNKNOWN_AUTHOR_PREFIX)) continue;
    if (mayLieIn(c, (x) => x.committerDate, a, b)) for (const m of c.missing) out.add(m);
  }
  return [...out].sort();
}

/** The union of several lists of missing fields, sorted, without repeats. */
export function unionOf(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort();
}

/** UTC midnights strictly after `from` up to `to`: where a commit's active day changes. */
export function midnightsIn(from: number, to: number): number[] {
  const day = 86_400;
  const out: number[] = [];
  for (let d = Math.floor(from / day) * day + day; d <= to; d += day) out.push(d);
  return out;
}
