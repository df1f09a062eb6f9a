import type { Redis } from 'ioredis';

/**
 * Per-token fixed-window rate limits. Replaces @fastify/rate-limit (measured in docs/benchmarks.md: 14–21 µs of
 * a ~110 µs request for an extra async hook, five awaits and a second pass over the headers): the in-memory
 * counter is synchronous, and both stores answer in one call that the auth hook makes.
 */
export interface Hit {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number;
  readonly exceeded: boolean;
}

export interface RateLimitStore {
  /** Counts one request of `key` in a window of `windowMs`; a Promise only when the counter is remote. */
  hit(key: string, limit: number, windowMs: number, nowMs: number): Hit | Promise<Hit>;
}

function toHit(count: number, limit: number, ttlMs: number): Hit {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    exceeded: count > limit,
  };
}

const SWEEP_EVERY = 10_000;

/** Counters of this process only (the embedded default, or a single replica). */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAtMs: number }>();
  private hitsSinceSweep = 0;

  hit(key: string, limit: number, windowMs: number, nowMs: number): Hit {
    if (++this.hitsSinceSweep >= SWEEP_EVERY) this.sweep(nowMs);
    let w = this.windows.get(key);
    if (!w || w.resetAtMs <= nowMs) {
      w = { count: 0, resetAtMs: nowMs + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return toHit(w.count, limit, w.resetAtMs - nowMs);
  }

  private sweep(nowMs: number): void {
    this.hitsSinceSweep = 0;
    for (const [key, w] of this.windows) if (w.resetAtMs <= nowMs) this.windows.delete(key);
  }
}

// INCR and set the window's expiry on its first hit, atomically; returns the count and the time left.
const SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

type WithHitCommand = Redis & { protoscoreRateHit(key: string, windowMs: number): Promise<[number, number]> };

/** Counters shared by every replica through Redis (the script is sent once, then called by its hash). */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: WithHitCommand;

  constructor(
    redis: Redis,
    private readonly prefix = 'protoscore:ratelimit:',
  ) {
    redis.defineCommand('protoscoreRateHit', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as WithHitCommand;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<Hit> {
    const [count, ttl] = await this.redis.protoscoreRateHit(this.prefix + key, windowMs);
    return toHit(count, limit, ttl);
  }
}
