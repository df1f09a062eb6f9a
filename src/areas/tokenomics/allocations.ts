/**
 * Allocations and vesting contracts (docs/methodology/tokenomics.md "Allocations"): each vesting or distributor
 * contract's own view at the block (held, locked now, released), the schedule it follows, and the allocations they
 * prove. An allocation no contract holds is unverified and its unlocked share follows its declared schedule.
 */
import { parseUnits, ratioToFloat, toFloat } from '../../core/decimal.js';
import { isoSeconds } from '../../core/time.js';
import type { DeclaredUnlock, TokenDeclaration } from '../../registry/types.js';
import type { AllocationEntry, SchedulePieceEntry } from './schema.js';
import {
  locked,
  type Schedule,
  scheduleTotal,
  tokenTimelockLocked,
  tokenTimelockSchedule,
  treasuryVesterLocked,
  treasuryVesterSchedule,
  vested,
  vestingWalletLocked,
  vestingWalletSchedule,
} from './vesting.js';

interface ReadingBase {
  /** Lowercase 0x address. */
  readonly address: string;
  /** Allocation category (team, investors, advisors, community, treasury…). */
  readonly category: string;
  readonly label: string;
  /** balanceOf(contract) at the block (raw). */
  readonly held: bigint;
  /** What the contract has paid out (raw): VestingWallet `released(token)`, TreasuryVester vestingAmount − balance. */
  readonly released: bigint;
}

/** A vesting or distributor contract read at the day's end block, with the parameters its own maths use. */
export type VestingReading = ReadingBase &
  (
    | {
        readonly kind: 'treasury_vester';
        readonly schedule: {
          readonly vestingAmount: bigint;
          readonly vestingBegin: number;
          readonly vestingCliff: number;
          readonly vestingEnd: number;
          readonly lastUpdate: number;
        };
      }
    | { readonly kind: 'vesting_wallet'; readonly schedule: { readonly start: number; readonly duration: number } }
    | { readonly kind: 'token_timelock'; readonly schedule: { readonly releaseTime: number } }
    | { readonly kind: 'merkle_distributor'; readonly schedule: null }
    /** A schedule read as pieces (a revocable or cancellable vesting contract: its revocation instant included). */
    | { readonly kind: 'schedule'; readonly schedule: Schedule }
  );

/** An allocation as the token's documentation declares it (the registry). */
export interface DeclaredAllocation {
  readonly category: string;
  readonly label: string;
  readonly amountRaw: bigint;
  readonly schedule: Schedule;
  readonly sources: readonly { readonly kind: string; readonly ref: string }[];
  readonly assumptions: readonly string[];
}

const instant = (iso: string, what: string): number => {
  const ms = Date.parse(iso);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(iso) || !Number.isFinite(ms)) throw new Error(`${what}: not an ISO instant: ${iso}`);
  return Math.floor(ms / 1000);
};

function declaredSchedule(unlock: DeclaredUnlock, amount: bigint, what: string): Schedule {
  if (unlock === null) return { pieces: [] };
  if (unlock.kind === 'cliff') return { pieces: [{ kind: 'cliff', at: instant(unlock.at, what), amount }] };
  const start = instant(unlock.start, what);
  const end = instant(unlock.end, what);
  if (end <= start) throw new Error(`${what}: a linear unlock ends after it starts`);
  const cliff = unlock.cliff === undefined ? {} : { cliff: instant(unlock.cliff, what) };
  return { pieces: [{ kind: 'linear', start, end, amount, ...cliff }] };
}

/**
 * A token's declaration (the address book's: the registry's published allocation, the sandbox world's own) as the
 * allocation maths take it: amounts in raw units, each unlock as a one-piece schedule (none when the declaration
 * states none), its source with its kind. Throws on an amount or instant that does not parse (the registry test
 * reads every declaration through it).
 */
export function declaredAllocations(declaration: TokenDeclaration | null, decimals: number): DeclaredAllocation[] {
  if (!declaration) return [];
  return declaration.allocations.map((a) => {
    const what = `declared allocation ${a.category}/${a.label}`;
    const amountRaw = parseUnits(a.amount, decimals);
    if (amountRaw === undefined) throw new Error(`${what}: not a token amount: ${a.amount}`);
    return {
      category: a.category,
      label: a.label,
      amountRaw,
      schedule: declaredSchedule(a.unlock, amountRaw, what),
      sources: [{ kind: declaration.sourceKind, ref: declaration.source }],
      assumptions: [...a.assumptions],
    };
  });
}

export interface ContractView {
  readonly reading: VestingReading;
  /** Not yet vested at the instant (0 for a distributor: unclaimed is not locked, it is deducted apart). */
  readonly lockedRaw: bigint;
  /** The schedule the contract follows (null for a distributor). */
  readonly schedule: Schedule | null;
}

/** A contract's own view at `t`. */
export function contractView(r: VestingReading, t: number): ContractView {
  switch (r.kind) {
    case 'treasury_vester': {
      const state = { ...r.schedule, balance: r.held };
      return { reading: r, lockedRaw: treasuryVesterLocked(state, t), schedule: treasuryVesterSchedule(state) };
    }
    case 'vesting_wallet': {
      const state = { ...r.schedule, balance: r.held, released: r.released };
      return { reading: r, lockedRaw: vestingWalletLocked(state, t), schedule: vestingWalletSchedule(state) };
    }
    case 'token_timelock': {
      const state = { ...r.schedule, balance: r.held, released: r.released };
      return { reading: r, lockedRaw: tokenTimelockLocked(state, t), schedule: tokenTimelockSchedule(state) };
    }
    case 'merkle_distributor':
      return { reading: r, lockedRaw: 0n, schedule: null };
    case 'schedule': {
      // What the pieces still lock, never more than the contract holds.
      let l = locked(r.schedule, t);
      if (l > r.held) l = r.held;
      return { reading: r, lockedRaw: l, schedule: r.schedule };
    }
  }
}

export function piecesOut(s: Schedule, decimals: number): SchedulePieceEntry[] {
  return s.pieces.map((p) =>
    p.kind === 'linear'
      ? {
          kind: 'linear',
          at: null,
          start: isoSeconds(p.start),
          cliff: p.cliff === undefined ? null : isoSeconds(p.cliff),
          end: isoSeconds(p.end),
          amount: toFloat(p.amount, decimals),
        }
      : {
          kind: p.kind,
          at: isoSeconds(p.at),
          start: null,
          cliff: null,
          end: null,
          amount: toFloat(p.amount, decimals),
        },
  );
}

const pct = (part: bigint, whole: bigint): number | null => (whole > 0n ? ratioToFloat(part * 100n, whole) : null);

/**
 * The allocations of the record: each declared one with the contracts of its category (and label, when its
 * category has several), then one per contract no declared allocation claims (its amount: held + released).
 */
export function allocationsOut(
  declared: readonly DeclaredAllocation[],
  views: readonly ContractView[],
  totalRaw: bigint,
  decimals: number,
  t: number,
): AllocationEntry[] {
  const claimed = new Set<string>();
  const out: AllocationEntry[] = [];
  const amount = (x: bigint) => toFloat(x, decimals);
  const onchainOf = (vs: readonly ContractView[]) => {
    let held = 0n;
    let lockedNow = 0n;
    for (const v of vs) {
      held += v.reading.held;
      lockedNow += v.lockedRaw;
    }
    return {
      value: {
        contracts: vs.map((v) => ({
          address: v.reading.address,
          kind: v.reading.kind,
          held: amount(v.reading.held),
          locked_now: amount(v.lockedRaw),
          released: amount(v.reading.released),
        })),
        held: amount(held),
        locked_now: amount(lockedNow),
      },
      allocated: vs.reduce((s, v) => s + v.reading.held + v.reading.released, 0n),
      lockedNow,
    };
  };
  for (const a of declared) {
    const sameCategory = declared.filter((d) => d.category === a.category).length;
    const vs = views.filter(
      (v) => v.reading.category === a.category && (sameCategory === 1 || v.reading.label === a.label),
    );
    for (const v of vs) claimed.add(v.reading.address);
    const onchain = vs.length > 0 ? onchainOf(vs) : null;
    // Unverified: what its declared schedule has vested; unknown when it declares none.
    const unlocked =
      onchain !== null
        ? pct(onchain.allocated - onchain.lockedNow, onchain.allocated)
        : a.schedule.pieces.length === 0
          ? null
          : pct(vested(a.schedule, t), scheduleTotal(a.schedule) > 0n ? scheduleTotal(a.schedule) : a.amountRaw);
    out.push({
      category: a.category,
      label: a.label,
      share: pct(a.amountRaw, totalRaw),
      amount: amount(a.amountRaw),
      schedule: piecesOut(a.schedule, decimals),
      revoked_at: a.schedule.revokedAt == null ? null : isoSeconds(a.schedule.revokedAt),
      unlocked_share: unlocked,
      // Unverified: no labelled contract holds it, so its on-chain proof is an aggregate over none.
      gap_reasons: {
        ...(unlocked === null ? { unlocked_share: 'no_data' as const } : {}),
        ...(onchain === null ? { onchain: 'no_members' as const } : {}),
      },
      sources: a.sources.map((s) => ({ kind: s.kind, ref: s.ref })),
      assumptions: [...a.assumptions],
      verified: onchain !== null,
      onchain: onchain?.value ?? null,
    });
  }
  for (const v of views) {
    if (claimed.has(v.reading.address)) continue;
    const onchain = onchainOf([v]);
    out.push({
      category: v.reading.category,
      label: v.reading.label,
      share: pct(onchain.allocated, totalRaw),
      amount: amount(onchain.allocated),
      schedule: v.schedule === null ? [] : piecesOut(v.schedule, decimals),
      revoked_at: v.schedule?.revokedAt == null ? null : isoSeconds(v.schedule.revokedAt),
      unlocked_share: pct(onchain.allocated - onchain.lockedNow, onchain.allocated),
      // A contract that holds nothing and whose views say nothing of what it paid out (a TokenTimelock after its
      // release, an emptied distributor): its allocation's size, and so the share unlocked, is not known.
      gap_reasons: onchain.allocated > 0n ? {} : { unlocked_share: 'no_data' },
      sources: [{ kind: 'contract', ref: v.reading.address }],
      assumptions: ['No declared allocation names this contract: its amount is what it holds plus what it released'],
      verified: true,
      onchain: onchain.value,
    });
  }
  return out;
}

/** Categories of `project_percentage`: the project's own people (the legacy example: team 21.51 + advisors 0.69). */
export const PROJECT_CATEGORIES = ['team', 'advisors'];
