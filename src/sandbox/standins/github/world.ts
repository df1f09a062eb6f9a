import type { DevelopmentSubject } from '../../../registry/index.js';
import type { Rng } from '../../world/random.js';
import {
  DAY_MS,
  DailySeries,
  dayOf,
  hexDigits,
  instantsInDay,
  stableId,
  streamRng,
  upperBound,
  zipfWeights,
} from '../base/generate.js';

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

export type RepoCharacter = 'busy' | 'one-person' | 'declining' | 'abandoned' | 'bot-heavy';
export const REPO_CHARACTERS: readonly RepoCharacter[] = ['busy', 'one-person', 'declining', 'abandoned', 'bot-heavy'];

export interface GithubActor {
  readonly login: string;
  readonly id: number;
  readonly type: 'User' | 'Bot';
  /** Git author name and e-mail of the actor's commits. */
  readonly name: string;
  readonly email: string;
}

/** A person or bot working on a repository during [joinDay, leaveDay). */
export interface TeamMember {
  readonly actor: GithubActor;
  /** Relative share of the repository's commits while active. */
  readonly weight: number;
  readonly joinDay: number;
  readonly leaveDay: number;
  readonly role: 'admin' | 'write' | 'bot';
}

/** Mean counts per day at full intensity (the character's intensity curve scales them day by day). */
export interface ActivityRates {
  readonly commits: number;
  readonly issues: number;
  readonly pulls: number;
  readonly stars: number;
  readonly forks: number;
}

export interface RepoProfile {
  readonly id: number;
  readonly owner: string;
  readonly ownerId: number;
  readonly name: string;
  /** `owner/name` as GitHub spells it. */
  readonly fullName: string;
  readonly character: RepoCharacter;
  readonly fork: boolean;
  /** Whether the registry tracks it (a non-fork repository of a tracked organisation, or named directly). */
  readonly tracked: boolean;
  readonly description: string;
  readonly language: string;
  readonly defaultBranch: 'main' | 'master';
  /** Branches besides the default one that live for the repository's whole life. */
  readonly longLivedBranches: readonly string[];
  readonly createdAtMs: number;
  /** Activity stops here (abandoned repositories); null otherwise. */
  readonly abandonedAtMs: number | null;
  /** Activity decays from here on (declining repositories); null otherwise. */
  readonly decliningFromMs: number | null;
  /** Archived from here on; null if never. */
  readonly archivedAtMs: number | null;
  readonly rates: ActivityRates;
  readonly team: readonly TeamMember[];
}

export interface OrgProfile {
  readonly login: string;
  readonly id: number;
  readonly repos: readonly RepoProfile[];
}

export interface CommitRecord {
  readonly sha: string;
  readonly parentSha: string | null;
  /** null: the author's e-mail is linked to no GitHub account (the API shows `author: null`). */
  readonly author: GithubActor | null;
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authorDateMs: number;
  /** The GitHub account of the committer: the author, or `web-flow` for commits made through the web. */
  readonly committer: GithubActor;
  readonly committerDateMs: number;
  readonly message: string;
  readonly commentCount: number;
}

/** An issue or pull request as generated: its whole future included. */
interface LatentIssue {
  readonly number: number;
  readonly pull: boolean;
  readonly title: string;
  readonly author: GithubActor | AccountRef;
  readonly member: boolean;
  readonly createdAtMs: number;
  /** When it gets closed (merged included), possibly after "now"; null: stays open. */
  readonly closeAtMs: number | null;
  readonly merged: boolean;
  readonly commentTimesMs: readonly number[];
  /** Pull requests: the head branch, and whether it lives in this repository (a member's) or in a fork. */
  readonly headRef: string;
  readonly headSha: string;
  readonly mergeCommitSha: string;
}

/** An issue or pull request as seen at an instant. */
export interface IssueRecord {
  readonly number: number;
  readonly pull: boolean;
  readonly title: string;
  readonly author: GithubActor | AccountRef;
  /** The author belongs to the repository's team (`author_association` MEMBER). */
  readonly member: boolean;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly closedAtMs: number | null;
  /** Pull requests merged by now; null otherwise. */
  readonly mergedAtMs: number | null;
  readonly comments: number;
  readonly headRef: string;
  readonly headSha: string;
  readonly mergeCommitSha: string;
}

/** A community account (stargazers, fork owners): login and id only. */
export interface AccountRef {
  readonly login: string;
  readonly id: number;
  readonly type: 'User';
}

export interface StarRecord {
  readonly user: AccountRef;
  readonly atMs: number;
  /** The stargazer also watches the repository (notifications). */
  readonly watches: boolean;
}

export interface ForkRecord {
  readonly owner: AccountRef;
  readonly atMs: number;
  readonly id: number;
}

export interface BranchRecord {
  readonly name: string;
  readonly sha: string;
  readonly protected: boolean;
}

export interface ContributorRecord {
  readonly actor: GithubActor;
  readonly contributions: number;
}

export interface CollaboratorRecord {
  readonly actor: GithubActor;
  readonly role: 'admin' | 'write';
}

/** The ground truth of one repository at `nowMs`. Lists are in ascending time (issues: ascending number). */
export interface RepoHistory {
  readonly profile: RepoProfile;
  readonly nowMs: number;
  readonly exists: boolean;
  readonly archived: boolean;
  readonly commits: readonly CommitRecord[];
  readonly issues: readonly IssueRecord[];
  readonly stars: readonly StarRecord[];
  readonly forks: readonly ForkRecord[];
  readonly branches: readonly BranchRecord[];
  /** Commit authors with a GitHub account, by commits on the default branch (desc), then login. */
  readonly contributors: readonly ContributorRecord[];
  /** Team members (not bots) active at `nowMs`. */
  readonly collaborators: readonly CollaboratorRecord[];
  /** Watchers: the active team plus stargazers who watch. */
  readonly subscribers: number;
  /** The newest commit's committer date, or the creation time. */
  readonly pushedAtMs: number;
}

export type EventType =
  | 'PushEvent'
  | 'IssuesEvent'
  | 'PullRequestEvent'
  | 'IssueCommentEvent'
  | 'WatchEvent'
  | 'ForkEvent';

export interface EventRecord {
  readonly id: string;
  readonly type: EventType;
  readonly actor: GithubActor | AccountRef;
  readonly atMs: number;
  /** PushEvent: the commit; Issues/PullRequest/IssueComment: the number; Fork: the fork's id. */
  readonly commit?: CommitRecord;
  readonly issueNumber?: number;
  readonly action?: 'opened' | 'closed' | 'created' | 'started';
  readonly forkId?: number;
}

/** GitHub keeps 90 days and at most 300 events per repository. */
export const EVENTS_MAX_AGE_MS = 90 * DAY_MS;
export const EVENTS_MAX = 300;

const MEMO_REPOS = 16;

const ms = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`);
/** Declining repositories start to decline in this span, and decay with this e-folding time. */
const DECLINE_FROM = ms('2023-10-01');
const DECLINE_TO = ms('2024-12-31');
const DECLINE_EFOLDING_DAYS = 450;
/** The calendar of the world: every repository is created in this span. */
const CREATED_FROM = ms('2017-01-01');
const CREATED_TO = ms('2023-06-30');

const BOTS = {
  dependabot: bot('dependabot[bot]', 49699333, 'dependabot[bot]', '49699333+dependabot[bot]@users.noreply.github.com'),
  actions: bot(
    'github-actions[bot]',
    41898282,
    'github-actions[bot]',
    '41898282+github-actions[bot]@users.noreply.github.com',
  ),
  renovate: bot('renovate[bot]', 29139614, 'renovate[bot]', '29139614+renovate[bot]@users.noreply.github.com'),
};
/** GitHub's committer for commits made in the web interface (merges, squashes, edits). */
export const WEB_FLOW: GithubActor = {
  login: 'web-flow',
  id: 19864447,
  type: 'User',
  name: 'GitHub',
  email: 'noreply@github.com',
};

function bot(login: string, id: number, name: string, email: string): GithubActor {
  return { login, id, type: 'Bot', name, email };
}

const FIRST = ['alex', 'sam', 'kim', 'lena', 'omar', 'yuki', 'ivan', 'maria', 'noah', 'ana', 'li', 'raj', 'eva'];
const MORE = ['chen', 'ortiz', 'novak', 'berg', 'silva', 'tanaka', 'okafor', 'moreau', 'khan', 'rossi', 'weber'];
const WORDS = ['block', 'hash', 'vault', 'pool', 'oracle', 'ledger', 'node', 'curve', 'delta', 'nova', 'zk', 'defi'];
const THINGS = [
  'oracle adapter',
  'liquidation path',
  'fee accounting',
  'rounding in share math',
  'deployment scripts',
  'gas usage in swap',
  'reentrancy guard',
  'interest rate model',
  'subgraph mappings',
  'CI workflow',
  'README',
  'governance proposal checks',
  'invariant tests',
  'price feed staleness check',
  'ERC-4626 wrapper',
];
const VERBS = ['Fix', 'Add', 'Refactor', 'Update', 'Remove', 'Improve', 'Test', 'Document'];
const PACKAGES = ['hardhat', 'ethers', 'viem', 'typescript', 'forge-std', 'solady', 'eslint', 'prettier', 'vitest'];
const REPO_NAMES = [
  'protocol',
  'contracts',
  'interface',
  'sdk',
  'subgraph',
  'docs',
  'governance',
  'audits',
  'periphery',
  'deployments',
  'keepers',
  'bug-bounty',
  'risk-params',
  'app',
  'research',
];
const LANGUAGES: Record<string, string> = {
  protocol: 'Solidity',
  contracts: 'Solidity',
  periphery: 'Solidity',
  interface: 'TypeScript',
  sdk: 'TypeScript',
  subgraph: 'TypeScript',
  app: 'TypeScript',
  keepers: 'Python',
  research: 'Jupyter Notebook',
  docs: 'MDX',
};

/** Intensity of activity on `day` (1 = the repository's full rates), by character. */
function intensity(profile: RepoProfile, day: number): number {
  const age = day - dayOf(profile.createdAtMs);
  switch (profile.character) {
    case 'declining': {
      // Full activity until the decline starts (late 2023 to 2024, on the world's calendar), then halving about
      // every 310 days (e-folding 450 days), never quite to zero: in 2026 these are projects visibly slowing down,
      // not yet stopped.
      const since = profile.decliningFromMs === null ? age : day - dayOf(profile.decliningFromMs);
      return since <= 0 ? 1 : Math.max(0.03, Math.exp(-since / DECLINE_EFOLDING_DAYS));
    }
    case 'abandoned':
      return profile.abandonedAtMs !== null && day >= dayOf(profile.abandonedAtMs) ? 0 : 1;
    default:
      return 1;
  }
}

/** People work less on weekends; bots do not care. 1970-01-01 (day 0) was a Thursday. */
function weekdayFactor(day: number): number {
  const weekday = (day + 4) % 7; // 0 = Sunday
  return weekday === 0 || weekday === 6 ? 0.35 : 1.15;
}

function human(login: string): GithubActor {
  const [first = login, last = ''] = login.split('-');
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const id = stableId(`user:${login}`, 27);
  return {
    login,
    id,
    type: 'User',
    name: `${cap(first)} ${cap(last.replace(/\d+$/, ''))}`.trim(),
    email: `${id}+${login}@users.noreply.github.com`,
  };
}

function randomLogin(rng: Rng): string {
  return `${rng.pick(FIRST)}-${rng.pick(MORE)}${rng.int(100)}`;
}

function communityLogin(rng: Rng): string {
  return `${rng.pick(WORDS)}${rng.pick(FIRST)}${rng.int(10_000)}`;
}

function account(login: string): AccountRef {
  return { login, id: stableId(`user:${login}`, 27), type: 'User' };
}

/** One repository's generated timeline, extended lazily day by day. */
class RepoTimeline {
  readonly commits: CommitRecord[] = [];
  readonly issues: LatentIssue[] = [];
  readonly stars: StarRecord[] = [];
  readonly forks: ForkRecord[] = [];
  private readonly series: DailySeries;
  private lastSha: string | null = null;
  private nextNumber = 1;

  constructor(
    private readonly seed: number,
    private readonly profile: RepoProfile,
  ) {
    this.series = new DailySeries(dayOf(profile.createdAtMs), (day) => this.generateDay(day));
  }

  /** Generates every day up to the one containing `nowMs`. */
  extendTo(nowMs: number): void {
    this.series.advanceTo(dayOf(nowMs));
  }

  private activeMembers(day: number): readonly TeamMember[] {
    const active = this.profile.team.filter((m) => m.joinDay <= day && day < m.leaveDay);
    return active.length > 0 ? active : this.profile.team.slice(0, 1);
  }

  private generateDay(day: number): void {
    const p = this.profile;
    const rng = streamRng(this.seed, 'github', p.fullName, day);
    const level = intensity(p, day);
    const first = day === dayOf(p.createdAtMs);
    const botHeavy = p.character === 'bot-heavy';
    const members = this.activeMembers(day);
    const memberWeights = members.map((m) => m.weight);
    const humans = members.filter((m) => m.actor.type === 'User');
    const weekday = weekdayFactor(day);

    // Commits: the first day always has the initial commit, at the creation instant.
    const commitCount = rng.poisson(p.rates.commits * level * (botHeavy ? 1 : weekday)) + (first ? 1 : 0);
    const commitTimes = instantsInDay(rng, day, commitCount).map((t) => Math.max(t, p.createdAtMs));
    if (first) commitTimes[0] = p.createdAtMs;
    commitTimes.sort((a, b) => a - b);
    for (const [i, time] of commitTimes.entries()) {
      const isInitial = first && i === 0;
      const member = isInitial ? p.team[0]! : members[rng.weightedIndex(memberWeights)]!;
      const actor = member.actor;
      // Some people commit with an e-mail linked to no account: GitHub then shows `author: null`.
      const unlinked = actor.type === 'User' && !isInitial && rng.chance(0.03);
      const viaWeb = actor.type === 'User' && !isInitial && rng.chance(0.35);
      const authorDateMs = viaWeb ? Math.max(p.createdAtMs, time - rng.int(3 * 86_400) * 1000) : time;
      const sha = hexDigits(rng, 40);
      this.commits.push({
        sha,
        parentSha: this.lastSha,
        author: unlinked ? null : actor,
        authorName: unlinked ? `${actor.name} (laptop)` : actor.name,
        authorEmail: unlinked ? `${actor.login}@example.dev` : actor.email,
        authorDateMs,
        committer: viaWeb ? WEB_FLOW : actor,
        committerDateMs: time,
        message: isInitial ? 'Initial commit' : commitMessage(rng, actor),
        commentCount: rng.chance(0.04) ? 1 + rng.int(3) : 0,
      });
      this.lastSha = sha;
    }

    // Issues and pull requests, numbered in creation order.
    const issueCount = rng.poisson(p.rates.issues * level * weekday);
    const pullCount = rng.poisson(p.rates.pulls * level * (botHeavy ? 1 : weekday));
    const kinds = [...Array<boolean>(issueCount).fill(false), ...Array<boolean>(pullCount).fill(true)];
    rng.shuffle(kinds);
    const issueTimes = instantsInDay(rng, day, kinds.length).map((t) => Math.max(t, p.createdAtMs));
    for (const [i, pull] of kinds.entries()) {
      this.issues.push(this.latentIssue(rng, this.nextNumber++, pull, issueTimes[i]!, members, humans));
    }

    // Stars keep trickling in after activity stops; forks follow activity.
    for (const atMs of instantsInDay(rng, day, rng.poisson(p.rates.stars * Math.max(level, 0.05)))) {
      this.stars.push({
        user: account(communityLogin(rng)),
        atMs: Math.max(atMs, p.createdAtMs),
        watches: rng.chance(0.08),
      });
    }
    for (const atMs of instantsInDay(rng, day, rng.poisson(p.rates.forks * Math.max(level, 0.02)))) {
      const owner = account(communityLogin(rng));
      const id = stableId(`fork:${p.fullName}:${owner.login}:${atMs}`);
      this.forks.push({ owner, atMs: Math.max(atMs, p.createdAtMs), id });
    }
  }

  private latentIssue(
    rng: Rng,
    number: number,
    pull: boolean,
    createdAtMs: number,
    members: readonly TeamMember[],
    humans: readonly TeamMember[],
  ): LatentIssue {
    const p = this.profile;
    const bots = members.filter((m) => m.actor.type === 'Bot');
    let author: GithubActor | AccountRef;
    let member: boolean;
    if (pull && bots.length > 0 && rng.chance(p.character === 'bot-heavy' ? 0.75 : 0.15)) {
      author = rng.pick(bots).actor;
      member = false;
    } else if (humans.length > 0 && rng.chance(pull ? 0.8 : 0.3)) {
      author = humans[rng.weightedIndex(humans.map((m) => m.weight))]!.actor;
      member = true;
    } else {
      author = account(communityLogin(rng));
      member = false;
    }
    // Busy teams answer faster; a few issues and pull requests stay open for good.
    const careful = p.character === 'busy' ? 1 : 2.5;
    const after = (meanDays: number) =>
      createdAtMs + Math.round(rng.exponential(meanDays * careful * 86_400)) * 1000 + 60_000;
    let closeAtMs: number | null = null;
    let merged = false;
    const fate = rng.next();
    if (pull) {
      if (fate < (member || author.type === 'Bot' ? 0.8 : 0.45)) {
        merged = true;
        closeAtMs = after(2);
      } else if (fate < 0.97) closeAtMs = after(12);
    } else if (fate < 0.88) closeAtMs = after(9);
    // Work stops when a repository is abandoned: nothing closes after that.
    if (closeAtMs !== null && p.abandonedAtMs !== null && closeAtMs >= p.abandonedAtMs) {
      closeAtMs = null;
      merged = false;
    }
    const commentTimesMs: number[] = [];
    for (let k = rng.poisson(pull ? 1.6 : 2.4); k > 0; k--) {
      const at = createdAtMs + Math.round(rng.exponential(1.5 * 86_400)) * 1000 + 1000;
      if (p.abandonedAtMs === null || at < p.abandonedAtMs) commentTimesMs.push(at);
    }
    commentTimesMs.sort((a, b) => a - b);
    const slug = rng
      .pick(THINGS)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-');
    const headSha = hexDigits(rng, 40);
    const title =
      author.type === 'Bot'
        ? `chore(deps): bump ${rng.pick(PACKAGES)} from 1.${rng.int(9)}.0 to 1.${1 + rng.int(9)}.${rng.int(9)}`
        : `${rng.pick(VERBS)} ${rng.pick(THINGS)}`;
    return {
      number,
      pull,
      title,
      author,
      member,
      createdAtMs,
      closeAtMs,
      merged,
      commentTimesMs,
      headRef: author.type === 'Bot' ? `dependabot/npm_and_yarn/${slug}` : `${author.login}/${slug}`,
      headSha,
      // Derived rather than drawn: one string less per pull request in memory, and just as unique.
      mergeCommitSha: headSha.slice(12) + headSha.slice(0, 12),
    };
  }
}

function commitMessage(rng: Rng, actor: GithubActor): string {
  if (actor.login === BOTS.dependabot.login || actor.login === BOTS.renovate.login) {
    return `chore(deps): bump ${rng.pick(PACKAGES)} from 1.${rng.int(9)}.0 to 1.${1 + rng.int(9)}.${rng.int(9)}`;
  }
  if (actor.login === BOTS.actions.login) return `chore: update ${rng.pick(['gas snapshot', 'docs', 'changelog'])}`;
  return `${rng.pick(VERBS)} ${rng.pick(THINGS)}`;
}

const CHARACTER_RATES: Record<RepoCharacter, ActivityRates> = {
  busy: { commits: 1, issues: 0.3, pulls: 0.45, stars: 0.45, forks: 0.08 },
  'one-person': { commits: 0.4, issues: 0.03, pulls: 0.02, stars: 0.08, forks: 0.01 },
  declining: { commits: 1.2, issues: 0.25, pulls: 0.35, stars: 0.3, forks: 0.05 },
  abandoned: { commits: 0.8, issues: 0.12, pulls: 0.15, stars: 0.1, forks: 0.02 },
  'bot-heavy': { commits: 0.8, issues: 0.06, pulls: 0.3, stars: 0.1, forks: 0.02 },
};

interface RepoSpec {
  readonly owner: string;
  readonly name: string;
  readonly tracked: boolean;
  readonly fork: boolean;
  readonly character: RepoCharacter;
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
          addSpec({ owner: org, name, tracked: true, fork: false, character });
        });
        if (rng.chance(0.3)) {
          addSpec({ owner: org, name: 'openzeppelin-contracts', tracked: false, fork: true, character: 'abandoned' });
        }
      }
      subject.repos.forEach((fullName, i) => {
        const [owner, name] = fullName.split('/') as [string, string];
        const rng = streamRng(this.seed, 'github', 'named', fullName.toLowerCase());
        const character: RepoCharacter =
          i === 0 ? 'busy' : rng.pick(['busy', 'declining', 'bot-heavy', 'one-person'] as const);
        addSpec({ owner, name, tracked: true, fork: false, character });
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
    const scale = rng.logNormal(1, 0.3);
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
    const people = Array.from({ length: 24 }, () => randomLogin(orgRng));
    const size = { busy: 9, 'one-person': 3, declining: 6, abandoned: 3, 'bot-heavy': 3 }[character];
    const chosen = [...new Set(rng.sample(people, size + 2))].slice(0, size);
    const weights = character === 'one-person' ? [0.94, ...Array<number>(size - 1).fill(0.03)] : zipfWeights(size, 1.1);
    const team: TeamMember[] = chosen.map((login, k) => {
      const joinDay = k === 0 ? createdDay : createdDay + Math.floor(rng.exponential(character === 'busy' ? 150 : 250));
      const stay = character === 'declining' ? 300 : 900;
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

function stableSha(text: string): string {
  const rng = streamRng(stableId(text), 'sha');
  return hexDigits(rng, 40);
}
