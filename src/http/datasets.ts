import { createHash } from 'node:crypto';
import { type Clock, isoSeconds, nowSeconds } from '../core/time.js';
import type { DatasetRepository, StoredDataset } from '../store/datasets.js';

/** A rendered response body and its validator. */
export interface Rendered {
  readonly body: string;
  readonly etag: string;
  /** Seconds the body stays valid for clients (for Cache-Control). */
  readonly maxAge: number;
}

export interface Page {
  readonly size: number;
  readonly skip: number;
  /** The path of this page without its page segments, to build `next`. */
  readonly base: string;
}

interface Entry {
  readonly row: Omit<StoredDataset, 'payload' | 'meta'>;
  readonly payload: string;
  readonly meta: Readonly<Record<string, unknown>>;
  items?: unknown[];
  readonly bodies: Map<string, Rendered & { stale: boolean }>;
}

const MAX_ENTRIES = 50_000;
const MAX_PAGES_PER_ENTRY = 64;
/** Clients may reuse a body this long (capped by the dataset's remaining freshness). */
const MAX_AGE_SECONDS = 60;

function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * Memory cache of published documents, keyed by document path, rendered once into response bodies. It holds
 * one published version: `clear()` is called when the `datasets` counter moves.
 */
export class DatasetCache {
  private entries = new Map<string, Promise<Entry | null>>();

  constructor(
    private readonly repo: DatasetRepository,
    private readonly clock: Clock,
  ) {}

  clear(): void {
    this.entries = new Map();
  }

  private load(path: string): Promise<Entry | null> {
    let entry = this.entries.get(path);
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES) this.entries = new Map();
      const entries = this.entries;
      entry = this.repo.get(path).then(
        (row) => {
          if (!row) return null;
          const { payload, meta, ...rest } = row;
          return { row: rest, payload, meta: JSON.parse(meta) as Record<string, unknown>, bodies: new Map() };
        },
        (err: unknown) => {
          entries.delete(path);
          throw err;
        },
      );
      entries.set(path, entry);
    }
    return entry;
  }

  /**
   * The rendered body of a document, or null when none is published. With `page`, the document must hold an
   * array and the body carries one page of it with paging fields in `meta`.
   */
  async render(path: string, page?: Page): Promise<Rendered | null> {
    const entry = await this.load(path);
    if (!entry) return null;
    const now = nowSeconds(this.clock);
    const freshUntil = entry.row.as_of + entry.row.fresh_for;
    const stale = now > freshUntil;
    const key = page ? `${page.size}/${page.skip}` : '';
    const cached = entry.bodies.get(key);
    if (cached && cached.stale === stale) {
      return stale ? cached : { ...cached, maxAge: Math.max(0, Math.min(MAX_AGE_SECONDS, freshUntil - now)) };
    }
    const meta: Record<string, unknown> = {
      as_of: isoSeconds(entry.row.as_of),
      computed_at: isoSeconds(entry.row.computed_at),
      stale,
      ...entry.meta,
      dataset_version: entry.row.version,
    };
    let data = entry.payload;
    if (page) {
      entry.items ??= JSON.parse(entry.payload) as unknown[];
      const items = Array.isArray(entry.items) ? entry.items : [];
      const offset = page.size * page.skip;
      const slice = items.slice(offset, offset + page.size);
      data = JSON.stringify(slice);
      const hasNext = offset + page.size < items.length;
      Object.assign(meta, {
        total: items.length,
        page_size: page.size,
        page_skip: page.skip,
        next: hasNext ? `${page.base}/${page.size}/${page.skip + 1}` : null,
      });
      if (entry.bodies.size >= MAX_PAGES_PER_ENTRY) entry.bodies.clear();
    }
    const body = `{"status":true,"data":${data},"meta":${JSON.stringify(meta)}}`;
    const rendered = {
      body,
      etag: etagOf(body),
      stale,
      maxAge: stale ? 0 : Math.min(MAX_AGE_SECONDS, freshUntil - now),
    };
    entry.bodies.set(key, rendered);
    return rendered;
  }
}
