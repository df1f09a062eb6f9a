import { describe, expect, it } from 'vitest';
import { DAY } from '../../core/time.js';
import { tokenDays } from './days.js';
import type { ContractReading, TokenSnapshotFact } from './facts.js';
import {
  DAY_END_RETENTION_DAYS,
  dayEndSnapshot,
  HOURLY_RETENTION_SECONDS,
  snapshotsToPrune,
  supply30d,
  supplyBaseEnd,
} from './snapshots.js';
import type { TokenTarget } from './targets.js';

const T0 = Date.UTC(2026, 9, 1) / 1000; // a UTC midnight
const HOUR = 3600;
const BURN = '0x000000000000000000000000000000000000dead';
const TOKEN = '0x00000000000000000000000000000000000000aa';

/** A snapshot every hour of chain time (block = hours since T0), for `hours` hours. */
const hourly = (hours: number) =>
  Array.from({ length: hours }, (_, h) => ({ blockNumber: h + 1, timestamp: T0 + h * HOUR + HOUR - 1 }));

const burnReading = (held: bigint): ContractReading => ({
  address: BURN,
  category: 'burn',
  kind: 'burn',
  label: 'burn address',
  held: held.toString(),
  views: {},
});

const snap = (blockNumber: number, timestamp: number, totalSupply: bigint, burnHeld?: bigint): TokenSnapshotFact => ({
  chain: 'ethereum',
  token: TOKEN,
  blockNumber,
  timestamp,
  totalSupply,
  replayedSupply: totalSupply,
  sample: [],
  contracts: burnHeld === undefined ? [] : [burnReading(burnHeld)],
});

describe('snapshot retention', () => {
  it('keeps every snapshot for 9 days, then only each day-end one until 38 days, then none', () => {
    const times = hourly(40 * 24); // 40 days of hourly snapshots, each at the hour's last second
    const head = times.at(-1)!.timestamp;
    const pruned = new Set(snapshotsToPrune(times, head));
    const kept = times.filter((t) => !pruned.has(t.blockNumber));
    const recent = kept.filter((t) => t.timestamp >= head - HOURLY_RETENTION_SECONDS);
    const older = kept.filter((t) => t.timestamp < head - HOURLY_RETENTION_SECONDS);
    // Every snapshot of the last 9 days survives.
    expect(recent.length).toBe(times.filter((t) => t.timestamp >= head - HOURLY_RETENTION_SECONDS).length);
    // Older: only the day's last one (23:59:59), one a day, none older than 38 days.
    expect(older.every((t) => (t.timestamp + 1) % DAY === 0)).toBe(true);
    expect(older.every((t) => t.timestamp >= head - DAY_END_RETENTION_DAYS * DAY)).toBe(true);
    expect(new Set(older.map((t) => Math.floor(t.timestamp / DAY))).size).toBe(older.length);
    // 40 days of history: days 9..38 back keep their day ends (the head's day is the 40th).
    expect(older.length).toBe(DAY_END_RETENTION_DAYS - 9);
    expect(kept.length + pruned.size).toBe(times.length);
  });

  it('keeps the newest of several snapshots in a day end tolerance and drops a day with none in it', () => {
    const head = T0 + 20 * DAY;
    const end = T0 + 5 * DAY - 1;
    const times = [
      { blockNumber: 10, timestamp: end - 1800 },
      { blockNumber: 11, timestamp: end - 60 }, // the day-end snapshot
      { blockNumber: 12, timestamp: end - 5 * HOUR }, // the same day, outside the tolerance
      { blockNumber: 20, timestamp: T0 + 7 * DAY - 1 - 2 * HOUR }, // a day with no snapshot in its last hour
      { blockNumber: 30, timestamp: head - HOUR },
    ];
    expect(snapshotsToPrune(times, head)).toEqual([10, 12, 20]);
  });

  it('prunes nothing within the first 9 days', () => {
    const times = hourly(9 * 24);
    expect(snapshotsToPrune(times, times.at(-1)!.timestamp)).toEqual([]);
  });
});

describe('supply30d selection', () => {
  const closedEnd = T0 + 40 * DAY - 1; // a past day's end
  it.each([
    ['a past day: the day end 30 days before its end', closedEnd, closedEnd - 30 * DAY],
    ['the running day: the last day end at least 30 days before as_of', T0 + 40 * DAY + 10 * HOUR, T0 + 10 * DAY - 1],
    ['the running day at midnight', T0 + 40 * DAY, T0 + 10 * DAY - 1],
  ])('%s', (_, end, base) => {
    expect(supplyBaseEnd(end)).toBe(base);
    expect(end - supplyBaseEnd(end)).toBeGreaterThanOrEqual(30 * DAY);
    expect(end - supplyBaseEnd(end)).toBeLessThan(31 * DAY);
  });

  const base = snap(100, closedEnd - 30 * DAY - 600, 1_000n, 50n);
  const decoy = snap(101, closedEnd - 29 * DAY - 600, 1n, 0n); // the day after: not it
  const now = snap(200, closedEnd - 300, 900n, 80n);

  it('reads totalSupply at the day end 30 days back and counts burns as burn-address increase plus destroyed', () => {
    const r = supply30d([decoy, now, base], closedEnd, now, [BURN]);
    // 30 sent to 0xdead, 100 destroyed (total supply 1000 → 900).
    expect(r).toEqual({ value: { totalSupplyRaw: 1_000n, burnedRaw: 130n, blockNumber: 100 } });
  });

  it('counts no destruction when the total supply grew (mints): only the net decrease is known', () => {
    const grown = snap(200, closedEnd - 300, 1_200n, 50n);
    expect(supply30d([base, grown], closedEnd, grown, [BURN])).toEqual({
      value: { totalSupplyRaw: 1_000n, burnedRaw: 0n, blockNumber: 100 },
    });
  });

  it('is unknown without a day-end snapshot 30 days back (not 0)', () => {
    expect(supply30d([decoy, now], closedEnd, now, [BURN])).toEqual({ reason: 'no_data' });
    const early = snap(99, closedEnd - 30 * DAY - 2 * HOUR, 1_000n, 50n); // outside the day end's last hour
    expect(supply30d([early, now], closedEnd, now, [BURN])).toEqual({ reason: 'no_data' });
  });

  it('is unknown when the earlier snapshot did not read a burn address labelled since', () => {
    const unread = snap(100, closedEnd - 30 * DAY - 600, 1_000n);
    expect(supply30d([unread, now], closedEnd, now, [BURN])).toEqual({ reason: 'no_data' });
  });

  it('picks the newest snapshot in the day end tolerance', () => {
    const later = snap(105, closedEnd - 30 * DAY - 60, 990n, 50n);
    expect(dayEndSnapshot([base, later, decoy], closedEnd - 30 * DAY)?.blockNumber).toBe(105);
  });
});

describe('tokenDays fills supply30d from the day ends 30 days back', () => {
  const target: TokenTarget = {
    chain: 'ethereum',
    protocol: 'uniswap',
    symbol: 'UNI',
    address: TOKEN,
    decimals: 18,
    startBlock: 1,
    declaration: null,
    labels: [{ address: BURN, category: 'burn', kind: 'burn', label: 'burn address', source: 'test' }],
  } as TokenTarget;
  const headTime = T0 + 40 * DAY + 5 * HOUR;
  // Day ends of days 3 to 39 (the week's records and their 30-day bases), day d's total supply 1000 + d.
  const snapshots: TokenSnapshotFact[] = [];
  for (let d = 3; d < 40; d++) snapshots.push(snap(d * 10, T0 + (d + 1) * DAY - 1, 1_000n + BigInt(d), 0n));
  snapshots.push(snap(1000, headTime, 2_000n, 0n));
  const days = tokenDays({
    target,
    coingeckoId: null,
    ledger: { block: 1000, balances: new Map() },
    startTimestamp: T0,
    transfers: [],
    snapshots,
    market: () => ({ market: null, tickers: null, exchanges: [] }),
    dexVolume: () => ({ value: null, reason: 'no_members', detail: 'no pool' }),
  });

  it('each record reads the day end 30 days before its day (the running day: the last at least 30 days back)', () => {
    const inputs = days.map((d) => (d.kind === 'record' ? d.input : undefined));
    expect(inputs.every((i) => i !== undefined)).toBe(true);
    // Running day (day 40): base day 9 (the last day end 30 days before as_of); past day 39 − k: day 9 − k.
    expect(inputs.map((i) => i!.supply30d?.totalSupplyRaw ?? null)).toEqual([
      1_009n,
      1_009n,
      1_008n,
      1_007n,
      1_006n,
      1_005n,
      1_004n,
    ]);
    expect(inputs.every((i) => i!.supply30d?.burnedRaw === 0n && i!.supply30dGapReason === undefined)).toBe(true);
  });

  it('a record whose day end 30 days back is missing has supply30d null with no_data', () => {
    const fewer = tokenDays({
      target,
      coingeckoId: null,
      ledger: { block: 1000, balances: new Map() },
      startTimestamp: T0,
      transfers: [],
      snapshots: snapshots.filter((s) => s.blockNumber !== 50), // day 5's end
      market: () => ({ market: null, tickers: null, exchanges: [] }),
      dexVolume: () => ({ value: null, reason: 'no_members', detail: 'no pool' }),
    });
    const i = fewer.map((d) => (d.kind === 'record' ? d.input : undefined));
    // Day 35 (d = 5) compares with day 5.
    expect(i[5]!.supply30d).toBeNull();
    expect(i[5]!.supply30dGapReason).toBe('no_data');
    expect(i[4]!.supply30d).not.toBeNull();
    expect(i[6]!.supply30d).not.toBeNull();
  });
});
