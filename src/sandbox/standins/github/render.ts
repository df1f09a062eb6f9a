import { isoSeconds } from '../../../core/time.js';
import { stableId, upperBound } from '../base/generate.js';
import type {
  BranchRecord,
  CollaboratorRecord,
  CommitRecord,
  ContributorRecord,
  EventRecord,
  GithubActor,
  IssueRecord,
  RepoHistory,
  RepoProfile,
} from './records.js';

/**
 * GitHub REST API v3 (2022-11-28) wire shapes of the stand-in's world: the field names, nesting, nulls and URL
 * fields of api.github.com, with API URLs pointing at the stand-in (`api`) and web URLs at github.com. Fields the
 * world has no notion of (labels, milestones, reactions…) are present with GitHub's empty values. Every object
 * carries the fields GitHub's REST description (`@octokit/openapi`) requires and none it does not name
 * (`conformance.test.ts`).
 */

const WEB = 'https://github.com';
const AVATARS = 'https://avatars.githubusercontent.com';

const iso = (ms: number) => isoSeconds(Math.floor(ms / 1000));
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
/** GitHub's legacy global node ids: base64 of `<len>:<Type><id>`. */
const nodeId = (type: string, id: number) => Buffer.from(`0${type.length}:${type}${id}`).toString('base64');

export function renderUser(
  api: string,
  actor: { readonly login: string; readonly id: number; readonly type: GithubActor['type'] | 'Organization' },
) {
  const url = `${api}/users/${encodeURIComponent(actor.login)}`;
  return {
    login: actor.login,
    id: actor.id,
    node_id: nodeId(actor.type === 'Organization' ? 'Organization' : 'User', actor.id),
    avatar_url: `${AVATARS}/u/${actor.id}?v=4`,
    gravatar_id: '',
    url,
    html_url: `${WEB}/${encodeURIComponent(actor.login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: actor.type,
    user_view_type: 'public',
    site_admin: false,
  };
}

/** What a repository object shows, whether the world's own repository or a contributor's fork of it. */
interface RepoFacts {
  readonly id: number;
  readonly owner: { readonly login: string; readonly id: number; readonly type: 'Organization' | 'User' };
  readonly name: string;
  readonly fullName: string;
  readonly description: string;
  readonly fork: boolean;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly pushedAtMs: number;
  readonly size: number;
  readonly stars: number;
  readonly forks: number;
  readonly openIssues: number;
  readonly language: string;
  readonly hasPages: boolean;
  readonly archived: boolean;
  readonly defaultBranch: string;
}

/**
 * GitHub's repository object (`repository`, and `minimal-repository` in listings: the same fields here), with
 * every URL template api.github.com serves.
 */
function repoObject(api: string, r: RepoFacts) {
  const repoUrl = `${api}/repos/${r.fullName}`;
  return {
    id: r.id,
    node_id: nodeId('Repository', r.id),
    name: r.name,
    full_name: r.fullName,
    private: false,
    owner: renderUser(api, r.owner),
    html_url: `${WEB}/${r.fullName}`,
    description: r.description,
    fork: r.fork,
    url: repoUrl,
    forks_url: `${repoUrl}/forks`,
    keys_url: `${repoUrl}/keys{/key_id}`,
    collaborators_url: `${repoUrl}/collaborators{/collaborator}`,
    teams_url: `${repoUrl}/teams`,
    hooks_url: `${repoUrl}/hooks`,
    issue_events_url: `${repoUrl}/issues/events{/number}`,
    events_url: `${repoUrl}/events`,
    assignees_url: `${repoUrl}/assignees{/user}`,
    branches_url: `${repoUrl}/branches{/branch}`,
    tags_url: `${repoUrl}/tags`,
    blobs_url: `${repoUrl}/git/blobs{/sha}`,
    git_tags_url: `${repoUrl}/git/tags{/sha}`,
    git_refs_url: `${repoUrl}/git/refs{/sha}`,
    trees_url: `${repoUrl}/git/trees{/sha}`,
    statuses_url: `${repoUrl}/statuses/{sha}`,
    languages_url: `${repoUrl}/languages`,
    stargazers_url: `${repoUrl}/stargazers`,
    contributors_url: `${repoUrl}/contributors`,
    subscribers_url: `${repoUrl}/subscribers`,
    subscription_url: `${repoUrl}/subscription`,
    commits_url: `${repoUrl}/commits{/sha}`,
    git_commits_url: `${repoUrl}/git/commits{/sha}`,
    comments_url: `${repoUrl}/comments{/number}`,
    issue_comment_url: `${repoUrl}/issues/comments{/number}`,
    contents_url: `${repoUrl}/contents/{+path}`,
    compare_url: `${repoUrl}/compare/{base}...{head}`,
    merges_url: `${repoUrl}/merges`,
    archive_url: `${repoUrl}/{archive_format}{/ref}`,
    downloads_url: `${repoUrl}/downloads`,
    issues_url: `${repoUrl}/issues{/number}`,
    pulls_url: `${repoUrl}/pulls{/number}`,
    milestones_url: `${repoUrl}/milestones{/number}`,
    notifications_url: `${repoUrl}/notifications{?since,all,participating}`,
    labels_url: `${repoUrl}/labels{/name}`,
    releases_url: `${repoUrl}/releases{/id}`,
    deployments_url: `${repoUrl}/deployments`,
    created_at: iso(r.createdAtMs),
    updated_at: iso(r.updatedAtMs),
    pushed_at: iso(r.pushedAtMs),
    git_url: `git://github.com/${r.fullName}.git`,
    ssh_url: `git@github.com:${r.fullName}.git`,
    clone_url: `${WEB}/${r.fullName}.git`,
    svn_url: `${WEB}/${r.fullName}`,
    homepage: null,
    size: r.size,
    stargazers_count: r.stars,
    // GitHub's legacy name for stars; the number of people watching is `subscribers_count` (full object only).
    watchers_count: r.stars,
    language: r.language,
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: false,
    has_pages: r.hasPages,
    has_discussions: false,
    forks_count: r.forks,
    mirror_url: null,
    archived: r.archived,
    disabled: false,
    open_issues_count: r.openIssues,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [],
    visibility: 'public',
    forks: r.forks,
    open_issues: r.openIssues,
    watchers: r.stars,
    default_branch: r.defaultBranch,
  };
}

/** The repository object of listings (`minimal-repository`); `full` adds the fields only `GET /repos/…` has. */
export function renderRepo(api: string, h: RepoHistory, full: boolean) {
  const p = h.profile;
  const lastActivity = Math.max(
    h.pushedAtMs,
    h.stars[h.stars.length - 1]?.atMs ?? 0,
    h.forks[h.forks.length - 1]?.atMs ?? 0,
    p.archivedAtMs !== null && h.archived ? p.archivedAtMs : 0,
  );
  const base = repoObject(api, {
    id: p.id,
    owner: { login: p.owner, id: p.ownerId, type: 'Organization' },
    name: p.name,
    fullName: p.fullName,
    description: p.description,
    fork: p.fork,
    createdAtMs: p.createdAtMs,
    updatedAtMs: lastActivity,
    pushedAtMs: h.pushedAtMs,
    // Kilobytes: a rough function of history, as on GitHub.
    size: repoSize(h),
    stars: h.stars.length,
    forks: h.forks.length,
    openIssues: h.issues.filter((i) => i.closedAtMs === null).length,
    language: p.language,
    hasPages: p.longLivedBranches.includes('gh-pages'),
    archived: h.archived,
    defaultBranch: p.defaultBranch,
  });
  if (!full) return base;
  return { ...base, network_count: h.forks.length, subscribers_count: h.subscribers };
}

const repoSize = (h: RepoHistory) => 40 + h.commits.length * 3;

/**
 * The fork a contributor's pull request comes from (its `head.repo`): the fork the world recorded for them, else
 * one made when the pull request was opened. Forks are not tracked; their figures are a fresh fork's.
 */
function renderForkOf(api: string, h: RepoHistory, author: IssueRecord['author'], openedAtMs: number) {
  const p = h.profile;
  const recorded = h.forks.find((f) => f.owner.login === author.login && f.atMs <= openedAtMs);
  const createdAtMs = recorded?.atMs ?? openedAtMs;
  return repoObject(api, {
    id: recorded?.id ?? stableId(`fork:${p.fullName}:${author.login}`),
    owner: { login: author.login, id: author.id, type: 'User' },
    name: p.name,
    fullName: `${author.login}/${p.name}`,
    description: p.description,
    fork: true,
    createdAtMs,
    updatedAtMs: openedAtMs,
    pushedAtMs: openedAtMs,
    size: repoSize(h),
    stars: 0,
    forks: 0,
    openIssues: 0,
    language: p.language,
    hasPages: false,
    archived: false,
    defaultBranch: p.defaultBranch,
  });
}

export function renderCommit(api: string, p: RepoProfile, c: CommitRecord) {
  const repoUrl = `${api}/repos/${p.fullName}`;
  return {
    sha: c.sha,
    node_id: Buffer.from(`Commit:${p.id}:${c.sha}`).toString('base64'),
    commit: {
      author: { name: c.authorName, email: c.authorEmail, date: iso(c.authorDateMs) },
      committer: { name: c.committer.name, email: c.committer.email, date: iso(c.committerDateMs) },
      message: c.message,
      tree: { sha: treeSha(c.sha), url: `${repoUrl}/git/trees/${treeSha(c.sha)}` },
      url: `${repoUrl}/git/commits/${c.sha}`,
      comment_count: c.commentCount,
      verification: {
        verified: c.committer.login === 'web-flow',
        reason: c.committer.login === 'web-flow' ? 'valid' : 'unsigned',
        signature: null,
        payload: null,
        verified_at: c.committer.login === 'web-flow' ? iso(c.committerDateMs) : null,
      },
    },
    url: `${repoUrl}/commits/${c.sha}`,
    html_url: `${WEB}/${p.fullName}/commit/${c.sha}`,
    comments_url: `${repoUrl}/commits/${c.sha}/comments`,
    author: c.author ? renderUser(api, c.author) : null,
    committer: renderUser(api, c.committer),
    parents: c.parentSha
      ? [
          {
            sha: c.parentSha,
            url: `${repoUrl}/commits/${c.parentSha}`,
            html_url: `${WEB}/${p.fullName}/commit/${c.parentSha}`,
          },
        ]
      : [],
  };
}

function treeSha(sha: string): string {
  return sha.slice(20) + sha.slice(0, 20);
}

function stateReason(i: IssueRecord): string | null {
  if (i.closedAtMs === null) return null;
  return i.pull || i.comments > 0 ? 'completed' : 'not_planned';
}

const issueId = (p: RepoProfile, n: number) => p.id * 10_000 + n;

export function renderIssue(api: string, p: RepoProfile, i: IssueRecord) {
  const repoUrl = `${api}/repos/${p.fullName}`;
  const url = `${repoUrl}/issues/${i.number}`;
  const id = issueId(p, i.number);
  return {
    url,
    repository_url: repoUrl,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${WEB}/${p.fullName}/${i.pull ? 'pull' : 'issues'}/${i.number}`,
    id,
    node_id: nodeId(i.pull ? 'PullRequest' : 'Issue', id),
    number: i.number,
    title: i.title,
    user: renderUser(api, i.author),
    labels: [],
    state: i.closedAtMs === null ? 'open' : 'closed',
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: i.comments,
    created_at: iso(i.createdAtMs),
    updated_at: iso(i.updatedAtMs),
    closed_at: isoOrNull(i.closedAtMs),
    author_association: i.member ? 'MEMBER' : 'NONE',
    active_lock_reason: null,
    ...(i.pull
      ? {
          draft: false,
          pull_request: {
            url: `${repoUrl}/pulls/${i.number}`,
            html_url: `${WEB}/${p.fullName}/pull/${i.number}`,
            diff_url: `${WEB}/${p.fullName}/pull/${i.number}.diff`,
            patch_url: `${WEB}/${p.fullName}/pull/${i.number}.patch`,
            merged_at: isoOrNull(i.mergedAtMs),
          },
        }
      : {}),
    body: null,
    state_reason: stateReason(i),
  };
}

/** `repo`: the repository's listing object (computed once per response by callers rendering many). */
export function renderPull(api: string, h: RepoHistory, i: IssueRecord, repo = renderRepo(api, h, false)) {
  const p = h.profile;
  const repoUrl = `${api}/repos/${p.fullName}`;
  const url = `${repoUrl}/pulls/${i.number}`;
  const issueUrl = `${repoUrl}/issues/${i.number}`;
  const htmlUrl = `${WEB}/${p.fullName}/pull/${i.number}`;
  const commentsUrl = `${issueUrl}/comments`;
  const reviewCommentsUrl = `${url}/comments`;
  const commitsUrl = `${url}/commits`;
  const statusesUrl = `${repoUrl}/statuses/${i.headSha}`;
  const id = issueId(p, i.number);
  const base = h.commits[Math.max(0, upperBound(h.commits, i.createdAtMs, (c) => c.committerDateMs) - 1)];
  const ownBranch = i.member || i.author.type === 'Bot';
  return {
    url,
    id,
    node_id: nodeId('PullRequest', id),
    html_url: htmlUrl,
    diff_url: `${htmlUrl}.diff`,
    patch_url: `${htmlUrl}.patch`,
    issue_url: issueUrl,
    commits_url: commitsUrl,
    review_comments_url: reviewCommentsUrl,
    review_comment_url: `${repoUrl}/pulls/comments{/number}`,
    comments_url: commentsUrl,
    statuses_url: statusesUrl,
    number: i.number,
    state: i.closedAtMs === null ? 'open' : 'closed',
    locked: false,
    title: i.title,
    user: renderUser(api, i.author),
    body: null,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: iso(i.createdAtMs),
    updated_at: iso(i.updatedAtMs),
    closed_at: isoOrNull(i.closedAtMs),
    merged_at: isoOrNull(i.mergedAtMs),
    merge_commit_sha: i.closedAtMs === null || i.mergedAtMs !== null ? i.mergeCommitSha : null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: {
      label: `${ownBranch ? p.owner : i.author.login}:${i.headRef}`,
      ref: i.headRef,
      sha: i.headSha,
      user: renderUser(api, ownBranch ? { login: p.owner, id: p.ownerId, type: 'Organization' } : i.author),
      // A member's or a bot's branch lives in the repository; anyone else's in their fork.
      repo: ownBranch ? repo : renderForkOf(api, h, i.author, i.createdAtMs),
    },
    base: {
      label: `${p.owner}:${p.defaultBranch}`,
      ref: p.defaultBranch,
      sha: base?.sha ?? i.headSha,
      user: renderUser(api, { login: p.owner, id: p.ownerId, type: 'Organization' }),
      repo,
    },
    _links: {
      self: { href: url },
      html: { href: htmlUrl },
      issue: { href: issueUrl },
      comments: { href: commentsUrl },
      review_comments: { href: reviewCommentsUrl },
      review_comment: { href: `${repoUrl}/pulls/comments{/number}` },
      commits: { href: commitsUrl },
      statuses: { href: statusesUrl },
    },
    author_association: i.member ? 'MEMBER' : 'NONE',
    auto_merge: null,
    draft: false,
  };
}

export function renderContributor(api: string, c: ContributorRecord) {
  return { ...renderUser(api, c.actor), contributions: c.contributions };
}

export function renderCollaborator(api: string, c: CollaboratorRecord) {
  const admin = c.role === 'admin';
  return {
    ...renderUser(api, c.actor),
    permissions: { admin, maintain: admin, push: true, triage: true, pull: true },
    role_name: c.role,
  };
}

export function renderBranch(api: string, p: RepoProfile, b: BranchRecord) {
  return {
    name: b.name,
    commit: { sha: b.sha, url: `${api}/repos/${p.fullName}/commits/${b.sha}` },
    protected: b.protected,
  };
}

/** A pull request as the events API shows it now: its id, number and the two ends' ref, sha and repository. */
function renderPullMinimal(api: string, h: RepoHistory, i: IssueRecord, repo: ReturnType<typeof renderRepo>) {
  const full = renderPull(api, h, i, repo);
  const end = (side: typeof full.head | typeof full.base) => ({
    ref: side.ref,
    sha: side.sha,
    repo: { id: side.repo.id, url: side.repo.url, name: side.repo.full_name },
  });
  return { id: full.id, number: full.number, url: full.url, head: end(full.head), base: end(full.base) };
}

export function renderEvent(api: string, h: RepoHistory, e: EventRecord, repo = renderRepo(api, h, false)) {
  const p = h.profile;
  const issue = e.issueNumber === undefined ? undefined : h.issues[e.issueNumber - 1];
  let payload: Record<string, unknown>;
  switch (e.type) {
    case 'PushEvent': {
      // Trimmed since 2025 (GitHub's `push-event`): the pushed commits are read from the commits API.
      const c = e.commit!;
      payload = {
        repository_id: p.id,
        push_id: Number(e.id),
        ref: `refs/heads/${p.defaultBranch}`,
        head: c.sha,
        before: c.parentSha ?? '0000000000000000000000000000000000000000',
      };
      break;
    }
    case 'IssuesEvent':
      payload = { action: e.action, issue: issue ? renderIssue(api, p, issue) : null };
      break;
    case 'PullRequestEvent':
      // Trimmed since 2025 (GitHub's `pull-request-minimal`): the pull request itself is read from the pulls API.
      payload = {
        action: e.action,
        number: e.issueNumber,
        pull_request: issue ? renderPullMinimal(api, h, issue, repo) : null,
      };
      break;
    case 'IssueCommentEvent': {
      const commentId = Number(e.id);
      payload = {
        action: 'created',
        issue: issue ? renderIssue(api, p, issue) : null,
        comment: {
          id: commentId,
          node_id: nodeId('IssueComment', commentId),
          url: `${api}/repos/${p.fullName}/issues/comments/${commentId}`,
          issue_url: `${api}/repos/${p.fullName}/issues/${e.issueNumber}`,
          html_url: `${WEB}/${p.fullName}/issues/${e.issueNumber}#issuecomment-${commentId}`,
          user: renderUser(api, e.actor),
          created_at: iso(e.atMs),
          updated_at: iso(e.atMs),
          author_association: 'NONE',
          body: '',
        },
      };
      break;
    }
    case 'WatchEvent':
      payload = { action: 'started' };
      break;
    case 'ForkEvent':
      payload = {
        action: 'forked',
        forkee: {
          id: e.forkId,
          name: p.name,
          full_name: `${e.actor.login}/${p.name}`,
          owner: renderUser(api, e.actor),
          fork: true,
          html_url: `${WEB}/${e.actor.login}/${p.name}`,
          created_at: iso(e.atMs),
        },
      };
      break;
  }
  const actor = renderUser(api, e.actor);
  return {
    id: e.id,
    type: e.type,
    actor: {
      id: actor.id,
      login: actor.login,
      display_login: actor.login,
      gravatar_id: '',
      url: actor.url,
      avatar_url: actor.avatar_url,
    },
    repo: { id: p.id, name: p.fullName, url: `${api}/repos/${p.fullName}` },
    payload,
    public: true,
    created_at: iso(e.atMs),
    org: {
      id: p.ownerId,
      login: p.owner,
      gravatar_id: '',
      url: `${api}/orgs/${p.owner}`,
      avatar_url: `${AVATARS}/u/${p.ownerId}?v=4`,
    },
  };
}
