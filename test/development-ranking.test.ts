import { describe, expect, it } from 'vitest';
import { computeDevelopment, HISTORY_DAYS } from '../src/areas/development/compute.js';
import type { RepoFacts } from '../src/areas/development/facts.js';
import { developmentScoreAt } from '../src/areas/development/score.js';
import { roundTo } from '../src/core/score.js';
import { dailyHistoryInstants } from '../src/core/time.js';
import { registry } from '../src/registry/index.js';
import type { RepoCharacter } from '../src/sandbox/standins/github/records.js';
import { GithubWorld } from '../src/sandbox/standins/github/world.js';
import { truthFacts } from './support/development-truth.js';

/**
 * The development score ranks the stand-in's repositories as a person would: busy > declining > one-person >
 * abandoned (by the median of each character, on two seeds), and bots neither add nor take anything.
 */

const NOW = Date.parse('2026-05-01T00:00:00Z');
const T = NOW / 1000;

describe.each([1, 7])('development score on the stand-in world, seed %i', (seed) => {
  const world = new GithubWorld({ seed, subjects: registry.developmentSubjects() });
  const tracked = world.repos.filter((r) => r.tracked);
  const facts = new Map(tracked.map((r) => [r.fullName, truthFacts(world, r, NOW)]));
  const scoreOf = (f: RepoFacts) => developmentScoreAt([f], T, true).score!;

  it('ranks the characters in the order a person would', () => {
    const medianOf = (c: RepoCharacter) => {
      const xs = tracked.filter((r) => r.character === c).map((r) => scoreOf(facts.get(r.fullName)!));
      xs.sort((a, b) => a - b);
      return xs[Math.floor(xs.length / 2)]!;
    };
    const m = Object.fromEntries(
      (['busy', 'declining', 'one-person', 'abandoned', 'bot-heavy'] as const).map((c) => [c, medianOf(c)]),
    );
    expect(m.busy).toBeGreaterThan(m.declining!);
    expect(m.declining).toBeGreaterThan(m['one-person']!);
    expect(m['one-person']).toBeGreaterThan(m.abandoned!);
    expect(m['bot-heavy']).toBeLessThan(m.busy!);
    // Every abandoned repository is below every busy one.
    const of = (c: RepoCharacter) =>
      tracked.filter((r) => r.character === c).map((r) => scoreOf(facts.get(r.fullName)!));
    expect(Math.max(...of('abandoned'))).toBeLessThan(Math.min(...of('busy')));
  });

  it('is not inflated by bots: removing every bot commit and pull request changes nothing', () => {
    for (const r of tracked.filter((x) => x.character === 'bot-heavy')) {
      const f = facts.get(r.fullName)!;
      expect(f.commits.some((c) => c.bot)).toBe(true);
      const withoutBots: RepoFacts = {
        ...f,
        commits: f.commits.filter((c) => !c.bot),
        issues: f.issues.filter((i) => !i.bot),
        contributors: f.contributors.filter((c) => c.type !== 'Bot'),
      };
      expect(scoreOf(withoutBots)).toBe(scoreOf(f));
    }
  });
});

/**
 * The score on the sandbox's world (issue 13, item 7): v1 scored 30 of 32 entities between 0.68 and 0.82, Radiant
 * A above all six of its repositories, and Maverick above Ethereum. A protocol's score is now the activity-weighted
 * mean of its repositories' scores (recomputable from its record), and the log-scale maps see scale.
 */
describe.each([1, 11])("the development scores of the sandbox's world, seed %i", (seed) => {
  const NOW_MS = Date.parse('2026-11-24T01:00:00Z');
  const subjects = registry.developmentSubjects();
  const world = new GithubWorld({ seed, subjects });
  const reposOf = (s: (typeof subjects)[number]) =>
    world.repos.filter(
      (r) =>
        r.tracked &&
        (s.orgs.some((o) => o.toLowerCase() === r.owner.toLowerCase()) ||
          s.repos.some((n) => n.toLowerCase() === r.fullName.toLowerCase())),
    );
  const input = (nowMs: number, only?: readonly string[]) =>
    subjects
      .filter((s) => !only || only.includes(s.id))
      .map((s) => ({
        kind: s.kind,
        id: s.id,
        name: s.name,
        repos: reposOf(s).map((r) => truthFacts(world, r, nowMs)),
      }));
  const out = computeDevelopment({ asOf: NOW_MS / 1000, subjects: input(NOW_MS) });
  const current = (id: string) => out.ranking.find((r) => r.id === id)!;

  it('ranks Ethereum, whose core repository is far larger, above Maverick', () => {
    expect(current('ethereum').score!).toBeGreaterThan(current('maverick').score! + 0.1);
  });

  it("puts every protocol's score within its repositories' scores, as Σ weight × value of its record", () => {
    for (const entry of out.ranking) {
      const stats = out.stats.get(`${entry.kind}:${entry.id}`)!;
      const scores = stats.repository_scores.map((r) => r.score!);
      expect(scores.length).toBeGreaterThan(0);
      expect(entry.score!, entry.id).toBeGreaterThanOrEqual(Math.min(...scores));
      expect(entry.score!, entry.id).toBeLessThanOrEqual(Math.max(...scores));
      const sum = stats.repository_scores.reduce((s, r) => s + r.weight * r.score!, 0);
      expect(entry.score, entry.id).toBe(roundTo(sum, 4));
      expect(entry[entry.kind], entry.id).toBe(entry.id);
    }
  });

  it('spreads the scores over at least three grades and half a unit', () => {
    const scores = out.ranking.map((r) => r.score!);
    expect(new Set(out.ranking.map((r) => r.grade)).size).toBeGreaterThanOrEqual(3);
    expect(Math.max(...scores) - Math.min(...scores)).toBeGreaterThan(0.4);
    // v1: 30 of 32 between 0.68 and 0.82.
    expect(scores.filter((s) => s >= 0.68 && s <= 0.82).length).toBeLessThan(scores.length / 2);
  });

  it("recomputes a past day's record from the facts known at that day only, equal to the history's", () => {
    const ids = ['ethereum', 'maverick', 'radiantcapital'];
    const instants = dailyHistoryInstants(NOW_MS / 1000, HISTORY_DAYS);
    for (const d of [1, 6]) {
      const t = instants[d]!;
      const past = computeDevelopment({ asOf: t, subjects: input(t * 1000, ids) });
      for (const id of ids) {
        const s = subjects.find((x) => x.id === id)!;
        const recomputed = past.scores.get(`${s.kind}:${id}`)![0]!;
        expect({ ...recomputed, partial: false }, `${id} day ${d}`).toEqual(out.scores.get(`${s.kind}:${id}`)![d]);
      }
    }
  });
});
