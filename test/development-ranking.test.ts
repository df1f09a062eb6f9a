import { describe, expect, it } from 'vitest';
import type { RepoFacts } from '../src/areas/development/facts.js';
import { developmentScoreAt } from '../src/areas/development/score.js';
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
