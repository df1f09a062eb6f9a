import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AS_OF, commit, DAY, event, issue, pull, repoFacts, WEEK } from '../../../test/support/development-facts.js';
import { GEOMETRIC_FLOOR, gradeOf, roundTo } from '../../core/score.js';
import type { RepoFacts } from './facts.js';
import {
  ACTIVITY_ANCHORS,
  CONTINUITY_WEEKS,
  CONTRIBUTOR_ANCHORS,
  contributorsAt,
  DEVELOPER_ANCHORS,
  DEVELOPMENT_METHODOLOGY,
  developerClasses,
  developmentEvents,
  developmentScoreAt,
  repositoryScoreAt,
  WEIGHT_EVENTS_PRIOR,
  WEIGHTS,
} from './score.js';

/**
 * The development score (`development.activity@2.1.0`) on hand-built facts: every component of a repository's
 * score by its definition in docs/methodology/development.md (log scales between the page's anchors), the weights
 * of that page, the weighted geometric mean, bots and non-development events left out, the gap reasons, and a
 * protocol's score as the activity-weighted mean of its repositories' scores, recomputable from the record.
 */

const A = AS_OF;
type Component = ReturnType<typeof repositoryScoreAt>['components'][number];
const byName = (record: { components: Component[] }): Record<string, Component> =>
  Object.fromEntries(record.components.map((c) => [c.name, c]));
/** log(x / zero) / log(one / zero), clamped: the page's log scale. */
const logMap = (x: number, a: { zero_at: number; one_at: number }) =>
  Math.min(1, Math.max(0, Math.log(x / a.zero_at) / Math.log(a.one_at / a.zero_at)));

/**
 * alice commits on each of the last 10 days (full time) and once in each of weeks 4–7; bob on 2 days (part time);
 * alice opens a pull request; dependabot commits daily and opens pull requests. Issues and pull requests in the
 * maintenance window: 3 by people, 2 resolved.
 */
function healthy(): RepoFacts {
  return repoFacts({
    repo: 'demo/core',
    commits: [
      ...Array.from({ length: 10 }, (_, d) => commit(A - d * DAY, 'alice')),
      ...[4, 5, 6, 7].map((w) => commit(A - w * WEEK - 1, 'alice')),
      commit(A - 3 * DAY - 60, 'bob'),
      commit(A - 15 * DAY, 'bob'),
      ...Array.from({ length: 28 }, (_, d) => commit(A - d * DAY - 30, 'dependabot[bot]')),
    ],
    contributors: [
      ['alice', 30],
      ['bob', 10],
      ['dependabot[bot]', 100],
    ],
    issues: [
      pull(A - 2 * DAY),
      issue(A - 3 * DAY), // too recent for maintenance (a week's grace)
      issue(A - 10 * DAY, { closedAt: A - 9 * DAY }),
      issue(A - 20 * DAY),
      pull(A - 30 * DAY, { closedAt: A - 25 * DAY, mergedAt: A - 25 * DAY }),
      issue(A - 100 * DAY), // before the window
      pull(A - 15 * DAY, { authorLogin: 'dependabot[bot]', bot: true }),
      pull(A - 40 * DAY, { authorLogin: 'dependabot[bot]', bot: true }),
    ],
  });
}

/** The weighted geometric mean of the page, over values rounded to 4 decimals as published. */
function geometric(values: Record<string, number | null>): number {
  const present = Object.entries(values).filter(([, v]) => v !== null) as [keyof typeof WEIGHTS, number][];
  const total = present.reduce((s, [k]) => s + WEIGHTS[k], 0);
  const log = present.reduce(
    (s, [k, v]) => s + (WEIGHTS[k] / total) * Math.log(Math.max(roundTo(v, 4), GEOMETRIC_FLOOR)),
    0,
  );
  return roundTo(Math.exp(log), 4);
}

describe('the development score on hand-built facts', () => {
  const record = repositoryScoreAt(healthy(), A);
  const c = byName(record);

  it('computes each component by its definition', () => {
    // activity: 13 development events in 28 days (alice 10, bob 2, alice's pull request) = 3.25 a week, on the log
    // scale 0.25 → 100 a week.
    expect(c.activity!.value).toBe(roundTo(Math.log(3.25 / 0.25) / Math.log(100 / 0.25), 4));
    expect(c.activity!.inputs).toMatchObject({ development_events_28d: 13, per_week: 3.25 });
    // continuity: weeks 0, 1 and 2 (the last 15 days) and 4–7 (alice's pull request of 30 days back in week 4)
    // have development events: 7 of 12.
    expect(c.continuity!.value).toBe(roundTo(7 / 12, 4));
    expect(c.continuity!.inputs).toMatchObject({
      active_weeks: 7,
      weeks: 12,
      weekly_events_newest_first: [9, 3, 1, 0, 2, 1, 1, 1, 0, 0, 0, 0],
    });
    // developer base: one full-timer and one part-timer = 1.5 effective developers, on the log scale 0.2 → 30.
    expect(c.developer_base!.value).toBe(roundTo(Math.log(1.5 / 0.2) / Math.log(30 / 0.2), 4));
    expect(c.developer_base!.inputs).toMatchObject({ full_time: 1, part_time: 1, one_time: 0 });
    // concentration: people's contributions 30 and 10, HHI 0.75² + 0.25² = 0.625, 1.6 effective contributors, on
    // the log scale 1 → 20.
    expect(c.contributor_concentration!.value).toBe(roundTo(Math.log(1.6) / Math.log(20), 4));
    expect(c.contributor_concentration!.inputs).toMatchObject({
      hhi: 0.625,
      effective_contributors: 1.6,
      contributors: 2,
      top_contributor: 'alice',
      top_share: 0.75,
      bot_contributions_excluded: 100,
    });
    // maintenance: opened 97 to 7 days back by people: 3, of which 2 resolved.
    expect(c.maintenance!.value).toBe(roundTo(2 / 3, 4));
    expect(c.maintenance!.inputs).toMatchObject({ opened: 3, resolved: 2, archived: false });
  });

  it('combines them with the weights of the methodology page by a weighted geometric mean', () => {
    const page = readFileSync(path.resolve(import.meta.dirname, '../../../docs/methodology/development.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `(\w+)` \| ([\d.]+) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(WEIGHTS);
    expect(Object.values(WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);

    expect(DEVELOPMENT_METHODOLOGY).toBe('development.activity@2.1.0');
    expect(record.aggregation).toBe('weighted-geometric-mean');
    expect(record.components.map((x) => x.name)).toEqual(Object.keys(WEIGHTS));
    for (const x of record.components) expect(x.weight).toBeCloseTo(WEIGHTS[x.name as keyof typeof WEIGHTS], 12);
    const values = Object.fromEntries(record.components.map((x) => [x.name, x.value]));
    expect(record.score).toBe(geometric(values));
    expect(record).toMatchObject({ repository: 'demo/core', gap_reason: null });
    // The anchors of the page's table are the model's.
    const anchors = [...page.matchAll(/^\| `(\w+)` \| [\d.]+ \| .*?zero at ([\d.]+).*?one at ([\d.]+)/gm)].map((m) => [
      m[1],
      { zero_at: Number(m[2]), one_at: Number(m[3]) },
    ]);
    expect(Object.fromEntries(anchors)).toEqual({
      activity: ACTIVITY_ANCHORS,
      developer_base: DEVELOPER_ANCHORS,
      contributor_concentration: CONTRIBUTOR_ANCHORS,
    });
  });

  it('drops maintenance under 3 items and rescales the other weights', () => {
    const f = healthy();
    const few = repositoryScoreAt({ ...f, issues: f.issues.filter((i) => i.pull && !i.bot) }, A);
    const m = byName(few).maintenance!;
    expect(m.value).toBeNull();
    expect(m.weight).toBe(0);
    expect(byName(few).activity!.weight).toBeCloseTo(0.2 / 0.85, 4);
    expect(few.score).toBe(geometric(Object.fromEntries(few.components.map((x) => [x.name, x.value]))));
    // Archived everywhere: maintenance is 0, whatever the issues say.
    expect(byName(repositoryScoreAt({ ...f, archived: true }, A)).maintenance!.value).toBe(0);
  });

  it('leaves bots out of every component', () => {
    const f = healthy();
    const withoutBots: RepoFacts = {
      ...f,
      commits: f.commits.filter((x) => !x.bot),
      issues: f.issues.filter((i) => !i.bot),
      contributors: f.contributors.filter((x) => x.type !== 'Bot'),
    };
    const clean = repositoryScoreAt(withoutBots, A);
    const valuesOf = (r: typeof record) => r.components.map((x) => [x.name, x.value, x.weight]);
    expect(clean.score).toBe(record.score);
    expect(valuesOf(clean)).toEqual(valuesOf(record));
    expect(byName(clean).contributor_concentration!.inputs.bot_contributions_excluded).toBe(0);
    // A repository where only a bot works has no activity, continuity, developer base or spread of contributors.
    const botOnly = repoFacts({
      repo: 'demo/bot',
      commits: Array.from({ length: 60 }, (_, d) => commit(A - d * DAY, 'renovate[bot]')),
      contributors: [['renovate[bot]', 60]],
      issues: Array.from({ length: 5 }, (_, k) =>
        pull(A - (10 + k) * DAY, { authorLogin: 'renovate[bot]', bot: true }),
      ),
    });
    const b = byName(repositoryScoreAt(botOnly, A));
    expect([b.activity!.value, b.continuity!.value, b.developer_base!.value]).toEqual([0, 0, 0]);
    expect(b.contributor_concentration!.value).toBe(0);
    expect(b.maintenance!.value).toBeNull();
  });

  it('counts only development events: issues, comments, stars, forks and watching change nothing', () => {
    const f = healthy();
    const noisy: RepoFacts = {
      ...f,
      stars: 10_000,
      forks: 900,
      events: Array.from({ length: 200 }, (_, k) =>
        event(['IssueCommentEvent', 'WatchEvent', 'ForkEvent', 'IssuesEvent'][k % 4]!, A - k * 3600),
      ),
      // Issues opened in the last week (outside maintenance's window): issue traffic, not development.
      issues: [...f.issues, ...Array.from({ length: 20 }, (_, k) => issue(A - k * 3600))],
      commits: f.commits.map((x) => ({ ...x, commentCount: 50 })),
    };
    expect(repositoryScoreAt(noisy, A)).toEqual(record);
    expect(developmentScoreAt([noisy], A, true)).toEqual(developmentScoreAt([f], A, true));
    expect(developmentEvents([noisy], A - 28 * DAY, A)).toHaveLength(13);
  });
});

describe('log-scale maps: the score sees scale', () => {
  it('gives every tenfold step the same step of value, from 0 to 1 between the anchors', () => {
    for (const anchors of [ACTIVITY_ANCHORS, DEVELOPER_ANCHORS, CONTRIBUTOR_ANCHORS]) {
      expect(logMap(anchors.zero_at, anchors)).toBe(0);
      expect(logMap(anchors.one_at, anchors)).toBe(1);
      const step = Math.log(10) / Math.log(anchors.one_at / anchors.zero_at);
      const x = anchors.zero_at * 1.5;
      expect(logMap(10 * x, anchors) - logMap(x, anchors)).toBeCloseTo(step, 12);
    }
    // v1's saturating map e/(e + 5) put 10 events a week at 0.67, 100 at 0.95 and 1000 at 0.995: each tenfold step
    // of work was worth less (+0.29, then +0.04). The log scale gives each the same 0.38 up to the anchor.
    expect(logMap(100, ACTIVITY_ANCHORS) - logMap(10, ACTIVITY_ANCHORS)).toBeCloseTo(0.3843, 4);
    expect(logMap(10, ACTIVITY_ANCHORS) - logMap(1, ACTIVITY_ANCHORS)).toBeCloseTo(0.3843, 4);
  });

  it('scores a repository with ten times the developers and development a grade above a small one', () => {
    const team = (n: number, repo: string) =>
      repoFacts({
        repo,
        commits: Array.from({ length: n }, (_, k) =>
          Array.from({ length: 84 }, (_, d) => commit(A - d * DAY - k * 60, `dev${k}`)),
        ).flat(),
        contributors: Array.from({ length: n }, (_, k) => [`dev${k}`, 100] as [string, number]),
      });
    const small = repositoryScoreAt(team(2, 'demo/small'), A);
    const large = repositoryScoreAt(team(20, 'demo/large'), A);
    expect(large.score! - small.score!).toBeGreaterThan(0.2);
    expect(gradeOf(large.score)).not.toBe(gradeOf(small.score));
  });
});

describe("a protocol's score is the activity-weighted mean of its repositories' scores", () => {
  const f = healthy();
  const quiet = repoFacts({
    repo: 'demo/quiet',
    commits: [commit(A - 80 * DAY, 'carol')],
    contributors: [['carol', 40]],
  });
  const record = developmentScoreAt([quiet, f], A, true, { kind: 'protocol', id: 'demo' });

  it('publishes one component per repository: its score, weighted by its development events', () => {
    expect(record).toMatchObject({ protocol: 'demo', aggregation: 'weighted-mean', partial: true, gap_reason: null });
    expect(record.components.map((x) => x.name)).toEqual(['demo/core', 'demo/quiet']);
    const events = [f, quiet].map((r) => developmentEvents([r], A - CONTINUITY_WEEKS * WEEK, A).length);
    const weights = events.map((e) => e + WEIGHT_EVENTS_PRIOR);
    const total = weights[0]! + weights[1]!;
    expect(record.components.map((x) => x.weight)).toEqual(weights.map((w) => roundTo(w / total, 4)));
    expect(record.components.map((x) => x.value)).toEqual([
      repositoryScoreAt(f, A).score,
      repositoryScoreAt(quiet, A).score,
    ]);
    expect(record.components[0]!.inputs).toMatchObject({
      repository: 'demo/core',
      development_events_12w: events[0],
      components: repositoryScoreAt(f, A).components,
    });
  });

  it("is recomputed as Σ weight × value from the published components, within its repositories' scores", () => {
    const recomputed = record.components.reduce((s, x) => s + x.weight * x.value!, 0);
    expect(record.score).toBe(roundTo(recomputed, 4));
    const values = record.components.map((x) => x.value!);
    expect(record.score!).toBeGreaterThanOrEqual(Math.min(...values));
    expect(record.score!).toBeLessThanOrEqual(Math.max(...values));
    // v1 scored the pooled facts, which can put a protocol above every one of its repositories.
    expect(developmentScoreAt([f], A, true).score).toBe(repositoryScoreAt(f, A).score);
  });

  it('names its entity on every record, gaps included', () => {
    expect(developmentScoreAt([], A, true, { kind: 'chain', id: 'demo' })).toMatchObject({
      chain: 'demo',
      score: null,
      gap_reason: 'no_members',
    });
    const shallow = { ...quiet, commitsFrom: A - WEEK };
    expect(developmentScoreAt([f, shallow], A, true, { kind: 'protocol', id: 'demo' })).toMatchObject({
      protocol: 'demo',
      score: null,
      gap_reason: 'no_data',
    });
  });
});

describe('developer classes (Electric Capital, 28 days)', () => {
  const days = (who: string, n: number, from = 0) =>
    Array.from({ length: n }, (_, k) => commit(A - (from + k) * DAY, who));

  it('full time from 10 active commit days, part time 2–9, one time 1; people only', () => {
    const f = repoFacts({
      repo: 'demo/x',
      commits: [
        ...days('ten', 10),
        ...days('nine', 9),
        ...days('two', 2),
        ...days('one', 1),
        commit(A - 3600, 'one'), // the same day again
        ...days('bot[bot]', 20),
        commit(A - 28 * DAY, 'edge'), // the window is (t − 28 d, t]
        commit(A - 28 * DAY + 1, 'inside'),
      ],
    });
    expect(Object.fromEntries(developerClasses([f], A))).toEqual({
      ten: 'full_time',
      nine: 'part_time',
      two: 'part_time',
      one: 'one_time',
      inside: 'one_time',
    });
  });

  it('counts active days across the repositories of a protocol once each', () => {
    const a = repoFacts({ repo: 'demo/a', commits: days('dev', 6) });
    const b = repoFacts({ repo: 'demo/b', commits: days('dev', 6, 4) }); // days 4 and 5 in both
    expect(developerClasses([a, b], A).get('dev')).toBe('full_time');
    expect(developerClasses([a], A).get('dev')).toBe('part_time');
  });
});

describe('contributors at an instant', () => {
  it("is the snapshot less each account's commits after the instant", () => {
    const f = repoFacts({
      repo: 'demo/x',
      commits: [commit(A - DAY, 'alice'), commit(A - 2 * DAY, 'bob'), commit(A - 2 * DAY, null)],
      contributors: [
        ['alice', 5],
        ['bob', 1],
      ],
    });
    expect(contributorsAt(f, A)).toEqual(f.contributors);
    expect(contributorsAt(f, A - 1.5 * DAY).map((x) => [x.login, x.contributions])).toEqual([
      ['alice', 4],
      ['bob', 1],
    ]);
    // bob's only commit is later: he is no contributor yet.
    expect(contributorsAt(f, A - 3 * DAY).map((x) => [x.login, x.contributions])).toEqual([['alice', 4]]);
  });
});

describe('gaps in the score history', () => {
  it('says why a day has no score', () => {
    expect(developmentScoreAt([], A, true)).toMatchObject({ score: null, grade: null, gap_reason: 'no_members' });
    const young = repoFacts({ repo: 'demo/young', createdAt: A - DAY, commits: [commit(A - 3600)] });
    expect(developmentScoreAt([young], A - 2 * DAY, false)).toMatchObject({
      score: null,
      gap_reason: 'not_deployed',
      partial: false,
    });
    // Continuity needs 12 weeks of commits: ingestion that began later scores nothing.
    const horizon = CONTINUITY_WEEKS * WEEK;
    const shallow = { ...healthy(), commitsFrom: A - horizon + 1 };
    expect(developmentScoreAt([shallow], A, true)).toMatchObject({ score: null, gap_reason: 'no_data' });
    expect(developmentScoreAt([{ ...shallow, commitsFrom: A - horizon }], A, true).score).toBe(
      developmentScoreAt([healthy()], A, true).score,
    );
  });
});
