import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../core/errors.js';
import { DAY } from '../../core/time.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { headSnapshotDue, missingDayEnds, SnapshotSchedule, snapshotDays } from './snapshot-schedule.js';

/** A chain of one block an hour from day 0 to the middle of day 10. */
const HOURS = 10 * 24 + 12;
const T0 = 20_000 * DAY;
const blocks = Array.from({ length: HOURS + 1 }, (_, n) => ({ number: n, timestamp: T0 + n * 3600 }));
const source = { chain: { id: 'test' }, getBlock: async (n: number) => blocks[n] } as unknown as EvmSource;
const head = blocks[HOURS]!;
const dayEnd = (d: number) => T0 + (d + 1) * DAY - 1;
const silent = { warn: () => undefined };

describe('the snapshot schedule', () => {
  it('is due at the head every N seconds of chain time, below a newer block only', () => {
    const at = (timestamp: number, blockNumber = timestamp) => ({ blockNumber, timestamp });
    expect(headSnapshotDue(undefined, at(1000), 300)).toBe(true);
    expect(headSnapshotDue(at(700), at(1000), 300)).toBe(true);
    expect(headSnapshotDue(at(701), at(1000), 300)).toBe(false);
    expect(headSnapshotDue(at(0, 1000), at(1000, 1000), 300)).toBe(false);
  });

  it('wants the end of each past UTC day with no snapshot within the tolerance, newest first', () => {
    const options = { days: 6, toleranceSeconds: DAY };
    expect(missingDayEnds([], head.timestamp, 0, options)).toEqual([9, 8, 7, 6, 5, 4].map(dayEnd));
    // A snapshot anywhere in day 8 stands for it with a whole day's tolerance, not with 6 hours'.
    const morning = [{ blockNumber: 0, timestamp: T0 + 8 * DAY + 3600 }];
    expect(missingDayEnds(morning, head.timestamp, 0, options)).not.toContain(dayEnd(8));
    expect(missingDayEnds(morning, head.timestamp, 0, { days: 6, toleranceSeconds: 6 * 3600 })).toContain(dayEnd(8));
    // Nothing before the start.
    expect(missingDayEnds([], head.timestamp, dayEnd(6) + 1, options)).toEqual([9, 8, 7].map(dayEnd));
  });

  for (const rememberGaps of [true, false]) {
    it(`takes the head and the last block of each past day; a day without state is a gap (${rememberGaps ? 'remembered' : 'tried again'})`, async () => {
      const schedule = new SnapshotSchedule({ everySeconds: 300, days: 3, toleranceSeconds: DAY, rememberGaps });
      const asked: number[] = [];
      const take = (times: { blockNumber: number; timestamp: number }[]) =>
        schedule.take({
          log: silent,
          source,
          key: 'chain:market',
          head,
          times,
          startBlock: 0,
          snapshot: async (block) => {
            asked.push(block.number);
            // The node's answer retrying cannot change (an RpcError is not retryable).
            if (block.timestamp === dayEnd(8) - 3599) throw new ServiceError('eth_call: missing trie node', false);
          },
          what: 'test',
        });
      const taken = await take([]);
      // The head, then the last block of days 9 and 7 (each day's 23:00 block); day 8's has no state: a gap.
      expect(taken).toEqual([HOURS, 9 * 24 + 23, 7 * 24 + 23]);
      expect(asked).toEqual([HOURS, 9 * 24 + 23, 8 * 24 + 23, 7 * 24 + 23]);
      asked.length = 0;
      const times = taken.map((n) => ({ blockNumber: n, timestamp: blocks[n]!.timestamp }));
      expect(await take(times)).toEqual([]);
      expect(asked).toEqual(rememberGaps ? [] : [8 * 24 + 23]);
    });
  }

  it('asks again for a past day whose snapshot failed for a while (a timeout), even when gaps are remembered', async () => {
    const schedule = new SnapshotSchedule({ everySeconds: 300, days: 3, toleranceSeconds: DAY, rememberGaps: true });
    let down = true;
    const asked: number[] = [];
    const take = (times: { blockNumber: number; timestamp: number }[]) =>
      schedule.take({
        log: silent,
        source,
        key: 'chain:market',
        head,
        times,
        startBlock: 0,
        snapshot: async (block) => {
          asked.push(block.number);
          if (down && block.timestamp === dayEnd(8) - 3599) throw new ServiceError('eth_call: timed out', true);
        },
        what: 'test',
      });
    const taken = await take([]);
    expect(taken).toEqual([HOURS, 9 * 24 + 23, 7 * 24 + 23]);
    down = false;
    asked.length = 0;
    expect(await take(taken.map((n) => ({ blockNumber: n, timestamp: blocks[n]!.timestamp })))).toEqual([8 * 24 + 23]);
  });

  it('fails the run when the head’s own snapshot fails', async () => {
    const schedule = new SnapshotSchedule({ everySeconds: 300, days: 1, toleranceSeconds: DAY });
    const run = schedule.take({
      log: silent,
      source,
      key: 'k',
      head,
      times: [],
      startBlock: 0,
      snapshot: async () => {
        throw new Error('node down');
      },
      what: 'test',
    });
    await expect(run).rejects.toThrow('node down');
  });

  it('snapshotDays counts the UTC days the snapshots fall in, once each', () => {
    const at = (iso: string) => ({ timestamp: Date.parse(iso) / 1000 });
    expect(snapshotDays([])).toBe(0);
    // Two head snapshots of one day, a day end, and the first second of the next day.
    expect(
      snapshotDays([
        at('2026-11-27T10:00:00Z'),
        at('2026-11-27T10:05:00Z'),
        at('2026-11-27T23:59:59Z'),
        at('2026-11-28T00:00:00Z'),
      ]),
    ).toBe(2);
  });
});
