/**
 * The holder ledger (pure): balances kept from `Transfer`s. The ingest applies each range's transfers to the stored
 * balances (`balanceDeltas`); the computation turns the balances at the ledger's block back to an earlier block by
 * taking away what moved after it (`withDeltas`, sign −1; `balancesBefore` for the moved addresses only), so a past
 * day's end costs the transfers since then, not a replay of the token's history.
 *
 * The zero address is never a holder: a transfer from it mints, to it burns, and the ledger keeps no balance for it,
 * so the sum of the ledger's balances is what was minted less what was burnt (`replayedSupply`), which a complete
 * replay makes equal to `totalSupply()`.
 */

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface LedgerTransfer {
  /** Lowercase addresses. */
  readonly from: string;
  readonly to: string;
  /** Raw units. */
  readonly value: bigint;
  readonly blockNumber: number;
}

/** What a balance change needs of a transfer. */
export type Moved = Pick<LedgerTransfer, 'from' | 'to' | 'value'>;

/** The net change of every address the transfers touch (the zero address left out); zero changes kept out too. */
export function balanceDeltas(transfers: readonly Moved[]): Map<string, bigint> {
  const deltas = new Map<string, bigint>();
  const add = (address: string, v: bigint) => {
    if (address === ZERO_ADDRESS) return;
    deltas.set(address, (deltas.get(address) ?? 0n) + v);
  };
  for (const t of transfers) {
    add(t.from, -t.value);
    add(t.to, t.value);
  }
  for (const [a, v] of deltas) if (v === 0n) deltas.delete(a);
  return deltas;
}

/** `balances` with `deltas` added (`sign` −1 takes them away); addresses that reach zero leave the map. */
export function withDeltas(
  balances: ReadonlyMap<string, bigint>,
  deltas: ReadonlyMap<string, bigint>,
  sign: 1 | -1 = 1,
): Map<string, bigint> {
  const out = new Map(balances);
  for (const [a, d] of deltas) {
    const v = (out.get(a) ?? 0n) + (sign === 1 ? d : -d);
    if (v === 0n) out.delete(a);
    else out.set(a, v);
  }
  return out;
}

/**
 * What the addresses `transfers` moved held before them (balance after less the net each received; 0n for one that
 * held nothing), from `balances`, every balance after them (an address absent held nothing). The addresses the
 * transfers did not move (net) are left out: they held the same. One pass over `balances`, no map of every holder
 * (the computation's holders 24 hours before, compute.ts).
 */
export function balancesBefore(
  balances: Iterable<{ readonly address: string; readonly balance: bigint }>,
  transfers: readonly Moved[],
): Map<string, bigint> {
  const deltas = balanceDeltas(transfers);
  const out = new Map<string, bigint>();
  if (deltas.size === 0) return out;
  for (const b of balances) {
    const d = deltas.get(b.address);
    if (d !== undefined) out.set(b.address, b.balance - d);
  }
  for (const [address, d] of deltas) if (!out.has(address)) out.set(address, -d);
  return out;
}

/** Σ of the ledger's balances: minted less burnt when the replay is complete. */
export function replayedSupply(balances: ReadonlyMap<string, bigint>): bigint {
  let s = 0n;
  for (const v of balances.values()) s += v;
  return s;
}
