import { type Kysely, sql } from 'kysely';
import { inChunks } from './chunks.js';
import { bumpCounter } from './counters.js';
import type { Database, DatasetTable } from './schema.js';

/** One document to publish: the payload of one concrete path. */
export interface DatasetDocument {
  /** Canonical path (lowercase addresses; a paged listing without its page segments). */
  readonly path: string;
  readonly data: unknown;
  /** Newest source observation behind the payload (Unix seconds). */
  readonly asOf: number;
  readonly methodology?: string;
  readonly source: string;
  /** Seconds after `asOf` within which the document counts as fresh. */
  readonly freshFor: number;
  /** Extra meta fields, merged into the envelope's meta. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

export interface Publication {
  readonly computation: string;
  readonly area: string;
  readonly computedAt: number;
  readonly documents: readonly DatasetDocument[];
}

export type StoredDataset = DatasetTable;

/** The newest `as_of` a computation had published before a window (see `DatasetRepository.publicationHistory`). */
export interface PublicationBaseline {
  readonly computation: string;
  readonly as_of: number;
}

/** A computation's publications in one time bucket. */
export interface PublicationBucket {
  readonly computation: string;
  /** Index of the bucket from the start of the window (0 = oldest). */
  readonly bucket: number;
  readonly publications: number;
  /** The newest `as_of` published in the bucket. */
  readonly as_of: number;
}

const INSERT_CHUNK = 200;

export class DatasetRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Publishes the whole set of one computation atomically: in one transaction the computation's previous
   * documents are replaced by these, under a new version. Readers see the old set or the new one, never half.
   */
  async publish(pub: Publication): Promise<number> {
    const paths = new Set<string>();
    for (const d of pub.documents) {
      if (paths.has(d.path)) throw new Error(`publication ${pub.computation} names ${d.path} twice`);
      paths.add(d.path);
    }
    const asOf = pub.documents.reduce((m, d) => Math.max(m, d.asOf), 0);
    return this.db.transaction().execute(async (trx) => {
      const version = await bumpCounter(trx, 'datasets');
      await trx.deleteFrom('datasets').where('computation', '=', pub.computation).execute();
      const rows = pub.documents.map((d) => ({
        path: d.path,
        area: pub.area,
        computation: pub.computation,
        payload: JSON.stringify(d.data),
        meta: JSON.stringify({
          ...(d.meta ?? {}),
          ...(d.methodology ? { methodology: d.methodology } : {}),
          source: d.source,
        }),
        as_of: d.asOf,
        computed_at: pub.computedAt,
        fresh_for: d.freshFor,
        version,
      }));
      await inChunks(
        rows,
        (chunk) =>
          trx
            .insertInto('datasets')
            .values(chunk)
            .onConflict((oc) =>
              oc.column('path').doUpdateSet((eb) => ({
                area: eb.ref('excluded.area'),
                computation: eb.ref('excluded.computation'),
                payload: eb.ref('excluded.payload'),
                meta: eb.ref('excluded.meta'),
                as_of: eb.ref('excluded.as_of'),
                computed_at: eb.ref('excluded.computed_at'),
                fresh_for: eb.ref('excluded.fresh_for'),
                version: eb.ref('excluded.version'),
              })),
            )
            .execute(),
        INSERT_CHUNK,
      );
      await trx
        .insertInto('publications')
        .values({
          version,
          computation: pub.computation,
          area: pub.area,
          published_at: pub.computedAt,
          documents: rows.length,
          as_of: asOf,
        })
        .execute();
      return version;
    });
  }

  get(path: string): Promise<StoredDataset | undefined> {
    return this.db.selectFrom('datasets').selectAll().where('path', '=', path).executeTakeFirst();
  }

  /**
   * Deletes the record of publications made before `before` (Unix seconds), except each computation's newest: the
   * history `/status` charts covers hours, and the table would otherwise grow by one row per publication forever.
   * Documents are untouched (they live in `datasets`). Returns how many rows went.
   */
  async prunePublications(before: number): Promise<number> {
    const res = await this.db
      .deleteFrom('publications')
      .where('published_at', '<', before)
      .where('version', 'not in', (eb) =>
        eb
          .selectFrom('publications as p')
          .select((e) => e.fn.max('p.version').as('v'))
          .groupBy('p.computation'),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** A computation's newest publication (its version and `as_of`), or undefined before its first. */
  async latestPublication(computation: string): Promise<{ version: number; asOf: number } | undefined> {
    const row = await this.db
      .selectFrom('publications')
      .select(['version', 'as_of'])
      .where('computation', '=', computation)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { version: Number(row.version), asOf: Number(row.as_of) } : undefined;
  }

  /**
   * Whether `documents` are exactly the computation's published set (paths, payloads, `as_of`, meta, freshness):
   * republishing them would change nothing but the version, `computed_at` and every ETag clients hold.
   */
  async samePublication(computation: string, documents: readonly DatasetDocument[]): Promise<boolean> {
    const rows = await this.db
      .selectFrom('datasets')
      .select(['path', 'payload', 'meta', 'as_of', 'fresh_for'])
      .where('computation', '=', computation)
      .execute();
    if (rows.length !== documents.length) return false;
    const byPath = new Map(rows.map((r) => [r.path, r]));
    return documents.every((d) => {
      const row = byPath.get(d.path);
      if (!row || Number(row.as_of) !== d.asOf || Number(row.fresh_for) !== d.freshFor) return false;
      if (row.payload !== JSON.stringify(d.data)) return false;
      const meta = JSON.parse(row.meta) as Record<string, unknown>;
      const expected = {
        ...(d.meta ?? {}),
        ...(d.methodology ? { methodology: d.methodology } : {}),
        source: d.source,
      };
      return JSON.stringify(meta) === JSON.stringify(expected);
    });
  }

  /**
   * The publications of `computations` since `since` (Unix seconds), per time bucket of `bucketSeconds` (bucket 0
   * starts at `since`): how many, and the newest `as_of` published in the bucket; and per computation the newest
   * `as_of` published before the window (`before`), where the window's history starts from. Publications are kept,
   * so each computation reads only its newest `perComputation` along its (computation, version) index, in one
   * query: `truncated` says when that cut into the window. The same SQL on SQLite and PostgreSQL.
   */
  async publicationHistory(
    computations: readonly string[],
    since: number,
    bucketSeconds: number,
    perComputation: number,
  ): Promise<{ before: PublicationBaseline[]; buckets: PublicationBucket[]; truncated: boolean }> {
    if (!Number.isInteger(bucketSeconds) || bucketSeconds <= 0) throw new Error(`bucket of ${bucketSeconds} s`);
    const start = Math.floor(since);
    // Literals, not parameters: PostgreSQL matches the grouped expression to the selected one by its text.
    // Publications before the window fall in bucket -1: their newest `as_of` is where the window starts from.
    const bucket = sql<number>`case when published_at >= ${sql.lit(start)} then (published_at - ${sql.lit(start)}) / ${sql.lit(bucketSeconds)} else -1 end`;
    const before: PublicationBaseline[] = [];
    const buckets: PublicationBucket[] = [];
    let truncated = false;
    for (const computation of computations) {
      const newest = this.db
        .selectFrom('publications')
        .select(['published_at', 'as_of'])
        .where('computation', '=', computation)
        .orderBy('version', 'desc')
        .limit(perComputation);
      const rows = await this.db
        .selectFrom(newest.as('p'))
        .select((eb) => [
          bucket.as('bucket'),
          eb.fn.countAll<number>().as('publications'),
          eb.fn.max<number>('as_of').as('as_of'),
        ])
        .groupBy(bucket)
        .execute();
      const read = rows.reduce((n, r) => n + Number(r.publications), 0);
      for (const r of rows) {
        const row = { bucket: Number(r.bucket), publications: Number(r.publications), as_of: Number(r.as_of) };
        if (row.bucket < 0) before.push({ computation, as_of: row.as_of });
        else buckets.push({ computation, ...row });
      }
      // Every publication read is in the window and there may be older ones: the window's start was not reached.
      if (read >= perComputation && !rows.some((r) => Number(r.bucket) < 0)) truncated = true;
    }
    buckets.sort((a, b) => b.bucket - a.bucket || a.computation.localeCompare(b.computation));
    return { before, buckets, truncated };
  }

  /** Per computation: the latest publication and the freshness of its documents (for `/status` and `/ready`). */
  async summary(): Promise<
    {
      computation: string;
      area: string;
      version: number;
      published_at: number;
      documents: number;
      oldest_as_of: number | null;
      newest_as_of: number | null;
      min_fresh_until: number | null;
      /** The shortest freshness window of its documents (seconds). */
      min_fresh_for: number | null;
    }[]
  > {
    const latest = await this.db
      .selectFrom('publications')
      .select(['computation', 'area', (eb) => eb.fn.max('version').as('version')])
      .groupBy(['computation', 'area'])
      .execute();
    const docs = await this.db
      .selectFrom('datasets')
      .select((eb) => [
        'computation',
        eb.fn.min('as_of').as('oldest_as_of'),
        eb.fn.max('as_of').as('newest_as_of'),
        eb.fn.min(eb('as_of', '+', eb.ref('fresh_for'))).as('min_fresh_until'),
        eb.fn.min('fresh_for').as('min_fresh_for'),
      ])
      .groupBy('computation')
      .execute();
    const pubs = await this.db
      .selectFrom('publications')
      .selectAll()
      .where('version', 'in', latest.length ? latest.map((l) => Number(l.version)) : [-1])
      .execute();
    const pubByComputation = new Map(pubs.map((p) => [p.computation, p]));
    const docsByComputation = new Map(docs.map((d) => [d.computation, d]));
    return latest
      .map((l) => {
        const p = pubByComputation.get(l.computation);
        const d = docsByComputation.get(l.computation);
        return {
          computation: l.computation,
          area: l.area,
          version: Number(l.version),
          published_at: Number(p?.published_at ?? 0),
          documents: Number(p?.documents ?? 0),
          oldest_as_of: d ? Number(d.oldest_as_of) : null,
          newest_as_of: d ? Number(d.newest_as_of) : null,
          min_fresh_until: d ? Number(d.min_fresh_until) : null,
          min_fresh_for: d ? Number(d.min_fresh_for) : null,
        };
      })
      .sort((a, b) => a.computation.localeCompare(b.computation));
  }
}
