import { describe, expect, it } from 'vitest';
import {
  locked,
  nextUnlock,
  returned,
  type Schedule,
  tokenTimelockLocked,
  treasuryVesterClaimable,
  treasuryVesterLocked,
  treasuryVesterReleased,
  treasuryVesterSchedule,
  unlockedBetween,
  vested,
  vestingWalletLocked,
  vestingWalletReleasable,
  vestingWalletSchedule,
  vestingWalletVested,
} from './vesting.js';

const DAY = 86_400;

describe('schedule pieces: vested, locked, windows and the next unlock', () => {
  const cliff: Schedule = { pieces: [{ kind: 'cliff', at: 1000, amount: 500n }] };
  const linear: Schedule = { pieces: [{ kind: 'linear', start: 0, end: 1000, amount: 1000n }] };
  const linearCliff: Schedule = { pieces: [{ kind: 'linear', start: 0, cliff: 250, end: 1000, amount: 1000n }] };
  const step: Schedule = { pieces: [{ kind: 'step', at: 10, amount: 7n }] };
  const mixed: Schedule = {
    pieces: [
      { kind: 'cliff', at: 100, amount: 100n },
      { kind: 'linear', start: 100, end: 400, amount: 300n },
    ],
  };
  const revoked: Schedule = { ...linear, revokedAt: 400 };
  const table: { name: string; s: Schedule; t: number; vested: bigint; locked: bigint; returned?: bigint }[] = [
    { name: 'cliff before', s: cliff, t: 999, vested: 0n, locked: 500n },
    { name: 'cliff at its instant', s: cliff, t: 1000, vested: 500n, locked: 0n },
    { name: 'linear before start', s: linear, t: -1, vested: 0n, locked: 1000n },
    { name: 'linear midway', s: linear, t: 333, vested: 333n, locked: 667n },
    {
      name: 'linear rounds down',
      s: { pieces: [{ kind: 'linear', start: 0, end: 3, amount: 10n }] },
      t: 1,
      vested: 3n,
      locked: 7n,
    },
    { name: 'linear at end', s: linear, t: 1000, vested: 1000n, locked: 0n },
    { name: 'linear after end', s: linear, t: 5000, vested: 1000n, locked: 0n },
    { name: 'linear with cliff, before it', s: linearCliff, t: 249, vested: 0n, locked: 1000n },
    { name: 'linear with cliff, at it: accrued from start', s: linearCliff, t: 250, vested: 250n, locked: 750n },
    { name: 'step before', s: step, t: 9, vested: 0n, locked: 7n },
    { name: 'step at', s: step, t: 10, vested: 7n, locked: 0n },
    { name: 'cliff then linear', s: mixed, t: 250, vested: 250n, locked: 150n },
    { name: 'revoked: before revocation', s: revoked, t: 300, vested: 300n, locked: 700n, returned: 0n },
    { name: 'revoked: after, rest returned not locked', s: revoked, t: 900, vested: 400n, locked: 0n, returned: 600n },
  ];
  for (const c of table) {
    it(c.name, () => {
      expect(vested(c.s, c.t)).toBe(c.vested);
      expect(locked(c.s, c.t)).toBe(c.locked);
      if (c.returned !== undefined) expect(returned(c.s, c.t)).toBe(c.returned);
    });
  }

  it('unlocked in (t − 7 d, t] and (t − 30 d, t]', () => {
    const s: Schedule = { pieces: [{ kind: 'linear', start: 0, end: 100 * DAY, amount: 100n * 10n ** 18n }] };
    const t = 50 * DAY;
    expect(unlockedBetween(s, t - 7 * DAY, t)).toBe(7n * 10n ** 18n);
    expect(unlockedBetween(s, t - 30 * DAY, t)).toBe(30n * 10n ** 18n);
    expect(unlockedBetween(cliff, 1000 - 7 * DAY, 1000)).toBe(500n);
    expect(unlockedBetween(cliff, 1000, 1000 + 7 * DAY)).toBe(0n);
  });

  it('next unlock: the next discrete event, with what vests at that instant', () => {
    expect(nextUnlock(cliff, 0)).toEqual({ at: 1000, amount: 500n });
    expect(nextUnlock(cliff, 1000)).toBeNull();
    expect(nextUnlock(linearCliff, 0)).toEqual({ at: 250, amount: 250n });
    expect(nextUnlock(linear, 10)).toBeNull();
    expect(nextUnlock(mixed, 0)).toEqual({ at: 100, amount: 100n });
    expect(nextUnlock({ ...cliff, revokedAt: 500 }, 0)).toBeNull();
  });
});

describe("the contracts' own integer maths", () => {
  // TreasuryVester: 1,000 tokens from day 0 to day 365, cliff at day 91.
  const amount = 1000n * 10n ** 18n;
  const begin = 1_600_000_000;
  const v = {
    vestingAmount: amount,
    vestingBegin: begin,
    vestingCliff: begin + 91 * DAY,
    vestingEnd: begin + 365 * DAY,
    lastUpdate: begin,
    balance: amount,
  };
  it('TreasuryVester: nothing claimable before the cliff, the accrued part at it', () => {
    expect(treasuryVesterClaimable(v, begin + 90 * DAY)).toBe(0n);
    expect(treasuryVesterLocked(v, begin + 90 * DAY)).toBe(amount);
    const atCliff = (amount * BigInt(91 * DAY)) / BigInt(365 * DAY);
    expect(treasuryVesterClaimable(v, begin + 91 * DAY)).toBe(atCliff);
    expect(treasuryVesterLocked(v, begin + 91 * DAY)).toBe(amount - atCliff);
  });
  it('TreasuryVester: after a claim, amount × (t − lastUpdate) / (end − begin) from lastUpdate, to the wei', () => {
    const claimAt = begin + 100 * DAY + 17;
    const first = (amount * BigInt(claimAt - begin)) / BigInt(365 * DAY);
    const after = { ...v, lastUpdate: claimAt, balance: amount - first };
    const t = begin + 200 * DAY + 3;
    const second = (amount * BigInt(t - claimAt)) / BigInt(365 * DAY);
    expect(treasuryVesterClaimable(after, t)).toBe(second);
    expect(treasuryVesterLocked(after, t)).toBe(amount - first - second);
    expect(treasuryVesterReleased(after)).toBe(first);
    // The claims' floors can leave the contract a few wei more locked than the schedule's single floor.
    expect(treasuryVesterLocked(after, t) - locked(treasuryVesterSchedule(after), t)).toBeGreaterThanOrEqual(0n);
    expect(treasuryVesterLocked(after, t) - locked(treasuryVesterSchedule(after), t)).toBeLessThanOrEqual(2n);
  });
  it('TreasuryVester: its whole balance from the end', () => {
    expect(treasuryVesterClaimable({ ...v, balance: 5n }, begin + 365 * DAY)).toBe(5n);
    expect(treasuryVesterLocked({ ...v, balance: 5n }, begin + 365 * DAY)).toBe(0n);
  });

  const w = { start: 1000, duration: 3000, released: 100n, balance: 900n };
  const walletTable: { t: number; vested: bigint }[] = [
    { t: 999, vested: 0n },
    { t: 1000, vested: 0n },
    { t: 2000, vested: 333n },
    { t: 4000, vested: 1000n },
    { t: 4001, vested: 1000n },
  ];
  for (const c of walletTable) {
    it(`VestingWallet at ${c.t}: (balance + released) × (t − start) / duration`, () => {
      expect(vestingWalletVested(w, c.t)).toBe(c.vested);
      expect(vestingWalletLocked(w, c.t)).toBe(1000n - c.vested);
      expect(vested(vestingWalletSchedule(w), c.t)).toBe(c.vested);
    });
  }
  it('VestingWallet: vested but unreleased is releasable, not locked', () => {
    expect(vestingWalletReleasable(w, 2000)).toBe(233n);
    expect(vestingWalletLocked(w, 2000)).toBe(667n);
  });

  it('TokenTimelock: all at releaseTime', () => {
    expect(tokenTimelockLocked({ releaseTime: 50, balance: 10n, released: 0n }, 49)).toBe(10n);
    expect(tokenTimelockLocked({ releaseTime: 50, balance: 10n, released: 0n }, 50)).toBe(0n);
  });
});
