import { DAY, HOUR, startOfUtcDay } from '../../core/time.js';
import type { DevelopmentSubject } from '../../registry/index.js';
import type {
  CachedResponse,
  EtagStore,
  GithubCommit,
  GithubEvent,
  GithubIssue,
  GithubSource,
} from '../../sources/github/index.js';
import type { DevCommitTable, DevDb, DevEventTable, DevIssueTable, DevRepoTable } from './facts.js';

/**
 * Ingestion of one repository: GitHub → facts, written with the repository's cursors in one transaction. Every
 * request is made before the transaction starts, so a source that fails (after the client's own retries) leaves
 * the stored facts exactly as they were.
 *
 * Incremental: commits are read `since` the newest stored committer date, issues `since` the newest stored update;
 * with unchanged cursors the URLs are the same as last time, so GitHub answers 304 from the ETag cache (free).
 *
 * Retention: facts older than `RETAIN_SECONDS` before the pass are deleted in the same transaction, and the
 * repository's coverage instants move up to that horizon, so what is kept stays complete (docs/methodology/
 * development.md "Retention").
 */

/** What the first run of a repository reads back: 12 weeks of continuity plus a 28-day class window plus margin. */
export const LOOKBACK_SECONDS = 120 * DAY;
/** GitHub lists a repository's events of the past 90 days, at most 300. */
export const EVENTS_MAX_AGE_SECONDS = 90 * DAY;
export const EVENTS_MAX = 300;
/**
 * Facts kept: the first pass's lookback. The oldest fact a document reads is 104 days before its as_of
 * (maintenance: items opened 97–7 days before the oldest of the 7 daily instants, 6 days back); commits 90 days
 * (12 weeks of continuity before the oldest instant, `active_90d`), events 90 days (first responses). 120 days
 * leave a margin for a repository whose ingestion stalled (a publication's as_of is its oldest snapshot).
 */
export const RETAIN_SECONDS = LOOKBACK_SECONDS;
/** The retention horizon of a pass at `now`: whole UTC days, so cursors (and URLs) move once a day at most. */
export const retentionHorizon = (now: number) => startOfUtcDay(now - RETAIN_SECONDS);
/** ETag entries neither stored nor revalidated for this long are deleted (old cursors' URLs). */
export const ETAG_RETAIN_SECONDS = 2 * DAY;
/** A revalidated entry's `updated_at` is refreshed when older than this (a write per entry per 6 hours at most). */
export const ETAG_TOUCH_SECONDS = 6 * HOUR;

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const secondsOrNull = (iso: string | null | undefined) => (iso ? seconds(iso) : null);

/** The ETag cache's persistence in the `github_etags` table. */
export class DbEtagStore implements EtagStore {
  constructor(
    private readonly db: DevDb,
    private readonly now: () => number,
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    const row = await this.db.selectFrom('github_etags').selectAll().where('key', '=', key).executeTakeFirst();
    if (!row) return undefined;
    return { etag: row.etag, data: JSON.parse(row.data), ...(row.link === null ? {} : { link: row.link }) };
  }

  async set(key: string, value: CachedResponse): Promise<void> {
    const row = {
      key,
      etag: value.etag,
      data: JSON.stringify(value.data),
      link: value.link ?? null,
      updated_at: this.now(),
    };
    await this.db
      .insertInto('github_etags')
      .values(row)
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({ etag: row.etag, data: row.data, link: row.link, updated_at: row.updated_at }),
      )
      .execute();
  }

  async touch(key: string): Promise<void> {
    const now = this.now();
    await this.db
      .updateTable('github_etags')
      .set({ updated_at: now })
      .where('key', '=', key)
      .where('updated_at', '<', now - ETAG_TOUCH_SECONDS)
      .execute();
  }

  /** Deletes the entries neither stored nor revalidated since `before` (Unix seconds); returns how many. */
  async prune(before: number): Promise<number> {
    const result = await this.db.deleteFrom('github_etags').where('updated_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function split(fullName: string): [string, string] {
  const [owner, name] = fullName.split('/');
  if (!owner || !name) throw new Error(`bad repository name ${fullName}`);
  return [owner, name];
}

/** `kind:id` of a subject (`protocol:aave`, `chain:ethereum`). */
export const subjectKey = (s: Pick<DevelopmentSubject, 'kind' | 'id'>) => `${s.kind}:${s.id}`;

/**
 * The repositories each subject tracks now: its organisations' public non-fork repositories, plus those named.
 * Case as GitHub spells it (the org listing's `full_name`).
 */
export async function discoverRepos(
  source: GithubSource,
  subjects: readonly DevelopmentSubject[],
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const subject of subjects) {
    const names = new Map<string, string>();
    for (const org of subject.orgs) {
      for (const r of await source.listOrgRepos(org)) {
        if (!r.fork) names.set(r.full_name.toLowerCase(), r.full_name);
      }
    }
    for (const full of subject.repos) {
      if (!names.has(full.toLowerCase())) {
        const [owner, name] = split(full);
        const detail = await source.getRepo(owner, name);
        names.set(detail.full_name.toLowerCase(), detail.full_name);
      }
    }
    out[subjectKey(subject)] = [...names.values()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  }
  return out;
}

function commitRow(repo: string, c: GithubCommit): DevCommitTable {
  const login = c.author?.login ?? null;
  return {
    repo,
    sha: c.sha,
    author_login: login,
    author_type: c.author?.type ?? null,
    author_key: login ?? `email:${(c.commit.author?.email ?? '').toLowerCase()}`,
    author_date: seconds(c.commit.author?.date ?? c.commit.committer?.date ?? '1970-01-01T00:00:00Z'),
    committer_login: c.committer?.login ?? null,
    committer_date: seconds(c.commit.committer?.date ?? c.commit.author?.date ?? '1970-01-01T00:00:00Z'),
    comment_count: c.commit.comment_count,
  };
}

function issueRow(repo: string, i: GithubIssue): DevIssueTable {
  return {
    repo,
    number: i.number,
    pull: i.pull_request ? 1 : 0,
    author_login: i.user?.login ?? null,
    author_type: i.user?.type ?? null,
    association: i.author_association,
    created_at: seconds(i.created_at),
    updated_at: seconds(i.updated_at),
    closed_at: secondsOrNull(i.closed_at),
    merged_at: secondsOrNull(i.pull_request?.merged_at),
    comments: i.comments,
  };
}

function eventRow(repo: string, e: GithubEvent): DevEventTable {
  return {
    repo,
    id: e.id,
    type: e.type ?? 'UnknownEvent',
    actor_login: e.actor.login,
    created_at: seconds(e.created_at),
    action: e.payload.action ?? null,
    issue_number: e.payload.issue?.number ?? e.payload.number ?? null,
  };
}

/** Rows per INSERT: 11 columns × 200 stays far below SQLite's bound-parameter limit. */
const CHUNK = 200;

export interface RepoIngestResult {
  readonly repo: string;
  readonly commits: number;
  readonly issues: number;
  readonly events: number;
  /** Facts deleted as older than the retention horizon. */
  readonly pruned: number;
}

/** Reads one repository and writes its facts and cursors in one transaction. `now`: Unix seconds. */
export async function ingestRepo(
  source: GithubSource,
  db: DevDb,
  fullName: string,
  now: number,
): Promise<RepoIngestResult> {
  const [owner, name] = split(fullName);
  const prev = await db.selectFrom('dev_repos').selectAll().where('repo', '=', fullName).executeTakeFirst();
  const newest = async (table: 'dev_commits' | 'dev_issues', column: 'committer_date' | 'updated_at') => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.max(column as 'updated_at').as('m'))
      .where('repo', '=', fullName)
      .executeTakeFirst();
    return row?.m === null || row?.m === undefined ? undefined : Number(row.m);
  };

  // The snapshot instant: contributors and the total are read now; commits after it are subtracted from neither.
  const detail = await source.getRepo(owner, name);
  const contributors = await source.listContributors(owner, name);
  const total = await source.countCommits(owner, name);
  // Coverage starts at the first pass's lookback and moves up with the retention horizon.
  const horizon = retentionHorizon(now);
  const commitsFrom = Math.max(prev ? Number(prev.commits_from) : now - LOOKBACK_SECONDS, horizon);
  const commitCursor = prev
    ? Math.max((await newest('dev_commits', 'committer_date')) ?? commitsFrom, commitsFrom)
    : commitsFrom;
  const commits = await source.listCommits(owner, name, { sinceMs: commitCursor * 1000 });
  const issuesFrom = Math.max(prev ? Number(prev.issues_from) : now - LOOKBACK_SECONDS, horizon);
  let issues: GithubIssue[];
  if (prev) {
    const cursor = (await newest('dev_issues', 'updated_at')) ?? issuesFrom;
    issues = await source.listIssues(owner, name, { sinceMs: cursor * 1000 });
  } else {
    // Every issue open at issuesFrom or later: those open now, and those updated (closed) since.
    const open = await source.listIssues(owner, name, { state: 'open' });
    const recent = await source.listIssues(owner, name, { sinceMs: issuesFrom * 1000 });
    issues = [...new Map([...open, ...recent].map((i) => [i.number, i])).values()];
  }
  const events = await source.listEvents(owner, name);
  const branches = await source.listBranches(owner, name);
  const collaborators = await source.listCollaborators(owner, name);

  // Events cover (oldest, now] when GitHub's list was cut at 300, else its 90 days; joined to the stored coverage
  // when the two overlap.
  const oldest = events.length ? Math.min(...events.map((e) => seconds(e.created_at))) : now;
  const covered =
    events.length >= EVENTS_MAX ? oldest : Math.max(now - EVENTS_MAX_AGE_SECONDS, seconds(detail.created_at));
  const eventsFrom = Math.max(
    prev && covered <= Number(prev.snapshot_at) ? Number(prev.events_from) : covered,
    horizon,
  );

  const repoRow: DevRepoTable = {
    repo: fullName,
    github_id: detail.id,
    html_url: detail.html_url,
    default_branch: detail.default_branch,
    created_at: seconds(detail.created_at),
    pushed_at: secondsOrNull(detail.pushed_at),
    archived: detail.archived ? 1 : 0,
    stars: detail.stargazers_count,
    forks: detail.forks_count,
    watchers: detail.subscribers_count,
    open_issues: detail.open_issues_count,
    commits_total: total,
    contributors: JSON.stringify(
      contributors.map((c) => ({ login: c.login, type: c.type, contributions: c.contributions })),
    ),
    snapshot_at: now,
    commits_from: commitsFrom,
    issues_from: issuesFrom,
    events_from: eventsFrom,
  };
  const day = Math.floor(now / DAY) * DAY;
  const dayRow = {
    repo: fullName,
    day,
    observed_at: now,
    branches: branches.length,
    collaborators: collaborators?.length ?? null,
    watchers: detail.subscribers_count,
    stars: detail.stargazers_count,
    forks: detail.forks_count,
  };
  const commitRows = commits.map((c) => commitRow(fullName, c)).filter((c) => c.committer_date >= commitsFrom);
  const issueRows = issues
    .map((i) => issueRow(fullName, i))
    .filter((i) => i.closed_at === null || i.closed_at >= issuesFrom);
  const eventRows = events.map((e) => eventRow(fullName, e)).filter((e) => e.created_at >= eventsFrom);

  const pruned = await db.transaction().execute(async (trx) => {
    const { repo: _key, ...update } = repoRow;
    await trx
      .insertInto('dev_repos')
      .values(repoRow)
      .onConflict((oc) => oc.column('repo').doUpdateSet(update))
      .execute();
    const { repo: _r, day: _d, ...dayUpdate } = dayRow;
    await trx
      .insertInto('dev_repo_days')
      .values(dayRow)
      .onConflict((oc) => oc.columns(['repo', 'day']).doUpdateSet(dayUpdate))
      .execute();
    for (let i = 0; i < commitRows.length; i += CHUNK) {
      await trx
        .insertInto('dev_commits')
        .values(commitRows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.columns(['repo', 'sha']).doNothing())
        .execute();
    }
    for (let i = 0; i < issueRows.length; i += CHUNK) {
      await trx
        .insertInto('dev_issues')
        .values(issueRows.slice(i, i + CHUNK))
        .onConflict((oc) =>
          oc.columns(['repo', 'number']).doUpdateSet((eb) => ({
            updated_at: eb.ref('excluded.updated_at'),
            closed_at: eb.ref('excluded.closed_at'),
            merged_at: eb.ref('excluded.merged_at'),
            comments: eb.ref('excluded.comments'),
            association: eb.ref('excluded.association'),
          })),
        )
        .execute();
    }
    for (let i = 0; i < eventRows.length; i += CHUNK) {
      await trx
        .insertInto('dev_events')
        .values(eventRows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.columns(['repo', 'id']).doNothing())
        .execute();
    }
    // Retention: what is older than the coverage instants just written (issues closed before it, which no
    // instant from then on sees open).
    let deleted = 0;
    for (const q of [
      trx.deleteFrom('dev_commits').where('repo', '=', fullName).where('committer_date', '<', commitsFrom),
      trx.deleteFrom('dev_issues').where('repo', '=', fullName).where('closed_at', '<', issuesFrom),
      trx.deleteFrom('dev_events').where('repo', '=', fullName).where('created_at', '<', eventsFrom),
      trx.deleteFrom('dev_repo_days').where('repo', '=', fullName).where('day', '<', horizon),
    ]) {
      deleted += Number((await q.executeTakeFirst()).numDeletedRows);
    }
    return deleted;
  });
  return {
    repo: fullName,
    commits: commitRows.length,
    issues: issueRows.length,
    events: eventRows.length,
    pruned,
  };
}
