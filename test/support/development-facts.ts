import type {
  CommitFact,
  ContributorCount,
  EventFact,
  IssueFact,
  RepoDayFact,
  RepoFacts,
} from '../../src/areas/development/facts.js';

/**
 * Hand-built development facts for unit tests of compute and score: a repository with sensible defaults (old,
 * ingested 120 days back, no activity) and small builders for its commits, issues, pull requests and events.
 */

export const DAY = 86_400;
export const WEEK = 7 * DAY;
/** as_of of the unit tests: 2026-05-10T12:00:00Z (a Sunday noon, so day and week boundaries are not aligned). */
export const AS_OF = Date.UTC(2026, 4, 10, 12, 0, 0) / 1000;
/** The end of the record before as_of's: 2026-05-09T23:59:59Z. */
export const END_OF_YESTERDAY = Date.UTC(2026, 4, 10) / 1000 - 1;

let sha = 0;

export function commit(
  committerDate: number,
  author: string | null = 'alice',
  extra: Partial<CommitFact> = {},
): CommitFact {
  return {
    sha: `c${(sha++).toString(16).padStart(8, '0')}`,
    authorKey: author ?? 'email:someone@example.org',
    authorLogin: author,
    bot: author?.endsWith('[bot]') ?? false,
    committerDate,
    timeFrom: null,
    commentCount: 0,
    missing: [],
    ...extra,
  };
}

let issueNumber = 1;

export function issue(createdAt: number, extra: Partial<IssueFact> = {}): IssueFact {
  return {
    number: issueNumber++,
    pull: false,
    authorLogin: 'reporter',
    bot: false,
    member: false,
    createdAt,
    closedAt: null,
    mergedAt: null,
    ...extra,
  };
}

export function pull(createdAt: number, extra: Partial<IssueFact> = {}): IssueFact {
  return issue(createdAt, { pull: true, authorLogin: 'alice', member: true, ...extra });
}

export function event(type: string, createdAt: number, extra: Partial<EventFact> = {}): EventFact {
  return {
    type,
    actorLogin: 'someone',
    createdAt,
    action: null,
    issueNumber: null,
    timeFrom: null,
    missing: [],
    ...extra,
  };
}

export function day(dayStart: number, extra: Partial<RepoDayFact> = {}): RepoDayFact {
  return { day: dayStart, observedAt: dayStart + 3600, branches: 3, collaborators: 4, watchers: 10, ...extra };
}

export interface RepoSpec extends Partial<Omit<RepoFacts, 'contributors'>> {
  readonly repo: string;
  readonly contributors?: readonly (ContributorCount | [string, number])[];
}

/** A repository's facts observed at `AS_OF` (unless `snapshotAt` says otherwise); lists are sorted as the store does. */
export function repoFacts(spec: RepoSpec): RepoFacts {
  const snapshotAt = spec.snapshotAt ?? AS_OF;
  const from = snapshotAt - 120 * DAY;
  return {
    htmlUrl: `https://github.com/${spec.repo}`,
    createdAt: Date.UTC(2020, 0, 1) / 1000,
    archived: false,
    stars: 0,
    forks: 0,
    commitsTotal: spec.commits?.length ?? 0,
    snapshotAt,
    commitsFrom: from,
    issuesFrom: from,
    eventsFrom: from,
    issues: [],
    days: [],
    missing: [],
    ...spec,
    contributors: (spec.contributors ?? []).map((c) =>
      Array.isArray(c)
        ? { login: c[0], type: c[0].endsWith('[bot]') ? 'Bot' : 'User', contributions: c[1] }
        : (c as ContributorCount),
    ),
    commits: [...(spec.commits ?? [])].sort((a, b) => a.committerDate - b.committerDate),
    events: [...(spec.events ?? [])].sort((a, b) => a.createdAt - b.createdAt),
  };
}
