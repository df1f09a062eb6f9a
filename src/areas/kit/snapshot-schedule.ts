import { isRetryable } from '../../core/errors.js';
import { DAY, dailyHistoryInstants } from '../../core/time.js';
import { blockAtOrBefore } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';

/** A snapshot's block and its time. */
export interface SnapshotTime {
  readonly blockNumber: number;
  readonly timestamp: number;
}

export interface SnapshotScheduleOptions {
  /** A new snapshot at the head at most this often, in chain time. */
  readonly everySeconds: number;
  /** How many past UTC days get a snapshot at their last block. */
  readonly days: number;
  /** A snapshot within this before a day's end stands for the day (a whole day: any snapshot of that UTC day). */
  readonly toleranceSeconds: number;
  /**
   * A past day's block the node keeps no state for is not asked again while this process runs (a node that
   * prunes old state will not get it back); otherwise the next run tries again.
   */
  readonly rememberGaps?: boolean;
}

/** Whether the head needs a snapshot: none yet, or the newest is older than `everySeconds` and below it. */
export function headSnapshotDue(last: SnapshotTime | undefined, head: SnapshotTime, everySeconds: number): boolean {
  return !last || (last.blockNumber < head.blockNumber && head.timestamp - last.timestamp >= everySeconds);
}

/**
 * The ends of the `days` previous UTC days (newest first) that need a snapshot: those at or after `startTimestamp`
 * with no snapshot taken within `toleranceSeconds` before them.
 */
export function missingDayEnds(
  times: readonly SnapshotTime[],
  headTimestamp: number,
  startTimestamp: number,
  options: Pick<SnapshotScheduleOptions, 'days' | 'toleranceSeconds'>,
): number[] {
  return dailyHistoryInstants(headTimestamp, options.days + 1)
    .slice(1)
    .filter((t) => t >= startTimestamp)
    .filter((t) => !times.some((x) => x.timestamp <= t && x.timestamp > t - options.toleranceSeconds));
}

/**
 * How many UTC days the snapshots fall in: the part of a daily history they cover, which a compute job's `coverage`
 * counts (a past day's snapshot taken by a backfill adds one; another head snapshot of the same day adds none).
 */
export function snapshotDays(times: readonly Pick<SnapshotTime, 'timestamp'>[]): number {
  return new Set(times.map((t) => Math.floor(t.timestamp / DAY))).size;
}

/**
 * The one snapshot schedule of the areas that read state (lending, stablecoin): at the ingested head every
 * `everySeconds` of chain time, plus the last block of each past UTC day that has none, a day whose block the node
 * keeps no state for left as a gap (never a guess). The head's own snapshot failing fails the run (retried).
 */
export class SnapshotSchedule {
  private readonly gaps = new Set<string>();

  constructor(readonly options: SnapshotScheduleOptions) {}

  /**
   * Takes the snapshots due for one subject (`key`: a market, a protocol on a chain) given those it has (`times`),
   * by `snapshot(block)`; returns the blocks taken, the head first.
   */
  async take(args: {
    readonly log: { warn(obj: object, msg: string): void };
    readonly source: EvmSource;
    readonly key: string;
    readonly head: { readonly number: number; readonly timestamp: number };
    readonly times: readonly SnapshotTime[];
    /** The first block read for the subject; with its time when known (it saves a search before it). */
    readonly startBlock: number;
    readonly startTimestamp?: number;
    readonly snapshot: (block: { readonly number: number; readonly timestamp: number }) => Promise<void>;
    /** Who says so in the log. */
    readonly what: string;
  }): Promise<number[]> {
    const { source, head, times } = args;
    const taken: number[] = [];
    const newest = times.reduce<SnapshotTime | undefined>(
      (a, x) => (a === undefined || x.blockNumber > a.blockNumber ? x : a),
      undefined,
    );
    if (headSnapshotDue(newest, { blockNumber: head.number, timestamp: head.timestamp }, this.options.everySeconds)) {
      await args.snapshot(head);
      taken.push(head.number);
    }
    for (const t of missingDayEnds(times, head.timestamp, args.startTimestamp ?? 0, this.options)) {
      const id = `${args.key}:${t}`;
      if (this.gaps.has(id)) continue;
      const number = await blockAtOrBefore(source, t, args.startBlock, head.number);
      if (number === undefined) continue;
      const block = await source.getBlock(number);
      // No block within the tolerance before the day's end: nothing stands for that day.
      if (!block || block.timestamp <= t - this.options.toleranceSeconds) continue;
      try {
        await args.snapshot(block);
        taken.push(block.number);
      } catch (err) {
        // Only an answer that retrying cannot change (the node has no state there) makes the day a gap for good; a
        // timeout under load would otherwise leave one process with a gap another fills (issue 31).
        if (this.options.rememberGaps && !isRetryable(err)) this.gaps.add(id);
        args.log.warn(
          { err, key: args.key, block: number },
          `${args.what}: no state at a past day's end; that day stays a gap`,
        );
      }
    }
    return taken;
  }
}

/** A whole UTC day: any snapshot of the day stands for it. */
export const WHOLE_DAY = DAY;
