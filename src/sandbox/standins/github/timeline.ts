import type { Rng } from '../../world/random.js';
import { DailySeries, dayOf, hexDigits, instantsInDay, stableId, streamRng } from '../base/generate.js';
import type {
  AccountRef,
  CommitRecord,
  ForkRecord,
  GithubActor,
  LatentIssue,
  RepoProfile,
  StarRecord,
  TeamMember,
} from './records.js';

export const ms = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`);
/** Declining repositories start to decline in this span, and decay with this e-folding time. */
export const DECLINE_FROM = ms('2023-10-01');
export const DECLINE_TO = ms('2024-12-31');
const DECLINE_EFOLDING_DAYS = 450;
/** The calendar of the world: every repository is created in this span. */
export const CREATED_FROM = ms('2017-01-01');
export const CREATED_TO = ms('2023-06-30');

export const BOTS = {
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
export const REPO_NAMES = [
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
export const LANGUAGES: Record<string, string> = {
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

export function human(login: string): GithubActor {
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

export function randomLogin(rng: Rng): string {
  return `${rng.pick(FIRST)}-${rng.pick(MORE)}${rng.int(100)}`;
}

function communityLogin(rng: Rng): string {
  return `${rng.pick(WORDS)}${rng.pick(FIRST)}${rng.int(10_000)}`;
}

function account(login: string): AccountRef {
  return { login, id: stableId(`user:${login}`, 27), type: 'User' };
}

/** One repository's generated timeline, extended lazily day by day. */
export class RepoTimeline {
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

export function stableSha(text: string): string {
  const rng = streamRng(stableId(text), 'sha');
  return hexDigits(rng, 40);
}
