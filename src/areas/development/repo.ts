import type { Kysely } from 'kysely';
import type { DevelopmentSubject } from '../../registry/index.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';

export { DbEtagStore, ETAG_TOUCH_SECONDS } from '../../store/etags.js';

import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import { type Wait, wait } from '../kit/index.js';
import type { DevelopmentInput, SubjectInput } from './compute.js';
import { type ContributorCount, isBot, type RepoFacts } from './facts.js';
import type {
  DevCommitTable,
  DevEventTable,
  DevelopmentTables,
  DevIssueTable,
  DevRepoDayTable,
  DevRepoTable,
} from './tables.js';
import { subjectKey } from './targets.js';

/** Checkpoint: the repositories each subject tracks (`kind:id` → names), written after a complete discovery. */
export const REPOS_KEY = 'development:repos';
/** Checkpoint: the last complete ingest (instant and per-repository snapshot times). */
const INGESTED_KEY = 'development:ingested';
/** Checkpoint: the last ingest pass that went over every repository, failed ones included. */
const PASSED_KEY = 'development:passed';

/** Rows per INSERT: 11 columns × 200 stays far below SQLite's bound-parameter limit. */
const CHUNK = 200;

/** The repositories each subject tracks, by `kind:id`. */
export type TrackedRepos = Record<string, string[]>;

/** Every tracked repository once (a repository may belong to a protocol and a chain). */
export const trackedNames = (repos: TrackedRepos) => [...new Set(Object.values(repos).flat())];

/** Where a repository's ingestion goes on from: its stored coverage and the times of its newest facts. */
export interface RepoCursors {
  readonly snapshotAt: number;
  readonly commitsFrom: number;
  readonly issuesFrom: number;
  readonly eventsFrom: number;
  /** The newest stored committer date, undefined when no commit is stored. */
  readonly newestCommit: number | undefined;
  /** The newest stored issue update, undefined when no issue is stored. */
  readonly newestIssueUpdate: number | undefined;
}

/** One repository's read, written at once: its snapshot and cursors, the day's observation and the new facts. */
export interface RepoWrite {
  /** Its coverage instants (`*_from`) are also the retention bounds of the commits, issues and events. */
  readonly repo: DevRepoTable;
  readonly day: DevRepoDayTable;
  readonly commits: readonly DevCommitTable[];
  readonly issues: readonly DevIssueTable[];
  readonly events: readonly DevEventTable[];
  /** The retention horizon: day observations before it are deleted. */
  readonly horizon: number;
}

/** What the compute job's gate compares with the last publication's. */
export interface DevelopmentInputs {
  readonly repos: TrackedRepos;
  /** A whole ingest pass has gone over the tracked repositories (failed ones included). */
  readonly passed: boolean;
  /** `[repo, snapshot_at]` of the ingested repositories, by name. */
  readonly snapshots: [string, number][];
}

/** Reads and writes the development area's facts and checkpoints; rows become typed facts here only. */
export class DevelopmentRepository {
  private readonly db: Kysely<Database & DevelopmentTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<DevelopmentTables>();
  }

  async trackedRepos(): Promise<TrackedRepos | undefined> {
    return readCheckpoint<TrackedRepos>(this.platform, REPOS_KEY);
  }

  async saveTrackedRepos(repos: TrackedRepos, at: number): Promise<void> {
    await writeCheckpoint(this.platform, REPOS_KEY, repos, at);
  }

  /** Records a pass that went over every repository, `failed` of them without success. */
  async savePass(at: number, failed: number): Promise<void> {
    await writeCheckpoint(this.platform, PASSED_KEY, { at, failed }, at);
  }

  async passed(): Promise<boolean> {
    return (await readCheckpoint(this.platform, PASSED_KEY)) !== undefined;
  }

  /** Records a pass in which every repository was read. */
  async saveIngested(at: number): Promise<void> {
    await writeCheckpoint(this.platform, INGESTED_KEY, { at }, at);
  }

  /** The cursors of a repository ingested before, else undefined. */
  async cursors(repo: string): Promise<RepoCursors | undefined> {
    const row = await this.db.selectFrom('dev_repos').selectAll().where('repo', '=', repo).executeTakeFirst();
    if (!row) return undefined;
    const commit = await this.db
      .selectFrom('dev_commits')
      .select((eb) => eb.fn.max('committer_date').as('m'))
      .where('repo', '=', repo)
      .executeTakeFirst();
    const issue = await this.db
      .selectFrom('dev_issues')
      .select((eb) => eb.fn.max('updated_at').as('m'))
      .where('repo', '=', repo)
      .executeTakeFirst();
    const time = (m: unknown) => (m === null || m === undefined ? undefined : Number(m));
    return {
      snapshotAt: Number(row.snapshot_at),
      commitsFrom: Number(row.commits_from),
      issuesFrom: Number(row.issues_from),
      eventsFrom: Number(row.events_from),
      newestCommit: time(commit?.m),
      newestIssueUpdate: time(issue?.m),
    };
  }

  /**
   * Writes a repository's read in one transaction and deletes what is older than its coverage instants (issues
   * closed before `issues_from`, which no instant from then on sees open); returns how many facts were deleted.
   */
  async writeRepo(write: RepoWrite): Promise<number> {
    const { repo: row, day } = write;
    const name = row.repo;
    return this.db.transaction().execute(async (trx) => {
      const { repo: _key, ...update } = row;
      await trx
        .insertInto('dev_repos')
        .values(row)
        .onConflict((oc) => oc.column('repo').doUpdateSet(update))
        .execute();
      const { repo: _r, day: _d, ...dayUpdate } = day;
      await trx
        .insertInto('dev_repo_days')
        .values(day)
        .onConflict((oc) => oc.columns(['repo', 'day']).doUpdateSet(dayUpdate))
        .execute();
      await inChunks(
        write.commits,
        (chunk) =>
          trx
            .insertInto('dev_commits')
            .values(chunk)
            .onConflict((oc) => oc.columns(['repo', 'sha']).doNothing())
            .execute(),
        CHUNK,
      );
      await inChunks(
        write.issues,
        (chunk) =>
          trx
            .insertInto('dev_issues')
            .values(chunk)
            .onConflict((oc) =>
              oc.columns(['repo', 'number']).doUpdateSet((eb) => ({
                updated_at: eb.ref('excluded.updated_at'),
                closed_at: eb.ref('excluded.closed_at'),
                merged_at: eb.ref('excluded.merged_at'),
                comments: eb.ref('excluded.comments'),
                association: eb.ref('excluded.association'),
                missing: eb.ref('excluded.missing'),
              })),
            )
            .execute(),
        CHUNK,
      );
      await inChunks(
        write.events,
        (chunk) =>
          trx
            .insertInto('dev_events')
            .values(chunk)
            .onConflict((oc) => oc.columns(['repo', 'id']).doNothing())
            .execute(),
        CHUNK,
      );
      let deleted = 0;
      for (const q of [
        trx.deleteFrom('dev_commits').where('repo', '=', name).where('committer_date', '<', row.commits_from),
        trx.deleteFrom('dev_issues').where('repo', '=', name).where('closed_at', '<', row.issues_from),
        trx.deleteFrom('dev_events').where('repo', '=', name).where('created_at', '<', row.events_from),
        trx.deleteFrom('dev_repo_days').where('repo', '=', name).where('day', '<', write.horizon),
      ]) {
        deleted += Number((await q.executeTakeFirst()).numDeletedRows);
      }
      return deleted;
    });
  }

  /** `[repo, snapshot_at]` of the named repositories that have been ingested, by name: what a computation reads. */
  async snapshotTimes(repos: readonly string[]): Promise<[string, number][]> {
    if (!repos.length) return [];
    const rows = await this.db
      .selectFrom('dev_repos')
      .select(['repo', 'snapshot_at'])
      .where('repo', 'in', repos)
      .orderBy('repo')
      .execute();
    return rows.map((r) => [r.repo, Number(r.snapshot_at)]);
  }

  /** The compute job's inputs: the tracked repositories, whether a pass went over them, and their snapshots. */
  async computeInputs(): Promise<DevelopmentInputs | Wait> {
    const repos = await this.trackedRepos();
    if (!repos) return wait('no repositories discovered yet');
    const snapshots = await this.snapshotTimes(trackedNames(repos));
    if (!snapshots.length) return wait('no repository ingested yet');
    return { repos, passed: await this.passed(), snapshots };
  }

  /**
   * The computation's input: the facts of the subjects that can be published, as of the repository observed
   * longest ago. A subject is published once each of its repositories has been read, so that the first pass
   * (which takes minutes) never publishes a protocol over part of its repositories; after a whole pass, also with
   * those that were read (one that keeps failing must not hide the others).
   */
  async computeInput(
    subjects: readonly DevelopmentSubject[],
    { repos, passed }: DevelopmentInputs,
  ): Promise<DevelopmentInput | Wait> {
    const facts = await this.facts(trackedNames(repos));
    if (!facts.size) return wait('no repository ingested yet');
    const asOf = Math.min(...[...facts.values()].map((f) => f.snapshotAt));
    const inputs: SubjectInput[] = subjects.flatMap((s) => {
      const names = repos[subjectKey(s)] ?? [];
      const read = names.flatMap((name) => facts.get(name) ?? []);
      if (!read.length || (read.length < names.length && !passed)) return [];
      return [{ kind: s.kind, id: s.id, name: s.name, repos: read }];
    });
    if (!inputs.length) return wait('no protocol or chain has all its repositories read yet');
    return { asOf, subjects: inputs };
  }

  /** Facts of the named repositories that have been ingested at least once (others are absent from the map). */
  async facts(repos: readonly string[]): Promise<Map<string, RepoFacts>> {
    const out = new Map<string, RepoFacts>();
    if (!repos.length) return out;
    const rows = await this.db.selectFrom('dev_repos').selectAll().where('repo', 'in', repos).execute();
    for (const row of rows) {
      const commits = await this.db
        .selectFrom('dev_commits')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('committer_date')
        .orderBy('sha')
        .execute();
      const issues = await this.db
        .selectFrom('dev_issues')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('number')
        .execute();
      const events = await this.db
        .selectFrom('dev_events')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const days = await this.db
        .selectFrom('dev_repo_days')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('day')
        .execute();
      out.set(row.repo, {
        repo: row.repo,
        htmlUrl: row.html_url,
        createdAt: Number(row.created_at),
        archived: Number(row.archived) === 1,
        stars: Number(row.stars),
        forks: Number(row.forks),
        commitsTotal: Number(row.commits_total),
        contributors: JSON.parse(row.contributors) as ContributorCount[],
        snapshotAt: Number(row.snapshot_at),
        commitsFrom: Number(row.commits_from),
        issuesFrom: Number(row.issues_from),
        eventsFrom: Number(row.events_from),
        missing: missingOf(row.missing),
        commits: commits.map((c) => ({
          sha: c.sha,
          authorKey: c.author_key,
          authorLogin: c.author_login,
          bot: isBot(c.author_login, c.author_type),
          committerDate: Number(c.committer_date),
          timeFrom: c.time_from === null ? null : Number(c.time_from),
          commentCount: Number(c.comment_count),
          missing: missingOf(c.missing),
        })),
        issues: issues.map((i) => ({
          number: Number(i.number),
          pull: Number(i.pull) === 1,
          authorLogin: i.author_login,
          bot: isBot(i.author_login, i.author_type),
          member: i.association === '' ? null : ['OWNER', 'MEMBER', 'COLLABORATOR'].includes(i.association),
          createdAt: Number(i.created_at),
          closedAt: i.closed_at === null ? null : Number(i.closed_at),
          mergedAt: i.merged_at === null ? null : Number(i.merged_at),
        })),
        events: events.map((e) => ({
          type: e.type,
          actorLogin: e.actor_login,
          createdAt: Number(e.created_at),
          action: e.action,
          issueNumber: e.issue_number === null ? null : Number(e.issue_number),
          timeFrom: e.time_from === null ? null : Number(e.time_from),
          missing: missingOf(e.missing),
        })),
        days: days.map((d) => ({
          day: Number(d.day),
          observedAt: Number(d.observed_at),
          branches: Number(d.branches),
          collaborators: d.collaborators === null ? null : Number(d.collaborators),
          watchers: Number(d.watchers),
        })),
      });
    }
    return out;
  }
}

/** A fact's `missing` note (JSON text) as the fields it names. */
function missingOf(note: string | null): readonly string[] {
  return note === null ? [] : (JSON.parse(note) as string[]);
}
