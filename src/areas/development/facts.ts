/**
 * The development area's facts as compute reads them (rows become these in `repo.ts` only). Times are Unix
 * seconds. A repository is named `owner/name` as GitHub spells it.
 */
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
  /** The committer date (else the author date); with `timeFrom`, the latest the commit can be. */
  readonly committerDate: number;
  /** null: `committerDate` is exact; else GitHub sent no date and the commit lies in (timeFrom, committerDate]. */
  readonly timeFrom: number | null;
  readonly commentCount: number;
  /** The fields GitHub's answer lacked (`commit.committer.date`, …): see `uncertain.ts`. */
  readonly missing: readonly string[];
}

export interface IssueFact {
  readonly number: number;
  readonly pull: boolean;
  readonly authorLogin: string | null;
  readonly bot: boolean;
  /** OWNER, MEMBER or COLLABORATOR; null when GitHub's answer had no `author_association`. */
  readonly member: boolean | null;
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
  /** null: `createdAt` is exact; else GitHub sent no time and the event lies in (timeFrom, createdAt]. */
  readonly timeFrom: number | null;
  readonly missing: readonly string[];
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
  /** Fields the snapshot's answers lacked (`contributors[].login`: anonymous entries, left out of `contributors`). */
  readonly missing: readonly string[];
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
