import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, Semaphore, StoppedError, sleep, sleepOrStop } from './retry.js';

describe('backoffDelay', () => {
  it('doubles per attempt within [cap/2, cap] and stops at maxMs', () => {
    const at = (attempt: number, r: number) => backoffDelay(attempt, { baseMs: 100, maxMs: 1000, random: () => r });
    expect([0, 1, 2, 3].map((a) => at(a, 0))).toEqual([50, 100, 200, 400]);
    expect([0, 1, 2, 3].map((a) => at(a, 0.999999))).toEqual([100, 200, 400, 800]);
    expect(at(10, 0)).toBe(500);
    expect(at(10, 0.999999)).toBe(1000);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('1', 0)).toBe(1000);
    expect(parseRetryAfter('0.5', 0)).toBe(500);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2015, 9, 21, 7, 28, 0))).toBe(10_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2015, 9, 21, 7, 29, 0))).toBe(0);
    expect(parseRetryAfter(null, 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter(' ', 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});

describe('sleep', () => {
  it('ends early when its signal aborts, and sleepOrStop then throws StoppedError', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = sleep(10_000, controller.signal);
    const stopping = sleepOrStop(10_000, controller.signal, 'job');
    controller.abort();
    await waiting;
    await expect(stopping).rejects.toBeInstanceOf(StoppedError);
    await expect(sleepOrStop(1, controller.signal, 'job')).rejects.toThrow('job: stopped');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('Semaphore', () => {
  it('admits at most `limit` holders, in arrival order', async () => {
    const semaphore = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const release: (() => void)[] = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      semaphore.run(async () => {
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        await new Promise<void>((resolve) => release.push(resolve));
        active--;
      }),
    );
    while (order.length < 5) {
      await new Promise((r) => setTimeout(r, 1));
      release.shift()?.();
    }
    for (const r of release) r();
    await Promise.all(tasks);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(() => new Semaphore(0)).toThrow();
  });
});
