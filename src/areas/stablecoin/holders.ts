/** Holders of the stablecoin (pure): balances replayed from its transfers, and their concentration. */
import type { StableEventFact } from './facts.js';
import { TOP_HOLDERS } from './score.js';

/** The zero address: transfers from it mint, transfers to it burn. */
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface HolderStats {
  readonly holders: number;
  /** Σ balances replayed (mints − burns). */
  readonly supply: bigint;
  readonly balances: ReadonlyMap<string, bigint>;
}

/** Replays transfers up to each of `blocks` (ascending): holders and the replayed supply at each. */
export function replayHolders(
  transfers: readonly StableEventFact[],
  blocks: readonly number[],
): Map<number, HolderStats> {
  const balances = new Map<string, bigint>();
  const out = new Map<number, HolderStats>();
  const sorted = [...new Set(blocks)].sort((a, b) => a - b);
  let i = 0;
  const capture = (block: number) => {
    let holders = 0;
    let supply = 0n;
    for (const [a, v] of balances) {
      if (a === ZERO_ADDRESS) continue;
      if (v > 0n) holders++;
      supply += v;
    }
    out.set(block, { holders, supply, balances: new Map(balances) });
  };
  for (const t of transfers) {
    const e = t.event;
    if (e.source !== 'event' || e.kind !== 'transfer') continue;
    while (i < sorted.length && sorted[i]! < t.blockNumber) capture(sorted[i++]!);
    balances.set(e.from, (balances.get(e.from) ?? 0n) - e.value);
    balances.set(e.to, (balances.get(e.to) ?? 0n) + e.value);
  }
  while (i < sorted.length) capture(sorted[i++]!);
  return out;
}

/** Holder concentration: the `TOP_HOLDERS` largest holders' share, among holders and raw. */
export interface HolderConcentration {
  /**
   * Among holders: the share of the supply that holders hold (the supply less what the excluded addresses hold)
   * that the `TOP_HOLDERS` largest of them hold. Excluded: the protocol's own contracts and escrows, and the DEX pools
   * that hold the token: exit liquidity is not a whale, and more of it must not make the holders look more spread.
   */
  readonly share: number;
  /** The same over every address and the whole supply, nothing excluded. */
  readonly rawShare: number;
  /** Addresses excluded that hold a balance. */
  readonly excluded: number;
}

export function holderConcentration(
  balances: ReadonlyMap<string, bigint>,
  exclude: ReadonlySet<string>,
): HolderConcentration | null {
  const top = (xs: bigint[]) =>
    xs
      .sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))
      .slice(0, TOP_HOLDERS)
      .reduce((s, v) => s + v, 0n);
  const share = (part: bigint, whole: bigint) => Math.min(1, Number((part * 1_000_000n) / whole) / 1e6);
  const all = [...balances.entries()].filter(([a, v]) => v > 0n && a !== ZERO_ADDRESS);
  const held = all.filter(([a]) => !exclude.has(a));
  const total = all.reduce((s, [, v]) => s + v, 0n);
  const heldTotal = held.reduce((s, [, v]) => s + v, 0n);
  if (total <= 0n || heldTotal <= 0n) return null;
  return {
    share: share(top(held.map(([, v]) => v)), heldTotal),
    rawShare: share(top(all.map(([, v]) => v)), total),
    excluded: all.length - held.length,
  };
}
