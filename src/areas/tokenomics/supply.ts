/**
 * Supply definitions (docs/methodology/tokenomics.md "Supply"). Amounts stay bigint (raw units) until the payload;
 * percentages are the float nearest to the exact ratio.
 *
 * - circulating_supply_onchain = total supply − what vesting contracts still lock − the treasury's balance − the
 *   distributors' unclaimed airdrop − the burn addresses' balance, each a listed deduction (an address is deducted
 *   once: a vesting or distributor contract only through its own line);
 * - divergence = (reported − on-chain) / on-chain, flagged when |divergence| > 5 %;
 * - inflation_monthly = (total supply now − total supply 30 days before) / total supply 30 days before × 100, "30
 *   days before" being the day-end snapshot of snapshots.ts `supply30d`;
 * - burn_rate_monthly = burned in the 30 days / total supply 30 days before × 100, burned being the burn addresses'
 *   increase plus the net decrease of the total supply (`supply30d`; a pure burn to the zero address gives
 *   inflation_monthly = −burn_rate_monthly, as in the legacy example);
 * - FDV = price × max supply, or × total supply when the token has no max supply.
 */
import { ratioToFloat } from '../../core/decimal.js';

export const DIVERGENCE_FLAG = 0.05;

export type DeductionKind = 'vesting_locked' | 'treasury' | 'unclaimed_airdrop' | 'burn';

export interface Deduction {
  readonly kind: DeductionKind;
  /** Lowercase addresses, sorted. */
  readonly addresses: readonly string[];
  readonly amountRaw: bigint;
}

export interface CirculatingOnchain {
  readonly totalRaw: bigint;
  readonly circulatingRaw: bigint;
  readonly deductions: readonly Deduction[];
}

export interface DeductionSources {
  /** Each vesting contract with what it still locks at the instant. */
  readonly vesting: readonly { address: string; lockedRaw: bigint }[];
  /** Treasury addresses with their balance. */
  readonly treasury: readonly { address: string; balanceRaw: bigint }[];
  /** Airdrop distributors with their balance (unclaimed). */
  readonly distributors: readonly { address: string; balanceRaw: bigint }[];
  /** Burn addresses (not the zero address: tokens sent there are destroyed) with their balance. */
  readonly burn: readonly { address: string; balanceRaw: bigint }[];
}

function deduction(kind: DeductionKind, rows: readonly { address: string; amount: bigint }[]): Deduction {
  let amount = 0n;
  for (const r of rows) amount += r.amount;
  return { kind, addresses: [...new Set(rows.map((r) => r.address))].sort(), amountRaw: amount };
}

export function circulatingOnchain(totalRaw: bigint, d: DeductionSources): CirculatingOnchain {
  const seen = new Set<string>();
  const once = (rows: readonly { address: string; amount: bigint }[]) =>
    rows.filter((r) => {
      if (seen.has(r.address)) return false;
      seen.add(r.address);
      return true;
    });
  const deductions = [
    deduction('vesting_locked', once(d.vesting.map((v) => ({ address: v.address, amount: v.lockedRaw })))),
    deduction('unclaimed_airdrop', once(d.distributors.map((v) => ({ address: v.address, amount: v.balanceRaw })))),
    deduction('treasury', once(d.treasury.map((v) => ({ address: v.address, amount: v.balanceRaw })))),
    deduction('burn', once(d.burn.map((v) => ({ address: v.address, amount: v.balanceRaw })))),
  ];
  let circulating = totalRaw;
  for (const x of deductions) circulating -= x.amountRaw;
  return { totalRaw, circulatingRaw: circulating, deductions };
}

export interface Divergence {
  /** (reported − on-chain) / on-chain: a fraction. */
  readonly relative: number;
  readonly flagged: boolean;
}

/** Null when the on-chain figure is not positive (no ratio). */
export function divergence(onchain: number, reported: number): Divergence | null {
  if (!(onchain > 0)) return null;
  const relative = (reported - onchain) / onchain;
  return { relative, flagged: Math.abs(relative) > DIVERGENCE_FLAG };
}

/** Percent change of the total supply over 30 days; null without the earlier supply or when it was 0. */
export function inflationMonthly(totalNow: bigint, total30dAgo: bigint | null): number | null {
  if (total30dAgo === null || total30dAgo === 0n) return null;
  return ratioToFloat((totalNow - total30dAgo) * 100n, total30dAgo);
}

/** Burned in 30 days as a percent of the total supply 30 days before. */
export function burnRateMonthly(burned30d: bigint | null, total30dAgo: bigint | null): number | null {
  if (burned30d === null || total30dAgo === null || total30dAgo === 0n) return null;
  return ratioToFloat(burned30d * 100n, total30dAgo);
}

export function fullyDilutedValuation(price: number, maxSupply: number | null, totalSupply: number): number {
  return price * (maxSupply ?? totalSupply);
}

export interface Reconciliation {
  /** Σ of the replayed balances (raw), the zero address left out. */
  readonly replayTotalRaw: bigint;
  /** `totalSupply()` at the block. */
  readonly totalSupplyRaw: bigint;
  /** replay − totalSupply(). */
  readonly differenceRaw: bigint;
  readonly agrees: boolean;
  /** The total the figures use: always `totalSupply()`, the contract's own view. */
  readonly used: 'total_supply';
}

/**
 * The replay of `Transfer` logs against `totalSupply()`: a token whose supply moves without a `Transfer` (a rebase,
 * a mint that logs nothing) disagrees. The figures then use `totalSupply()` and the balances the caller took from
 * `balanceOf()` snapshots; the record says so with the difference.
 */
export function reconcile(replayBalances: readonly { address: string; balance: bigint }[], totalSupplyRaw: bigint) {
  let sum = 0n;
  for (const b of replayBalances) if (b.address !== '0x0000000000000000000000000000000000000000') sum += b.balance;
  const r: Reconciliation = {
    replayTotalRaw: sum,
    totalSupplyRaw,
    differenceRaw: sum - totalSupplyRaw,
    agrees: sum === totalSupplyRaw,
    used: 'total_supply',
  };
  return r;
}
