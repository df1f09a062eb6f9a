/**
 * What the GitHub stand-in's world is made of: organisations and repositories with their characters and teams,
 * and the records of a repository's history (commits, issues and pull requests, stars, forks, events) as
 * `GithubWorld.history` returns them. Types only, and GitHub's limits on events.
 */
import { DAY_MS } from '../base/generate.js';

export type RepoCharacter = 'busy' | 'one-person' | 'declining' | 'abandoned' | 'bot-heavy';
export const REPO_CHARACTERS: readonly RepoCharacter[] = ['busy', 'one-person', 'declining', 'abandoned', 'bot-heavy'];

export interface GithubActor {
  readonly login: string;
  readonly id: number;
  readonly type: 'User' | 'Bot';
  /** Git author name and e-mail of the actor's commits. */
  readonly name: string;
  readonly email: string;
}

/** A person or bot working on a repository during [joinDay, leaveDay). */
export interface TeamMember {
  readonly actor: GithubActor;
  /** Relative share of the repository's commits while active. */
  readonly weight: number;
  readonly joinDay: number;
  readonly leaveDay: number;
  readonly role: 'admin' | 'write' | 'bot';
}

/** Mean counts per day at full intensity (the character's intensity curve scales them day by day). */
export interface ActivityRates {
  readonly commits: number;
  readonly issues: number;
  readonly pulls: number;
  readonly stars: number;
  readonly forks: number;
}

export interface RepoProfile {
  readonly id: number;
  readonly owner: string;
  readonly ownerId: number;
  readonly name: string;
  /** `owner/name` as GitHub spells it. */
  readonly fullName: string;
  readonly character: RepoCharacter;
  readonly fork: boolean;
  /** Whether the registry tracks it (a non-fork repository of a tracked organisation, or named directly). */
  readonly tracked: boolean;
  readonly description: string;
  readonly language: string;
  readonly defaultBranch: 'main' | 'master';
  /** Branches besides the default one that live for the repository's whole life. */
  readonly longLivedBranches: readonly string[];
  readonly createdAtMs: number;
  /** Activity stops here (abandoned repositories); null otherwise. */
  readonly abandonedAtMs: number | null;
  /** Activity decays from here on (declining repositories); null otherwise. */
  readonly decliningFromMs: number | null;
  /** Archived from here on; null if never. */
  readonly archivedAtMs: number | null;
  readonly rates: ActivityRates;
  readonly team: readonly TeamMember[];
}

export interface OrgProfile {
  readonly login: string;
  readonly id: number;
  readonly repos: readonly RepoProfile[];
}

export interface CommitRecord {
  readonly sha: string;
  readonly parentSha: string | null;
  /** null: the author's e-mail is linked to no GitHub account (the API shows `author: null`). */
  readonly author: GithubActor | null;
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authorDateMs: number;
  /** The GitHub account of the committer: the author, or `web-flow` for commits made through the web. */
  readonly committer: GithubActor;
  readonly committerDateMs: number;
  readonly message: string;
  readonly commentCount: number;
}

/** An issue or pull request as generated: its whole future included. */
export interface LatentIssue {
  readonly number: number;
  readonly pull: boolean;
  readonly title: string;
  readonly author: GithubActor | AccountRef;
  readonly member: boolean;
  readonly createdAtMs: number;
  /** When it gets closed (merged included), possibly after "now"; null: stays open. */
  readonly closeAtMs: number | null;
  readonly merged: boolean;
  readonly commentTimesMs: readonly number[];
  /** Pull requests: the head branch, and whether it lives in this repository (a member's) or in a fork. */
  readonly headRef: string;
  readonly headSha: string;
  readonly mergeCommitSha: string;
}

/** An issue or pull request as seen at an instant. */
export interface IssueRecord {
  readonly number: number;
  readonly pull: boolean;
  readonly title: string;
  readonly author: GithubActor | AccountRef;
  /** The author belongs to the repository's team (`author_association` MEMBER). */
  readonly member: boolean;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly closedAtMs: number | null;
  /** Pull requests merged by now; null otherwise. */
  readonly mergedAtMs: number | null;
  readonly comments: number;
  readonly headRef: string;
  readonly headSha: string;
  readonly mergeCommitSha: string;
}

/** A community account (stargazers, fork owners): login and id only. */
export interface AccountRef {
  readonly login: string;
  readonly id: number;
  readonly type: 'User';
}

export interface StarRecord {
  readonly user: AccountRef;
  readonly atMs: number;
  /** The stargazer also watches the repository (notifications). */
  readonly watches: boolean;
}

export interface ForkRecord {
  readonly owner: AccountRef;
  readonly atMs: number;
  readonly id: number;
}

export interface BranchRecord {
  readonly name: string;
  readonly sha: string;
  readonly protected: boolean;
}

export interface ContributorRecord {
  readonly actor: GithubActor;
  readonly contributions: number;
}

export interface CollaboratorRecord {
  readonly actor: GithubActor;
  readonly role: 'admin' | 'write';
}

/** The ground truth of one repository at `nowMs`. Lists are in ascending time (issues: ascending number). */
export interface RepoHistory {
  readonly profile: RepoProfile;
  readonly nowMs: number;
  readonly exists: boolean;
  readonly archived: boolean;
  readonly commits: readonly CommitRecord[];
  readonly issues: readonly IssueRecord[];
  readonly stars: readonly StarRecord[];
  readonly forks: readonly ForkRecord[];
  readonly branches: readonly BranchRecord[];
  /** Commit authors with a GitHub account, by commits on the default branch (desc), then login. */
  readonly contributors: readonly ContributorRecord[];
  /** Team members (not bots) active at `nowMs`. */
  readonly collaborators: readonly CollaboratorRecord[];
  /** Watchers: the active team plus stargazers who watch. */
  readonly subscribers: number;
  /** The newest commit's committer date, or the creation time. */
  readonly pushedAtMs: number;
}

export type EventType =
  | 'PushEvent'
  | 'IssuesEvent'
  | 'PullRequestEvent'
  | 'IssueCommentEvent'
  | 'WatchEvent'
  | 'ForkEvent';

export interface EventRecord {
  readonly id: string;
  readonly type: EventType;
  readonly actor: GithubActor | AccountRef;
  readonly atMs: number;
  /** PushEvent: the commit; Issues/PullRequest/IssueComment: the number; Fork: the fork's id. */
  readonly commit?: CommitRecord;
  readonly issueNumber?: number;
  readonly action?: 'opened' | 'closed' | 'created' | 'started';
  readonly forkId?: number;
}

/** GitHub keeps 90 days and at most 300 events per repository. */
export const EVENTS_MAX_AGE_MS = 90 * DAY_MS;
export const EVENTS_MAX = 300;
