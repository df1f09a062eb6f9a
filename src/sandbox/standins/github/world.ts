import type { DevelopmentSubject } from '../../../registry/index.js';
import { DAY_MS, dayOf, stableId, streamRng, upperBound, zipfWeights } from '../base/generate.js';
import {
  type ActivityRates,
  type BranchRecord,
  type CollaboratorRecord,
  EVENTS_MAX,
  EVENTS_MAX_AGE_MS,
  type EventRecord,
  type GithubActor,
  type IssueRecord,
  type OrgProfile,
  REPO_CHARACTERS,
  type RepoCharacter,
  type RepoHistory,
  type RepoProfile,
  type TeamMember,
} from './records.js';
import {
  BOTS,
  CREATED_FROM,
  CREATED_TO,
  DECLINE_FROM,
  DECLINE_TO,
  human,
  LANGUAGES,
  ms,
  REPO_NAMES,
  RepoTimeline,
  randomLogin,
  stableSha,
} from './timeline.js';

/**
 * The GitHub stand-in's world: the organisations and repositories the registry names, each with a character and a
 * generated history (commits on the default branch, issues and pull requests with their lifecycles and comments,
 * stars, forks, team members), on a fixed calendar (repositories are created between 2017 and 2023), so that the
 * history does not depend on when the sandbox starts.
 *
 * Each repository-day is drawn from its own generator (`<seed>/github/<repo>/<day>`), and lifecycles (a pull request
 * merged three days later, a comment next week) are decided when their subject is created and shown once the
 * clock passes them. So the world at a later "now" only adds to the world at an earlier one: new commits, issues,
 * comments, stars, and issues that have since been closed.
 *
 * `history(repo, nowMs)` is the ground truth at an instant: tests recompute every figure the development area
 * publishes from it, independently of the HTTP layer and the client.
 */

const MEMO_REPOS = 16;

const CHARACTER_RATES: Record<RepoCharacter, ActivityRates> = {
  busy: { commits: 1, issues: 0.3, pulls: 0.45, stars: 0.45, forks: 0.08 },
  'one-person': { commits: 0.4, issues: 0.03, pulls: 0.02, stars: 0.08, forks: 0.01 },
  declining: { commits: 1.2, issues: 0.25, pulls: 0.35, stars: 0.3, forks: 0.05 },
  abandoned: { commits: 0.8, issues: 0.12, pulls: 0.15, stars: 0.1, forks: 0.02 },
  'bot-heavy': { commits: 0.8, issues: 0.06, pulls: 0.3, stars: 0.1, forks: 0.02 },
};

/**
 * Size of well-known repositories relative to an ordinary busy one (rates × size, team × √size): the chains' core
 * repositories are developed by far more people than a DeFi protocol's, as on GitHub (go-ethereum, bitcoin), and a
 * few large protocols' flagships are bigger than a small protocol's. Every other repository has size 1, and its
 * history does not depend on this table.
 */
export const REPO_SIZE: Readonly<Record<string, number>> = {
  'ethereum/go-ethereum': 8,
  'ethereum/consensus-specs': 3,
  'ethereum/execution-specs': 2,
  'bitcoin/bitcoin': 6,
  'near/nearcore': 5,
  'ethereum-optimism/optimism': 5,
  'ethereum-optimism/op-geth': 2,
  'offchainlabs/nitro': 4,
  'offchainlabs/nitro-contracts': 2,
};
/** The flagship (first, busy) repository of these organisations is this many times an ordinary one. */
export const ORG_FLAGSHIP_SIZE: Readonly<Record<string, number>> = {
  uniswap: 3,
  aave: 3,
  smartcontractkit: 3,
  makerdao: 2,
  'compound-finance': 2,
};

interface RepoSpec {
  readonly owner: string;
  readonly name: string;
  readonly tracked: boolean;
  readonly fork: boolean;
  readonly character: RepoCharacter;
  /** Relative size (1 = an ordinary repository of its character). */
  readonly size: number;
}

export interface GithubWorldOptions {
  readonly seed: number;
  /** Who is tracked: `registry.developmentSubjects()`. */
  readonly subjects: readonly DevelopmentSubject[];
}

export class GithubWorld {
  readonly seed: number;
  readonly orgs: readonly OrgProfile[];
  readonly repos: readonly RepoProfile[];
  private readonly orgIndex = new Map<string, OrgProfile>();
  private readonly repoIndex = new Map<string, RepoProfile>();
  private readonly timelines = new Map<string, RepoTimeline>();
  /** The latest history of recently asked repositories (pagination asks for the same one many times). */
  private readonly memo = new Map<string, RepoHistory>();

  constructor(options: GithubWorldOptions) {
    this.seed = options.seed;
    const specs = new Map<string, RepoSpec[]>();
    const addSpec = (spec: RepoSpec) => {
      const key = spec.owner.toLowerCase();
      const list = specs.get(key) ?? [];
      if (!list.some((s) => s.name.toLowerCase() === spec.name.toLowerCase())) list.push(spec);
      specs.set(key, list);
    };
    for (const subject of options.subjects) {
      for (const org of subject.orgs) {
        const rng = streamRng(this.seed, 'github', 'org', org.toLowerCase());
        const count = 3 + rng.int(4);
        const names = rng.sample(REPO_NAMES, count);
        // The flagship is busy; the next ones take the other characters in a seeded order, then any.
        const others = rng.shuffle(REPO_CHARACTERS.filter((c) => c !== 'busy'));
        names.forEach((name, i) => {
          const character = i === 0 ? 'busy' : (others[i - 1] ?? rng.pick(REPO_CHARACTERS));
          const size = i === 0 ? (ORG_FLAGSHIP_SIZE[org.toLowerCase()] ?? 1) : 1;
          addSpec({ owner: org, name, tracked: true, fork: false, character, size });
        });
        if (rng.chance(0.3)) {
          addSpec({
            owner: org,
            name: 'openzeppelin-contracts',
            tracked: false,
            fork: true,
            character: 'abandoned',
            size: 1,
          });
        }
      }
      subject.repos.forEach((fullName, i) => {
        const [owner, name] = fullName.split('/') as [string, string];
        const rng = streamRng(this.seed, 'github', 'named', fullName.toLowerCase());
        const character: RepoCharacter =
          i === 0 ? 'busy' : rng.pick(['busy', 'declining', 'bot-heavy', 'one-person'] as const);
        const size = REPO_SIZE[fullName.toLowerCase()] ?? 1;
        addSpec({ owner, name, tracked: true, fork: false, character, size });
      });
    }

    const orgs: OrgProfile[] = [];
    const repos: RepoProfile[] = [];
    for (const list of specs.values()) {
      const login = list[0]!.owner;
      const org: OrgProfile = {
        login,
        id: stableId(`org:${login.toLowerCase()}`, 27),
        repos: list.map((spec) => this.profileOf(spec)),
      };
      orgs.push(org);
      this.orgIndex.set(login.toLowerCase(), org);
      for (const repo of org.repos) {
        repos.push(repo);
        this.repoIndex.set(repo.fullName.toLowerCase(), repo);
      }
    }
    this.orgs = orgs;
    this.repos = repos;
  }

  /** An organisation by login (case-insensitive, as GitHub). */
  org(login: string): OrgProfile | undefined {
    return this.orgIndex.get(login.toLowerCase());
  }

  /** A repository by owner and name (case-insensitive, as GitHub). */
  repo(owner: string, name: string): RepoProfile | undefined {
    return this.repoIndex.get(`${owner}/${name}`.toLowerCase());
  }

  /** The ground truth of a repository at `nowMs` (whole seconds count; later instants only add). */
  history(repo: RepoProfile, nowMs: number): RepoHistory {
    const now = Math.floor(nowMs / 1000) * 1000;
    const key = repo.fullName;
    const cached = this.memo.get(key);
    if (cached && cached.nowMs === now) return cached;
    const history = this.computeHistory(repo, now);
    this.memo.delete(key);
    this.memo.set(key, history);
    if (this.memo.size > MEMO_REPOS) this.memo.delete(this.memo.keys().next().value!);
    return history;
  }

  /** The repository's public events at `nowMs`, newest first: the past 90 days, at most 300 (GitHub's limits). */
  events(repo: RepoProfile, nowMs: number): readonly EventRecord[] {
    const h = this.history(repo, nowMs);
    const from = h.nowMs - EVENTS_MAX_AGE_MS;
    const out: EventRecord[] = [];
    const add = (e: Omit<EventRecord, 'id'>, key: string) => {
      if (e.atMs > from && e.atMs <= h.nowMs) out.push({ ...e, id: String(stableId(`event:${repo.fullName}:${key}`)) });
    };
    for (const c of h.commits)
      add({ type: 'PushEvent', actor: c.committer, atMs: c.committerDateMs, commit: c }, c.sha);
    for (const i of h.issues) {
      const type = i.pull ? 'PullRequestEvent' : 'IssuesEvent';
      add({ type, actor: i.author, atMs: i.createdAtMs, issueNumber: i.number, action: 'opened' }, `${i.number}:o`);
      if (i.closedAtMs !== null) {
        const closer = i.mergedAtMs !== null || i.member ? i.author : (repo.team[0]?.actor ?? i.author);
        add({ type, actor: closer, atMs: i.closedAtMs, issueNumber: i.number, action: 'closed' }, `${i.number}:c`);
      }
    }
    const timeline = this.timeline(repo);
    for (const latent of timeline.issues) {
      if (latent.createdAtMs > h.nowMs) break;
      latent.commentTimesMs.forEach((at, k) => {
        if (at > h.nowMs) return;
        const actor = k % 2 === 0 ? (repo.team[0]?.actor ?? latent.author) : latent.author;
        add(
          { type: 'IssueCommentEvent', actor, atMs: at, issueNumber: latent.number, action: 'created' },
          `${latent.number}:m${k}`,
        );
      });
    }
    for (const s of h.stars)
      add({ type: 'WatchEvent', actor: s.user, atMs: s.atMs, action: 'started' }, `s${s.user.login}:${s.atMs}`);
    for (const f of h.forks) add({ type: 'ForkEvent', actor: f.owner, atMs: f.atMs, forkId: f.id }, `f${f.id}`);
    out.sort((a, b) => b.atMs - a.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out.slice(0, EVENTS_MAX);
  }

  private timeline(repo: RepoProfile): RepoTimeline {
    let t = this.timelines.get(repo.fullName);
    if (!t) {
      t = new RepoTimeline(this.seed, repo);
      this.timelines.set(repo.fullName, t);
    }
    return t;
  }

  private computeHistory(repo: RepoProfile, nowMs: number): RepoHistory {
    const exists = repo.createdAtMs <= nowMs;
    const timeline = this.timeline(repo);
    if (exists) timeline.extendTo(nowMs);
    const commits = exists
      ? timeline.commits.slice(
          0,
          upperBound(timeline.commits, nowMs, (c) => c.committerDateMs),
        )
      : [];
    const issues: IssueRecord[] = [];
    if (exists) {
      for (const l of timeline.issues) {
        if (l.createdAtMs > nowMs) break;
        const closed = l.closeAtMs !== null && l.closeAtMs <= nowMs ? l.closeAtMs : null;
        const comments = upperBound(l.commentTimesMs, nowMs, (t) => t);
        const lastComment = comments > 0 ? l.commentTimesMs[comments - 1]! : l.createdAtMs;
        issues.push({
          number: l.number,
          pull: l.pull,
          title: l.title,
          author: l.author,
          member: l.member,
          createdAtMs: l.createdAtMs,
          updatedAtMs: Math.max(l.createdAtMs, lastComment, closed ?? 0),
          closedAtMs: closed,
          mergedAtMs: l.merged ? closed : null,
          comments,
          headRef: l.headRef,
          headSha: l.headSha,
          mergeCommitSha: l.mergeCommitSha,
        });
      }
    }
    const stars = exists
      ? timeline.stars.slice(
          0,
          upperBound(timeline.stars, nowMs, (s) => s.atMs),
        )
      : [];
    const forks = exists
      ? timeline.forks.slice(
          0,
          upperBound(timeline.forks, nowMs, (f) => f.atMs),
        )
      : [];
    const head = commits[commits.length - 1];
    const day = dayOf(nowMs);
    const activeTeam = repo.team.filter((m) => m.joinDay <= day && day < m.leaveDay);

    const branches: BranchRecord[] = [];
    if (head) {
      branches.push({ name: repo.defaultBranch, sha: head.sha, protected: repo.character !== 'one-person' });
      for (const name of repo.longLivedBranches) {
        branches.push({ name, sha: stableSha(`${repo.fullName}:${name}`), protected: false });
      }
      for (const i of issues) {
        const ownBranch = i.member || i.author.type === 'Bot';
        if (i.pull && i.closedAtMs === null && ownBranch)
          branches.push({ name: i.headRef, sha: i.headSha, protected: false });
      }
      branches.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }

    const counts = new Map<string, { actor: GithubActor; contributions: number }>();
    for (const c of commits) {
      if (!c.author) continue;
      const entry = counts.get(c.author.login) ?? { actor: c.author, contributions: 0 };
      entry.contributions++;
      counts.set(c.author.login, entry);
    }
    const contributors = [...counts.values()].sort(
      (a, b) => b.contributions - a.contributions || (a.actor.login < b.actor.login ? -1 : 1),
    );

    const collaborators: CollaboratorRecord[] = activeTeam
      .filter((m) => m.role !== 'bot')
      .map((m) => ({ actor: m.actor, role: m.role === 'admin' ? 'admin' : 'write' }));

    return {
      profile: repo,
      nowMs,
      exists,
      archived: repo.archivedAtMs !== null && repo.archivedAtMs <= nowMs,
      commits,
      issues,
      stars,
      forks,
      branches,
      contributors,
      collaborators,
      subscribers: collaborators.length + stars.filter((s) => s.watches).length,
      pushedAtMs: head?.committerDateMs ?? repo.createdAtMs,
    };
  }

  private profileOf(spec: RepoSpec): RepoProfile {
    const fullName = `${spec.owner}/${spec.name}`;
    const rng = streamRng(this.seed, 'github', 'repo', fullName.toLowerCase());
    const character = spec.character;
    const span = (CREATED_TO - CREATED_FROM) / 1000;
    // One-person projects tend to be younger; the rest anywhere in the calendar.
    const createdAtMs =
      CREATED_FROM + Math.floor(span * (character === 'one-person' ? 0.4 + 0.6 * rng.next() : rng.next())) * 1000;
    const createdDay = dayOf(createdAtMs);
    const abandonedAtMs =
      character === 'abandoned' ? createdAtMs + (200 + rng.int(500)) * DAY_MS + rng.int(86_400) * 1000 : null;
    const archivedAtMs =
      abandonedAtMs !== null && rng.chance(0.5) ? abandonedAtMs + (100 + rng.int(300)) * DAY_MS : null;
    // Drawn for every repository, so that the other draws do not depend on the character.
    const declineDraw = rng.next();
    const decliningFromMs =
      character === 'declining'
        ? Math.max(
            createdAtMs + 180 * DAY_MS,
            DECLINE_FROM + Math.floor(((DECLINE_TO - DECLINE_FROM) / 1000) * declineDraw) * 1000,
          )
        : null;
    const scale = rng.logNormal(1, 0.3) * spec.size;
    const base = CHARACTER_RATES[character];
    const rates: ActivityRates = {
      commits: base.commits * scale,
      issues: base.issues * scale,
      pulls: base.pulls * scale,
      stars: base.stars * scale,
      forks: base.forks * scale,
    };

    // The team: people of the organisation (the same logins across its repositories) and, for some, bots.
    const orgRng = streamRng(this.seed, 'github', 'people', spec.owner.toLowerCase());
    const baseSize = { busy: 9, 'one-person': 3, declining: 6, abandoned: 3, 'bot-heavy': 3 }[character];
    const size = Math.round(baseSize * Math.sqrt(spec.size));
    const people = Array.from({ length: Math.max(24, size + 8) }, () => randomLogin(orgRng));
    const chosen = [...new Set(rng.sample(people, size + 2))].slice(0, size);
    // Larger projects are community projects: contributions spread flatter, and people stay longer.
    const weights =
      character === 'one-person'
        ? [0.94, ...Array<number>(size - 1).fill(0.03)]
        : zipfWeights(size, spec.size > 1 ? 0.7 : 1.1);
    const team: TeamMember[] = chosen.map((login, k) => {
      const joinDay = k === 0 ? createdDay : createdDay + Math.floor(rng.exponential(character === 'busy' ? 150 : 250));
      const stay = (character === 'declining' ? 300 : 900) * Math.sqrt(spec.size);
      const leaveDay = k === 0 ? Number.POSITIVE_INFINITY : joinDay + 30 + Math.floor(rng.exponential(stay));
      return { actor: human(login), weight: weights[k]!, joinDay, leaveDay, role: k === 0 ? 'admin' : 'write' };
    });
    const forever = Number.POSITIVE_INFINITY;
    if (character === 'bot-heavy') {
      team.push(
        { actor: BOTS.dependabot, weight: 2.2, joinDay: createdDay, leaveDay: forever, role: 'bot' },
        { actor: BOTS.actions, weight: 1.6, joinDay: createdDay, leaveDay: forever, role: 'bot' },
        { actor: BOTS.renovate, weight: 0.8, joinDay: createdDay + 90, leaveDay: forever, role: 'bot' },
      );
    } else if (character === 'busy' || character === 'declining') {
      team.push({ actor: BOTS.dependabot, weight: 0.15, joinDay: createdDay + 60, leaveDay: forever, role: 'bot' });
    }

    const longLivedBranches = character === 'busy' ? ['develop'] : character === 'declining' ? ['v1'] : [];
    if (rng.chance(0.25)) longLivedBranches.push('gh-pages');
    return {
      id: stableId(`repo:${fullName.toLowerCase()}`, 30),
      owner: spec.owner,
      ownerId: stableId(`org:${spec.owner.toLowerCase()}`, 27),
      name: spec.name,
      fullName,
      character,
      fork: spec.fork,
      tracked: spec.tracked,
      description: spec.fork
        ? 'Fork of OpenZeppelin Contracts'
        : `${spec.owner} ${spec.name.replace(/-/g, ' ')} (${character} sandbox repository)`,
      language: LANGUAGES[spec.name] ?? (spec.name.includes('geth') || spec.name === 'go-ethereum' ? 'Go' : 'Solidity'),
      defaultBranch: createdAtMs < ms('2020-10-01') ? 'master' : 'main',
      longLivedBranches,
      createdAtMs,
      abandonedAtMs,
      decliningFromMs,
      archivedAtMs,
      rates,
      team,
    };
  }
}
