import { describe, expect, it } from 'vitest';
import { emptyStats, fetchText, jsonOrTransient, retryTransient, Transient } from './transient.js';

const answer = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers });

describe('retryTransient', () => {
  it('waits what the server asked for, else a backoff, and counts what it did', async () => {
    const slept: number[] = [];
    const stats = emptyStats();
    let n = 0;
    const value = await retryTransient(
      'x',
      async () => {
        n++;
        if (n === 1) throw new Transient('HTTP 429', 7000);
        if (n === 2) throw new Transient('HTTP 503');
        return 'ok';
      },
      { source: 's', maxRetries: 3, random: () => 1, sleep: async (ms) => void slept.push(ms), stats },
      () => new Error('gave up'),
    );
    expect(value).toBe('ok');
    // The 429's own wait, then the second attempt's backoff: 500 ms doubled once, full jitter at random 1.
    expect(slept[0]).toBe(7000);
    expect(slept[1]).toBeGreaterThan(0);
    expect(slept[1]).toBeLessThanOrEqual(1000);
    expect(stats).toMatchObject({ retries: 2, sleptMs: 7000 + slept[1]! });
  });

  it('gives up after maxRetries retries with the last reason and passes other errors through at once', async () => {
    let n = 0;
    await expect(
      retryTransient(
        'x',
        async () => {
          n++;
          throw new Transient(`HTTP 50${n}`);
        },
        { source: 's', maxRetries: 2, sleep: async () => {} },
        (reason, attempts) => new Error(`${attempts} attempts: ${reason}`),
      ),
    ).rejects.toThrow('3 attempts: HTTP 503');
    let m = 0;
    await expect(
      retryTransient(
        'x',
        async () => {
          m++;
          throw new TypeError('bad answer');
        },
        { source: 's', maxRetries: 5, sleep: async () => {} },
        () => new Error('gave up'),
      ),
    ).rejects.toThrow(TypeError);
    expect(m).toBe(1);
  });
});

describe('fetchText', () => {
  const retryAfter = (h: Headers) => (h.get('retry-after') ? Number(h.get('retry-after')) * 1000 : undefined);

  it.each([
    [429, { 'retry-after': '3' }, 3000],
    [408, {}, undefined],
    [500, {}, undefined],
    [503, { 'retry-after': '1' }, 1000],
  ])('%i is transient, with the wait its headers ask for', async (status, headers, waitMs) => {
    const stats = emptyStats();
    const err = await fetchText(
      async () => answer(status, 'busy', headers),
      'http://x/',
      {},
      1000,
      retryAfter,
      stats,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Transient);
    expect((err as Transient).retryAfterMs).toBe(waitMs);
    expect(stats).toMatchObject({ requests: 1, limited: status === 429 ? 1 : 0 });
  });

  it('hands other statuses to the caller and turns network failures and timeouts into Transient', async () => {
    const { res, text } = await fetchText(async () => answer(404, 'nope'), 'http://x/', {}, 1000, retryAfter);
    expect([res.status, text]).toEqual([404, 'nope']);
    await expect(
      fetchText(
        async () => {
          throw new TypeError('fetch failed');
        },
        'http://x/',
        {},
        1000,
        retryAfter,
      ),
    ).rejects.toThrow(/network error: fetch failed/);
    const hang: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    await expect(fetchText(hang, 'http://x/', {}, 20, retryAfter)).rejects.toThrow('timeout');
  });

  it('jsonOrTransient: a body that is not JSON is worth another attempt', () => {
    expect(jsonOrTransient('{"a":1}')).toEqual({ a: 1 });
    expect(() => jsonOrTransient('<html>bad gateway')).toThrow(Transient);
  });
});
