/**
 * What every lending protocol's actors share about positions: the size of the lending cast, and when the
 * liquidators re-read a position.
 */
import type { LendingPositionState } from '../../world/state.js';

/** The lending cast: counts at scale 1 and floors (suppliers shared by the markets; borrowers and loopers per market). */
export const LENDING_CAST = {
  suppliers: { perScale: 24, min: 6 },
  borrowers: { perScale: 40, min: 10 },
  loopers: { perScale: 8, min: 3 },
  liquidators: 2,
} as const;

export function lendingCastCounts(scale: number, markets: number) {
  const n = (c: { perScale: number; min: number }) => Math.max(c.min, Math.round(c.perScale * scale));
  return {
    suppliers: n(LENDING_CAST.suppliers),
    borrowers: n(LENDING_CAST.borrowers) * markets,
    loopers: n(LENDING_CAST.loopers) * markets,
    liquidators: LENDING_CAST.liquidators,
  };
}

/**
 * Liquidators re-read a position at every step when its health factor was below this, or when its last reading is
 * an hour old, or after its owner acted on it; otherwise they skip it. Hourly steps read everything; 5-second live
 * steps only the positions an hour of market moves could bring below 1 (from 1.3 that takes a 23 % move).
 */
const RECHECK_HF = 1.3;
const RECHECK_SECONDS = 3600;

/** Whether the liquidators read this position at `now` (deterministic: it depends on the saved state only). */
export function needsRead(p: LendingPositionState, now: number): boolean {
  return p.readAt === undefined || p.hf === undefined || p.hf < RECHECK_HF || now - p.readAt >= RECHECK_SECONDS;
}

/** A health factor as a finite JSON number (no debt: Aave answers uint max). */
export function finiteHf(hf: number): number {
  return Number.isFinite(hf) ? Math.min(hf, 1e6) : 1e6;
}

/**
 * The kind of the `k`-th of a market's `n` borrowers: kinds in proportion to their shares, in a fixed order over
 * the market's borrowers (so each kind is present even in a small world; no random draw).
 */
export function borrowerKind<Kinds extends readonly [{ readonly share: number }, ...{ readonly share: number }[]]>(
  kinds: Kinds,
  k: number,
  n: number,
): Kinds[number] {
  const u = (k + 0.5) / n;
  let acc = 0;
  return (
    kinds.find((b) => {
      acc += b.share;
      return acc >= u;
    }) ?? kinds[0]
  );
}
