/**
 * The borrowers' and loopers' positions on the world's Aave-design markets, drawn once when the world is created
 * (from the `lending` stream): who borrows what, aiming at which health factor. Positions start closed: the actors
 * open them (actors.ts).
 */
import type { AgentState } from '../../chain/agent.js';
import type { ManifestLending, ManifestToken, WorldManifest } from '../../world/manifest.js';
import { Rng } from '../../world/random.js';
import type { LendingPositionState, LendingRuntimeState } from '../../world/state.js';
import { borrowerKind } from '../lending/positions.js';
import { EMODE_ASSETS, reserveParams } from './markets.js';

/** Borrower kinds: share of borrowers and the health factor range aimed at. */
const BORROWER_KINDS = [
  { kind: 'safe', share: 0.35, hf: [2, 4] },
  { kind: 'leveraged', share: 0.35, hf: [1.2, 1.5] },
  { kind: 'near', share: 0.3, hf: [1.03, 1.1] },
] as const;

/** Loopers' target health factors are spread evenly over this range (plus jitter), so the depeg catches the lowest. */
const LOOPER_HF = [1.045, 1.135] as const;

interface ReserveInfo {
  readonly symbol: string;
  readonly ltv: number;
  readonly lt: number;
  readonly stable: boolean;
}

function marketReserves(market: ManifestLending['aave'][number], tokens: readonly ManifestToken[]): ReserveInfo[] {
  return market.reserves.flatMap((r) => {
    const p = reserveParams(r.symbol);
    if (!p) return [];
    const kind = tokens.find((t) => t.symbol === r.symbol)?.kind;
    return [{ symbol: r.symbol, ltv: p.ltvBps / 1e4, lt: p.liquidationThresholdBps / 1e4, stable: kind === 'stable' }];
  });
}

/**
 * Draws the Aave positions (who borrows what, aiming at which health factor) for the agents the world's cast
 * created with the lending roles, from the `lending` stream. Positions start closed: the scenario opens them.
 */
export function initialAaveState(
  manifest: WorldManifest,
  seed: number,
  agents: readonly AgentState[],
): LendingRuntimeState {
  const rng = Rng.fromSeed(seed, 'lending');
  const markets = manifest.lending?.aave ?? [];
  const positions: LendingPositionState[] = [];
  const borrowers = agents.flatMap((a, i) => (a.role === 'borrower' ? [i] : []));
  const loopers = agents.flatMap((a, i) => (a.role === 'looper' ? [i] : []));
  const perMarket = Math.ceil(borrowers.length / Math.max(1, markets.length));
  markets.forEach((market, m) => {
    const reserves = marketReserves(market, manifest.tokens);
    const mine = borrowers.slice(m * perMarket, (m + 1) * perMarket);
    mine.forEach((owner, k) => {
      const kind = borrowerKind(BORROWER_KINDS, k, mine.length);
      const collaterals = reserves.filter(
        (r) => r.lt > 0 && (kind.kind !== 'near' || r.lt / r.ltv < kind.hf[1] / 1.02),
      );
      const collateral = rng.pick(collaterals);
      const debts = reserves.filter((r) => r.symbol !== collateral.symbol && r.stable !== collateral.stable);
      const debt = rng.pick(debts.length ? debts : reserves.filter((r) => r.symbol !== collateral.symbol));
      const lo = Math.max(kind.hf[0], (collateral.lt / collateral.ltv) * 1.01);
      // Every third safe or leveraged borrower also posts a second collateral of the same class (volatile or
      // stable) as the first; chosen without a draw, so the stream (and every other position) stays as it was.
      const second =
        kind.kind !== 'near' && k % 3 === 1
          ? reserves.find(
              (r) =>
                r.lt > 0 &&
                r.stable === collateral.stable &&
                r.symbol !== collateral.symbol &&
                r.symbol !== debt.symbol,
            )
          : undefined;
      positions.push({
        owner,
        protocol: market.protocol,
        collateral: collateral.symbol,
        ...(second ? { secondCollateral: second.symbol } : {}),
        debt: debt.symbol,
        kind: kind.kind,
        targetHf: rng.uniform(lo, Math.max(lo, kind.hf[1])),
        open: false,
        collateralRaw: '0',
        debtRaw: '0',
      });
    });
    const hasLoop = EMODE_ASSETS.every((s) => reserves.some((r) => r.symbol === s));
    if (!hasLoop) return;
    const perMarketLoopers = Math.ceil(loopers.length / markets.length);
    const mineLoopers = loopers.slice(m * perMarketLoopers, (m + 1) * perMarketLoopers);
    mineLoopers.forEach((owner, k) => {
      const step = (LOOPER_HF[1] - LOOPER_HF[0]) / Math.max(1, mineLoopers.length);
      positions.push({
        owner,
        protocol: market.protocol,
        collateral: 'wstETH',
        debt: 'WETH',
        kind: 'looper',
        targetHf: LOOPER_HF[0] + step * (k + rng.uniform(0, 0.5)),
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
