import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../test/helpers.js';
import { DAY, startOfUtcDay } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { ingestStart } from './ingest-start.js';

/** A chain of hourly blocks at 00:30, 01:30, … (block n at GENESIS + n hours), as far as the source needs it. */
const GENESIS = Date.UTC(2026, 10, 10, 0, 30) / 1000;
const HEAD = 24 * 9 + 13;
const fakeSource = {
  chain: { id: 'ethereum' },
  blockNumber: async () => HEAD,
  getBlock: async (n: number) => (n >= 0 && n <= HEAD ? { number: n, timestamp: GENESIS + n * 3600 } : undefined),
} as unknown as EvmSource;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function context(): Promise<JobContext> {
  const s = testStore();
  cleanup = s.cleanup;
  await s.store.migrate();
  return {
    store: s.store,
    clock: new TestClock(),
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    attempt: 1,
    notifyPublished: async () => undefined,
  };
}

describe('ingestStart', () => {
  it('starts at the last block a look-back before the head, and keeps that start', async () => {
    const ctx = await context();
    const start = await ingestStart(ctx, fakeSource, 'k', { startBlocks: [], lookbackSeconds: 2 * DAY });
    expect(start.block).toBe(HEAD - 48);
    // A later run never moves it, whatever it is asked.
    expect(await ingestStart(ctx, fakeSource, 'k', { startBlocks: [], lookbackSeconds: DAY })).toEqual(start);
  });

  it('reaches back to the start of that UTC day for areas that publish whole days', async () => {
    const ctx = await context();
    const headTime = GENESIS + HEAD * 3600;
    const start = await ingestStart(ctx, fakeSource, 'k', {
      startBlocks: [],
      lookbackSeconds: 6 * DAY,
      fromUtcDayStart: true,
    });
    const dayStart = startOfUtcDay(headTime - 6 * DAY);
    // The last block at or before that midnight: the day's every block follows it.
    expect(start.timestamp).toBeLessThanOrEqual(dayStart);
    expect(start.timestamp).toBeGreaterThan(dayStart - 3600);
  });

  it('starts at the oldest deployment block when every contract read has one', async () => {
    const ctx = await context();
    const start = await ingestStart(ctx, fakeSource, 'k', { startBlocks: [40, 12], lookbackSeconds: DAY });
    expect(start).toEqual({ block: 12, timestamp: GENESIS + 12 * 3600 });
  });
});
