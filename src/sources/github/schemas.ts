/**
 * Schemas of the GitHub REST API responses the source reads: only the fields used, so that GitHub adding or
 * dropping others changes nothing, while a used field that is missing or of another type fails loudly at the
 * boundary (DESIGN.md convention 3) with the field's path.
 *
 * Required and nullable exactly as GitHub's REST description (`@octokit/openapi`) says, never stricter: a field it
 * marks optional or nullable is `Type.Optional` / `Nullable` here, and the reader says what was missing (the
 * development area's facts carry a `missing` note; docs/methodology/development.md "Missing fields").
 * `schemas.test.ts` holds these schemas to the description.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** GitHub's timestamps: ISO 8601 UTC, `2011-01-26T19:01:12Z`. */
const Timestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' });
const Count = Type.Integer({ minimum: 0 });
const Sha = Type.String({ pattern: '^[0-9a-f]{40}$' });

export const GithubUser = Type.Object({
  login: Type.String(),
  id: Type.Integer(),
  /** `User`, `Bot` or `Organization`. */
  type: Type.String(),
});
export type GithubUser = Static<typeof GithubUser>;

/** A repository in a listing (`minimal-repository`): its figures are optional there; discovery reads the names. */
export const GithubRepo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  full_name: Type.String(),
  owner: Type.Object({ login: Type.String() }),
  fork: Type.Boolean(),
  archived: Type.Optional(Type.Boolean()),
  html_url: Type.String(),
  default_branch: Type.Optional(Type.String()),
  created_at: Type.Optional(Nullable(Timestamp)),
  updated_at: Type.Optional(Nullable(Timestamp)),
  pushed_at: Type.Optional(Nullable(Timestamp)),
  stargazers_count: Type.Optional(Count),
  forks_count: Type.Optional(Count),
  /** Open issues and open pull requests together (GitHub counts both). */
  open_issues_count: Type.Optional(Count),
});
export type GithubRepo = Static<typeof GithubRepo>;

/**
 * `GET /repos/{owner}/{repo}` (`full-repository`, where the figures are required), with the real number of watchers
 * (`watchers_count` is the stars, for history).
 */
export const GithubRepoDetail = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  full_name: Type.String(),
  owner: Type.Object({ login: Type.String() }),
  fork: Type.Boolean(),
  archived: Type.Boolean(),
  html_url: Type.String(),
  default_branch: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  pushed_at: Nullable(Timestamp),
  stargazers_count: Count,
  forks_count: Count,
  open_issues_count: Count,
  subscribers_count: Count,
  network_count: Count,
});
export type GithubRepoDetail = Static<typeof GithubRepoDetail>;

/** A git author or committer (`nullable-git-user`): each of its fields is optional. */
/** GitHub's `empty-object`: a commit's account when the e-mail belongs to none, beside null. */
const NoAccount = Type.Object({}, { additionalProperties: false });

const GitPerson = Type.Object({
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  date: Type.Optional(Timestamp),
});

export const GithubCommit = Type.Object({
  sha: Sha,
  commit: Type.Object({
    author: Nullable(GitPerson),
    committer: Nullable(GitPerson),
    message: Type.String(),
    comment_count: Count,
  }),
  /** null (or `{}`, which GitHub's description also allows) when the e-mail belongs to no GitHub account. */
  author: Nullable(Type.Union([GithubUser, NoAccount])),
  committer: Nullable(Type.Union([GithubUser, NoAccount])),
  parents: Type.Array(Type.Object({ sha: Sha })),
});
export type GithubCommit = Static<typeof GithubCommit>;

/** Anonymous contributors (`anon=1`, which the source does not ask for) have no login. */
export const GithubContributor = Type.Object({
  login: Type.Optional(Type.String()),
  id: Type.Optional(Type.Integer()),
  type: Type.String(),
  contributions: Count,
});
export type GithubContributor = Static<typeof GithubContributor>;

/** Issues and pull requests share numbers and this endpoint; pull requests carry `pull_request`. */
export const GithubIssue = Type.Object({
  id: Type.Integer(),
  number: Type.Integer({ minimum: 1 }),
  state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  title: Type.String(),
  user: Nullable(GithubUser),
  comments: Count,
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Timestamp),
  author_association: Type.Optional(Type.String()),
  pull_request: Type.Optional(Type.Object({ merged_at: Type.Optional(Nullable(Timestamp)) })),
});
export type GithubIssue = Static<typeof GithubIssue>;

export const GithubPull = Type.Object({
  id: Type.Integer(),
  number: Type.Integer({ minimum: 1 }),
  state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  title: Type.String(),
  user: Nullable(GithubUser),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Timestamp),
  merged_at: Nullable(Timestamp),
  draft: Type.Optional(Type.Boolean()),
  head: Type.Object({ ref: Type.String(), sha: Sha }),
  base: Type.Object({ ref: Type.String() }),
  author_association: Type.String(),
});
export type GithubPull = Static<typeof GithubPull>;

export const GithubEvent = Type.Object({
  id: Type.String(),
  /** `PushEvent`, `IssuesEvent`, …; GitHub documents it as nullable. */
  type: Nullable(Type.String()),
  actor: Type.Object({ id: Type.Integer(), login: Type.String() }),
  created_at: Nullable(Timestamp),
  /** The fields read: the action, and the issue or pull request number of issue, comment and pull request events. */
  payload: Type.Object({
    action: Type.Optional(Nullable(Type.String())),
    number: Type.Optional(Nullable(Type.Integer())),
    issue: Type.Optional(Nullable(Type.Object({ number: Type.Integer() }))),
  }),
});
export type GithubEvent = Static<typeof GithubEvent>;

export const GithubBranch = Type.Object({
  name: Type.String(),
  commit: Type.Object({ sha: Sha }),
  protected: Type.Boolean(),
});
export type GithubBranch = Static<typeof GithubBranch>;

export const GithubCollaborator = Type.Composite([
  GithubUser,
  Type.Object({ role_name: Type.Optional(Type.String()) }),
]);
export type GithubCollaborator = Static<typeof GithubCollaborator>;

const RateResource = Type.Object({ limit: Count, used: Count, remaining: Count, reset: Type.Integer() });
export const GithubRateLimit = Type.Object({
  resources: Type.Object({ core: RateResource }),
  rate: RateResource,
});
export type GithubRateLimit = Static<typeof GithubRateLimit>;
