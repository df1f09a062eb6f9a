/**
 * Maker's liquidation absorption (pure), from the auction mechanism Maker has (Liquidations 2.0: the Dog and the
 * Clippers). A vault barked owes its debt times the penalty (`tab` = due × chop): the penalty is added to what the
 * auction must raise, it is no margin for anyone. The keepers' margin comes from the auction's price curve: an
 * auction starts at `buf` × the oracle price and falls along its Abacus until it must be reset, at the tail or once
 * the price is below `cusp` of the start, so the lowest price one auction reaches is buf × max(cusp, curve at tail)
 * of the market price at the kick, and a keeper who takes there and sells on the DEXs breaks even while the pools pay
 * at least that. What the auctions can absorb, per collateral type, is the least of
 * - the tab they must raise,
 * - the room the Dog leaves for it (the type's `hole` − `dirt`, and all types together within `Hole` − `Dirt`), and
 * - what the collateral's pools pay for it down to that lowest price (types of one collateral token share its pools;
 *   a collateral without pools to the quotes is routed through one intermediate token, whose pools it then shares).
 * A type the Dog names no Clipper for cannot be auctioned: its tab counts, nothing absorbs it.
 */
import { toFloat } from '../../core/decimal.js';
import type { MakerClipperState } from './facts.js';

const RAY_DECIMALS = 27;
/** The deepest move the pools are asked for (core/depth.ts takes moves in (0, 1)). */
const MAX_MOVE = 0.95;

/** One auction cycle's terms, from a Clipper's parameters and its Abacus. */
export interface AuctionTerms {
  readonly buf: number;
  readonly cusp: number;
  /** The curve at the tail as a fraction of the start price (`calc.price(RAY, tail)` / RAY). */
  readonly curveAtTail: number;
  /** The lowest auction price before a reset, as a fraction of the market price at the kick. */
  readonly lowestPrice: number;
  /** 1 − lowestPrice, at least 0: the deepest fall of the collateral's price a keeper can sell into at no loss. */
  readonly keeperMargin: number;
}

export function auctionTerms(c: MakerClipperState): AuctionTerms {
  const buf = toFloat(c.buf, RAY_DECIMALS);
  const cusp = toFloat(c.cusp, RAY_DECIMALS);
  const curveAtTail = toFloat(c.curveAtTail, RAY_DECIMALS);
  const lowestPrice = buf * Math.max(cusp, curveAtTail);
  return { buf, cusp, curveAtTail, lowestPrice, keeperMargin: Math.max(0, 1 - lowestPrice) };
}

/** One collateral type under the stress. */
export interface StressedIlk {
  readonly ilk: string;
  /**
   * The token whose pools to the quotes absorb the collateral (lowercase): the collateral itself, or the intermediate
   * it is routed through; types with one such token share its pools.
   */
  readonly gem: string;
  /** Debt liquidatable under the stress drop (DAI). */
  readonly due: number;
  /** The penalty factor (Dog chop, 1.13 = 13 %; 1 for a type the Dog does not know). */
  readonly chop: number;
  /** The type's auction room in the Dog: hole − dirt (DAI), at least 0. */
  readonly room: number;
  /** The auction's terms; null when the Dog names no Clipper for the type. */
  readonly terms: AuctionTerms | null;
  /** DAI the collateral's pools pay for it when its price may fall by `move` (null: no price). */
  readonly depth: (move: number) => number | null;
}

export interface IlkAbsorption {
  /** What the auctions must raise: due × chop (DAI). */
  readonly tab: number;
  /** DAI the pools pay down to the auction's lowest price, before other types of the token took their share. */
  readonly depth: number | null;
  /** DAI absorbed (the least of tab, room and the pools' share left); 0 without a Clipper. */
  readonly absorbable: number;
}

export interface MakerAbsorption {
  readonly tab: number;
  readonly absorbable: number;
  readonly ilks: ReadonlyMap<string, IlkAbsorption>;
}

/**
 * Allocates the pools and the Dog's global room to the types in order (the IlkRegistry's). `globalRoom`: Hole − Dirt
 * (DAI), at least 0. Null when a type's pools cannot be valued (no price): the absorption is then unknown.
 */
export function makerAbsorption(ilks: readonly StressedIlk[], globalRoom: number): MakerAbsorption | null {
  const usedByGem = new Map<string, number>();
  let roomLeft = Math.max(0, globalRoom);
  let tab = 0;
  let absorbable = 0;
  const out = new Map<string, IlkAbsorption>();
  for (const x of ilks) {
    const t = x.due * x.chop;
    tab += t;
    if (!x.terms) {
      out.set(x.ilk, { tab: t, depth: null, absorbable: 0 });
      continue;
    }
    const move = Math.min(x.terms.keeperMargin, MAX_MOVE);
    const depth = move > 0 ? x.depth(move) : 0;
    if (depth === null) return null;
    const used = usedByGem.get(x.gem) ?? 0;
    const a = t > 0 ? Math.max(0, Math.min(t, x.room, roomLeft, depth - used)) : 0;
    usedByGem.set(x.gem, used + a);
    roomLeft -= a;
    absorbable += a;
    out.set(x.ilk, { tab: t, depth, absorbable: a });
  }
  return { tab, absorbable, ilks: out };
}
