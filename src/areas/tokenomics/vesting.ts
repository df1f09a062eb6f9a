/**
 * Vesting maths (docs/methodology/tokenomics.md "Vesting, locked and unlocked"). Two views, both exact integers:
 *
 * - schedules as pieces (an allocation's declared schedule, and the unlock windows): `cliff` (an amount at an
 *   instant), `linear` (an amount from `start` to `end`, nothing before an optional `cliff`, then
 *   amount × (t − start) / (end − start) rounded down, all of it from `end`), `step` (all at `at`, as
 *   TokenTimelock's releaseTime); a revoked schedule stops vesting at `revokedAt` and returns the rest (not locked);
 * - each contract's own integer maths, so that locked and released figures match the contract's views to the wei:
 *   Uniswap's TreasuryVester (claimable = vestingAmount × (t − lastUpdate) / (vestingEnd − vestingBegin) from the
 *   cliff, its whole balance from the end), OpenZeppelin 4.9's VestingWallet (vested = (balance + released) ×
 *   (t − start) / duration, all after start + duration) and TokenTimelock (all at releaseTime).
 *
 * Locked = not yet vested: vested but unclaimed tokens are not locked. Instants are unix seconds; `t` is inclusive
 * (a piece due at t has vested at t).
 */

export type Piece =
  | { readonly kind: 'cliff'; readonly at: number; readonly amount: bigint }
  | {
      readonly kind: 'linear';
      readonly start: number;
      readonly end: number;
      /** Nothing vests before it (TreasuryVester's vestingCliff); what accrued from `start` vests at it. */
      readonly cliff?: number;
      readonly amount: bigint;
    }
  | { readonly kind: 'step'; readonly at: number; readonly amount: bigint };

export interface Schedule {
  readonly pieces: readonly Piece[];
  /** Revoked or cancelled at this instant: nothing vests after it, the unvested rest is returned (not locked). */
  readonly revokedAt?: number | null;
}

export function pieceVested(p: Piece, t: number): bigint {
  if (p.kind === 'cliff' || p.kind === 'step') return t >= p.at ? p.amount : 0n;
  if (t < (p.cliff ?? p.start) || t < p.start) return 0n;
  if (t >= p.end) return p.amount;
  return (p.amount * BigInt(t - p.start)) / BigInt(p.end - p.start);
}

export function scheduleTotal(s: Schedule): bigint {
  let total = 0n;
  for (const p of s.pieces) total += p.amount;
  return total;
}

/** Vested by `t` (a revoked schedule: by min(t, revokedAt)). */
export function vested(s: Schedule, t: number): bigint {
  const at = s.revokedAt != null ? Math.min(t, s.revokedAt) : t;
  let v = 0n;
  for (const p of s.pieces) v += pieceVested(p, at);
  return v;
}

/** Not yet vested at `t`; 0 once revoked (the rest went back). */
export function locked(s: Schedule, t: number): bigint {
  if (s.revokedAt != null && t >= s.revokedAt) return 0n;
  return scheduleTotal(s) - vested(s, t);
}

/** Returned at revocation (0 while not revoked by `t`). */
export function returned(s: Schedule, t: number): bigint {
  if (s.revokedAt == null || t < s.revokedAt) return 0n;
  return scheduleTotal(s) - vested(s, s.revokedAt);
}

/** Vested in (from, to]. */
export function unlockedBetween(s: Schedule, from: number, to: number): bigint {
  return vested(s, to) - vested(s, from);
}

/** The instants after which a piece vests a discrete amount at once: cliffs, steps and linear cliffs. */
function discreteEvents(s: Schedule): { at: number; amount: bigint }[] {
  const out: { at: number; amount: bigint }[] = [];
  for (const p of s.pieces) {
    if (p.kind === 'linear') {
      if (p.cliff !== undefined && p.cliff > p.start) out.push({ at: p.cliff, amount: pieceVested(p, p.cliff) });
    } else out.push({ at: p.at, amount: p.amount });
  }
  return out.filter((e) => e.amount > 0n && (s.revokedAt == null || e.at <= s.revokedAt));
}

/**
 * The next discrete unlock strictly after `t`: the earliest cliff, step or linear cliff, with everything of this
 * schedule that vests at that instant. Linear streams between discrete events are not "unlocks" (they are in the
 * windows). Null when none is left.
 */
export function nextUnlock(s: Schedule, t: number): { at: number; amount: bigint } | null {
  const events = discreteEvents(s).filter((e) => e.at > t);
  if (events.length === 0) return null;
  const at = Math.min(...events.map((e) => e.at));
  return { at, amount: vested(s, at) - vested(s, at - 1) };
}

// --- the contracts' own maths -------------------------------------------------------------------------------------

/** Uniswap governance TreasuryVester's state (its public variables) and balance. */
export interface TreasuryVesterState {
  readonly vestingAmount: bigint;
  readonly vestingBegin: number;
  readonly vestingCliff: number;
  readonly vestingEnd: number;
  readonly lastUpdate: number;
  /** uni.balanceOf(vester). */
  readonly balance: bigint;
}

/** What `claim()` would transfer at `t` (it reverts before the cliff: 0 here). */
export function treasuryVesterClaimable(v: TreasuryVesterState, t: number): bigint {
  if (t < v.vestingCliff) return 0n;
  if (t >= v.vestingEnd) return v.balance;
  if (t <= v.lastUpdate) return 0n;
  return (v.vestingAmount * BigInt(t - v.lastUpdate)) / BigInt(v.vestingEnd - v.vestingBegin);
}

/** Still locked at `t`: its balance less what it could claim. */
export function treasuryVesterLocked(v: TreasuryVesterState, t: number): bigint {
  return v.balance - treasuryVesterClaimable(v, t);
}

/** Released so far: the vesting amount less its balance (a vester receives its amount once, at deployment). */
export function treasuryVesterReleased(v: TreasuryVesterState): bigint {
  const r = v.vestingAmount - v.balance;
  return r > 0n ? r : 0n;
}

export function treasuryVesterSchedule(v: TreasuryVesterState): Schedule {
  return {
    pieces: [
      { kind: 'linear', start: v.vestingBegin, end: v.vestingEnd, cliff: v.vestingCliff, amount: v.vestingAmount },
    ],
  };
}

/** OpenZeppelin 4.9 VestingWallet: its start, duration, `released(token)` and balance. */
export interface VestingWalletState {
  readonly start: number;
  readonly duration: number;
  readonly released: bigint;
  readonly balance: bigint;
}

/** `vestedAmount(token, t)`: total = balance + released; 0 before start, all after start + duration. */
export function vestingWalletVested(w: VestingWalletState, t: number): bigint {
  const total = w.balance + w.released;
  if (t < w.start) return 0n;
  if (t > w.start + w.duration) return total;
  if (w.duration === 0) return total;
  return (total * BigInt(t - w.start)) / BigInt(w.duration);
}

export function vestingWalletLocked(w: VestingWalletState, t: number): bigint {
  return w.balance + w.released - vestingWalletVested(w, t);
}

/** `releasable(token)` at t: vested but not yet released (not locked). */
export function vestingWalletReleasable(w: VestingWalletState, t: number): bigint {
  return vestingWalletVested(w, t) - w.released;
}

export function vestingWalletSchedule(w: VestingWalletState): Schedule {
  const amount = w.balance + w.released;
  if (w.duration === 0) return { pieces: [{ kind: 'step', at: w.start, amount }] };
  return { pieces: [{ kind: 'linear', start: w.start, end: w.start + w.duration, amount }] };
}

/** OpenZeppelin TokenTimelock: its releaseTime and balance (released: what `release()` sent, 0 or all). */
export interface TokenTimelockState {
  readonly releaseTime: number;
  readonly balance: bigint;
  readonly released: bigint;
}

export function tokenTimelockLocked(l: TokenTimelockState, t: number): bigint {
  return t < l.releaseTime ? l.balance : 0n;
}

export function tokenTimelockSchedule(l: TokenTimelockState): Schedule {
  return { pieces: [{ kind: 'step', at: l.releaseTime, amount: l.balance + l.released }] };
}
