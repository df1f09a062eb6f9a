import { isoSeconds } from '../../../core/time.js';
import { upperBound } from '../base/generate.js';
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
 * world has no notion of (labels, milestones, reactions…) are present with GitHub's empty values.
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
  return {
    login: actor.login,
    id: actor.id,
    node_id: nodeId(actor.type === 'Organization' ? 'Organization' : 'User', actor.id),
    avatar_url: `${AVATARS}/u/${actor.id}?v=4`,
    gravatar_id: '',
    url: `${api}/users/${encodeURIComponent(actor.login)}`,
    html_url: `${WEB}/${encodeURIComponent(actor.login)}`,
    type: actor.type,
    user_view_type: 'public',
    site_admin: false,
  };
}

/** The repository object of listings (`minimal-repository`); `full` adds the fields only `GET /repos/…` has. */
export function renderRepo(api: string, h: RepoHistory, full: boolean) {
  const p = h.profile;
  const repoUrl = `${api}/repos/${p.fullName}`;
  const openIssues = h.issues.filter((i) => i.closedAtMs === null).length;
  const lastActivity = Math.max(
    h.pushedAtMs,
    h.stars[h.stars.length - 1]?.atMs ?? 0,
    h.forks[h.forks.length - 1]?.atMs ?? 0,
    p.archivedAtMs !== null && h.archived ? p.archivedAtMs : 0,
  );
  const base = {
    id: p.id,
    node_id: nodeId('Repository', p.id),
    name: p.name,
    full_name: p.fullName,
    private: false,
    owner: renderUser(api, { login: p.owner, id: p.ownerId, type: 'Organization' }),
    html_url: `${WEB}/${p.fullName}`,
    description: p.description,
    fork: p.fork,
    url: repoUrl,
    commits_url: `${repoUrl}/commits{/sha}`,
    contributors_url: `${repoUrl}/contributors`,
    events_url: `${repoUrl}/events`,
    issues_url: `${repoUrl}/issues{/number}`,
    pulls_url: `${repoUrl}/pulls{/number}`,
    branches_url: `${repoUrl}/branches{/branch}`,
    collaborators_url: `${repoUrl}/collaborators{/collaborator}`,
    stargazers_url: `${repoUrl}/stargazers`,
    created_at: iso(p.createdAtMs),
    updated_at: iso(lastActivity),
    pushed_at: iso(h.pushedAtMs),
    homepage: null,
    // Kilobytes: a rough function of history, as on GitHub.
    size: 40 + h.commits.length * 3,
    stargazers_count: h.stars.length,
    // GitHub's legacy name for stars; the number of people watching is `subscribers_count` (full object only).
    watchers_count: h.stars.length,
    language: p.language,
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: false,
    has_pages: p.longLivedBranches.includes('gh-pages'),
    has_discussions: false,
    forks_count: h.forks.length,
    mirror_url: null,
    archived: h.archived,
    disabled: false,
    open_issues_count: openIssues,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [],
    visibility: 'public',
    forks: h.forks.length,
    open_issues: openIssues,
    watchers: h.stars.length,
    default_branch: p.defaultBranch,
  };
  if (!full) return base;
  return { ...base, network_count: h.forks.length, subscribers_count: h.subscribers };
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
  const id = issueId(p, i.number);
  const base = h.commits[Math.max(0, upperBound(h.commits, i.createdAtMs, (c) => c.committerDateMs) - 1)];
  const ownBranch = i.member || i.author.type === 'Bot';
  return {
    url: `${repoUrl}/pulls/${i.number}`,
    id,
    node_id: nodeId('PullRequest', id),
    html_url: `${WEB}/${p.fullName}/pull/${i.number}`,
    diff_url: `${WEB}/${p.fullName}/pull/${i.number}.diff`,
    patch_url: `${WEB}/${p.fullName}/pull/${i.number}.patch`,
    issue_url: `${repoUrl}/issues/${i.number}`,
    number: i.number,
    state: i.closedAtMs === null ? 'open' : 'closed',
    locked: false,
    title: i.title,
    user: renderUser(api, i.author),
    body: null,
    created_at: iso(i.createdAtMs),
    updated_at: iso(i.updatedAtMs),
    closed_at: isoOrNull(i.closedAtMs),
    merged_at: isoOrNull(i.mergedAtMs),
    merge_commit_sha: i.closedAtMs === null || i.mergedAtMs !== null ? i.mergeCommitSha : null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    labels: [],
    milestone: null,
    draft: false,
    head: {
      label: `${ownBranch ? p.owner : i.author.login}:${i.headRef}`,
      ref: i.headRef,
      sha: i.headSha,
      user: renderUser(api, ownBranch ? { login: p.owner, id: p.ownerId, type: 'Organization' } : i.author),
      // A fork's repository object; GitHub shows null once the fork is deleted, which is what the world assumes.
      repo: ownBranch ? repo : null,
    },
    base: {
      label: `${p.owner}:${p.defaultBranch}`,
      ref: p.defaultBranch,
      sha: base?.sha ?? i.headSha,
      user: renderUser(api, { login: p.owner, id: p.ownerId, type: 'Organization' }),
      repo,
    },
    author_association: i.member ? 'MEMBER' : 'NONE',
    auto_merge: null,
    active_lock_reason: null,
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

export function renderEvent(api: string, h: RepoHistory, e: EventRecord, repo = renderRepo(api, h, false)) {
  const p = h.profile;
  const issue = e.issueNumber === undefined ? undefined : h.issues[e.issueNumber - 1];
  let payload: Record<string, unknown>;
  switch (e.type) {
    case 'PushEvent': {
      const c = e.commit!;
      payload = {
        repository_id: p.id,
        push_id: Number(e.id),
        size: 1,
        distinct_size: 1,
        ref: `refs/heads/${p.defaultBranch}`,
        head: c.sha,
        before: c.parentSha ?? '0000000000000000000000000000000000000000',
        commits: [
          {
            sha: c.sha,
            author: { email: c.authorEmail, name: c.authorName },
            message: c.message,
            distinct: true,
            url: `${api}/repos/${p.fullName}/commits/${c.sha}`,
          },
        ],
      };
      break;
    }
    case 'IssuesEvent':
      payload = { action: e.action, issue: issue ? renderIssue(api, p, issue) : null };
      break;
    case 'PullRequestEvent':
      payload = {
        action: e.action,
        number: e.issueNumber,
        pull_request: issue ? renderPull(api, h, issue, repo) : null,
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
