/**
 * Per-client rate-limit accounting of a stand-in, the way GitHub (and most token-based APIs) count: a fixed
 * window per client and resource that starts with the client's first request after the previous one reset, a
 * quota of requests per window, and a "secondary" block (retry-after) that a client can earn on top.
 * Time comes from the stand-in's clock, so tests can move it.
 */

export interface RateLimitConfig {
  /** Requests per window for an authenticated client (GitHub: 5000). */
  readonly limit: number;
  /** Requests per window for an anonymous client, counted per address (GitHub: 60). */
  readonly anonymousLimit: number;
  /** Window length (GitHub: 3600). */
  readonly windowSeconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitConfig = { limit: 5000, anonymousLimit: 60, windowSeconds: 3600 };

/** The state of one client's window for one resource, as rate-limit headers report it. */
export interface RateWindow {
  readonly resource: string;
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  /** Unix seconds at which the window resets. */
  readonly resetSeconds: number;
}

interface Counter {
  limit: number;
  used: number;
  resetSeconds: number;
}

export class RateLimiter {
  private readonly counters = new Map<string, Counter>();
  private readonly blocks = new Map<string, number>();

  constructor(private config: RateLimitConfig = DEFAULT_RATE_LIMIT) {}

  /** Changes the quotas (tests shrink them); running windows keep their count and reset time. */
  configure(config: Partial<RateLimitConfig>): void {
    this.config = { ...this.config, ...config };
    for (const [key, counter] of this.counters) counter.limit = this.limitOf(key.startsWith('anon:'));
  }

  /** The client's window for `resource` at `nowMs` (a new one if the previous has reset), without counting. */
  window(client: string, resource: string, nowMs: number): RateWindow {
    return view(resource, this.counter(client, resource, nowMs));
  }

  /** Counts one request and returns the window after it. */
  consume(client: string, resource: string, nowMs: number): RateWindow {
    const counter = this.counter(client, resource, nowMs);
    counter.used++;
    return view(resource, counter);
  }

  /** Blocks the client until `untilMs` (a secondary limit). */
  block(client: string, untilMs: number): void {
    this.blocks.set(client, Math.max(untilMs, this.blocks.get(client) ?? 0));
  }

  /** Milliseconds the client must still wait because of a secondary limit (0 when free). */
  blockedFor(client: string, nowMs: number): number {
    const until = this.blocks.get(client);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.blocks.delete(client);
      return 0;
    }
    return until - nowMs;
  }

  private limitOf(anonymous: boolean): number {
    return anonymous ? this.config.anonymousLimit : this.config.limit;
  }

  private counter(client: string, resource: string, nowMs: number): Counter {
    const key = `${client}\u0000${resource}`;
    let counter = this.counters.get(key);
    if (!counter || counter.resetSeconds * 1000 <= nowMs) {
      counter = {
        limit: this.limitOf(client.startsWith('anon:')),
        used: 0,
        resetSeconds: Math.floor(nowMs / 1000) + this.config.windowSeconds,
      };
      this.counters.set(key, counter);
    }
    return counter;
  }
}

function view(resource: string, c: Counter): RateWindow {
  return {
    resource,
    limit: c.limit,
    used: c.used,
    remaining: Math.max(0, c.limit - c.used),
    resetSeconds: c.resetSeconds,
  };
}
