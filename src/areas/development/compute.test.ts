import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import {
  AS_OF,
  commit,
  DAY,
  day,
  END_OF_YESTERDAY,
  event,
  issue,
  pull,
  repoFacts,
} from '../../../test/support/development-facts.js';
import { dailyHistoryInstants, isoSeconds, startOfUtcDay } from '../../core/time.js';
import { computeDevelopment, gini, type SubjectInput } from './compute.js';
import type { RepoFacts } from './facts.js';
import { ActivityRecord, DevelopmentRankingEntry, DevelopmentScoreHistory, Stats } from './schema.js';

/**
 * compute.ts on hand-built facts: the legacy per-repository fields by their definitions (reference/legacy-api.md,
 * docs/methodology/development.md), the 7 daily records of API.md "Time windows" with partial and gap_reason, and
 * the protocol statistics.
 */

type Rec = Record<string, unknown>;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));
/** Schema violations of a payload, as readable lines (none expected). */
const violations = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);
const subject = (repos: RepoFacts[], id = 'demo'): SubjectInput => ({ kind: 'protocol', id, name: 'Demo', repos });
const activity = (s: SubjectInput) => computeDevelopment({ asOf: AS_OF, subjects: [s] }).activity.get(s.id)! as Rec[];
/** The 7 record instants, newest first: as_of, then the last second of each earlier UTC day. */
const INSTANTS = dailyHistoryInstants(AS_OF, 7);

/** Gini by its definition, over every ordered pair. */
function giniByDefinition(xs: number[]): number {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  let total = 0;
  for (const a of xs) for (const b of xs) total += Math.abs(a - b);
  return total / (2 * n * n * mean);
}

describe('gini', () => {
  it('is 0 for equal amounts, (n − 1)/n when one holds everything, null without a positive total', () => {
    expect(gini([4, 4, 4])).toBe(0);
    expect(gini([0, 0, 0, 10])).toBeCloseTo(0.75, 12);
    expect(gini([1, 2, 3, 6])).toBeCloseTo(32 / 96, 12);
    expect(gini([])).toBeNull();
    expect(gini([0, 0])).toBeNull();
  });

  it('equals Σᵢ Σⱼ |xᵢ − xⱼ| / (2 n² mean) on arbitrary amounts', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let k = 0; k < 50; k++) {
      const xs = Array.from({ length: 1 + Math.floor(next() * 20) }, () => Math.floor(next() * 500) + 1);
      expect(gini(xs)).toBeCloseTo(giniByDefinition(xs), 10);
    }
  });
});

describe('activity records (legacy fields per repository and day)', () => {
  // Commits placed on the window boundaries of the record ending at END_OF_YESTERDAY (t1) and at AS_OF.
  const t1 = END_OF_YESTERDAY;
  const onWeekEdge = commit(t1 - 7 * DAY, 'alice'); // not in t1's 7 days (the window is open at its start)
  const inWeek = commit(t1 - 7 * DAY + 1, 'alice', { commentCount: 2 });
  const atEnd = commit(t1, 'bob'); // ends t1's windows: in
  const afterEnd = commit(t1 + 1, 'alice'); // after t1: in as_of's record only
  const onMonthEdge = commit(t1 - 30 * DAY, 'carol', { commentCount: 5 });
  const inMonth = commit(t1 - 30 * DAY + 1, 'carol', { commentCount: 1 });
  const byBot = commit(t1 - 2 * DAY, 'dependabot[bot]');
  const busy = repoFacts({
    repo: 'demo/core',
    commits: [onWeekEdge, inWeek, atEnd, afterEnd, onMonthEdge, inMonth, byBot],
    commitsTotal: 1000,
    contributors: [
      ['alice', 6],
      ['bob', 3],
      ['carol', 1],
      ['dependabot[bot]', 2],
    ],
    stars: 50,
    forks: 7,
    events: [
      event('PushEvent', t1 - 3 * DAY),
      event('IssuesEvent', t1 - DAY, { action: 'opened' }),
      event('IssueCommentEvent', t1),
      event('WatchEvent', t1 + 10),
      event('ForkEvent', t1 + 20),
      event('WatchEvent', t1 - 10 * DAY),
    ],
    issues: [
      issue(AS_OF - 10 * DAY), // open throughout
      issue(AS_OF - 10 * DAY, { closedAt: t1 + 5 }), // closed during as_of's day
      issue(t1 + 100), // opened during as_of's day
      issue(AS_OF - 30 * DAY, { closedAt: INSTANTS[3]! }), // closed exactly at the 4th record's end
      pull(AS_OF - 20 * DAY, { closedAt: INSTANTS[2]!, mergedAt: INSTANTS[2]! }),
    ],
    days: [
      day(startOfUtcDay(t1), { branches: 4, collaborators: 3, watchers: 11 }),
      day(startOfUtcDay(AS_OF), { branches: 5, collaborators: null, watchers: 12 }),
    ],
  });
  const records = activity(subject([busy]));

  it('gives 7 records per repository, newest first, the running day partial, timestamps at the day ends', () => {
    expect(records).toHaveLength(7);
    expect(records.map((r) => r.timestamp)).toEqual(INSTANTS.map(isoSeconds));
    expect(records.map((r) => r.timestamp)).toEqual([
      '2026-05-10T12:00:00Z',
      '2026-05-09T23:59:59Z',
      '2026-05-08T23:59:59Z',
      '2026-05-07T23:59:59Z',
      '2026-05-06T23:59:59Z',
      '2026-05-05T23:59:59Z',
      '2026-05-04T23:59:59Z',
    ]);
    expect(records.map((r) => r.date)).toEqual(INSTANTS.map((t) => isoSeconds(t).slice(0, 10)));
    expect(records.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);
    expect(records.every((r) => r.gap_reason === null)).toBe(true);
    expect(records.every((r) => r.url === 'https://github.com/demo/core' && r.repository === 'demo/core')).toBe(true);
    expect(records.flatMap((r) => violations(ActivityRecord, r))).toEqual([]);
  });

  it('counts num_commit_w / num_commit_m as default-branch commits with a committer date in the 7 / 30 days ending at timestamp', () => {
    // t1: (t1 − 7 d, t1] holds inWeek, atEnd, byBot; (t1 − 30 d, t1] adds onWeekEdge and inMonth.
    expect(records[1]).toMatchObject({ num_commit_w: 3, num_commit_m: 5 });
    // as_of (noon): (as_of − 7 d, as_of] = atEnd, afterEnd, byBot; 30 days: also onWeekEdge and inWeek.
    expect(records[0]).toMatchObject({ num_commit_w: 3, num_commit_m: 5 });
    // Every record, by the definition (bots are commits too: these are the legacy raw counts).
    INSTANTS.forEach((t, d) => {
      const within = (days: number) =>
        busy.commits.filter((c) => c.committerDate > t - days * DAY && c.committerDate <= t).length;
      expect(records[d], isoSeconds(t)).toMatchObject({ num_commit_w: within(7), num_commit_m: within(30) });
    });
    // num_commit_t: the snapshot's total less the commits after timestamp.
    expect(records[0]!.num_commit_t).toBe(1000);
    expect(records[1]!.num_commit_t).toBe(999);
    expect(records[2]!.num_commit_t).toBe(998);
    // commit_comments: comments on the commits of the 30 days ending at timestamp.
    expect(records[0]!.commit_comments).toBe(2);
    expect(records[1]!.commit_comments).toBe(3);
  });

  it('derives contributors, top_contributor_weight, mean, absolute deviation and Gini from the contributors at timestamp', () => {
    // as_of: the snapshot itself, bots included (GitHub's contributors): 6, 3, 1, 2.
    expect(records[0]).toMatchObject({
      contributors: 4,
      top_contributor_weight: 50,
      contributions_mean: 3,
      contributions_absolute_deviation: 1.5,
    });
    expect(records[0]!.gini_coefficient).toBeCloseTo(32 / 96, 6);
    // t1: alice's commit after t1 is not hers yet: 5, 3, 1, 2.
    expect(records[1]).toMatchObject({
      contributors: 4,
      top_contributor_weight: 45.45,
      contributions_mean: 2.75,
      contributions_absolute_deviation: 1.25,
    });
    expect(records[1]!.gini_coefficient).toBeCloseTo(giniByDefinition([5, 3, 1, 2]), 6);
    // Two days back bob's commit at t1 goes too: 5, 2, 1, 2; four days back the bot's as well: 5, 2, 1, 1.
    expect(records[2]!.gini_coefficient).toBeCloseTo(giniByDefinition([5, 2, 1, 2]), 6);
    expect(records[4]!.gini_coefficient).toBeCloseTo(giniByDefinition([5, 2, 1, 1]), 6);
    expect(records[4]!.top_contributor_weight).toBe(55.56);
  });

  it('counts issues and pull requests open at timestamp, events of the 7 days, and reconstructs stars and forks', () => {
    expect(records.map((r) => r.num_issues)).toEqual([2, 2, 2, 2, 3, 3, 3]);
    expect(records.map((r) => r.num_pulls)).toEqual([0, 0, 0, 1, 1, 1, 1]);
    // as_of: push, issue opened, comment, star, fork; t1: push, issue opened, comment.
    expect(records[0]).toMatchObject({ activity_events: 5, num_issues_events: 2, stars: 50, forks: 7 });
    expect(records[1]).toMatchObject({ activity_events: 3, num_issues_events: 2, stars: 49, forks: 6 });
  });

  it("takes branches, collaborators and watchers from the day's observation only", () => {
    expect(records[0]).toMatchObject({ branches: 5, collaborators: null, watchers: 12 });
    expect(records[1]).toMatchObject({ branches: 4, collaborators: 3, watchers: 11 });
    for (const r of records.slice(2)) expect(r).toMatchObject({ branches: null, collaborators: null, watchers: null });
  });

  it('leaves event-based fields null where the stored events do not cover their window', () => {
    const late = repoFacts({ ...busy, repo: 'demo/late-events', eventsFrom: AS_OF - 2 * DAY });
    const r = activity(subject([late]));
    expect(r.map((x) => x.activity_events)).toEqual([null, null, null, null, null, null, null]);
    expect(r.map((x) => x.num_issues_events)).toEqual([null, null, null, null, null, null, null]);
    // Stars and forks need the events after timestamp only: known from events_from on.
    expect(r.map((x) => x.stars)).toEqual([50, 49, 49, null, null, null, null]);
    expect(r.every((x) => x.gap_reason === null && x.num_commit_w !== null)).toBe(true);
  });
});

describe('gaps in the daily records', () => {
  const old = repoFacts({ repo: 'demo/old', commits: [commit(AS_OF - 3 * DAY)] });
  // Created on 2026-05-07 at 10:00: the records of 05-04 to 05-06 describe a repository that did not exist.
  const created = Date.UTC(2026, 4, 7, 10) / 1000;
  const young = repoFacts({ repo: 'demo/young', createdAt: created, commits: [commit(created + 3600)] });
  // Ingestion began 33 days back: a 30-day window is covered only from 3 days back on.
  const shallow = repoFacts({ repo: 'demo/shallow', commitsFrom: AS_OF - 33 * DAY, commits: [] });
  const records = activity(subject([shallow, young, old]));
  const of = (name: string) => records.filter((r) => r.repository === name);

  it('keeps every day of every repository, sorted by repository within a day', () => {
    expect(records).toHaveLength(21);
    expect(records.slice(0, 3).map((r) => r.repository)).toEqual(['demo/old', 'demo/shallow', 'demo/young']);
    for (const name of ['demo/old', 'demo/shallow', 'demo/young']) expect(of(name)).toHaveLength(7);
    expect(records.flatMap((r) => violations(ActivityRecord, r))).toEqual([]);
  });

  it('marks the days before a repository existed not_deployed, with null figures', () => {
    expect(of('demo/young').map((r) => r.gap_reason)).toEqual([
      null,
      null,
      null,
      null,
      'not_deployed',
      'not_deployed',
      'not_deployed',
    ]);
    const gap = of('demo/young')[4]!;
    for (const field of ['num_commit_t', 'num_commit_w', 'num_commit_m', 'contributors', 'stars', 'forks'])
      expect(gap[field], field).toBeNull();
    expect(of('demo/young')[3]).toMatchObject({ num_commit_w: 1, num_commit_t: 1 });
    // `repos`: the protocol's repositories existing at timestamp.
    expect(records.filter((r) => r.repository === 'demo/old').map((r) => r.repos)).toEqual([3, 3, 3, 3, 2, 2, 2]);
  });

  it('marks days whose 30-day window starts before ingestion began no_data', () => {
    expect(of('demo/shallow').map((r) => r.gap_reason)).toEqual([
      null,
      null,
      null,
      null,
      'no_data',
      'no_data',
      'no_data',
    ]);
    expect(of('demo/shallow')[4]!.num_commit_m).toBeNull();
    expect(of('demo/old').every((r) => r.gap_reason === null)).toBe(true);
  });
});

describe('protocol statistics and scores', () => {
  const A = AS_OF;
  const onDays = (who: string, days: number[], extra = {}) => days.map((d) => commit(A - d * DAY, who, extra));
  const range = (n: number, from = 0) => Array.from({ length: n }, (_, k) => from + k);
  const core = repoFacts({
    repo: 'demo/core',
    commits: [
      ...onDays('alice', range(10)), // 10 active days: full time
      commit(A - 3600, 'alice'), // a second commit on a day already counted
      ...onDays('bob', [1, 20]), // 2 days: part time
      ...onDays('carol', range(9, 5)), // 9 days: part time
      ...onDays('renovate[bot]', range(12)), // a bot: no class, a share of the commits
      commit(A - 28 * DAY, 'erin'), // on the 28-day window's open start: outside
      commit(A - 40 * DAY, 'erin'),
    ],
    contributors: [
      ['alice', 40],
      ['carol', 10],
      ['renovate[bot]', 50],
    ],
    issues: [
      pull(A - 2 * DAY),
      pull(A - 3 * DAY, { authorLogin: 'renovate[bot]', bot: true, closedAt: A - DAY, mergedAt: A - DAY }),
      issue(A - 10 * DAY, { closedAt: A - 8 * DAY }),
    ],
  });
  const side = repoFacts({ repo: 'demo/side', commits: onDays('dave', [4]), contributors: [['dave', 1]] });
  const out = computeDevelopment({ asOf: A, subjects: [subject([core, side])] });
  const stats = out.stats.get('protocol:demo')! as unknown as Rec & Record<string, Rec>;

  it('classes people by active commit days in the 28 days ending at as_of, bots excluded', () => {
    expect(stats.developers).toEqual({
      active_28d: 4,
      full_time: 1,
      part_time: 2,
      one_time: 1,
      active_90d: 5,
      window_days: 28,
    });
  });

  it('counts commits, pull requests, issues and bot shares', () => {
    const month = core.commits.filter((c) => c.committerDate > A - 30 * DAY).length + 1;
    const bots = 12;
    expect(stats.commits).toMatchObject({
      last_30d: month,
      people_last_30d: month - bots,
    });
    expect(stats.bots).toEqual({
      commit_share_30d: Math.round((bots / month) * 10_000) / 10_000,
      pull_share_30d: 0.5,
      accounts: ['renovate[bot]'],
    });
    expect(stats.pull_requests).toMatchObject({ opened_30d: 2, merged_30d: 1, open: 1, median_hours_to_merge_90d: 48 });
    expect(stats.issues).toMatchObject({ open: 0, opened_30d: 1, closed_30d: 1, median_hours_to_close_90d: 48 });
    expect(stats).toMatchObject({ protocol: 'demo', repositories: 2, repository_names: ['demo/core', 'demo/side'] });
    expect((stats.weekly as unknown as Rec[])[0]).toMatchObject({ week_ending: isoSeconds(A), commits_bots: 7 });
    expect(violations(Stats, stats)).toEqual([]);
  });

  it('publishes 7-day score histories and a ranking that validate against their schemas', () => {
    const history = out.scores.get('protocol:demo')!;
    expect(violations(DevelopmentScoreHistory, history)).toEqual([]);
    expect(history.map((h) => h.partial)).toEqual([true, false, false, false, false, false, false]);
    expect(history.map((h) => h.timestamp)).toEqual(INSTANTS.map(isoSeconds));
    expect(stats.score).toBe(history[0]!.score);
    expect(out.ranking).toHaveLength(1);
    expect(out.ranking[0]).toMatchObject({ kind: 'protocol', id: 'demo', rank: 1, score: history[0]!.score });
    expect(violations(DevelopmentRankingEntry, out.ranking[0])).toEqual([]);
  });
});
