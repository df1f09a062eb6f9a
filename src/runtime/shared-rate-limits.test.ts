import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { LogCapture } from '../../test/helpers.js';
import { SharedRateLimits } from './shared-rate-limits.js';

/** The part of an ioredis client the limiter uses: its status, its events and the script command. */
class FakeRedis extends EventEmitter {
  status = 'ready';
  fail = false;
  readonly counts = new Map<string, number>();
  defineCommand(): void {}
  async protoscoreRateHit(key: string, windowMs: number): Promise<[number, number]> {
    if (this.fail) throw new Error('Connection is closed.');
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return [count, windowMs];
  }
}

function limiter() {
  const redis = new FakeRedis();
  const logs = new LogCapture();
  const limits = new SharedRateLimits(redis as unknown as Redis, pino(logs));
  return { redis, logs, limits };
}

describe('SharedRateLimits', () => {
  it('counts in Redis while it is connected', async () => {
    const { redis, limits } = limiter();
    for (let i = 0; i < 3; i++) await limits.hit('t', 2, 60_000, 0);
    expect(redis.counts.get('protoscore:ratelimit:t')).toBe(3);
    expect(limits.status().mode).toBe('shared');
  });

  it('counts in this process while Redis is away, says so once, and goes back when it is connected', async () => {
    const { redis, logs, limits } = limiter();
    redis.status = 'reconnecting';
    redis.emit('close');
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push(await limits.hit('t', 2, 60_000, 1000));
    expect(hits.map((h) => h.exceeded)).toEqual([false, false, true]);
    expect(redis.counts.size).toBe(0);
    expect(limits.status()).toMatchObject({ mode: 'per-process', store: 'this process (redis unreachable)' });
    expect(logs.lines.filter((l) => l.includes('redis unreachable'))).toHaveLength(1);

    redis.status = 'ready';
    redis.emit('ready');
    expect(limits.status().mode).toBe('shared');
    expect((await limits.hit('t', 2, 60_000, 2000)).remaining).toBe(1);
    expect(logs.text).toContain('shared through redis again');
  });

  it('falls back for a request whose Redis call fails', async () => {
    const { redis, limits } = limiter();
    redis.fail = true;
    const hit = await limits.hit('t', 5, 60_000, 0);
    expect(hit).toMatchObject({ exceeded: false, remaining: 4 });
    expect(limits.status().mode).toBe('per-process');
  });

  it('after a failed command on a live connection, counts alone for a few seconds, then tries Redis again', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    try {
      const { redis, logs, limits } = limiter();
      redis.fail = true;
      await limits.hit('t', 5, 60_000, 0);
      redis.fail = false;
      await limits.hit('t', 5, 60_000, 0);
      expect(redis.counts.size).toBe(0);
      vi.setSystemTime(1_006_000);
      await limits.hit('t', 5, 60_000, 0);
      expect(redis.counts.get('protoscore:ratelimit:t')).toBe(1);
      expect(limits.status().mode).toBe('shared');
      expect(logs.text).toContain('shared through redis again');
    } finally {
      vi.useRealTimers();
    }
  });
});
