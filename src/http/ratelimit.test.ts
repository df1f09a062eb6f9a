import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './ratelimit.js';

describe('MemoryRateLimitStore', () => {
  it('counts per key within a fixed window and starts a new window when it ends', () => {
    const store = new MemoryRateLimitStore();
    const t0 = 1_000_000;
    expect(store.hit('a', 2, 60_000, t0)).toEqual({ limit: 2, remaining: 1, resetSeconds: 60, exceeded: false });
    expect(store.hit('a', 2, 60_000, t0 + 1_500)).toEqual({
      limit: 2,
      remaining: 0,
      resetSeconds: 59,
      exceeded: false,
    });
    expect(store.hit('a', 2, 60_000, t0 + 59_999)).toEqual({ limit: 2, remaining: 0, resetSeconds: 1, exceeded: true });
    expect(store.hit('b', 2, 60_000, t0 + 2_000).remaining).toBe(1);
    expect(store.hit('a', 2, 60_000, t0 + 60_000)).toEqual({
      limit: 2,
      remaining: 1,
      resetSeconds: 60,
      exceeded: false,
    });
  });
});
