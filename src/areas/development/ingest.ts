import type { Kysely } from 'kysely';
import { DAY, nowSeconds, startOfUtcDay } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import type { DevelopmentSubject } from '../../registry/index.js';
import type { GithubEndpoint } from '../../sources/github/endpoint.js';
import type { GithubCommit, GithubEvent, GithubIssue, GithubSource } from '../../sources/github/index.js';
import type { Database } from '../../store/schema.js';
import { DbEtagStore, DevelopmentRepository, type TrackedRepos, trackedNames } from './repo.js';
import type { DevCommitTable, DevEventTable, DevIssueTable, DevRepoDayTable, DevRepoTable } from './tables.js';
import { subjectKey } from './targets.js';
import { UNKNOWN_AUTHOR_PREFIX } from './uncertain.js';

/**
 * Every read of the development area from GitHub, turned into facts:
 * - discovery: the repositories each subject tracks now (its organisations' and the named ones);
 * - one repository's ingest: GitHub → facts, written with the repository's cursors in one transaction. Every
 *   request is made before the transaction starts, so a source that fails (after the client's own retries) leaves
 *   the stored facts exactly as they were;
 * - `DevelopmentIngest`, the pass over every tracked repository (two at a time), with its checkpoints.
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

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const secondsOrNull = (iso: string | null | undefined) => (iso ? seconds(iso) : null);

function split(fullName: string): [string, string] {
  const [owner, name] = fullName.split('/');
  if (!owner || !name) throw new Error(`bad repository name ${fullName}`);
  return [owner, name];
}

/**
 * The repositories each subject tracks now: its organisations' public non-fork repositories, plus those named.
 * Case as GitHub spells it (the org listing's `full_name`).
 */
export async function discoverRepos(
  source: GithubSource,
  subjects: readonly DevelopmentSubject[],
): Promise<TrackedRepos> {
  const out: TrackedRepos = {};
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

/** A commit's GitHub account: null, or `{}` (GitHub's description allows both) when the e-mail belongs to none. */
const accountOf = (user: GithubCommit['author']) => (user && 'login' in user ? user : null);

/** The `missing` note of a fact: the fields GitHub's answer lacked, or null when it had them all. */
const note = (missing: readonly string[]) => (missing.length ? JSON.stringify(missing) : null);

/**
 * A commit as a fact. GitHub's description lets a git author or committer lack its name, e-mail or date: the
 * committer date falls back to the author date; a commit with neither is placed at `readAt` (GitHub listed it by
 * then) with `time_from` = `since` (it was listed as committed after that), so a window that contains the whole span
 * counts it and one that cuts it is unknown. An author with no account, e-mail or name is `unknown:<sha>`.
 */
export function commitRow(repo: string, c: GithubCommit, since: number, readAt: number): DevCommitTable {
  const author = accountOf(c.author);
  const login = author?.login ?? null;
  const missing: string[] = [];
  for (const role of ['author', 'committer'] as const) {
    const person = c.commit[role];
    if (person === null) missing.push(`commit.${role}`);
    else
      for (const f of ['name', 'email', 'date'] as const)
        if (person[f] === undefined) missing.push(`commit.${role}.${f}`);
  }
  const email = c.commit.author?.email;
  const name = c.commit.author?.name;
  const authorKey =
    login ??
    (email !== undefined ? `email:${email.toLowerCase()}` : name ? `name:${name}` : `${UNKNOWN_AUTHOR_PREFIX}${c.sha}`);
  const committed = c.commit.committer?.date ?? c.commit.author?.date;
  const authored = c.commit.author?.date ?? committed;
  return {
    repo,
    sha: c.sha,
    author_login: login,
    author_type: author?.type ?? null,
    author_key: authorKey,
    author_date: authored === undefined ? readAt : seconds(authored),
    committer_login: accountOf(c.committer)?.login ?? null,
    committer_date: committed === undefined ? readAt : seconds(committed),
    time_from: committed === undefined ? since : null,
    comment_count: c.commit.comment_count,
    missing: note(missing),
  };
}

function issueRow(repo: string, i: GithubIssue): DevIssueTable {
  return {
    repo,
    number: i.number,
    pull: i.pull_request ? 1 : 0,
    author_login: i.user?.login ?? null,
    author_type: i.user?.type ?? null,
    // Read by no figure; kept empty (and noted) when GitHub leaves it out.
    association: i.author_association ?? '',
    created_at: seconds(i.created_at),
    updated_at: seconds(i.updated_at),
    closed_at: secondsOrNull(i.closed_at),
    merged_at: secondsOrNull(i.pull_request?.merged_at),
    comments: i.comments,
    missing: note(i.author_association === undefined ? ['author_association'] : []),
  };
}

/**
 * Events as facts, newest first as GitHub lists them. An event without a time (GitHub's description lets
 * `created_at` be null) lies between its dated neighbours in the list: it is placed at the newer one (or `readAt`)
 * with `time_from` at the older one (or `oldestFrom`).
 */
export function eventRows(
  repo: string,
  events: readonly GithubEvent[],
  readAt: number,
  oldestFrom: number,
): DevEventTable[] {
  const times = events.map((e) => (e.created_at === null ? null : seconds(e.created_at)));
  return events.map((e, k) => {
    const at = times[k]!;
    const newer = times.slice(0, k).findLast((x) => x !== null) ?? readAt;
    const older = times.slice(k + 1).find((x) => x !== null) ?? oldestFrom;
    return {
      repo,
      id: e.id,
      type: e.type ?? 'UnknownEvent',
      actor_login: e.actor.login,
      created_at: at ?? newer,
      action: e.payload.action ?? null,
      issue_number: e.payload.issue?.number ?? e.payload.number ?? null,
      time_from: at === null ? older : null,
      missing: note(at === null ? ['created_at'] : []),
    };
  });
}

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
  platform: Kysely<Database>,
  fullName: string,
  now: number,
): Promise<RepoIngestResult> {
  const [owner, name] = split(fullName);
  const store = new DevelopmentRepository(platform);
  const prev = await store.cursors(fullName);

  // The snapshot instant: contributors and the total are read now; commits after it are subtracted from neither.
  const detail = await source.getRepo(owner, name);
  const contributors = await source.listContributors(owner, name);
  const total = await source.countCommits(owner, name);
  // Coverage starts at the first pass's lookback and moves up with the retention horizon.
  const horizon = retentionHorizon(now);
  const commitsFrom = Math.max(prev ? prev.commitsFrom : now - LOOKBACK_SECONDS, horizon);
  const commitCursor = prev ? Math.max(prev.newestCommit ?? commitsFrom, commitsFrom) : commitsFrom;
  const commits = await source.listCommits(owner, name, { sinceMs: commitCursor * 1000 });
  const issuesFrom = Math.max(prev ? prev.issuesFrom : now - LOOKBACK_SECONDS, horizon);
  let issues: GithubIssue[];
  if (prev) {
    const cursor = prev.newestIssueUpdate ?? issuesFrom;
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
  const eventTimes = events.flatMap((e) => (e.created_at === null ? [] : [seconds(e.created_at)]));
  const oldest = eventTimes.length ? Math.min(...eventTimes) : now;
  const covered =
    events.length >= EVENTS_MAX ? oldest : Math.max(now - EVENTS_MAX_AGE_SECONDS, seconds(detail.created_at));
  const eventsFrom = Math.max(prev && covered <= prev.snapshotAt ? prev.eventsFrom : covered, horizon);

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
    // An entry without a login (an anonymous one) cannot be followed through commits: left out, and noted.
    contributors: JSON.stringify(
      contributors.flatMap((c) =>
        c.login === undefined ? [] : [{ login: c.login, type: c.type, contributions: c.contributions }],
      ),
    ),
    snapshot_at: now,
    commits_from: commitsFrom,
    issues_from: issuesFrom,
    events_from: eventsFrom,
    missing: note(contributors.some((c) => c.login === undefined) ? ['contributors[].login'] : []),
  };
  const dayRow: DevRepoDayTable = {
    repo: fullName,
    day: Math.floor(now / DAY) * DAY,
    observed_at: now,
    branches: branches.length,
    collaborators: collaborators?.length ?? null,
    watchers: detail.subscribers_count,
    stars: detail.stargazers_count,
    forks: detail.forks_count,
  };
  const commitRows = commits
    .map((c) => commitRow(fullName, c, commitCursor, now))
    .filter((c) => c.committer_date >= commitsFrom);
  const issueRows = issues
    .map((i) => issueRow(fullName, i))
    .filter((i) => i.closed_at === null || i.closed_at >= issuesFrom);
  const eventFacts = eventRows(fullName, events, now, covered).filter((e) => e.created_at >= eventsFrom);

  const pruned = await store.writeRepo({
    repo: repoRow,
    day: dayRow,
    commits: commitRows,
    issues: issueRows,
    events: eventFacts,
    horizon,
  });
  return {
    repo: fullName,
    commits: commitRows.length,
    issues: issueRows.length,
    events: eventFacts.length,
    pruned,
  };
}

/** Repositories read at once (the client keeps at most 2 requests in flight anyway). */
const PARALLEL_REPOS = 2;

/**
 * The ingest pass: discovers the subjects' repositories, then reads each (two at a time). One repository failing
 * leaves its facts as they were, the others go on, and the pass fails after them. The pass reads through the
 * process's one GitHub client (`env.sources`), whose conditional-request cache the runtime keeps in the store's
 * `github_etags` table; its waits (rate limits, backoff) end with the running pass's signal (`runWithStop`), so a
 * stopping service is not held for a minute-long secondary limit.
 */
export class DevelopmentIngest {
  constructor(
    private readonly github: GithubEndpoint,
    private readonly subjects: readonly DevelopmentSubject[],
  ) {}

  async run(ctx: JobContext): Promise<string> {
    const source = this.github.client;
    const etags = new DbEtagStore(ctx.store.db, () => nowSeconds(ctx.clock));
    const store = new DevelopmentRepository(ctx.store.db);
    const before = { ...source.stats };
    const repos = await discoverRepos(source, this.subjects);
    await store.saveTrackedRepos(repos, nowSeconds(ctx.clock));
    const names = trackedNames(repos);
    const failures: string[] = [];
    let facts = 0;
    let pruned = 0;
    let next = 0;
    const worker = async () => {
      while (next < names.length && !ctx.signal.aborted) {
        const name = names[next++]!;
        try {
          const r = await ingestRepo(source, ctx.store.db, name, nowSeconds(ctx.clock));
          facts += r.commits + r.issues + r.events;
          pruned += r.pruned;
        } catch (err) {
          failures.push(`${name}: ${(err as Error).message}`);
          ctx.log.warn({ repo: name, err: (err as Error).message }, 'development.ingest: repository failed');
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_REPOS }, worker));
    // Conditional-request entries of URLs no longer asked (old cursors); in-use ones are refreshed by their 304s.
    const etagsPruned = await etags.prune(nowSeconds(ctx.clock) - ETAG_RETAIN_SECONDS);
    const requests = source.stats.requests - before.requests;
    const notModified = source.stats.notModified - before.notModified;
    const summary =
      `${names.length - failures.length}/${names.length} repositories, ${facts} facts read, ${requests} requests ` +
      `(${notModified} answered 304), ${pruned} facts and ${etagsPruned} ETag entries past retention deleted`;
    if (!ctx.signal.aborted) await store.savePass(nowSeconds(ctx.clock), failures.length);
    if (failures.length) throw new Error(`${summary}; failed: ${failures.slice(0, 3).join('; ')}`);
    await store.saveIngested(nowSeconds(ctx.clock));
    return summary;
  }
}
