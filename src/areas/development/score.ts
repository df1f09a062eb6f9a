/**
 * The development score, `development.activity@1.0.0` (docs/methodology/development.md): how healthy the
 * development of a set of repositories (one repository, a protocol's or a chain's) is at an instant. Pure: facts and
 * the instant in, a score record out.
 *
 * Only development events count: commits on the default branch and pull requests opened, by people. Issue
 * traffic, comments, stars, forks and watching are not development (Santiment's rule, reference/methodology.md),
 * and bots (GitHub `Bot` accounts, `[bot]` logins) are left out of every component, so a repository cannot be made
 * to look alive by dependabot.
 */
import { type ComponentInput, combineScore, methodologyId, roundTo, saturating } from '../../core/score.js';
import { hhi, median, sum } from '../../core/stats.js';
import { DAY, utcDate } from '../../core/time.js';
import { type ContributorCount, isBot, type RepoFacts } from './facts.js';
import type { DevelopmentScoreRecord } from './schema.js';

export const DEVELOPMENT_METHODOLOGY = methodologyId('development', 'activity', '1.0.0');

/** Activity and developer classes look back 28 days: Electric Capital's rolling window. */
export const ACTIVITY_WINDOW = 28 * DAY;
/** Continuity: 12 weeks, a quarter, long enough that a holiday does not read as a stop. */
export const CONTINUITY_WEEKS = 12;
/** Electric Capital: a developer with 10 or more active commit days in the 28-day window works full time. */
export const FULL_TIME_DAYS = 10;
/**
 * Development events per week at which activity is worth 0.5: 5, a working week's daily commit or pull request
 * by people. Saturating: a team twice as busy is healthier, but not twice.
 */
export const EVENTS_PER_WEEK_HALF = 5;
/** Class weights of the developer base: a part-timer is half a full-timer, a one-time contributor a fifth. */
export const CLASS_WEIGHTS = { full_time: 1, part_time: 0.5, one_time: 0.2 } as const;
/** Effective developers at which the developer base is worth 0.5: two full-timers. */
export const DEVELOPERS_HALF = 2;
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

/** The score of a set of repositories at instant `t` (those created after `t` are left out). */
export function developmentScoreAt(all: readonly RepoFacts[], t: number, partial: boolean): DevelopmentScoreRecord {
  const repos = all.filter((r) => r.createdAt <= t);
  const base = { date: utcDate(t), partial };
  if (repos.length === 0) {
    return {
      ...combineScore([], { methodology: DEVELOPMENT_METHODOLOGY, at: t, aggregation: 'weighted-geometric-mean' }),
      ...base,
      gap_reason: all.length ? 'repos_not_created' : 'no_repos',
    };
  }
  if (repos.some((r) => r.commitsFrom > t - CONTINUITY_WEEKS * 7 * DAY)) {
    // Not enough history ingested to judge continuity: only when ingestion started less than 12 weeks back.
    return {
      ...combineScore([], { methodology: DEVELOPMENT_METHODOLOGY, at: t, aggregation: 'weighted-geometric-mean' }),
      ...base,
      gap_reason: 'no_data',
    };
  }

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
  const effective =
    count.full_time * CLASS_WEIGHTS.full_time +
    count.part_time * CLASS_WEIGHTS.part_time +
    count.one_time * CLASS_WEIGHTS.one_time;

  const people = new Map<string, number>();
  let botContributions = 0;
  for (const r of repos) {
    for (const c of contributorsAt(r, t)) {
      if (isBot(c.login, c.type)) botContributions += c.contributions;
      else people.set(c.login, (people.get(c.login) ?? 0) + c.contributions);
    }
  }
  const amounts = [...people.values()];
  const concentration = hhi(amounts);
  const top = [...people.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];

  const items = repos.flatMap((r) =>
    r.issues.filter(
      (i) => !i.bot && i.createdAt > t - MAINTENANCE_GRACE - MAINTENANCE_WINDOW && i.createdAt <= t - MAINTENANCE_GRACE,
    ),
  );
  const resolved = items.filter((i) => i.closedAt !== null && i.closedAt <= t);
  const resolveHours = resolved.map((i) => (i.closedAt! - i.createdAt) / 3600);
  const archived = repos.every((r) => r.archived);
  const maintenance = archived ? 0 : items.length < MAINTENANCE_MIN_ITEMS ? null : resolved.length / items.length;

  const r4 = (x: number | null) => (x === null ? null : roundTo(x, 4));
  const components: ComponentInput[] = [
    {
      name: 'activity',
      value: saturating(perWeek, EVENTS_PER_WEEK_HALF),
      weight: WEIGHTS.activity,
      inputs: {
        development_events_28d: recent.length,
        per_week: roundTo(perWeek, 2),
        half_at_per_week: EVENTS_PER_WEEK_HALF,
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
      value: saturating(effective, DEVELOPERS_HALF),
      weight: WEIGHTS.developer_base,
      inputs: {
        ...count,
        effective_developers: roundTo(effective, 2),
        class_weights: CLASS_WEIGHTS,
        half_at: DEVELOPERS_HALF,
        full_time_days: FULL_TIME_DAYS,
      },
    },
    {
      name: 'contributor_concentration',
      value: concentration === null ? 0 : 1 - concentration,
      weight: WEIGHTS.contributor_concentration,
      inputs: {
        contributors: people.size,
        hhi: r4(concentration),
        effective_contributors: concentration === null ? 0 : roundTo(1 / concentration, 2),
        top_contributor: top?.[0] ?? null,
        top_share: top ? r4(top[1] / sum(amounts)) : null,
        bot_contributions_excluded: botContributions,
        formula: '1 - hhi of all-time contributions by people',
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
        archived,
        window: 'issues and pull requests opened 97 to 7 days before the instant',
        null_below: MAINTENANCE_MIN_ITEMS,
      },
    },
  ];
  return {
    ...combineScore(components, {
      methodology: DEVELOPMENT_METHODOLOGY,
      at: t,
      aggregation: 'weighted-geometric-mean',
    }),
    ...base,
    gap_reason: null,
  };
}
