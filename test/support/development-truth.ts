import type { RepoFacts } from '../../src/areas/development/facts.js';
import type { RepoProfile } from '../../src/sandbox/standins/github/records.js';
import type { GithubWorld } from '../../src/sandbox/standins/github/world.js';

/**
 * Facts of a stand-in repository straight from the world's ground truth (no HTTP, no ingestion): what a perfect
 * ingestion at `nowMs` would have stored. Tests score them and recompute figures from the same truth.
 */
export function truthFacts(world: GithubWorld, profile: RepoProfile, nowMs: number, lookbackDays = 120): RepoFacts {
  const h = world.history(profile, nowMs);
  const s = (ms: number) => Math.floor(ms / 1000);
  const now = s(nowMs);
  const from = now - lookbackDays * 86_400;
  return {
    repo: profile.fullName,
    htmlUrl: `https://github.com/${profile.fullName}`,
    createdAt: s(profile.createdAtMs),
    archived: h.archived,
    stars: h.stars.length,
    forks: h.forks.length,
    commitsTotal: h.commits.length,
    contributors: h.contributors.map((c) => ({
      login: c.actor.login,
      type: c.actor.type,
      contributions: c.contributions,
    })),
    missing: [],
    snapshotAt: now,
    commitsFrom: from,
    issuesFrom: from,
    eventsFrom: from,
    commits: h.commits
      .filter((c) => s(c.committerDateMs) >= from)
      .map((c) => ({
        sha: c.sha,
        authorKey: c.author?.login ?? `email:${c.authorEmail.toLowerCase()}`,
        authorLogin: c.author?.login ?? null,
        bot: c.author?.type === 'Bot',
        committerDate: s(c.committerDateMs),
        timeFrom: null,
        commentCount: c.commentCount,
        missing: [],
      })),
    issues: h.issues
      .filter((i) => i.closedAtMs === null || s(i.closedAtMs) >= from)
      .map((i) => ({
        number: i.number,
        pull: i.pull,
        authorLogin: i.author.login,
        bot: i.author.type === 'Bot',
        member: i.member,
        createdAt: s(i.createdAtMs),
        closedAt: i.closedAtMs === null ? null : s(i.closedAtMs),
        mergedAt: i.mergedAtMs === null ? null : s(i.mergedAtMs),
      })),
    events: [],
    days: [],
  };
}
