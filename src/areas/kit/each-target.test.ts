import { describe, expect, it } from 'vitest';
import { isRetryable, ServiceError } from '../../core/errors.js';
import { eachTarget } from './each-target.js';

const ctx = { signal: new AbortController().signal };

describe('eachTarget', () => {
  for (const concurrent of [false, true]) {
    it(`tries every target, keeps what succeeded and names every failure (${concurrent ? 'at once' : 'in turn'})`, async () => {
      const tried: string[] = [];
      const run = eachTarget(
        ctx,
        ['ethereum', 'optimism', 'arbitrum'],
        (c) => c,
        async (c) => {
          tried.push(c);
          if (c !== 'optimism') throw new ServiceError(`${c} down`, c === 'arbitrum');
          return [`${c}: 3 blocks`];
        },
        { concurrent },
      );
      await expect(run).rejects.toThrow(
        '2 of 3 failed (ethereum: ethereum down; arbitrum: arbitrum down); done: optimism: 3 blocks',
      );
      expect(tried.sort()).toEqual(['arbitrum', 'ethereum', 'optimism']);
      // Retryable when one failure is.
      expect(isRetryable(await run.catch((e: unknown) => e))).toBe(true);
    });
  }

  it('returns every summary when all succeed, and is not retryable when no failure is', async () => {
    expect(await eachTarget(ctx, [1, 2], String, async (n) => `n${n}`)).toEqual(['n1', 'n2']);
    const err = await eachTarget(ctx, [1], String, async () => {
      throw new ServiceError('bad input', false);
    }).catch((e: unknown) => e);
    expect(isRetryable(err)).toBe(false);
  });

  it('ends at a stop, with the stop’s error', async () => {
    const stop = new AbortController();
    const tried: number[] = [];
    const err = await eachTarget({ signal: stop.signal }, [1, 2, 3], String, async (n) => {
      tried.push(n);
      stop.abort();
      throw new Error('stopped');
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('stopped');
    expect(tried).toEqual([1]);
  });
});
