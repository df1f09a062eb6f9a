import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';

/**
 * The development area's facts: table types of its migration (`migration.ts`) and the typed facts compute reads.
 * Times are Unix seconds. A repository is named `owner/name` as GitHub spells it.
 */

export interface GithubEtagTable {
  key: string;
  etag: string;
  data: string;
  link: string | null;
  updated_at: number;
}

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
  committer_date: number;
  comment_count: number;
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
}

export interface DevEventTable {
  repo: string;
  id: string;
  type: string;
  actor_login: string;
  created_at: number;
  action: string | null;
  issue_number: number | null;
}

export type DevelopmentTables = {
  github_etags: GithubEtagTable;
  dev_repos: DevRepoTable;
  dev_repo_days: DevRepoDayTable;
  dev_commits: DevCommitTable;
  dev_issues: DevIssueTable;
  dev_events: DevEventTable;
};

export type DevDatabase = Database & DevelopmentTables;
export type DevDb = Kysely<DevDatabase>;
export type DevTrx = Transaction<DevDatabase>;

/** The store's database seen with the development tables (they are this area's own, outside store/schema.ts). */
export function devDb(db: Kysely<Database>): DevDb {
  return db.withTables<DevelopmentTables>();
}

// ---- Facts as compute sees them -------------------------------------------------------------------------------

export interface ContributorCount {
  readonly login: string;
  readonly type: string;
  readonly contributions: number;
}

export interface CommitFact {
  readonly sha: string;
  readonly authorKey: string;
  readonly authorLogin: string | null;
  /** A bot account (GitHub type `Bot`, or a `[bot]` login). */
  readonly bot: boolean;
  readonly committerDate: number;
  readonly commentCount: number;
}

export interface IssueFact {
  readonly number: number;
  readonly pull: boolean;
  readonly authorLogin: string | null;
  readonly bot: boolean;
  /** OWNER, MEMBER or COLLABORATOR. */
  readonly member: boolean;
  readonly createdAt: number;
  readonly closedAt: number | null;
  readonly mergedAt: number | null;
}

export interface EventFact {
  readonly type: string;
  readonly actorLogin: string;
  readonly createdAt: number;
  readonly action: string | null;
  readonly issueNumber: number | null;
}

export interface RepoDayFact {
  readonly day: number;
  readonly observedAt: number;
  readonly branches: number;
  readonly collaborators: number | null;
  readonly watchers: number;
}

/** Everything compute knows about one repository. */
export interface RepoFacts {
  readonly repo: string;
  readonly htmlUrl: string;
  readonly createdAt: number;
  readonly archived: boolean;
  readonly stars: number;
  readonly forks: number;
  readonly commitsTotal: number;
  readonly contributors: readonly ContributorCount[];
  readonly snapshotAt: number;
  readonly commitsFrom: number;
  readonly issuesFrom: number;
  readonly eventsFrom: number;
  /** Ascending committer date. */
  readonly commits: readonly CommitFact[];
  readonly issues: readonly IssueFact[];
  /** Ascending time. */
  readonly events: readonly EventFact[];
  /** Ascending day. */
  readonly days: readonly RepoDayFact[];
}

export function isBot(login: string | null, type: string | null): boolean {
  return type === 'Bot' || login?.endsWith('[bot]') === true;
}
