/**
 * Payload schemas of the development paths (DESIGN.md convention 3). `compute.ts` produces exactly these shapes;
 * docs/methodology/development.md defines every figure.
 */
import { type Static, Type } from '@sinclair/typebox';
import { DailyScoreRecord, Iso, Nullable, ScoreHistory } from '../kit/schema.js';

const Count = (description: string) => Nullable(Type.Integer({ minimum: 0, description }));

/**
 * The note beside `gap_reasons` of the figures a missing GitHub field made unknown: figure → the fields GitHub's
 * answers lacked (`commit.committer.date`, `created_at`, `contributors[].login`; docs/methodology/development.md
 * "Missing fields"). Empty when nothing was missing.
 */
const MissingFields = Type.Record(Type.String(), Type.Array(Type.String()), {
  description:
    "Figures made unknown by fields GitHub's answers left out (its description marks them optional): figure → the missing fields",
});

export const ActivityRecord = Type.Object({
  repository: Type.String({ description: '`owner/name` as GitHub spells it' }),
  url: Type.String({ description: "The repository's GitHub page" }),
  date: Type.String({ description: 'UTC day of `timestamp`' }),
  timestamp: Iso('End of the record: as_of for the running day, else the last second of the UTC day'),
  partial: Type.Boolean({ description: 'True for the running day' }),
  gap_reason: Nullable(
    Type.String({
      description:
        '`not_deployed` (the repository did not exist yet), or `no_data` (ingestion does not cover the windows)',
    }),
  ),
  gap_reasons: Type.Record(Type.String(), Type.String(), {
    description:
      'Per-field reasons of the null figures of a record that is otherwise known (`no_data`: not observable for that day, e.g. branches, collaborators and watchers before the day was observed)',
  }),
  missing_fields: MissingFields,
  activity_events: Count('Public events (all types) in the 7 days ending at timestamp'),
  branches: Count('Branches, as observed that day (null for days before ingestion observed them)'),
  collaborators: Count('Collaborators, as observed that day (null when the token may not list them)'),
  commit_comments: Count('Comments on the default branch commits of the 30 days ending at timestamp'),
  contributors: Count(
    'Accounts with commits on the default branch up to timestamp (GitHub contributors, bots included)',
  ),
  top_contributor_weight: Nullable(
    Type.Number({ description: 'Share of the top contributor in all contributions, %' }),
  ),
  contributions_mean: Nullable(Type.Number({ description: 'Mean contributions per contributor' })),
  contributions_absolute_deviation: Nullable(
    Type.Number({ description: 'Mean absolute deviation of contributions from their mean' }),
  ),
  gini_coefficient: Nullable(
    Type.Number({ minimum: 0, maximum: 1, description: 'Gini of contributions: Σ|xi−xj| / (2 n² mean)' }),
  ),
  num_issues: Count('Issues (not pull requests) open at timestamp'),
  num_issues_events: Count('Issue, issue comment and pull request events in the 7 days ending at timestamp'),
  num_pulls: Count('Pull requests open at timestamp'),
  repos: Type.Integer({ minimum: 0, description: "The protocol's tracked repositories existing at timestamp" }),
  num_commit_t: Count('Commits on the default branch up to timestamp'),
  num_commit_w: Count('Commits on the default branch with a committer date in the 7 days ending at timestamp'),
  num_commit_m: Count('Same, 30 days'),
  forks: Count('Forks at timestamp'),
  watchers: Count('Watchers (subscribers), as observed that day'),
  stars: Count('Stars at timestamp'),
});

const Weekly = Type.Object({
  week_ending: Iso('End of the 7-day block'),
  commits_people: Count('Commits by people in the block (null: see `missing_fields`)'),
  commits_bots: Count('Commits by bots in the block (null: see `missing_fields`)'),
  pulls_opened: Type.Integer({ minimum: 0 }),
  pulls_merged: Type.Integer({ minimum: 0 }),
});

const Hours = (description: string) => Nullable(Type.Number({ minimum: 0, description }));
const Ratio = (description: string) => Nullable(Type.Number({ minimum: 0, description }));

export const Stats = Type.Object({
  protocol: Type.Optional(Type.String()),
  chain: Type.Optional(Type.String()),
  name: Type.String(),
  as_of: Iso('The instant described'),
  repositories: Type.Integer({ minimum: 0 }),
  repository_names: Type.Array(Type.String()),
  archived_repositories: Type.Integer({ minimum: 0 }),
  developers: Type.Object({
    active_28d: Count('People with a commit in the 28 days ending at as_of'),
    full_time: Count('10 or more active commit days in those 28 days'),
    part_time: Count('2 to 9 active commit days'),
    one_time: Count('One active commit day'),
    active_90d: Count('People with a commit in the 90 days ending at as_of'),
    window_days: Type.Integer(),
  }),
  commits: Type.Object({
    last_7d: Count('Commits in the 7 days ending at as_of'),
    last_30d: Count('Commits in the 30 days ending at as_of'),
    people_last_30d: Count("People's commits in the 30 days ending at as_of"),
    trend_4w: Ratio("People's commits of the last 4 weeks / the 4 weeks before"),
  }),
  pull_requests: Type.Object({
    opened_30d: Type.Integer({ minimum: 0 }),
    merged_30d: Type.Integer({ minimum: 0 }),
    open: Type.Integer({ minimum: 0 }),
    median_hours_to_merge_90d: Hours('Pull requests merged in the 90 days ending at as_of'),
    trend_4w: Ratio('Pull requests opened in the last 4 weeks / the 4 weeks before'),
  }),
  issues: Type.Object({
    open: Type.Integer({ minimum: 0 }),
    opened_30d: Type.Integer({ minimum: 0 }),
    closed_30d: Type.Integer({ minimum: 0 }),
    median_hours_to_first_response_90d: Hours(
      'Issues opened in 90 days: to the first comment by someone else or the closing (from the events)',
    ),
    unanswered_90d: Count('Issues opened in 90 days with no response by as_of'),
    median_hours_to_close_90d: Hours('Issues closed in the 90 days ending at as_of'),
  }),
  bots: Type.Object({
    commit_share_30d: Ratio('Commits by bots / all commits, 30 days'),
    pull_share_30d: Ratio('Pull requests by bots / all opened, 30 days'),
    accounts: Type.Array(Type.String()),
  }),
  weekly: Type.Array(Weekly, { description: '12 weeks ending at as_of, newest first' }),
  gap_reasons: Type.Record(Type.String(), Type.String(), {
    description:
      'Reasons of the null figures made unknown by missing GitHub fields, by path (`commits.last_7d`, `weekly.0.commits_people`): `no_data`',
  }),
  missing_fields: MissingFields,
  score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  repository_scores: Type.Array(
    Type.Object({
      repository: Type.String(),
      url: Type.String(),
      score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
      grade: Nullable(Type.String()),
      development_events_12w: Nullable(
        Type.Integer({
          minimum: 0,
          description:
            "People's commits and pull requests opened in the 12 weeks ending at as_of (null without a score)",
        }),
      ),
      weight: Type.Number({
        minimum: 0,
        maximum: 1,
        description: "The repository's weight in the protocol's score (0 when its score is null)",
      }),
      gap_reason: Nullable(Type.String({ description: '`no_data`, `insufficient_evidence` when score is null' })),
    }),
    { description: "The components of the current score: score = Σ weight × score (the protocol score's record)" },
  ),
});

/**
 * A protocol's or chain's score record: the weighted mean of its repositories' scores, one component per repository
 * (`name` the repository, `value` its score, `weight` its share of development events; `inputs.components` the
 * repository's own five components), so that `score` = Σ weight × value over the published components.
 */
export const DevelopmentScoreRecord = Type.Composite([
  Type.Object({
    protocol: Type.Optional(Type.String({ description: 'The protocol scored (protocol paths)' })),
    chain: Type.Optional(Type.String({ description: 'The chain scored (chain paths)' })),
  }),
  DailyScoreRecord({
    gapReasons:
      '`no_members` (no tracked repository), `not_deployed` (none existed yet), `no_data`, `insufficient_evidence`',
  }),
]);

export const DevelopmentScoreHistory = ScoreHistory(DevelopmentScoreRecord);

export const DevelopmentRankingEntry = Type.Composite([
  Type.Object({
    kind: Type.Union([Type.Literal('protocol'), Type.Literal('chain')]),
    id: Type.String({ description: 'The protocol or chain, as in its score path' }),
    name: Type.String(),
    rank: Type.Integer({ minimum: 1, description: '1 = best current score' }),
  }),
  DevelopmentScoreRecord,
]);

export type ActivityRecordEntry = Static<typeof ActivityRecord>;
export type StatsPayload = Static<typeof Stats>;
/** A score history record (API.md "Time windows"). */
export type DevelopmentScoreRecord = Static<typeof DevelopmentScoreRecord>;
export type ScoreEntry = Static<typeof DevelopmentRankingEntry>;
