import { type ContributorCount, type DevDb, isBot, type RepoFacts } from './facts.js';

/** Reads the development facts of repositories; rows become typed facts here only. */
export class DevelopmentRepository {
  constructor(private readonly db: DevDb) {}

  /** `[repo, snapshot_at]` of the named repositories that have been ingested, by name: what a computation reads. */
  async snapshotTimes(repos: readonly string[]): Promise<[string, number][]> {
    if (!repos.length) return [];
    const rows = await this.db
      .selectFrom('dev_repos')
      .select(['repo', 'snapshot_at'])
      .where('repo', 'in', repos)
      .orderBy('repo')
      .execute();
    return rows.map((r) => [r.repo, Number(r.snapshot_at)]);
  }

  /** Facts of the named repositories that have been ingested at least once (others are absent from the map). */
  async facts(repos: readonly string[]): Promise<Map<string, RepoFacts>> {
    const out = new Map<string, RepoFacts>();
    if (!repos.length) return out;
    const rows = await this.db.selectFrom('dev_repos').selectAll().where('repo', 'in', repos).execute();
    for (const row of rows) {
      const commits = await this.db
        .selectFrom('dev_commits')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('committer_date')
        .orderBy('sha')
        .execute();
      const issues = await this.db
        .selectFrom('dev_issues')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('number')
        .execute();
      const events = await this.db
        .selectFrom('dev_events')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const days = await this.db
        .selectFrom('dev_repo_days')
        .selectAll()
        .where('repo', '=', row.repo)
        .orderBy('day')
        .execute();
      out.set(row.repo, {
        repo: row.repo,
        htmlUrl: row.html_url,
        createdAt: Number(row.created_at),
        archived: Number(row.archived) === 1,
        stars: Number(row.stars),
        forks: Number(row.forks),
        commitsTotal: Number(row.commits_total),
        contributors: JSON.parse(row.contributors) as ContributorCount[],
        snapshotAt: Number(row.snapshot_at),
        commitsFrom: Number(row.commits_from),
        issuesFrom: Number(row.issues_from),
        eventsFrom: Number(row.events_from),
        commits: commits.map((c) => ({
          sha: c.sha,
          authorKey: c.author_key,
          authorLogin: c.author_login,
          bot: isBot(c.author_login, c.author_type),
          committerDate: Number(c.committer_date),
          commentCount: Number(c.comment_count),
        })),
        issues: issues.map((i) => ({
          number: Number(i.number),
          pull: Number(i.pull) === 1,
          authorLogin: i.author_login,
          bot: isBot(i.author_login, i.author_type),
          member: ['OWNER', 'MEMBER', 'COLLABORATOR'].includes(i.association),
          createdAt: Number(i.created_at),
          closedAt: i.closed_at === null ? null : Number(i.closed_at),
          mergedAt: i.merged_at === null ? null : Number(i.merged_at),
        })),
        events: events.map((e) => ({
          type: e.type,
          actorLogin: e.actor_login,
          createdAt: Number(e.created_at),
          action: e.action,
          issueNumber: e.issue_number === null ? null : Number(e.issue_number),
        })),
        days: days.map((d) => ({
          day: Number(d.day),
          observedAt: Number(d.observed_at),
          branches: Number(d.branches),
          collaborators: d.collaborators === null ? null : Number(d.collaborators),
          watchers: Number(d.watchers),
        })),
      });
    }
    return out;
  }
}
