import { DAY, utcDate } from '../../core/time.js';
import { RedditClient, type RedditClientOptions, RedditSchemaError, validate } from './client.js';
import {
  RedditAbout,
  type RedditComment,
  RedditCommentListing,
  type RedditPost,
  RedditPostListing,
} from './schemas.js';

/**
 * What the community area reads from Reddit: a subreddit's `about`, and its newest posts (`/r/{sub}/new`, `t3`) and
 * comments (`/r/{sub}/comments`, `t1`) as passes down the listing, newest first, from the top to a checkpoint.
 *
 * Reddit's listings have no "since": they are read from the newest item down with the `after` cursor (the fullname
 * of the previous page's last item), 100 items a page, and they end after about 1,000 items whatever lies beyond
 * (the listing cap). So an ingest reads a *pass*: from the top down to the newest item of its previous pass (or to
 * a start time), and
 * - stores each page's items with the checkpoint that page hands out (one transaction): a restart continues the pass
 *   where it stopped (the `after` cursor), without reading a page twice;
 * - when the pass ends, its top item becomes the next pass's stop: nothing is read twice and nothing between two
 *   passes is skipped, as long as a pass reaches its stop;
 * - when the listing ends before the stop (the cap: more than ~1,000 items arrived since the last pass), the pass
 *   says which span it could not read (`coverage.missing`), so that the area marks those UTC days incomplete.
 */

export type RedditListingKind = 'posts' | 'comments';
export type RedditItem<K extends RedditListingKind> = K extends 'posts' ? RedditPost : RedditComment;

/** Where a listing's reading stands; stored by the ingest with the items it covers. Plain JSON. */
export interface RedditCheckpoint {
  /** The newest item of the last finished pass (fullname): it and every older item were read. */
  readonly through?: string;
  /** Its `created_utc` (Unix seconds). */
  readonly throughUtc?: number;
  /** A pass under way (stopped by a restart): continue below `after`, and finish with `top` as `through`. */
  readonly pass?: {
    readonly top: string;
    readonly topUtc: number;
    /** Fullname of the last item read: the listing's `after` cursor. */
    readonly after: string;
    /** `created_utc` of the oldest item read so far. */
    readonly oldestUtc: number;
    /** Listing items read so far in this pass (for the cap). */
    readonly seen: number;
  };
}

export interface RedditCoverage {
  /** False when the listing ended (cap) before the pass reached its stop. */
  readonly complete: boolean;
  /**
   * When not complete: items created in [fromUtc, toUtc] may be missing (from the stop — the previous pass's newest
   * item or the start time — up to the oldest item this pass reached).
   */
  readonly missing?: { readonly fromUtc: number; readonly toUtc: number };
}

export interface RedditBatch<K extends RedditListingKind> {
  readonly subreddit: string;
  readonly kind: K;
  /** New items of one page, newest first (none older than the stop). */
  readonly items: readonly RedditItem<K>[];
  /** The checkpoint to store with these items. */
  readonly checkpoint: RedditCheckpoint;
  /** The pass is over: `checkpoint` names its top as `through`, and `coverage` says whether it reached its stop. */
  readonly done: boolean;
  readonly coverage?: RedditCoverage;
}

export interface RedditReadOptions {
  /** Where the previous read stopped; none: a first read, down to `sinceUtc`. */
  readonly checkpoint?: RedditCheckpoint;
  /** Items created before this (Unix seconds) are not wanted (a first read's look-back; also bounds later ones). */
  readonly sinceUtc?: number;
}

/** Items per page (Reddit's largest). */
export const REDDIT_PAGE_SIZE = 100;
/**
 * Reddit's listings end after "about 1,000" items (fewer when some are hidden): a listing that ends after this many
 * items of a pass is taken as cut by the cap, not as the subreddit's first item.
 */
export const REDDIT_LISTING_CAP_GUARD = 900;

/** Base-36 ids grow with creation: order by length, then by digits. Negative when `a` is older. */
export function compareIds(a: string, b: string): number {
  const x = a.replace(/^t\d_/, '');
  const y = b.replace(/^t\d_/, '');
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}

/** The UTC days (`YYYY-MM-DD`, oldest first) a coverage leaves incomplete: none when complete. */
export function incompleteDays(coverage: RedditCoverage): string[] {
  if (coverage.complete || !coverage.missing) return [];
  const out: string[] = [];
  const last = Math.floor(coverage.missing.toUtc / DAY);
  for (let day = Math.floor(coverage.missing.fromUtc / DAY); day <= last; day++) out.push(utcDate(day * DAY));
  return out;
}

export class RedditSource {
  readonly client: RedditClient;

  constructor(options: RedditClientOptions) {
    this.client = new RedditClient(options);
  }

  get stats() {
    return this.client.stats;
  }

  /** The subreddit's `about` (`RedditSubredditError` when private, banned, quarantined or unknown). */
  async about(subreddit: string): Promise<RedditAbout['data']> {
    const path = `/r/${encodeURIComponent(subreddit)}/about`;
    return validate(`GET /r/{sub}/about`, RedditAbout, await this.client.get(path, { raw_json: '1' })).data;
  }

  /** One page of a listing, newest first, below `after`. */
  async page<K extends RedditListingKind>(
    subreddit: string,
    kind: K,
    after?: string,
  ): Promise<{ items: RedditItem<K>[]; after: string | null }> {
    const endpoint = kind === 'posts' ? 'new' : 'comments';
    const path = `/r/${encodeURIComponent(subreddit)}/${endpoint}`;
    const query: Record<string, string> = { limit: String(REDDIT_PAGE_SIZE), raw_json: '1' };
    if (after) query.after = after;
    const body = await this.client.get(path, query);
    const what = `GET /r/{sub}/${endpoint}`;
    const listing =
      kind === 'posts' ? validate(what, RedditPostListing, body) : validate(what, RedditCommentListing, body);
    const items = listing.data.children.map((c) => c.data) as RedditItem<K>[];
    for (const [i, item] of items.entries()) {
      if (item.name !== `${kind === 'posts' ? 't3' : 't1'}_${item.id}`) {
        throw new RedditSchemaError(what, `/data/children/${i}/data/name`, `${item.name} does not name id ${item.id}`);
      }
    }
    return { items, after: listing.data.after };
  }

  /**
   * A pass down a listing, one batch a page: the items newer than the checkpoint's `through` (and not older than
   * `sinceUtc`), newest first, each batch with the checkpoint to store with it. Resumes a pass the checkpoint says
   * is under way. The last batch has `done` and the pass's coverage.
   */
  async *read<K extends RedditListingKind>(
    subreddit: string,
    kind: K,
    options: RedditReadOptions = {},
  ): AsyncGenerator<RedditBatch<K>, void, undefined> {
    const start = options.checkpoint ?? {};
    const stopId = start.through;
    const sinceUtc = options.sinceUtc;
    const settled = (): Pick<RedditCheckpoint, 'through' | 'throughUtc'> => ({
      ...(start.through === undefined ? {} : { through: start.through }),
      ...(start.throughUtc === undefined ? {} : { throughUtc: start.throughUtc }),
    });
    let pass = start.pass;
    const resumed = pass !== undefined;
    let after = pass?.after;
    const isNew = (item: RedditItem<K>) =>
      (stopId === undefined || compareIds(item.name, stopId) > 0) &&
      (sinceUtc === undefined || item.created_utc >= sinceUtc);

    for (;;) {
      const page = await this.page(subreddit, kind, after);
      // Newer items than the cursor may not come back below it; anything not older than the last one read is
      // dropped (a listing that shifted while it was read).
      const below = pass ? page.items.filter((i) => compareIds(i.name, pass!.after) < 0) : page.items;
      const fresh: RedditItem<K>[] = [];
      let reachedStop = false;
      for (const item of below) {
        if (!isNew(item)) {
          reachedStop = true;
          break;
        }
        fresh.push(item);
      }
      const last = fresh.at(-1);
      if (last) {
        const first = fresh[0]!;
        pass = {
          top: pass?.top ?? first.name,
          topUtc: pass?.topUtc ?? first.created_utc,
          after: last.name,
          oldestUtc: last.created_utc,
          seen: (pass?.seen ?? 0) + fresh.length,
        };
      }
      const ended = !reachedStop && (page.after === null || below.length === 0);
      if (reachedStop || ended) {
        const finished: RedditCheckpoint = pass ? { through: pass.top, throughUtc: pass.topUtc } : settled();
        // The listing's own end, short of the cap, is the subreddit's first item: nothing older exists. A resumed
        // pass cannot tell: its cursor may have been pushed beyond the cap by what arrived meanwhile (Reddit then
        // answers an empty page), so it reports the span as not read.
        const capped = ended && (resumed || (pass?.seen ?? 0) >= REDDIT_LISTING_CAP_GUARD);
        const fromUtc = start.throughUtc ?? sinceUtc;
        const coverage: RedditCoverage = capped
          ? { complete: false, missing: { fromUtc: fromUtc ?? 0, toUtc: pass!.oldestUtc } }
          : { complete: true };
        yield { subreddit, kind, items: fresh, checkpoint: finished, done: true, coverage };
        return;
      }
      yield { subreddit, kind, items: fresh, checkpoint: { ...settled(), ...(pass ? { pass } : {}) }, done: false };
      after = page.after ?? undefined;
      if (pass && after !== undefined && compareIds(after, pass.after) > 0) after = pass.after;
    }
  }
}
