import type { AccountCarry, LendingEventKind, Participants } from './facts.js';

/**
 * Who took part in a market, kept from its events (pure): the full replay (repo's `participants`) and the
 * incremental step of a snapshot (issue 30) apply the same rule to event rows.
 */

/** The kinds that make an account a participant: supplied (Supply, aToken received, Morpho collateral), borrowed. */
export const PARTICIPATING_KINDS: readonly LendingEventKind[] = ['supply', 'transfer', 'supply_collateral', 'borrow'];

/** The fields of an event row the rule reads. */
export interface ParticipationRow {
  readonly kind: string;
  readonly market_id: string;
  readonly account: string;
  /** A transfer's sender (needed by the incremental step only). */
  readonly actor?: string;
  readonly asset: string;
}

type Sets = { supplied: Set<string>; borrowed: Set<string> };

const keyOf = (marketId: string, account: string) => (marketId ? `${marketId}:${account}` : account);

function addParticipation(accounts: Map<string, Sets>, r: ParticipationRow): void {
  if (!PARTICIPATING_KINDS.includes(r.kind as LendingEventKind)) return;
  const key = keyOf(r.market_id, r.account);
  let entry = accounts.get(key);
  if (!entry) {
    entry = { supplied: new Set(), borrowed: new Set() };
    accounts.set(key, entry);
  }
  (r.kind === 'borrow' ? entry.borrowed : entry.supplied).add(r.asset);
}

/** The participants named by event rows (Morpho keys are `<market id>:<account>`). */
export function participantsOf(rows: Iterable<ParticipationRow>): Participants {
  const accounts = new Map<string, Sets>();
  for (const r of rows) addParticipation(accounts, r);
  return { accounts };
}

/**
 * Which participants a snapshot reads from the chain: all of them without `base` (a full read), else those an event
 * touched since the base snapshot, those new since, and those whose carry says they are always read; the others are
 * carried forward from `base` (their state is derived from it and the market's state at the block).
 */
export interface SnapshotAccounts {
  readonly participants: Participants;
  readonly base?: Readonly<Record<string, AccountCarry>>;
  readonly touched?: ReadonlySet<string>;
}

/** Whether the snapshot reads the account under `key` (see `SnapshotAccounts`). */
export function readsAccount(accounts: SnapshotAccounts, key: string): boolean {
  if (!accounts.base) return true;
  const carried = accounts.base[key];
  return !carried || carried.alwaysRead === true || accounts.touched?.has(key) === true;
}

/**
 * The incremental step: the base snapshot's participants extended by the rows of the events after it (up to the
 * new block), and the accounts those events touched — each event's account, and a transfer's sender too.
 */
export function incrementalAccounts(
  base: Readonly<Record<string, AccountCarry>>,
  since: Iterable<ParticipationRow>,
): SnapshotAccounts {
  const accounts = new Map<string, Sets>();
  for (const [key, c] of Object.entries(base)) {
    accounts.set(key, { supplied: new Set(c.supplied), borrowed: new Set(c.borrowed) });
  }
  const touched = new Set<string>();
  for (const r of since) {
    if (r.kind === 'create_market') continue;
    touched.add(keyOf(r.market_id, r.account));
    if (r.kind === 'transfer' && r.actor) touched.add(keyOf(r.market_id, r.actor));
    addParticipation(accounts, r);
  }
  return { participants: { accounts }, base, touched };
}
