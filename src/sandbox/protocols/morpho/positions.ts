/**
 * The Morpho borrowers' positions, drawn once when the world is created (from the `morpho` stream): one market
 * each, a kind and the health factor it aims at. Positions start closed: the actors open them (actors.ts).
 */
import type { AgentState } from '../../chain/agent.js';
import type { ManifestMorpho } from '../../world/manifest.js';
import { Rng } from '../../world/random.js';
import type { LendingPositionState, MorphoRuntimeState } from '../../world/state.js';
import { borrowerKind } from '../lending/positions.js';
import { MORPHO_PLAN } from './deploy.js';

/** Borrowers per market at scale 1, and the floor. */
export const MORPHO_BORROWERS = { perScale: 12, min: 4 } as const;

/** Kinds in fixed proportions, with the health factor (collateral × LLTV / debt) aimed at. */
const KINDS = [
  { kind: 'safe', share: 0.35, hf: [2, 3] },
  { kind: 'leveraged', share: 0.35, hf: [1.15, 1.4] },
  { kind: 'near', share: 0.3, hf: [1.03, 1.08] },
] as const;

export function morphoBorrowerCount(scale: number, markets: number): number {
  return Math.max(MORPHO_BORROWERS.min, Math.round(MORPHO_BORROWERS.perScale * scale)) * markets;
}

/** Draws the Morpho positions of the borrowers the world's cast created for it (from the `morpho` stream). */
export function initialMorphoState(
  morpho: ManifestMorpho,
  seed: number,
  borrowers: readonly number[],
): MorphoRuntimeState {
  const rng = Rng.fromSeed(seed, 'morpho');
  const positions: LendingPositionState[] = [];
  const per = Math.ceil(borrowers.length / Math.max(1, morpho.markets.length));
  morpho.markets.forEach((market, m) => {
    const mine = borrowers.slice(m * per, (m + 1) * per);
    mine.forEach((owner, k) => {
      const kind = borrowerKind(KINDS, k, mine.length);
      positions.push({
        owner,
        protocol: 'morpho',
        marketId: market.id,
        collateral: market.collateralSymbol,
        debt: MORPHO_PLAN.loan,
        kind: kind.kind,
        targetHf: rng.uniform(kind.hf[0], kind.hf[1]),
        open: false,
        collateralRaw: '0',
        debtRaw: '0',
      });
    });
  });
  return {
    rng: rng.state(),
    seeded: false,
    supplies: {},
    positions,
    stats: { supplies: 0, withdrawals: 0, borrows: 0, repays: 0, liquidations: 0, liquidationsMissed: 0 },
  };
}

/** The agents that borrow on Morpho (appended last to the world's cast), by role. */
export function morphoBorrowerIndices(agents: readonly AgentState[], count: number): number[] {
  const borrowers = agents.flatMap((a, i) => (a.role === 'borrower' ? [i] : []));
  return borrowers.slice(borrowers.length - count);
}
