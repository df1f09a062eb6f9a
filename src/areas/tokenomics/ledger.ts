/**
 * The holder ledger (pure): balances kept from `Transfer`s. The ingest applies each range's transfers to the stored
 * balances (`balanceDeltas`); the computation turns the balances at the ledger's block back to an earlier block by
 * taking away what moved after it (`balancesBefore`), so a past day's end costs the transfers since then, not a
 * replay of the token's history.
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

/** The net change of every address the transfers touch (the zero address left out); zero changes kept out too. */
export function balanceDeltas(transfers: readonly LedgerTransfer[]): Map<string, bigint> {
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
 * The balances at the end of `block`, from the balances at a later ledger block and the transfers between them:
 * every transfer in a block after `block` is taken away. Transfers at or before `block` are ignored, so the caller
 * may pass the whole retained window.
 */
export function balancesBefore(
  current: ReadonlyMap<string, bigint>,
  transfers: readonly LedgerTransfer[],
  block: number,
): Map<string, bigint> {
  return withDeltas(current, balanceDeltas(transfers.filter((t) => t.blockNumber > block)), -1);
}

/** Σ of the ledger's balances: minted less burnt when the replay is complete. */
export function replayedSupply(balances: ReadonlyMap<string, bigint>): bigint {
  let s = 0n;
  for (const v of balances.values()) s += v;
  return s;
}
