/**
 * The development score, `development.activity@2.1.0` (docs/methodology/development.md). Pure: facts and the instant
 * in, a score record out.
 *
 * Two levels, reconciled by construction:
 * - a repository is scored by five components (activity, continuity, developer base, contributor concentration,
 *   maintenance) combined by a weighted geometric mean; activity, developer base and concentration are read on
 *   log scales between documented anchors, so that scale shows (ten times the work moves a component by the same
 *   step at any size) instead of saturating at a handful of commits;
 * - a protocol or chain is the activity-weighted mean of its repositories' scores: one component per repository,
 *   whose value is that repository's score and whose weight is its share of the development events of the 12 weeks
 *   (plus one each, so that a quiet repository still counts a little). The protocol score therefore lies between
 *   its repositories' scores, and a reader recomputes it as Σ weight × value from the published components.
 *
 * Only development events count: commits on the default branch and pull requests opened, by people. Issue
 * traffic, comments, stars, forks and watching are not development (Santiment's rule, reference/methodology.md),
 * and bots (GitHub `Bot` accounts, `[bot]` logins) are left out of every component, so a repository cannot be made
 * to look alive by dependabot.
 */
import {
  type ComponentInput,
  combineScore,
  logScale,
  methodologyId,
  roundTo,
  type ScoreComponent,
  scoreGapReason,
} from '../../core/score.js';
import { hhi, median, sum } from '../../core/stats.js';
import { DAY, utcDate } from '../../core/time.js';
import { type ContributorCount, isBot, type RepoFacts } from './facts.js';
import type { DevelopmentScoreRecord } from './schema.js';
import { cutBy, midnightsIn, unionOf, unknownAuthorsIn } from './uncertain.js';

export const DEVELOPMENT_METHODOLOGY = methodologyId('development', 'activity', '2.1.0');

/** Activity and developer classes look back 28 days: Electric Capital's rolling window. */
export const ACTIVITY_WINDOW = 28 * DAY;
/** Continuity: 12 weeks, a quarter, long enough that a holiday does not read as a stop. */
export const CONTINUITY_WEEKS = 12;
/** Electric Capital: a developer with 10 or more active commit days in the 28-day window works full time. */
export const FULL_TIME_DAYS = 10;
/**
 * Activity: development events per week (28-day mean) on a log scale, 0 at 0.25 a week (one event a month: a
 * repository touched now and then, not developed) and 1 at 100 a week (about 430 a month: the busiest repositories
 * of the field, such as go-ethereum, see commits and pull requests of that order). Between them each tenfold step
 * of work is worth the same 0.38: a team ten times as busy is visibly healthier, and nothing saturates at a few
 * commits a day.
 */
export const ACTIVITY_ANCHORS = { zero_at: 0.25, one_at: 100 } as const;
/** Class weights of the developer base: a part-timer is half a full-timer, a one-time contributor a fifth. */
export const CLASS_WEIGHTS = { full_time: 1, part_time: 0.5, one_time: 0.2 } as const;
/**
 * Developer base: effective developers (full-time + 0.5 part-time + 0.2 one-time) on a log scale, 0 at 0.2 (one
 * one-time contributor: nobody develops it) and 1 at 30 (thirty full-time equivalents on one repository: the core
 * repositories of the largest ecosystems; a DeFi protocol's repository has a few). One full-timer reads 0.32, two
 * 0.46, ten 0.78.
 */
export const DEVELOPER_ANCHORS = { zero_at: 0.2, one_at: 30 } as const;
/**
 * Contributor concentration: effective contributors 1/HHI of all-time contributions by people on a log scale, 0 at
 * 1 (one person wrote it all: the bus factor is one) and 1 at 20 (contributions spread like twenty equal
 * contributors: long-lived community projects). Two equal people read 0.23, five 0.54, ten 0.77.
 */
export const CONTRIBUTOR_ANCHORS = { zero_at: 1, one_at: 20 } as const;
/** A repository's weight in its protocol's score: development events in the 12 weeks of continuity, plus this. */
export const WEIGHT_EVENTS_PRIOR = 1;
/** Maintenance: issues and pull requests opened 7–97 days before the instant, given a week to be answered. */
export const MAINTENANCE_WINDOW = 90 * DAY;
export const MAINTENANCE_GRACE = 7 * DAY;
/** Fewer items than this say nothing about maintenance: the component is null. */
export const MAINTENANCE_MIN_ITEMS = 3;

/**
 * Nominal weights (sum 1), combined as a weighted geometric mean (a failing component is not bought back):
 * - contributor_concentration 0.30, the largest: code that one person wrote and one person understands ends
 *   with that person (the bus factor, CHAOSS "contributor absence factor"); it is the slowest signal to change,
 *   and the legacy API published it (gini, top contributor weight);
 * - activity 0.20 and continuity 0.20: development happening now, and week after week rather than in bursts;
 * - developer_base 0.15: how many people develop now, weighted by how much (Electric Capital's classes);
 * - maintenance 0.15: issues and pull requests get resolved.
 */
export const WEIGHTS = {
  activity: 0.2,
  continuity: 0.2,
  developer_base: 0.15,
  contributor_concentration: 0.3,
  maintenance: 0.15,
} as const;

/** Contributions per account at `t`: the snapshot's, less the commits authored after `t` (up to the snapshot). */
export function contributorsAt(repo: RepoFacts, t: number): ContributorCount[] {
  if (t >= repo.snapshotAt) return [...repo.contributors];
  const later = new Map<string, number>();
  for (const c of repo.commits) {
    if (c.committerDate > t && c.committerDate <= repo.snapshotAt && c.authorLogin !== null) {
      later.set(c.authorLogin, (later.get(c.authorLogin) ?? 0) + 1);
    }
  }
  return repo.contributors
    .map((c) => ({ ...c, contributions: c.contributions - (later.get(c.login) ?? 0) }))
    .filter((c) => c.contributions > 0);
}

export type DeveloperClass = 'full_time' | 'part_time' | 'one_time';

/** Electric Capital's classes from active commit days in the 28 days ending at `t` (people only). */
export function developerClasses(repos: readonly RepoFacts[], t: number): Map<string, DeveloperClass> {
  const days = new Map<string, Set<number>>();
  for (const r of repos) {
    for (const c of r.commits) {
      if (c.bot || c.committerDate <= t - ACTIVITY_WINDOW || c.committerDate > t) continue;
      const set = days.get(c.authorKey) ?? new Set<number>();
      set.add(Math.floor(c.committerDate / DAY));
      days.set(c.authorKey, set);
    }
  }
  const out = new Map<string, DeveloperClass>();
  for (const [who, set] of days) {
    out.set(who, set.size >= FULL_TIME_DAYS ? 'full_time' : set.size >= 2 ? 'part_time' : 'one_time');
  }
  return out;
}

/** Development events (people's commits and opened pull requests) in (from, to]. */
export function developmentEvents(repos: readonly RepoFacts[], from: number, to: number): number[] {
  const times: number[] = [];
  for (const r of repos) {
    for (const c of r.commits)
      if (!c.bot && c.committerDate > from && c.committerDate <= to) times.push(c.committerDate);
    for (const i of r.issues) if (i.pull && !i.bot && i.createdAt > from && i.createdAt <= to) times.push(i.createdAt);
  }
  return times;
}

/** The entity a score record describes: a protocol or a chain (its identifier is published on the record). */
export interface ScoredSubject {
  readonly kind: 'protocol' | 'chain';
  readonly id: string;
}

/** Enough ingested history at `t` for every window of the model (continuity's 12 weeks reach furthest back). */
function covered(r: RepoFacts, t: number): boolean {
  return r.commitsFrom <= t - CONTINUITY_WEEKS * 7 * DAY;
}

const r4 = (x: number | null) => (x === null ? null : roundTo(x, 4));

/**
 * The fields GitHub left out that make components of `repo` at `t` unknown (`uncertain.ts`): commits without a
 * date whose span a week of the model cuts (activity, continuity), or a day of the 28 (developer classes), or `t`
 * (contributions at `t`); commits nobody can attribute in the 28 days (developer base); anonymous contributors.
 */
export function componentGaps(repo: RepoFacts, t: number) {
  const time = (c: RepoFacts['commits'][number]) => c.committerDate;
  const weeks = cutBy(
    repo.commits,
    time,
    Array.from({ length: CONTINUITY_WEEKS + 1 }, (_, k) => t - k * 7 * DAY),
  );
  return {
    events: weeks,
    developers: unionOf(
      weeks,
      cutBy(repo.commits, time, midnightsIn(t - ACTIVITY_WINDOW, t)),
      unknownAuthorsIn(repo.commits, t - ACTIVITY_WINDOW, t),
    ),
    contributors: unionOf(
      cutBy(repo.commits, time, [t]),
      repo.missing.filter((m) => m.startsWith('contributors')),
    ),
  };
}

/** A component made unknown by missing fields: null, `no_data`, the fields named in its inputs. */
function unknownComponent(c: ComponentInput, missing: readonly string[]): ComponentInput {
  return missing.length
    ? { ...c, value: null, gapReason: 'no_data', inputs: { ...c.inputs, missing_fields: missing } }
    : c;
}

/** The five components of one repository at instant `t` (the repository exists and is covered). */
function repositoryComponents(repo: RepoFacts, t: number): ComponentInput[] {
  const repos = [repo];
  const recent = developmentEvents(repos, t - ACTIVITY_WINDOW, t);
  const perWeek = recent.length / (ACTIVITY_WINDOW / (7 * DAY));

  const weekly = new Array<number>(CONTINUITY_WEEKS).fill(0);
  for (const at of developmentEvents(repos, t - CONTINUITY_WEEKS * 7 * DAY, t)) {
    weekly[Math.floor((t - at) / (7 * DAY))]! += 1;
  }
  const activeWeeks = weekly.filter((n) => n > 0).length;

  const classes = developerClasses(repos, t);
  const count = { full_time: 0, part_time: 0, one_time: 0 };
  for (const c of classes.values()) count[c]++;
  const effective = roundTo(
    count.full_time * CLASS_WEIGHTS.full_time +
      count.part_time * CLASS_WEIGHTS.part_time +
      count.one_time * CLASS_WEIGHTS.one_time,
    4,
  );

  const people = new Map<string, number>();
  let botContributions = 0;
  for (const c of contributorsAt(repo, t)) {
    if (isBot(c.login, c.type)) botContributions += c.contributions;
    else people.set(c.login, (people.get(c.login) ?? 0) + c.contributions);
  }
  const amounts = [...people.values()];
  const concentration = hhi(amounts);
  const effectiveContributors = concentration === null ? 0 : roundTo(1 / concentration, 4);
  const top = [...people.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];

  const items = repo.issues.filter(
    (i) => !i.bot && i.createdAt > t - MAINTENANCE_GRACE - MAINTENANCE_WINDOW && i.createdAt <= t - MAINTENANCE_GRACE,
  );
  const resolved = items.filter((i) => i.closedAt !== null && i.closedAt <= t);
  const resolveHours = resolved.map((i) => (i.closedAt! - i.createdAt) / 3600);
  const maintenance = repo.archived ? 0 : items.length < MAINTENANCE_MIN_ITEMS ? null : resolved.length / items.length;

  const gaps = componentGaps(repo, t);
  const components: ComponentInput[] = [
    {
      name: 'activity',
      value: logScale(perWeek, ACTIVITY_ANCHORS.zero_at, ACTIVITY_ANCHORS.one_at),
      weight: WEIGHTS.activity,
      inputs: {
        development_events_28d: recent.length,
        per_week: roundTo(perWeek, 4),
        zero_at_per_week: ACTIVITY_ANCHORS.zero_at,
        one_at_per_week: ACTIVITY_ANCHORS.one_at,
        formula: 'log(per_week / zero_at_per_week) / log(one_at_per_week / zero_at_per_week), clamped to [0, 1]',
        counted: 'commits on the default branch and pull requests opened, by people (bots excluded)',
      },
    },
    {
      name: 'continuity',
      value: activeWeeks / CONTINUITY_WEEKS,
      weight: WEIGHTS.continuity,
      inputs: { active_weeks: activeWeeks, weeks: CONTINUITY_WEEKS, weekly_events_newest_first: weekly },
    },
    {
      name: 'developer_base',
      value: logScale(effective, DEVELOPER_ANCHORS.zero_at, DEVELOPER_ANCHORS.one_at),
      weight: WEIGHTS.developer_base,
      inputs: {
        ...count,
        effective_developers: effective,
        class_weights: CLASS_WEIGHTS,
        zero_at: DEVELOPER_ANCHORS.zero_at,
        one_at: DEVELOPER_ANCHORS.one_at,
        full_time_days: FULL_TIME_DAYS,
        formula: 'log(effective_developers / zero_at) / log(one_at / zero_at), clamped to [0, 1]',
      },
    },
    {
      name: 'contributor_concentration',
      value: logScale(effectiveContributors, CONTRIBUTOR_ANCHORS.zero_at, CONTRIBUTOR_ANCHORS.one_at),
      weight: WEIGHTS.contributor_concentration,
      inputs: {
        contributors: people.size,
        hhi: r4(concentration),
        effective_contributors: effectiveContributors,
        zero_at: CONTRIBUTOR_ANCHORS.zero_at,
        one_at: CONTRIBUTOR_ANCHORS.one_at,
        top_contributor: top?.[0] ?? null,
        top_share: top ? r4(top[1] / sum(amounts)) : null,
        bot_contributions_excluded: botContributions,
        formula:
          'log(effective_contributors / zero_at) / log(one_at / zero_at), clamped to [0, 1]; effective_contributors = 1 / hhi of all-time contributions by people',
      },
    },
    {
      name: 'maintenance',
      value: maintenance,
      weight: WEIGHTS.maintenance,
      inputs: {
        opened: items.length,
        resolved: resolved.length,
        median_hours_to_resolve: r4(median(resolveHours)),
        archived: repo.archived,
        window: 'issues and pull requests opened 97 to 7 days before the instant',
        null_below: MAINTENANCE_MIN_ITEMS,
      },
    },
  ];
  const missingOf: Record<string, readonly string[]> = {
    activity: gaps.events,
    continuity: gaps.events,
    developer_base: gaps.developers,
    contributor_concentration: gaps.contributors,
  };
  return components.map((c) => unknownComponent(c, missingOf[c.name] ?? []));
}

/** One repository's score record at `t`: the five components, weighted geometric mean. */
export interface RepositoryScore {
  readonly repository: string;
  readonly url: string;
  readonly score: number | null;
  readonly grade: DevelopmentScoreRecord['grade'];
  readonly evidence: number;
  readonly aggregation: 'weighted-geometric-mean';
  readonly components: ScoreComponent[];
  readonly gap_reason: string | null;
}

/** The score of one repository at instant `t`, by the five components. */
export function repositoryScoreAt(repo: RepoFacts, t: number): RepositoryScore {
  const id = { repository: repo.repo, url: repo.htmlUrl };
  const options = { methodology: DEVELOPMENT_METHODOLOGY, at: t, aggregation: 'weighted-geometric-mean' } as const;
  if (repo.createdAt > t || !covered(repo, t)) {
    const r = combineScore([], options);
    return {
      ...id,
      score: null,
      grade: null,
      evidence: r.evidence,
      aggregation: 'weighted-geometric-mean',
      components: [],
      gap_reason: repo.createdAt > t ? 'not_deployed' : 'no_data',
    };
  }
  const r = combineScore(repositoryComponents(repo, t), options);
  return {
    ...id,
    score: r.score,
    grade: r.grade,
    evidence: r.evidence,
    aggregation: 'weighted-geometric-mean',
    components: r.components,
    gap_reason: scoreGapReason(r, 'no_data'),
  };
}

/**
 * The score of a protocol or chain (its repositories) at instant `t`: the weighted mean of its repositories' scores,
 * each weighted by its development events in the 12 weeks ending at `t` plus `WEIGHT_EVENTS_PRIOR` (repositories
 * created after `t` are left out). One component per repository (named by it), so the published record carries
 * every number of the sum.
 */
export function developmentScoreAt(
  all: readonly RepoFacts[],
  t: number,
  partial: boolean,
  subject?: ScoredSubject,
): DevelopmentScoreRecord {
  const repos = all
    .filter((r) => r.createdAt <= t)
    .sort((a, b) =>
      a.repo.toLowerCase() < b.repo.toLowerCase() ? -1 : a.repo.toLowerCase() > b.repo.toLowerCase() ? 1 : 0,
    );
  const base = { ...(subject ? { [subject.kind]: subject.id } : {}), date: utcDate(t), partial };
  const options = { methodology: DEVELOPMENT_METHODOLOGY, at: t, aggregation: 'weighted-mean' } as const;
  if (repos.length === 0) {
    return { ...combineScore([], options), ...base, gap_reason: all.length ? 'not_deployed' : 'no_members' };
  }
  if (repos.some((r) => !covered(r, t))) {
    // Not enough history ingested to judge continuity: only when ingestion started less than 12 weeks back.
    return { ...combineScore([], options), ...base, gap_reason: 'no_data' };
  }
  const components: ComponentInput[] = repos.map((r) => {
    // Unknown when an undated commit may or may not fall in the 12 weeks; the repository is then not scored either.
    const events = componentGaps(r, t).events.length
      ? null
      : developmentEvents([r], t - CONTINUITY_WEEKS * 7 * DAY, t).length;
    const s = repositoryScoreAt(r, t);
    return {
      name: r.repo,
      value: s.score,
      weight: (events ?? 0) + WEIGHT_EVENTS_PRIOR,
      inputs: {
        repository: r.repo,
        url: r.htmlUrl,
        development_events_12w: events,
        weight_basis: `development events in the ${CONTINUITY_WEEKS} weeks ending at the instant + ${WEIGHT_EVENTS_PRIOR}`,
        grade: s.grade,
        evidence: s.evidence,
        gap_reason: s.gap_reason,
        aggregation: s.aggregation,
        components: s.components,
      },
    };
  });
  const record = combineScore(components, options);
  return { ...record, ...base, gap_reason: scoreGapReason(record, 'no_data') };
}
