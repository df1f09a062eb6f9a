import { createHash } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync, constants as zlib } from 'node:zlib';
import { type Clock, isoSeconds, nowSeconds } from '../core/time.js';
import type { DatasetRepository, StoredDataset } from '../store/datasets.js';

export type Encoding = 'br' | 'gzip' | 'deflate';

/** Bodies smaller than this are sent as they are: compressing them saves less than the header costs. */
export const COMPRESS_THRESHOLD = 1024;

/** A rendered body's bytes, and its compressed forms, made once per rendering on first demand. */
export class Variants {
  private readonly encoded = new Map<Encoding, Buffer>();
  readonly identity: Buffer;
  /** The identity's Content-Length, as a header value. */
  readonly identityLength: string;
  constructor(body: string) {
    this.identity = Buffer.from(body, 'utf8');
    this.identityLength = String(this.identity.length);
  }
  get(encoding: Encoding | null): Buffer {
    if (encoding === null || this.identity.length < COMPRESS_THRESHOLD) return this.identity;
    let buf = this.encoded.get(encoding);
    if (!buf) {
      buf =
        encoding === 'br'
          ? brotliCompressSync(this.identity, {
              params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: this.identity.length },
            })
          : encoding === 'gzip'
            ? gzipSync(this.identity, { level: 6 })
            : deflateSync(this.identity, { level: 6 });
      this.encoded.set(encoding, buf);
    }
    return buf;
  }
}

/**
 * The encoding to answer with, from an Accept-Encoding header: br, then gzip, then deflate, among those the client
 * accepts with q > 0 (`*` accepts all three); null for the identity.
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding | null {
  if (header === undefined || header === '') return null;
  const text = Array.isArray(header) ? header.join(',') : header;
  const q = new Map<string, number>();
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    q.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  for (const enc of ['br', 'gzip', 'deflate'] as const) {
    const w = q.get(enc) ?? q.get('*');
    if (w !== undefined && w > 0) return enc;
  }
  return null;
}

/** A rendered response body and its validator. */
export interface Rendered {
  readonly body: string;
  readonly etag: string;
  /** Seconds the body stays valid for clients (for Cache-Control). */
  readonly maxAge: number;
  /** The body's bytes and compressed forms (shared by every copy of this rendering). */
  readonly variants: Variants;
}

export interface Page {
  readonly size: number;
  readonly skip: number;
  /** The path of this page without its page segments, to build `next`. */
  readonly base: string;
}

interface CachedRendering extends Rendered {
  readonly stale: boolean;
  /** The last copy handed out with another `maxAge` (at most one new copy a second, not one a request). */
  copy?: Rendered;
}

interface Entry {
  readonly row: Omit<StoredDataset, 'payload' | 'meta'>;
  readonly payload: string;
  readonly meta: Readonly<Record<string, unknown>>;
  items?: unknown[];
  readonly bodies: Map<string, CachedRendering>;
}

const MAX_ENTRIES = 50_000;
const MAX_PAGES_PER_ENTRY = 64;
/** Clients may reuse a body this long (capped by the dataset's remaining freshness). */
const MAX_AGE_SECONDS = 60;

const CACHE_CONTROL = Array.from(
  { length: MAX_AGE_SECONDS + 1 },
  (_, maxAge) => `private, max-age=${maxAge}, must-revalidate`,
);

/** The Cache-Control of a document that clients may reuse for `maxAge` seconds (one string per value, made once). */
export function cacheControlOf(maxAge: number): string {
  return CACHE_CONTROL[maxAge] ?? `private, max-age=${maxAge}, must-revalidate`;
}

function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * Memory cache of published documents, keyed by document path, rendered once into response bodies. It holds
 * one published version: `clear()` is called when the `datasets` counter moves.
 */
export class DatasetCache {
  private entries = new Map<string, Promise<Entry | null>>();
  /** The same entries once loaded, for the synchronous path (`renderLoaded`). */
  private loaded = new Map<string, Entry | null>();

  constructor(
    private readonly repo: DatasetRepository,
    private readonly clock: Clock,
  ) {}

  clear(): void {
    this.entries = new Map();
    this.loaded = new Map();
  }

  private load(path: string): Promise<Entry | null> {
    let entry = this.entries.get(path);
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES) this.clear();
      const entries = this.entries;
      const loaded = this.loaded;
      entry = this.repo.get(path).then(
        (row) => {
          let result: Entry | null = null;
          if (row) {
            const { payload, meta, ...rest } = row;
            result = { row: rest, payload, meta: JSON.parse(meta) as Record<string, unknown>, bodies: new Map() };
          }
          // Only if no clear() happened meanwhile: a cleared cache must not get an old version back.
          if (entries === this.entries) loaded.set(path, result);
          return result;
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
    return this.renderEntry(entry, page);
  }

  /**
   * As `render`, without waiting: the rendering when the document is already in memory, null when it is known to
   * be unpublished, undefined when it has not been loaded yet.
   */
  renderLoaded(path: string, page?: Page, nowMs?: number): Rendered | null | undefined {
    const entry = this.loaded.get(path);
    if (entry === undefined) return undefined;
    return entry === null ? null : this.renderEntry(entry, page, nowMs);
  }

  private renderEntry(entry: Entry, page?: Page, nowMs?: number): Rendered {
    const now = nowMs === undefined ? nowSeconds(this.clock) : Math.floor(nowMs / 1000);
    const freshUntil = entry.row.as_of + entry.row.fresh_for;
    const stale = now > freshUntil;
    const key = page ? `${page.size}/${page.skip}` : '';
    const cached = entry.bodies.get(key);
    if (cached && cached.stale === stale) {
      if (stale) return cached;
      const maxAge = Math.max(0, Math.min(MAX_AGE_SECONDS, freshUntil - now));
      if (cached.maxAge === maxAge) return cached;
      if (cached.copy?.maxAge !== maxAge) {
        cached.copy = { body: cached.body, etag: cached.etag, variants: cached.variants, maxAge };
      }
      return cached.copy;
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
    const rendered: CachedRendering = {
      body,
      etag: etagOf(body),
      variants: new Variants(body),
      stale,
      maxAge: stale ? 0 : Math.min(MAX_AGE_SECONDS, freshUntil - now),
    };
    entry.bodies.set(key, rendered);
    return rendered;
  }
}
