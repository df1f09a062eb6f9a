/**
 * Which snapshots the tokenomics area keeps and which one a figure reads (pure):
 *
 * - retention: every snapshot for `HOURLY_RETENTION_SECONDS` (the published week's records and their 24-hour
 *   windows), and beyond that only each UTC day's day-end snapshot (the newest within `DAY_END_TOLERANCE` before the
 *   day's end, the one a record of the day reads) for `DAY_END_RETENTION_DAYS`: the oldest record of the week is read
 *   against the day-end 30 days before it. Bounded: at most 24 × 9 + 38 rows per token.
 * - `supply30d`: what a record's monthly inflation and burn compare with, from the day-end snapshot of the last UTC
 *   day ending at or before 30 days before the record's day end (the running day: its `as_of`).
 */
import type { GapReason } from '../../core/gaps.js';
import { DAY, startOfUtcDay } from '../../core/time.js';
import type { TokenSnapshotFact } from './facts.js';

/** A past day's snapshot stands for it when taken at most this long before the day's end (ingest.ts). */
export const DAY_END_TOLERANCE = 3600;
/** Every snapshot is kept this long (the published week and a day before its oldest 24-hour window, and a margin). */
export const HOURLY_RETENTION_SECONDS = 9 * DAY;
/** The window of `inflation_monthly` and `burn_rate_monthly`. */
export const SUPPLY_WINDOW_DAYS = 30;
/**
 * Day-end snapshots are kept this many days: the week's oldest record (6 days back) reads the day-end 30 days before
 * it, and a day of margin for the running day and the tolerance.
 */
export const DAY_END_RETENTION_DAYS = 7 + SUPPLY_WINDOW_DAYS + 1;

interface Timed {
  readonly blockNumber: number;
  readonly timestamp: number;
}

/** The last second of the UTC day of `t`. */
const dayEndOf = (t: number) => startOfUtcDay(t) + DAY - 1;

/** The snapshot standing for the UTC day ending at `end` (its last second): the newest within the tolerance. */
export function dayEndSnapshot<T extends Timed>(snapshots: readonly T[], end: number): T | undefined {
  let best: T | undefined;
  for (const s of snapshots)
    if (s.timestamp <= end && s.timestamp > end - DAY_END_TOLERANCE && (!best || s.blockNumber > best.blockNumber))
      best = s;
  return best;
}

/**
 * The blocks of the snapshots the retention deletes at the head's time: those older than `HOURLY_RETENTION_SECONDS`
 * that are not their day's day-end snapshot, and every one older than `DAY_END_RETENTION_DAYS`.
 */
export function snapshotsToPrune(snapshots: readonly Timed[], headTimestamp: number): number[] {
  const hourlyFrom = headTimestamp - HOURLY_RETENTION_SECONDS;
  const dayEndFrom = headTimestamp - DAY_END_RETENTION_DAYS * DAY;
  const out: number[] = [];
  for (const s of snapshots) {
    if (s.timestamp >= hourlyFrom) continue;
    if (s.timestamp >= dayEndFrom && dayEndSnapshot(snapshots, dayEndOf(s.timestamp)) === s) continue;
    out.push(s.blockNumber);
  }
  return out.sort((a, b) => a - b);
}

/** The supply 30 days before a record, as `TokenomicsInput.supply30d` takes it. */
export interface Supply30d {
  /** `totalSupply()` at the day-end snapshot 30 days before. */
  readonly totalSupplyRaw: bigint;
  /**
   * Burned in between: the increase of the burn addresses' balances plus the decrease of `totalSupply()` (0 when it
   * grew): the net destroyed supply, so a window that mints and destroys counts only what it destroyed net.
   */
  readonly burnedRaw: bigint;
  /** The block of the earlier snapshot. */
  readonly blockNumber: number;
}

/** The UTC day end the record at nominal instant `end` (a past day's end; the running day's `as_of`) compares with. */
export const supplyBaseEnd = (end: number): number => startOfUtcDay(end - SUPPLY_WINDOW_DAYS * DAY + 1) - 1;

/**
 * `supply30d` of a record at nominal instant `end` read at snapshot `now`, or the reason it is unknown: no day-end
 * snapshot 30 days back (`no_data`: the snapshots started later, or the node kept no state there), or a burn address
 * that snapshot did not read (a label added since: `no_data`).
 */
export function supply30d(
  snapshots: readonly TokenSnapshotFact[],
  end: number,
  now: TokenSnapshotFact,
  burnAddresses: readonly string[],
): { readonly value: Supply30d } | { readonly reason: GapReason } {
  const base = dayEndSnapshot(snapshots, supplyBaseEnd(end));
  if (!base) return { reason: 'no_data' };
  let increase = 0n;
  for (const a of burnAddresses) {
    const was = base.contracts.find((c) => c.address === a);
    const is = now.contracts.find((c) => c.address === a);
    if (!was || !is) return { reason: 'no_data' };
    increase += BigInt(is.held) - BigInt(was.held);
  }
  const destroyed = base.totalSupply > now.totalSupply ? base.totalSupply - now.totalSupply : 0n;
  return {
    value: { totalSupplyRaw: base.totalSupply, burnedRaw: increase + destroyed, blockNumber: base.blockNumber },
  };
}
