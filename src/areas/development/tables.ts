import type { Kysely, Migration } from 'kysely';
import type { GithubEtagTable } from '../../store/etags.js';

/**
 * Tables of the development area (see src/store/migrations.ts for the portability rules): the GitHub source's
 * conditional-request cache, and per repository its snapshot with the ingestion's cursors, the day's observations,
 * commits, issues and pull requests, and public events. Times are Unix seconds (`bigint`), JSON is text; a
 * repository is named `owner/name` as GitHub spells it. Kysely sees them through
 * `platform.withTables<DevelopmentTables>()` (they are the area's own, outside store/schema.ts).
 */
export type DevelopmentTables = {
  github_etags: GithubEtagTable;
  dev_repos: DevRepoTable;
  dev_repo_days: DevRepoDayTable;
  dev_commits: DevCommitTable;
  dev_issues: DevIssueTable;
  dev_events: DevEventTable;
};

export interface DevRepoTable {
  repo: string;
  github_id: number;
  html_url: string;
  default_branch: string;
  created_at: number;
  pushed_at: number | null;
  archived: number;
  stars: number;
  forks: number;
  watchers: number;
  open_issues: number;
  /** Commits on the default branch at `snapshot_at`. */
  commits_total: number;
  /** JSON `ContributorCount[]` at `snapshot_at` (GitHub's contributors: accounts, bots included). */
  contributors: string;
  snapshot_at: number;
  /** Coverage: commits with a committer date at or after this are all stored. */
  commits_from: number;
  /** Coverage: every issue open at or after this instant is stored. */
  issues_from: number;
  /** Coverage: every public event at or after this instant is stored. */
  events_from: number;
  /** JSON array of the GitHub fields the snapshot lacked (`contributors[].login`), or null: see `MissingNote`. */
  missing: string | null;
}

export interface DevRepoDayTable {
  repo: string;
  /** Start of the UTC day. */
  day: number;
  observed_at: number;
  branches: number;
  collaborators: number | null;
  watchers: number;
  stars: number;
  forks: number;
}

export interface DevCommitTable {
  repo: string;
  sha: string;
  author_login: string | null;
  /** `User`, `Bot`, or null when the e-mail belongs to no account. */
  author_type: string | null;
  /** The author's login, or `email:<address>` when the e-mail belongs to no account. */
  author_key: string;
  author_date: number;
  committer_login: string | null;
  /**
   * The committer date, else the author date; a commit with neither is placed at the pass that read it, and
   * `time_from` is the earliest it can be (the `since` it was listed with).
   */
  committer_date: number;
  /** null: `committer_date` is exact; else the commit happened in (time_from, committer_date]. */
  time_from: number | null;
  comment_count: number;
  /** JSON array of the fields GitHub's answer lacked (`commit.committer.date`, …), or null. */
  missing: string | null;
}

export interface DevIssueTable {
  repo: string;
  number: number;
  pull: number;
  author_login: string | null;
  author_type: string | null;
  association: string;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  merged_at: number | null;
  comments: number;
  /** JSON array of the fields GitHub's answer lacked (`author_association`), or null. */
  missing: string | null;
}

export interface DevEventTable {
  repo: string;
  id: string;
  type: string;
  actor_login: string;
  created_at: number;
  action: string | null;
  issue_number: number | null;
  /** null: `created_at` is exact; else the event happened in (time_from, created_at] (GitHub sent no time). */
  time_from: number | null;
  /** JSON array of the fields GitHub's answer lacked (`created_at`), or null. */
  missing: string | null;
}

/** Migrations of the tables above, under their original keys. */
export const DEVELOPMENT_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0004_development': {
    async up(db: Kysely<unknown>) {
      // The GitHub source's conditional-request cache (ETag, body and Link of each URL's last 200), so that 304s
      // survive a restart.
      await db.schema
        .createTable('github_etags')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('etag', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('link', 'text')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      // One row per tracked repository: its latest snapshot (repository object, total commits, contributors) and
      // the ingestion's cursors and coverage.
      await db.schema
        .createTable('dev_repos')
        .addColumn('repo', 'text', (c) => c.primaryKey())
        .addColumn('github_id', 'bigint', (c) => c.notNull())
        .addColumn('html_url', 'text', (c) => c.notNull())
        .addColumn('default_branch', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('pushed_at', 'bigint')
        .addColumn('archived', 'bigint', (c) => c.notNull())
        .addColumn('stars', 'bigint', (c) => c.notNull())
        .addColumn('forks', 'bigint', (c) => c.notNull())
        .addColumn('watchers', 'bigint', (c) => c.notNull())
        .addColumn('open_issues', 'bigint', (c) => c.notNull())
        .addColumn('commits_total', 'bigint', (c) => c.notNull())
        .addColumn('contributors', 'text', (c) => c.notNull())
        .addColumn('snapshot_at', 'bigint', (c) => c.notNull())
        .addColumn('commits_from', 'bigint', (c) => c.notNull())
        .addColumn('issues_from', 'bigint', (c) => c.notNull())
        .addColumn('events_from', 'bigint', (c) => c.notNull())
        .execute();

      // What can only be observed, not reconstructed (branches, collaborators, watchers): the day's last snapshot.
      await db.schema
        .createTable('dev_repo_days')
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('day', 'bigint', (c) => c.notNull())
        .addColumn('observed_at', 'bigint', (c) => c.notNull())
        .addColumn('branches', 'bigint', (c) => c.notNull())
        .addColumn('collaborators', 'bigint')
        .addColumn('watchers', 'bigint', (c) => c.notNull())
        .addColumn('stars', 'bigint', (c) => c.notNull())
        .addColumn('forks', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dev_repo_days_pk', ['repo', 'day'])
        .execute();

      // Commits of the default branch (committer date at or after the repository's `commits_from`).
      await db.schema
        .createTable('dev_commits')
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('sha', 'text', (c) => c.notNull())
        .addColumn('author_login', 'text')
        .addColumn('author_type', 'text')
        .addColumn('author_key', 'text', (c) => c.notNull())
        .addColumn('author_date', 'bigint', (c) => c.notNull())
        .addColumn('committer_login', 'text')
        .addColumn('committer_date', 'bigint', (c) => c.notNull())
        .addColumn('comment_count', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dev_commits_pk', ['repo', 'sha'])
        .execute();
      await db.schema
        .createIndex('dev_commits_repo_date')
        .on('dev_commits')
        .columns(['repo', 'committer_date'])
        .execute();

      // Issues and pull requests (latest state).
      await db.schema
        .createTable('dev_issues')
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('number', 'bigint', (c) => c.notNull())
        .addColumn('pull', 'bigint', (c) => c.notNull())
        .addColumn('author_login', 'text')
        .addColumn('author_type', 'text')
        .addColumn('association', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('closed_at', 'bigint')
        .addColumn('merged_at', 'bigint')
        .addColumn('comments', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dev_issues_pk', ['repo', 'number'])
        .execute();

      // Public events (GitHub lists the past 90 days, at most 300; kept here beyond that, up to the retention horizon
      // of ingest.ts).
      await db.schema
        .createTable('dev_events')
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('actor_login', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('action', 'text')
        .addColumn('issue_number', 'bigint')
        .addPrimaryKeyConstraint('dev_events_pk', ['repo', 'id'])
        .execute();
      await db.schema.createIndex('dev_events_repo_time').on('dev_events').columns(['repo', 'created_at']).execute();
    },
  },
  '0011_development_missing_fields': {
    async up(db: Kysely<unknown>) {
      // What GitHub's description lets an answer leave out (a git author's date, an issue's author_association, an
      // event's time): the facts keep the note, and an exact time becomes a span when the time is missing.
      await db.schema.alterTable('dev_repos').addColumn('missing', 'text').execute();
      await db.schema.alterTable('dev_commits').addColumn('time_from', 'bigint').execute();
      await db.schema.alterTable('dev_commits').addColumn('missing', 'text').execute();
      await db.schema.alterTable('dev_issues').addColumn('missing', 'text').execute();
      await db.schema.alterTable('dev_events').addColumn('time_from', 'bigint').execute();
      await db.schema.alterTable('dev_events').addColumn('missing', 'text').execute();
    },
  },
};
