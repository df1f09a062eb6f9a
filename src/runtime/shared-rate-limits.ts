/**
 * Rate limits shared by every API process through Redis, falling back to this process's own counters while Redis
 * cannot be reached: the API keeps serving and keeps limiting (each process then allows a token its limit on its
 * own), says so once in the log and in `/status` (`rate_limits`), and goes back to the shared counters as soon as the
 * Redis client is connected again. Counts made while apart are not carried over: a window's count restarts.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Hit, MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from '../http/ratelimit.js';

export type RateLimitMode = 'shared' | 'per-process';

export class SharedRateLimits implements RateLimitStore {
  private readonly shared: RedisRateLimitStore;
  private readonly local = new MemoryRateLimitStore();
  private current: RateLimitMode;
  private sinceMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {
    this.shared = new RedisRateLimitStore(redis);
    this.current = redis.status === 'ready' ? 'shared' : 'per-process';
    this.sinceMs = Date.now();
    redis.on('ready', () => this.become('shared', 'redis reachable again'));
    redis.on('close', () => this.become('per-process', 'redis connection closed'));
  }

  hit(key: string, limit: number, windowMs: number, nowMs: number): Hit | Promise<Hit> {
    // Not connected: no wait on the client's reconnection, this process counts alone.
    if (this.redis.status !== 'ready') {
      this.become('per-process', `redis ${this.redis.status}`);
      return this.local.hit(key, limit, windowMs, nowMs);
    }
    return this.shared.hit(key, limit, windowMs).catch((err: unknown) => {
      this.become('per-process', (err as Error).message);
      return this.local.hit(key, limit, windowMs, nowMs);
    });
  }

  /** What `/status` shows under `rate_limits`. */
  status(): { mode: RateLimitMode; since: string; store: string } {
    return {
      mode: this.current,
      since: new Date(this.sinceMs).toISOString(),
      store: this.current === 'shared' ? 'redis' : 'this process (redis unreachable)',
    };
  }

  private become(mode: RateLimitMode, reason: string): void {
    if (mode === this.current) return;
    this.current = mode;
    this.sinceMs = Date.now();
    if (mode === 'per-process')
      this.logger.warn({ reason }, 'rate limits: redis unreachable; counting per process until it is back');
    else this.logger.info({ reason }, 'rate limits: shared through redis again');
  }
}
