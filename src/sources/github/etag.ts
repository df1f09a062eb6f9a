/**
 * Conditional-request cache: for each GET URL, the last 200 answer's ETag, body and `Link` header. The next request
 * for the URL sends `If-None-Match`; a 304 (which costs no rate limit on GitHub) is answered from here.
 *
 * Entries live in memory (bounded, least recently used dropped first) in front of an optional persistent
 * `EtagStore`, so that a restart keeps its 304s: the service stores it in its database.
 */

export interface CachedResponse {
  readonly etag: string;
  /** The parsed JSON body of the 200 answer. */
  readonly data: unknown;
  /** Its `Link` header: pagination continues from a cached page. */
  readonly link?: string;
}

/** Persistence of the cache (a database table keyed by `key`, the value as JSON text). */
export interface EtagStore {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, value: CachedResponse): Promise<void>;
  /** The entry was just revalidated (a 304): still in use, so a store that expires entries keeps it. */
  touch?(key: string): Promise<void>;
}

export class EtagCache {
  private readonly memory = new Map<string, CachedResponse>();

  constructor(
    private readonly store?: EtagStore,
    /** Entries kept in memory (default 5000: a page of 100 commits is ~300 kB of JSON, so mind the size). */
    private readonly maxEntries = 5000,
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    const hit = this.memory.get(key);
    if (hit) {
      this.memory.delete(key);
      this.memory.set(key, hit);
      return hit;
    }
    const stored = await this.store?.get(key);
    if (stored) this.remember(key, stored);
    return stored;
  }

  async set(key: string, value: CachedResponse): Promise<void> {
    this.remember(key, value);
    await this.store?.set(key, value);
  }

  /** A 304 answered from the entry: tells the store it is in use. */
  async revalidated(key: string): Promise<void> {
    await this.store?.touch?.(key);
  }

  get size(): number {
    return this.memory.size;
  }

  private remember(key: string, value: CachedResponse): void {
    this.memory.delete(key);
    this.memory.set(key, value);
    while (this.memory.size > this.maxEntries) this.memory.delete(this.memory.keys().next().value!);
  }
}
