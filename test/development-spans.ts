/**
 * What two runs of the development ingest both hold, for the multi-process test's comparison of their facts. The
 * GitHub stand-in moves with the wall clock and the two runs read it at different instants, so each table is compared
 * over what both could have read: `at` is the column that bounds an item's first appearance, and per repository the
 * span from the later of the two runs' oldest `at` to the earlier of their newest (`spansByRepo`).
 *
 * Issues have a second bound: a run keeps the issues open at its coverage instant `issues_from` or later (closed at
 * or after it), and that instant is its first pass's start less the 120-day look-back, so the run that read a
 * repository minutes later holds none of the issues closed in those minutes, 120 days ago, however old they are
 * (17,925 against 17,926 issues on CI). Per repository they are compared from the later of the two runs'
 * `issues_from` (`closedFromByRepo`).
 */

export type RepoAt = { repo: string; at: unknown; closed?: unknown };
export type Span = { from: number; to: number };

/**
 * Per repository, the span both runs hold every item of: from the later of the two runs' oldest `at` there to the
 * earlier of their newest. The ingest reads repository by repository, so one run may read a repository minutes after
 * the other: it can hold a newer item (an issue opened in between: 17,952 against 17,953 issues once with one
 * table-wide cutoff), and it can miss an older one (GitHub lists a repository's latest 300 events, and a first pass
 * looks back 120 days from its own start: 17,121 against 17,122 events once). A repository one side has no item of
 * is left out; the wait asks both runs for the same repositories.
 */
export function spansByRepo(a: readonly RepoAt[], b: readonly RepoAt[]): Map<string, Span> {
  const range = (rows: readonly RepoAt[]) => {
    const m = new Map<string, Span>();
    for (const r of rows) {
      const t = Number(r.at);
      const x = m.get(r.repo);
      m.set(r.repo, x ? { from: Math.min(x.from, t), to: Math.max(x.to, t) } : { from: t, to: t });
    }
    return m;
  };
  const ra = range(a);
  const rb = range(b);
  const out = new Map<string, Span>();
  for (const [repo, x] of ra) {
    const y = rb.get(repo);
    if (y) out.set(repo, { from: Math.max(x.from, y.from), to: Math.min(x.to, y.to) });
  }
  return out;
}

/** Whether a row's `at` lies in its repository's common span. */
export const inSpan = (spans: Map<string, Span>, repo: string, at: number) => {
  const span = spans.get(repo);
  return span !== undefined && at >= span.from && at <= span.to;
};

/** A repository's coverage instant in one run (`dev_repos.issues_from`). */
export type RepoFrom = { repo: string; instant: unknown };

/** Per repository both runs read, the later of their two coverage instants. */
export function closedFromByRepo(a: readonly RepoFrom[], b: readonly RepoFrom[]): Map<string, number> {
  const of = new Map(b.map((r) => [r.repo, Number(r.instant)]));
  const out = new Map<string, number>();
  for (const r of a) {
    const other = of.get(r.repo);
    if (other !== undefined) out.set(r.repo, Math.max(Number(r.instant), other));
  }
  return out;
}

/**
 * Whether both runs hold a row: its `at` in the repository's span and, where coverage instants are given (issues),
 * open or closed at or after the later of the two.
 */
export function heldByBoth(
  spans: Map<string, Span>,
  closedFrom: Map<string, number> | undefined,
  row: RepoAt,
): boolean {
  if (!inSpan(spans, row.repo, Number(row.at))) return false;
  if (closedFrom === undefined) return true;
  const from = closedFrom.get(row.repo);
  return from !== undefined && (row.closed === null || row.closed === undefined || Number(row.closed) >= from);
}
