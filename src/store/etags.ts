/**
 * The persistent conditional-request cache of the sources that revalidate (GitHub's `EtagStore`), injected into
 * the source's client when the runtime opens it: 304s survive a restart. Its table, `github_etags`, was created by
 * the development area's migration (released under its key, which never changes); the development ingest prunes
 * the entries no pass asks for any more.
 */
import type { Kysely } from 'kysely';
import { HOUR } from '../core/time.js';
import type { CachedResponse, EtagStore } from '../sources/github/etag.js';
import type { Database } from './schema.js';

/** A revalidated ETag entry's `updated_at` is refreshed when older than this (a write per entry per 6 hours at most). */
export const ETAG_TOUCH_SECONDS = 6 * HOUR;

export interface GithubEtagTable {
  key: string;
  etag: string;
  data: string;
  link: string | null;
  updated_at: number;
}

export type EtagTables = { github_etags: GithubEtagTable };

/** The GitHub source's conditional-request cache kept in `github_etags`, so that 304s survive a restart. */
export class DbEtagStore implements EtagStore {
  private readonly db: Kysely<Database & EtagTables>;

  constructor(
    platform: Kysely<Database>,
    private readonly now: () => number,
  ) {
    this.db = platform.withTables<EtagTables>();
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const row = await this.db.selectFrom('github_etags').selectAll().where('key', '=', key).executeTakeFirst();
    if (!row) return undefined;
    return { etag: row.etag, data: JSON.parse(row.data), ...(row.link === null ? {} : { link: row.link }) };
  }

  async set(key: string, value: CachedResponse): Promise<void> {
    const row = {
      key,
      etag: value.etag,
      data: JSON.stringify(value.data),
      link: value.link ?? null,
      updated_at: this.now(),
    };
    await this.db
      .insertInto('github_etags')
      .values(row)
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({ etag: row.etag, data: row.data, link: row.link, updated_at: row.updated_at }),
      )
      .execute();
  }

  async touch(key: string): Promise<void> {
    const now = this.now();
    await this.db
      .updateTable('github_etags')
      .set({ updated_at: now })
      .where('key', '=', key)
      .where('updated_at', '<', now - ETAG_TOUCH_SECONDS)
      .execute();
  }

  /** Deletes the entries neither stored nor revalidated since `before` (Unix seconds); returns how many. */
  async prune(before: number): Promise<number> {
    const result = await this.db.deleteFrom('github_etags').where('updated_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
