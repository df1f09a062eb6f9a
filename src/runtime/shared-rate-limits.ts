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

/** After a failed command on a connection that stays up, how long this process counts alone before trying again. */
const RETRY_AFTER_FAILURE_MS = 5000;
/**
 * At start, how long a request waits for the first connection before this process counts alone: without the wait,
 * requests that came while the client was still connecting were counted per process (two replicas each allowed a
 * token its whole limit), a race the shared-counter test caught.
 */
const FIRST_CONNECT_WAIT_MS = 2000;

export class SharedRateLimits implements RateLimitStore {
  private readonly shared: RedisRateLimitStore;
  private readonly local = new MemoryRateLimitStore();
  /** Whether the log last said Redis was unreachable (the next line then says it is back). */
  private warned = false;
  private sinceMs = Date.now();
  private failedAtMs: number | undefined;
  /** Settles at the first `ready`, the first failure, or after `FIRST_CONNECT_WAIT_MS`, whichever comes first. */
  private firstConnect: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {
    this.shared = new RedisRateLimitStore(redis);
    redis.on('ready', () => this.reachable());
    redis.on('close', () => this.unreachable('redis connection closed'));
    redis.on('error', (err: Error) => this.unreachable(err.message));
    if (redis.status !== 'ready') {
      this.firstConnect = new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          redis.off('error', done);
          redis.off('end', done);
          this.firstConnect = undefined;
          resolve();
        };
        const timer = setTimeout(done, FIRST_CONNECT_WAIT_MS);
        timer.unref();
        redis.once('ready', done);
        redis.once('error', done);
        redis.once('end', done);
      });
    }
  }

  hit(key: string, limit: number, windowMs: number, nowMs: number): Hit | Promise<Hit> {
    if (this.firstConnect) return this.firstConnect.then(() => this.hit(key, limit, windowMs, nowMs));
    // Not connected, or a command failed a moment ago on a connection that looks up: no wait on the client's
    // reconnection or retries, this process counts alone.
    const failedRecently = this.failedAtMs !== undefined && Date.now() - this.failedAtMs < RETRY_AFTER_FAILURE_MS;
    if (this.redis.status !== 'ready' || failedRecently) return this.local.hit(key, limit, windowMs, nowMs);
    return this.shared.hit(key, limit, windowMs).then(
      (hit) => {
        if (this.failedAtMs !== undefined) this.reachable();
        return hit;
      },
      (err: unknown) => {
        this.failedAtMs = Date.now();
        this.unreachable((err as Error).message);
        return this.local.hit(key, limit, windowMs, nowMs);
      },
    );
  }

  mode(): RateLimitMode {
    return this.redis.status === 'ready' && this.failedAtMs === undefined ? 'shared' : 'per-process';
  }

  /** What `/status` shows under `rate_limits`. */
  status(): { mode: RateLimitMode; since: string; store: string } {
    const mode = this.mode();
    return {
      mode,
      since: new Date(this.sinceMs).toISOString(),
      store: mode === 'shared' ? 'redis' : 'this process (redis unreachable)',
    };
  }

  private unreachable(reason: string): void {
    if (this.warned) return;
    this.warned = true;
    this.sinceMs = Date.now();
    this.logger.warn({ reason }, 'rate limits: redis unreachable; counting per process until it is back');
  }

  private reachable(): void {
    this.failedAtMs = undefined;
    if (!this.warned) return;
    this.warned = false;
    this.sinceMs = Date.now();
    this.logger.info('rate limits: shared through redis again');
  }
}
