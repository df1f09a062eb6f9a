import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { AS_OF, commit, DAY, event, repoFacts, WEEK } from '../../../test/support/development-facts.js';
import type { GithubCommit, GithubEvent } from '../../sources/github/index.js';
import { computeDevelopment, type SubjectInput } from './compute.js';
import type { RepoFacts } from './facts.js';
import { commitRow, eventRows } from './ingest.js';
import { ActivityRecord, Stats } from './schema.js';
import { repositoryScoreAt } from './score.js';
import { cutBy, mayLieIn } from './uncertain.js';

/**
 * Fields GitHub's description lets an answer leave out (docs/methodology/development.md "Missing fields"): the
 * ingest keeps the fact with a note and, without a time, a span; every figure that depends on what is missing is
 * null with `no_data` and names the missing fields, never a count that silently dropped or placed the fact.
 */

type Rec = Record<string, unknown>;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));
const violations = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);
const subject = (repos: RepoFacts[]): SubjectInput => ({ kind: 'protocol', id: 'demo', name: 'Demo', repos });
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const SHA = 'a'.repeat(40);
const DATES = ['commit.author.date', 'commit.committer.date'];

function githubCommit(author: Rec | null, committer: Rec | null): GithubCommit {
  return {
    sha: SHA,
    commit: { author, committer, message: 'm', comment_count: 0 },
    author: null,
    committer: {},
    parents: [],
  } as unknown as GithubCommit;
}

describe('ingest: facts of answers with missing fields', () => {
  const since = AS_OF - 3 * DAY;

  it('falls back to the author date, else spans the commit from the since it was listed with to the read', () => {
    const authored = githubCommit(
      { name: 'A', email: 'a@x.org', date: iso(AS_OF - DAY) },
      { name: 'C', email: 'c@x.org' },
    );
    expect(commitRow('o/r', authored, since, AS_OF)).toMatchObject({
      committer_date: AS_OF - DAY,
      time_from: null,
      author_key: 'email:a@x.org',
      committer_login: null,
      missing: JSON.stringify(['commit.committer.date']),
    });
    const undated = githubCommit({ name: 'A' }, null);
    expect(commitRow('o/r', undated, since, AS_OF)).toMatchObject({
      committer_date: AS_OF,
      time_from: since,
      author_key: 'name:A',
      missing: JSON.stringify(['commit.author.email', 'commit.author.date', 'commit.committer']),
    });
    // Nobody can say whose it is.
    expect(commitRow('o/r', githubCommit({}, {}), since, AS_OF).author_key).toBe(`unknown:${SHA}`);
  });

  it('places an event without a time between its dated neighbours in the newest-first list', () => {
    const e = (id: string, at: number | null) =>
      ({
        id,
        type: 'WatchEvent',
        actor: { id: 1, login: 'x' },
        created_at: at === null ? null : iso(at),
        payload: {},
      }) as GithubEvent;
    const rows = eventRows(
      'o/r',
      [e('1', null), e('2', AS_OF - 100), e('3', null), e('4', AS_OF - 900)],
      AS_OF,
      AS_OF - 90 * DAY,
    );
    expect(rows.map((r) => [r.id, r.created_at, r.time_from, r.missing])).toEqual([
      ['1', AS_OF, AS_OF - 100, '["created_at"]'],
      ['2', AS_OF - 100, null, null],
      ['3', AS_OF - 100, AS_OF - 900, '["created_at"]'],
      ['4', AS_OF - 900, null, null],
    ]);
  });
});

describe('spans', () => {
  const f = { timeFrom: 100, missing: ['m'] };
  const at = () => 200;
  it('are cut by a boundary strictly inside, and may lie in a window they meet', () => {
    expect(cutBy([f], at, [150])).toEqual(['m']);
    expect(cutBy([f], at, [100, 200, 250])).toEqual([]);
    expect(mayLieIn(f, at, 150, 300)).toBe(true);
    expect(mayLieIn(f, at, 200, 300)).toBe(false);
    expect(mayLieIn({ timeFrom: null, missing: [] }, at, 199, 200)).toBe(true);
  });
});

describe('figures that depend on a missing field', () => {
  const history = Array.from({ length: 100 }, (_, k) => commit(AS_OF - 110 * DAY + k * DAY, k % 3 ? 'alice' : 'bob'));
  /** An undated commit listed since 10 days before as_of and read at as_of: it may or may not be in the last week. */
  const undated = commit(AS_OF, 'carol', { timeFrom: AS_OF - 10 * DAY, missing: DATES });
  const base = repoFacts({
    repo: 'o/r',
    commits: history,
    contributors: [
      ['alice', 60],
      ['bob', 40],
    ],
  });
  const withUndated = repoFacts({
    repo: 'o/r',
    commits: [...history, undated],
    contributors: [
      ['alice', 60],
      ['bob', 40],
      ['carol', 1],
    ],
  });

  it('nulls the activity record figures whose window cuts the span, names the fields, keeps the others', () => {
    const out = computeDevelopment({ asOf: AS_OF, subjects: [subject([withUndated])] });
    const today = out.activity.get('demo')![0] as Rec;
    expect(violations(ActivityRecord, today)).toEqual([]);
    // The last week may or may not hold it; the 30 days hold the whole span and count it.
    expect(today.num_commit_w).toBeNull();
    expect(today.num_commit_m).toBe(
      history.filter((c) => c.committerDate > AS_OF - 30 * DAY && c.committerDate <= AS_OF).length + 1,
    );
    expect(today.gap_reasons).toMatchObject({ num_commit_w: 'no_data' });
    expect(today.gap_reasons).not.toHaveProperty('num_commit_m');
    expect(today.missing_fields).toEqual({ num_commit_w: DATES });
    // Yesterday's end lies inside the span: the contributions at that instant (the snapshot less later commits) are
    // unknown.
    const yesterday = out.activity.get('demo')![1] as Rec;
    expect(yesterday.contributors).toBeNull();
    expect((yesterday.missing_fields as Rec).contributors).toEqual(DATES);
    // With every field present, nothing is null and nothing is named.
    const complete = computeDevelopment({ asOf: AS_OF, subjects: [subject([base])] }).activity.get('demo')![0] as Rec;
    expect(complete.missing_fields).toEqual({});
    expect(complete.num_commit_w).not.toBeNull();
  });

  it('nulls event figures cut by an event without a time', () => {
    const events = [
      event('WatchEvent', AS_OF - 2 * DAY),
      event('WatchEvent', AS_OF - DAY, { timeFrom: AS_OF - 9 * DAY, missing: ['created_at'] }),
    ];
    const repo = repoFacts({ repo: 'o/r', commits: history, contributors: [['alice', 1]], events, stars: 2 });
    const today = computeDevelopment({ asOf: AS_OF, subjects: [subject([repo])] }).activity.get('demo')![0] as Rec;
    expect(today.activity_events).toBeNull();
    expect(today.missing_fields).toEqual({ activity_events: ['created_at'], num_issues_events: ['created_at'] });
    // Stars at as_of need no event after it: known.
    expect(today.stars).toBe(2);
  });

  it('nulls the stats it makes unknown, with reasons and fields by path', () => {
    const stats = computeDevelopment({ asOf: AS_OF, subjects: [subject([withUndated])] }).stats.get('protocol:demo')!;
    expect(violations(Stats, stats)).toEqual([]);
    expect(stats.commits.last_7d).toBeNull();
    expect(stats.commits.last_30d).not.toBeNull();
    expect(stats.weekly[0]!.commits_people).toBeNull();
    expect(stats.weekly[1]!.commits_people).toBeNull();
    expect(stats.weekly[2]!.commits_people).not.toBeNull();
    expect(stats.developers.active_28d).toBeNull();
    expect(stats.gap_reasons['commits.last_7d']).toBe('no_data');
    expect(stats.missing_fields['weekly.1.commits_people']).toEqual(DATES);
    const complete = computeDevelopment({ asOf: AS_OF, subjects: [subject([base])] }).stats.get('protocol:demo')!;
    expect(complete.gap_reasons).toEqual({});
    expect(complete.missing_fields).toEqual({});
  });

  it('drops the score components it makes unknown, naming the fields in their inputs', () => {
    const scored = repositoryScoreAt(withUndated, AS_OF);
    const byName = new Map(scored.components.map((c) => [c.name, c]));
    for (const name of ['activity', 'continuity', 'developer_base']) {
      expect(byName.get(name)).toMatchObject({ value: null, weight: 0, gap_reason: 'no_data' });
      expect(byName.get(name)!.inputs.missing_fields).toEqual(DATES);
    }
    // Contributions at as_of are the snapshot's: known.
    expect(byName.get('contributor_concentration')!.value).not.toBeNull();
    expect(repositoryScoreAt(base, AS_OF).components.every((c) => c.value !== null || c.name === 'maintenance')).toBe(
      true,
    );
  });

  it('counts a commit whose span a window holds whole, and makes people counts unknown for an unknown author', () => {
    const inside = commit(AS_OF - DAY, null, {
      authorKey: 'unknown:ff',
      timeFrom: null,
      missing: ['commit.author.email', 'commit.author.name'],
    });
    const repo = repoFacts({
      repo: 'o/r',
      commits: [...history, inside],
      contributors: [
        ['alice', 60],
        ['bob', 40],
      ],
    });
    const stats = computeDevelopment({ asOf: AS_OF, subjects: [subject([repo])] }).stats.get('protocol:demo')!;
    expect(stats.commits.last_7d).toBe(history.filter((c) => c.committerDate > AS_OF - WEEK).length + 1);
    expect(stats.developers.active_28d).toBeNull();
    expect(stats.missing_fields['developers.active_28d']).toEqual(['commit.author.email', 'commit.author.name']);
  });
});
