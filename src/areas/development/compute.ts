/**
 * Pure computation of the development area: `(facts, subjects, asOf) → documents` for the 5 paths. Figures are
 * defined in docs/methodology/development.md.
 */
import { nullFieldReasons } from '../../core/gaps.js';
import { roundTo } from '../../core/score.js';
import { mean, median, sum } from '../../core/stats.js';
import { DAY, dailyHistoryInstants, isoSeconds, utcDate } from '../../core/time.js';
import type { CommitFact, EventFact, RepoFacts } from './facts.js';
import type { ActivityRecordEntry, DevelopmentScoreRecord, ScoreEntry, StatsPayload } from './schema.js';
import { ACTIVITY_WINDOW, contributorsAt, developerClasses, developmentScoreAt } from './score.js';
import { cutBy, midnightsIn, unionOf, unknownAuthorsIn } from './uncertain.js';

export const HISTORY_DAYS = 7;
const WEEK = 7 * DAY;
const MONTH = 30 * DAY;
const TREND_WEEKS = 12;

export interface SubjectInput {
  readonly kind: 'protocol' | 'chain';
  readonly id: string;
  readonly name: string;
  readonly repos: readonly RepoFacts[];
}

/** The computation's input: the subjects to publish, with their repositories' facts, at one instant. */
export interface DevelopmentInput {
  /** Unix seconds: the snapshot instant of the repository observed longest ago. */
  readonly asOf: number;
  readonly subjects: readonly SubjectInput[];
}

export interface DevelopmentOutput {
  readonly activity: Map<string, ActivityRecordEntry[]>;
  readonly stats: Map<string, StatsPayload>;
  /** By `kind:id`. */
  readonly scores: Map<string, DevelopmentScoreRecord[]>;
  readonly ranking: ScoreEntry[];
}

/** Gini coefficient of non-negative amounts: Σᵢ Σⱼ |xᵢ − xⱼ| / (2 n² mean); 0 for equal amounts. */
export function gini(xs: readonly number[]): number | null {
  const n = xs.length;
  const m = mean(xs);
  if (m === null || m <= 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  // Σᵢ Σⱼ |xᵢ − xⱼ| = 2 Σᵢ (2i − n + 1) x₍ᵢ₎ over the ascending order (0-based i).
  let acc = 0;
  sorted.forEach((x, i) => {
    acc += (2 * i - n + 1) * x;
  });
  return (2 * acc) / (2 * n * n * m);
}

const inWindow = (at: number, from: number, to: number) => at > from && at <= to;
const commitTime = (c: CommitFact) => c.committerDate;
const eventTime = (e: EventFact) => e.createdAt;
/** The snapshot's own missing fields that make contributor figures unknown (anonymous entries left out). */
const contributorGaps = (r: RepoFacts) => r.missing.filter((m) => m.startsWith('contributors'));

/**
 * The figures of a record made unknown by fields GitHub left out (`uncertain.ts`): figure → the missing fields,
 * for the figures whose window cuts a fact's time span (or, for contributors, whose snapshot lacks logins).
 */
function missingFieldsOf(r: RepoFacts, t: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const mark = (figures: readonly string[], missing: string[]) => {
    if (missing.length) for (const f of figures) out[f] = missing;
  };
  const atT = cutBy(r.commits, commitTime, [t]);
  mark(['num_commit_w'], cutBy(r.commits, commitTime, [t - WEEK, t]));
  mark(['num_commit_m', 'commit_comments'], cutBy(r.commits, commitTime, [t - MONTH, t]));
  mark(['num_commit_t'], atT);
  mark(
    [
      'contributors',
      'top_contributor_weight',
      'contributions_mean',
      'contributions_absolute_deviation',
      'gini_coefficient',
    ],
    unionOf(atT, contributorGaps(r)),
  );
  mark(['activity_events', 'num_issues_events'], cutBy(r.events, eventTime, [t - WEEK, t]));
  mark(['stars', 'forks'], cutBy(r.events, eventTime, [t]));
  return out;
}

function activityRecord(subject: SubjectInput, r: RepoFacts, t: number, partial: boolean): ActivityRecordEntry {
  const base = { repository: r.repo, url: r.htmlUrl, date: utcDate(t), timestamp: isoSeconds(t), partial };
  const repos = subject.repos.filter((x) => x.createdAt <= t).length;
  const nulls = {
    activity_events: null,
    branches: null,
    collaborators: null,
    commit_comments: null,
    contributors: null,
    top_contributor_weight: null,
    contributions_mean: null,
    contributions_absolute_deviation: null,
    gini_coefficient: null,
    num_issues: null,
    num_issues_events: null,
    num_pulls: null,
    repos,
    num_commit_t: null,
    num_commit_w: null,
    num_commit_m: null,
    forks: null,
    watchers: null,
    stars: null,
  };
  const none = { gap_reasons: {}, missing_fields: {} };
  if (r.createdAt > t) return { ...base, ...nulls, gap_reason: 'not_deployed', ...none };
  if (r.commitsFrom > t - MONTH) return { ...base, ...nulls, gap_reason: 'no_data', ...none };

  const later = r.commits.filter((c) => c.committerDate > t && c.committerDate <= r.snapshotAt).length;
  const contributions = contributorsAt(r, t).map((c) => c.contributions);
  const total = sum(contributions);
  const m = mean(contributions);
  const eventsKnown = r.eventsFrom <= t - WEEK;
  const weekEvents = r.events.filter((e) => inWindow(e.createdAt, t - WEEK, t));
  const eventsAfter = (type: string) =>
    r.events.filter((e) => e.type === type && e.createdAt > t && e.createdAt <= r.snapshotAt).length;
  const starsKnown = r.eventsFrom <= t;
  const open = (pull: boolean) =>
    r.issues.filter((i) => i.pull === pull && i.createdAt <= t && (i.closedAt === null || i.closedAt > t)).length;
  // The day's last observation (branches, collaborators and watchers cannot be reconstructed for other days).
  const day = r.days.find((d) => d.day === Math.floor(t / DAY) * DAY);
  const known = {
    ...base,
    gap_reason: null,
    repos,
    activity_events: eventsKnown ? weekEvents.length : null,
    branches: day?.branches ?? null,
    collaborators: day ? day.collaborators : null,
    commit_comments: sum(r.commits.filter((c) => inWindow(c.committerDate, t - MONTH, t)).map((c) => c.commentCount)),
    contributors: contributions.length,
    top_contributor_weight: total > 0 ? roundTo((100 * Math.max(...contributions)) / total, 2) : null,
    contributions_mean: m === null ? null : roundTo(m, 4),
    contributions_absolute_deviation: m === null ? null : roundTo(mean(contributions.map((x) => Math.abs(x - m)))!, 4),
    gini_coefficient: contributions.length ? roundTo(gini(contributions) ?? 0, 6) : null,
    num_issues: r.issuesFrom <= t ? open(false) : null,
    num_issues_events: eventsKnown
      ? weekEvents.filter((e) => ['IssuesEvent', 'IssueCommentEvent', 'PullRequestEvent'].includes(e.type)).length
      : null,
    num_pulls: r.issuesFrom <= t ? open(true) : null,
    num_commit_t: r.commitsTotal - later,
    num_commit_w: r.commits.filter((c) => inWindow(c.committerDate, t - WEEK, t)).length,
    num_commit_m: r.commits.filter((c) => inWindow(c.committerDate, t - MONTH, t)).length,
    forks: starsKnown ? r.forks - eventsAfter('ForkEvent') : null,
    watchers: day?.watchers ?? null,
    stars: starsKnown ? r.stars - eventsAfter('WatchEvent') : null,
  };
  // Only figures that would have had a value: a figure already unknown for coverage keeps that as its reason.
  const missing = Object.fromEntries(
    Object.entries(missingFieldsOf(r, t)).filter(([f]) => known[f as keyof typeof known] !== null),
  );
  const record = { ...known, ...Object.fromEntries(Object.keys(missing).map((f) => [f, null])) };
  // Every null figure of a known day is one the sources did not let us observe for that day.
  const fields = Object.keys(nulls) as (keyof typeof nulls)[];
  const missingFields = Object.fromEntries(
    Object.keys(missing)
      .sort()
      .map((f) => [f, missing[f]!]),
  );
  return {
    ...record,
    gap_reasons: nullFieldReasons(record, fields, () => 'no_data'),
    missing_fields: missingFields,
  };
}

/**
 * The stats figures made unknown by missing GitHub fields (`uncertain.ts`), by path: commit counts whose window cuts
 * an undated commit's span, developer classes whose days it cuts or whose people it cannot tell apart, first
 * responses that may hinge on an event without a time.
 */
function statsMissingFields(repos: readonly RepoFacts[], t: number): Record<string, string[]> {
  const commits = repos.flatMap((r) => r.commits);
  const out: Record<string, string[]> = {};
  const mark = (paths: readonly string[], missing: string[]) => {
    if (missing.length) for (const p of paths) out[p] = missing;
  };
  mark(['commits.last_7d'], cutBy(commits, commitTime, [t - WEEK, t]));
  mark(
    ['commits.last_30d', 'commits.people_last_30d', 'bots.commit_share_30d'],
    cutBy(commits, commitTime, [t - MONTH, t]),
  );
  mark(
    ['commits.trend_4w'],
    cutBy(
      commits,
      commitTime,
      Array.from({ length: 9 }, (_, k) => t - k * WEEK),
    ),
  );
  for (let k = 0; k < TREND_WEEKS; k++) {
    const cut = cutBy(commits, commitTime, [t - (k + 1) * WEEK, t - k * WEEK]);
    mark([`weekly.${k}.commits_people`, `weekly.${k}.commits_bots`], cut);
  }
  mark(
    ['developers.active_28d', 'developers.full_time', 'developers.part_time', 'developers.one_time'],
    unionOf(
      cutBy(commits, commitTime, [t - ACTIVITY_WINDOW, t, ...midnightsIn(t - ACTIVITY_WINDOW, t)]),
      unknownAuthorsIn(commits, t - ACTIVITY_WINDOW, t),
    ),
  );
  mark(
    ['developers.active_90d'],
    unionOf(cutBy(commits, commitTime, [t - 90 * DAY, t]), unknownAuthorsIn(commits, t - 90 * DAY, t)),
  );
  // First responses: an event without a time about an issue of the window, or cut by as_of.
  const responseGaps = repos.flatMap((r) => {
    const asked = new Set(
      r.issues.filter((i) => !i.pull && inWindow(i.createdAt, t - 90 * DAY, t)).map((i) => i.number),
    );
    const spanned = r.events.filter((e) => e.timeFrom !== null && e.issueNumber !== null && asked.has(e.issueNumber));
    return [...spanned.flatMap((e) => e.missing), ...cutBy(r.events, eventTime, [t])];
  });
  mark(['issues.median_hours_to_first_response_90d', 'issues.unanswered_90d'], unionOf(responseGaps));
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((p) => [p, out[p]!]),
  );
}

/** Sets the figure at a dotted path (`weekly.3.commits_people`) to null. */
function nullAt(target: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let at: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[keys.at(-1)!] = null;
}

function hours(seconds: number | null): number | null {
  return seconds === null ? null : roundTo(seconds / 3600, 2);
}

function ratio(a: number, b: number): number | null {
  return b > 0 ? roundTo(a / b, 4) : null;
}

function statsOf(subject: SubjectInput, asOf: number, score: DevelopmentScoreRecord | undefined): StatsPayload {
  const repos = subject.repos.filter((r) => r.createdAt <= asOf);
  const t = asOf;
  const commits = repos.flatMap((r) => r.commits);
  const issues = repos.flatMap((r) => r.issues);
  const classes = developerClasses(repos, t);
  const count = { full_time: 0, part_time: 0, one_time: 0 };
  for (const c of classes.values()) count[c]++;
  const active90 = new Set(
    commits.filter((c) => !c.bot && inWindow(c.committerDate, t - 90 * DAY, t)).map((c) => c.authorKey),
  );

  const weekly = Array.from({ length: TREND_WEEKS }, (_, k) => {
    const from = t - (k + 1) * WEEK;
    const to = t - k * WEEK;
    const cs = commits.filter((c) => inWindow(c.committerDate, from, to));
    const prs = issues.filter((i) => i.pull);
    return {
      week_ending: isoSeconds(to),
      commits_people: cs.filter((c) => !c.bot).length,
      commits_bots: cs.filter((c) => c.bot).length,
      pulls_opened: prs.filter((i) => inWindow(i.createdAt, from, to)).length,
      pulls_merged: prs.filter((i) => i.mergedAt !== null && inWindow(i.mergedAt, from, to)).length,
    };
  });
  const last4 = (k: keyof (typeof weekly)[number]) => sum(weekly.slice(0, 4).map((w) => w[k] as number));
  const prev4 = (k: keyof (typeof weekly)[number]) => sum(weekly.slice(4, 8).map((w) => w[k] as number));

  const month = commits.filter((c) => inWindow(c.committerDate, t - MONTH, t));
  const pullsMonth = issues.filter((i) => i.pull && inWindow(i.createdAt, t - MONTH, t));
  const merged90 = issues.filter((i) => i.pull && i.mergedAt !== null && inWindow(i.mergedAt, t - 90 * DAY, t));
  const plainIssues = issues.filter((i) => !i.pull);
  const closed90 = plainIssues.filter((i) => i.closedAt !== null && inWindow(i.closedAt, t - 90 * DAY, t));

  // First response: the first comment by someone other than the author, or the closing, from the events.
  const responses: number[] = [];
  let unanswered = 0;
  for (const r of repos) {
    for (const i of r.issues) {
      if (i.pull || !inWindow(i.createdAt, t - 90 * DAY, t) || i.createdAt < r.eventsFrom) continue;
      const first = r.events.find(
        (e) =>
          e.issueNumber === i.number &&
          e.createdAt >= i.createdAt &&
          e.createdAt <= t &&
          ((e.type === 'IssueCommentEvent' && e.actorLogin !== i.authorLogin) ||
            (e.type === 'IssuesEvent' && e.action === 'closed')),
      );
      if (first) responses.push(first.createdAt - i.createdAt);
      else unanswered++;
    }
  }

  const botLogins = new Set<string>();
  for (const c of month) if (c.bot && c.authorLogin) botLogins.add(c.authorLogin);
  for (const i of pullsMonth) if (i.bot && i.authorLogin) botLogins.add(i.authorLogin);

  const stats = {
    [subject.kind]: subject.id,
    name: subject.name,
    as_of: isoSeconds(asOf),
    repositories: repos.length,
    repository_names: repos.map((r) => r.repo),
    archived_repositories: repos.filter((r) => r.archived).length,
    developers: {
      active_28d: classes.size,
      full_time: count.full_time,
      part_time: count.part_time,
      one_time: count.one_time,
      active_90d: active90.size,
      window_days: ACTIVITY_WINDOW / DAY,
    },
    commits: {
      last_7d: commits.filter((c) => inWindow(c.committerDate, t - WEEK, t)).length,
      last_30d: month.length,
      people_last_30d: month.filter((c) => !c.bot).length,
      trend_4w: ratio(last4('commits_people'), prev4('commits_people')),
    },
    pull_requests: {
      opened_30d: pullsMonth.length,
      merged_30d: issues.filter((i) => i.pull && i.mergedAt !== null && inWindow(i.mergedAt, t - MONTH, t)).length,
      open: issues.filter((i) => i.pull && i.createdAt <= t && (i.closedAt === null || i.closedAt > t)).length,
      median_hours_to_merge_90d: hours(median(merged90.map((i) => i.mergedAt! - i.createdAt))),
      trend_4w: ratio(last4('pulls_opened'), prev4('pulls_opened')),
    },
    issues: {
      open: plainIssues.filter((i) => i.createdAt <= t && (i.closedAt === null || i.closedAt > t)).length,
      opened_30d: plainIssues.filter((i) => inWindow(i.createdAt, t - MONTH, t)).length,
      closed_30d: plainIssues.filter((i) => i.closedAt !== null && inWindow(i.closedAt, t - MONTH, t)).length,
      median_hours_to_first_response_90d: hours(median(responses)),
      unanswered_90d: unanswered,
      median_hours_to_close_90d: hours(median(closed90.map((i) => i.closedAt! - i.createdAt))),
    },
    bots: {
      commit_share_30d: ratio(month.filter((c) => c.bot).length, month.length),
      pull_share_30d: ratio(pullsMonth.filter((i) => i.bot).length, pullsMonth.length),
      accounts: [...botLogins].sort(),
    },
    weekly,
    score: score?.score ?? null,
    // The current score's components: one per repository (the score record is the single source of these numbers).
    repository_scores: (score?.components.length
      ? score.components
      : repos.map((r) => ({
          name: r.repo,
          value: null,
          weight: 0,
          inputs: {
            repository: r.repo,
            url: r.htmlUrl,
            development_events_12w: null,
            grade: null,
            gap_reason: score?.gap_reason ?? 'no_data',
          },
        }))
    ).map((c) => ({
      repository: c.inputs.repository as string,
      url: c.inputs.url as string,
      score: c.value,
      grade: (c.inputs.grade as string | null) ?? null,
      development_events_12w: (c.inputs.development_events_12w as number | null) ?? null,
      weight: c.weight,
      gap_reason: (c.inputs.gap_reason as string | null) ?? null,
    })),
  };
  const missing = statsMissingFields(repos, t);
  for (const path of Object.keys(missing)) nullAt(stats, path);
  return {
    ...stats,
    gap_reasons: Object.fromEntries(Object.keys(missing).map((path) => [path, 'no_data'])),
    missing_fields: missing,
  } as StatsPayload;
}

export function computeDevelopment(input: DevelopmentInput): DevelopmentOutput {
  const { asOf } = input;
  const instants = dailyHistoryInstants(asOf, HISTORY_DAYS);
  const activity = new Map<string, ActivityRecordEntry[]>();
  const stats = new Map<string, StatsPayload>();
  const scores = new Map<string, DevelopmentScoreRecord[]>();
  const ranking: ScoreEntry[] = [];
  for (const subject of input.subjects) {
    const key = `${subject.kind}:${subject.id}`;
    const history = instants.map((t, d) => developmentScoreAt(subject.repos, t, d === 0, subject));
    scores.set(key, history);
    if (subject.kind === 'protocol') {
      const records = instants.flatMap((t, d) =>
        [...subject.repos]
          .sort((a, b) => a.repo.toLowerCase().localeCompare(b.repo.toLowerCase()))
          .map((r) => activityRecord(subject, r, t, d === 0)),
      );
      activity.set(subject.id, records);
    }
    stats.set(key, statsOf(subject, asOf, history[0]));
    ranking.push({ kind: subject.kind, id: subject.id, name: subject.name, rank: 0, ...history[0]! });
  }
  ranking.sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  ranking.forEach((r, i) => {
    r.rank = i + 1;
  });
  return { activity, stats, scores, ranking };
}
