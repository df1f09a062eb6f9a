/** MakerDAO's state figures from a Vat snapshot (pure): collateral types, debt, PSMs and the liquidation stress. */
import { toFloat } from '../../core/decimal.js';
import { pairSellDepthUsd } from '../../core/depth.js';
import type { GapReason } from '../../core/gaps.js';
import { DAY } from '../../core/time.js';
import type { CollateralKind, MakerIlkState, MakerSnapshot, StableEventFact } from './facts.js';
import {
  distribution,
  kindShares,
  latestEvent,
  liquidatable,
  type PositionRow,
  r,
  rn,
  type StateFigures,
} from './figures.js';
import { auctionTerms, makerAbsorption, type StressedIlk } from './maker-absorption.js';
import { collateralPriceFields, type DexView, type Prices, pairStates } from './market.js';
import type { CollateralEntry } from './schema.js';
import { EXIT_MOVE, STRESS_DROP } from './score.js';

const WAD = 10n ** 18n;
const RAY = 10n ** 27n;
const SECONDS_PER_YEAR = 365 * DAY;

/**
 * The kind of a Maker collateral type, by name and adapter class: peg stability modules (`PSM-…`, or an ilk a
 * Chainlog PSM names), real-world assets (`RWA…`), credit lines (direct deposit modules `DIRECT-…`, teleport
 * `TELEPORT-…`, and any other non-auction adapter, class ≥ 3), else crypto (auctioned through a Clipper or Flipper).
 */
export function classifyIlk(ilk: Pick<MakerIlkState, 'ilk' | 'class'>, psmIlks: ReadonlySet<string>): CollateralKind {
  const name = ilk.ilk.toUpperCase();
  if (name.startsWith('PSM-') || psmIlks.has(ilk.ilk)) return 'psm';
  if (name.startsWith('RWA')) return 'rwa';
  if (name.startsWith('DIRECT-') || name.startsWith('TELEPORT-') || ilk.class >= 3) return 'credit-line';
  return 'crypto';
}

/** Yearly rate of a per-second ray factor (Jug duty + base − 1), compounded: e^{year · ln(1 + x)} − 1. */
export function yearlyRate(perSecondRay: bigint): number {
  const x = toFloat(perSecondRay - RAY, 27);
  return Math.expm1(SECONDS_PER_YEAR * Math.log1p(x));
}

export function makerFigures(
  s: MakerSnapshot,
  events: readonly StableEventFact[],
  prices: Prices,
  view: DexView,
  stableUsdPrice: number | null,
  absorbQuotes: readonly string[],
): StateFigures {
  const t = s.timestamp;
  const psmIlks = new Set(s.psms.map((p) => p.ilk));
  // Where a PSM keeps its gems (its GemJoin, or a LitePSM's pocket), read since 1.8.0: its type's amount. Before,
  // the type's join balance (a LitePSM's registry entry names no join).
  const psmHeld = new Map<string, number | null>();
  for (const p of s.psms) {
    if (p.held === undefined) continue;
    const sum = psmHeld.get(p.ilk);
    psmHeld.set(p.ilk, p.held === null || sum === null ? null : (sum ?? 0) + toFloat(p.held, p.dec ?? 18));
  }
  const urnsByIlk = new Map<string, { ink: bigint; art: bigint }[]>();
  for (const u of s.urns) {
    const list = urnsByIlk.get(u.ilk) ?? [];
    urnsByIlk.set(u.ilk, list);
    list.push(u);
  }
  const rows: { kind: CollateralKind; debt: number; usd: number | null; mat: number }[] = [];
  let stressGap: GapReason | null = null;
  // Snapshots before stablecoin.liquidity@1.5.0 lack the Dog's room and the Clippers: the absorption is unknown.
  if (s.Hole === undefined || s.Dirt === undefined) stressGap = 'no_data';
  const stressed: StressedIlk[] = [];
  const auctions = new Map<string, NonNullable<CollateralEntry['auction']>>();
  const collaterals: CollateralEntry[] = s.ilks.map((x) => {
    const kind = classifyIlk(x, psmIlks);
    const debtRad = x.Art * x.rate;
    const debt = toFloat(debtRad, 45);
    const held = psmHeld.get(x.ilk);
    const joined = x.joinBalance === null ? null : toFloat(x.joinBalance, x.dec);
    const amount = held === undefined ? joined : held;
    const poke = latestEvent(
      events,
      t,
      (e): e is StableEventFact & { event: { kind: 'poke'; ilk: string; val: bigint } } =>
        e.event.source === 'event' && e.event.kind === 'poke' && e.event.ilk === x.ilk,
    );
    // The oracle's last price: Spot's Poke value, else spot × mat × par (the Vat's spot is price / mat / par).
    const oracleRaw = poke ? (poke.event.val * RAY) / WAD : (x.spot * x.mat) / RAY;
    const oracleUsd = toFloat((oracleRaw * s.par) / RAY, 27);
    const own = {
      priceUsd: oracleUsd,
      // Without a stored Poke the price's age is unknown: a stale oracle answer, at its low confidence.
      updatedAt: poke?.timestamp ?? 0,
      ref: x.pip,
    };
    const price = prices.price(x.gem, t, own);
    const priced = collateralPriceFields(price, own);
    const usd = amount === null || price === null ? null : amount * price.price_usd;
    const mat = toFloat(x.mat, 27);
    rows.push({ kind, debt, usd, mat });
    const gaps: Record<string, GapReason> = {};
    const list = urnsByIlk.get(x.ilk) ?? [];
    const artSum = list.reduce((a, u) => a + u.art, 0n);
    // The vaults read are all of the ilk's exactly when their art sums to the Vat's Art.
    const complete = artSum === x.Art;
    const positions: PositionRow[] = list.map((u) => ({
      debt: toFloat(u.art * x.rate, 45),
      collateral: toFloat(u.ink, 18),
    }));
    let dist: CollateralEntry['distribution'] = [];
    let liq: CollateralEntry['liquidatable'] = [];
    // The type's auction (its terms whatever the stress; the stressed figures once the allocation ran).
    const terms = kind === 'crypto' && x.clipper ? auctionTerms(x.clipper) : null;
    if (kind === 'crypto' && x.clipper === undefined) stressGap ??= 'no_data';
    const room = x.hole > x.dirt ? toFloat(x.hole - x.dirt, 45) : 0;
    if (x.clipper && terms) {
      const c = x.clipper;
      auctions.set(x.ilk, {
        clipper: x.clip,
        calc: c.calc,
        buf: r(terms.buf),
        tail: Number(c.tail),
        cusp: r(terms.cusp),
        curve_at_tail: r(terms.curveAtTail),
        lowest_price: r(terms.lowestPrice),
        keeper_margin: r(terms.keeperMargin),
        room: r(room),
        stressed_tab: null,
        depth: null,
        absorbable: null,
      });
    }
    if (kind !== 'crypto') {
      gaps.distribution = 'not_applicable';
      gaps.liquidatable = 'not_applicable';
    } else if (!complete) {
      gaps.distribution = 'no_data';
      gaps.liquidatable = 'no_data';
      stressGap ??= 'no_data';
    } else if (price === null) {
      gaps.distribution = 'no_price';
      gaps.liquidatable = 'no_price';
      stressGap ??= 'no_price';
    } else {
      // Collateral ratios against par: a vault is unsafe when ink × price < art × rate × mat × par.
      const par = toFloat(s.par, 27);
      dist = distribution(positions, price.price_usd / par);
      liq = liquidatable(positions, price.price_usd / par, () => mat);
      const due = liq.find((l) => l.price_drop === STRESS_DROP)!.debt;
      stressed.push({
        ilk: x.ilk,
        due,
        // A type the Dog does not know has no penalty (chop 0): its debt is still owed, × 1.
        chop: x.chop > 0n ? toFloat(x.chop, 18) : 1,
        room,
        terms,
        // What the collateral's pools against USD stablecoins and DAI pay for it (at the quotes' prices, in DAI),
        // directly or, where it has no such pool, through one intermediate token (LINK → WETH → USDC).
        ...collateralMarket(
          x.gem,
          (token, q, move) => {
            const states = pairStates(view, token, q, t).map((p) => p.state);
            if (!states.length) return null;
            const d = pairSellDepthUsd(states, token, q, move, {});
            if (!absorbQuotes.includes(q)) return { tokens: d.tokens, received: d.received };
            const quoteUsd = q === s.token ? stableUsdPrice : (prices.dex(q, t)?.priceUsd ?? null);
            return {
              tokens: d.tokens,
              received: quoteUsd === null ? 0 : (d.received * quoteUsd) / (stableUsdPrice ?? 1),
            };
          },
          view.pools,
          absorbQuotes,
        ),
      });
    }
    if (amount === null) gaps.amount = 'source_error';
    if (price === null) gaps.price_usd = 'no_price';
    if (usd === null) gaps.collateral_usd = amount === null ? 'source_error' : 'no_price';
    const collateralization = usd === null || debt <= 0 ? null : usd / debt;
    if (collateralization === null)
      gaps.collateralization = debt <= 0 ? 'no_positions' : (gaps.collateral_usd ?? 'no_price');
    // Jug.drip compounds base + duty per second.
    const fee = yearlyRate(x.duty + s.base);
    return {
      ilk: x.ilk,
      name: x.name,
      symbol: x.symbol,
      kind,
      collateral_token_address: x.gem,
      amount: rn(amount),
      ...priced.fields,
      collateral_usd: rn(usd, 2),
      debt: r(debt),
      collateralization: rn(collateralization),
      min_collateralization: r(mat),
      critical_collateralization: null,
      liquidation_penalty: x.chop > 0n ? r(toFloat(x.chop, 18) - 1) : null,
      debt_ceiling: r(toFloat(x.line, 45)),
      stability_fee: r(fee),
      borrowing_rate: null,
      positions: complete ? positions.filter((p) => p.debt > 0).length : null,
      distribution: dist,
      liquidatable: liq,
      auction: auctions.get(x.ilk) ?? null,
      gap_reasons: {
        ...priced.gaps,
        ...gaps,
        ...auctionGaps(x, kind, auctions.has(x.ilk)),
        critical_collateralization: 'not_applicable',
        borrowing_rate: 'not_applicable',
        ...(x.chop > 0n ? {} : { liquidation_penalty: 'not_applicable' as const }),
        ...(complete ? {} : { positions: 'no_data' as const }),
      },
    };
  });
  const absorption = stressGap
    ? null
    : makerAbsorption(stressed, s.Hole! > s.Dirt! ? toFloat(s.Hole! - s.Dirt!, 45) : 0);
  if (!stressGap && absorption === null) stressGap = 'no_price';
  const stress = stressGap ? null : absorption;
  for (const c of collaterals) {
    const served = c.auction;
    const a = c.ilk === undefined ? undefined : absorption?.ilks.get(c.ilk);
    if (!served) continue;
    if (a) {
      served.stressed_tab = r(a.tab);
      served.depth = a.depth === null ? null : r(a.depth);
      served.absorbable = r(a.absorbable);
      continue;
    }
    // The stressed figures are unknown with the stress (this type's liquidation table, or another type's).
    const why = (c.gap_reasons.liquidatable as GapReason | undefined) ?? stressGap ?? 'no_data';
    for (const f of ['stressed_tab', 'depth', 'absorbable']) c.gap_reasons[`auction.${f}`] = why;
  }
  const totalDebt = toFloat(s.debt, 45);
  // Vat.debt = Σ Art × rate (backed by collateral) + vice (no collateral backs it): served apart, so that the
  // collateral breakdown, which covers the backed part, and the system's own debt add up to the total.
  const backedRad = s.ilks.reduce((a, x) => a + x.Art * x.rate, 0n);
  const viceRad = s.vice ?? s.debt - backedRad;
  const surplusRad = s.vowDai == null || s.vowSin == null ? null : s.vowDai - s.vowSin;
  const crypto = rows.filter((x) => x.kind === 'crypto' && (x.debt > 0 || x.usd !== 0));
  const cryptoDebt = crypto.reduce((a, x) => a + x.debt, 0);
  const cryptoUnpriced = crypto.some((x) => x.usd === null);
  const cryptoUsd = crypto.reduce((a, x) => a + (x.usd ?? 0), 0);
  const collateralRatio = cryptoUnpriced || cryptoDebt <= 0 ? null : cryptoUsd / cryptoDebt;
  // Each PSM's gems at its type's price (since 1.8.0, where it keeps them); before, its type's collateral value.
  const psmRows = s.psms.map((p) => {
    const ilk = collaterals.find((c) => c.ilk === p.ilk);
    if (p.held === undefined) return { p, usd: ilk?.collateral_usd ?? null };
    const price = ilk?.price_usd ?? null;
    return { p, usd: p.held === null || price === null ? null : toFloat(p.held, p.dec ?? 18) * price };
  });
  // No PSM at all is not a PSM holding nothing: null with no_members (the record says so), never 0.
  const psmHoldingsUsd =
    psmRows.length === 0 || psmRows.some((x) => x.usd === null) ? null : psmRows.reduce((a, x) => a + (x.usd ?? 0), 0);
  // The PSMs back exits only where buying their collateral costs less than the exit move.
  const backstopUsd = psmRows.some((x) => x.usd === null)
    ? null
    : psmRows.reduce((a, x) => a + (x.p.tout === null || toFloat(x.p.tout, 18) <= EXIT_MOVE ? (x.usd ?? 0) : 0), 0);
  const circulatingRaw = s.totalSupply - s.protocolHeld;
  const owners = new Set(s.urns.filter((u) => u.art > 0n).map((u) => u.urn));
  return {
    collaterals,
    kindShares: kindShares(rows, totalDebt, toFloat(viceRad, 45)),
    totalSupply: toFloat(s.totalSupply, 18),
    circulating: toFloat(circulatingRaw, 18),
    circulatingRaw,
    totalDebt,
    backedDebt: toFloat(backedRad, 45),
    systemDebt: toFloat(viceRad, 45),
    surplusBuffer: surplusRad === null ? null : toFloat(surplusRad, 45),
    totalCollateralUsd: rows.some((x) => x.usd === null) ? null : rows.reduce((a, x) => a + (x.usd ?? 0), 0),
    collateralRatio,
    collateralRatioGap: collateralRatio !== null ? null : cryptoDebt <= 0 ? 'no_positions' : 'no_price',
    liquidationRatio: cryptoDebt > 0 ? crypto.reduce((a, x) => a + x.mat * x.debt, 0) / cryptoDebt : null,
    positionsOwners: owners.size,
    psmHoldingsUsd,
    psmFees: s.psms.map((p) => ({
      ilk: p.ilk,
      tin: p.tin === null ? null : r(toFloat(p.tin, 18)),
      tout: p.tout === null ? null : r(toFloat(p.tout, 18)),
    })),
    stress:
      stress === null ? null : { liquidatable: stress.tab, absorbableUsd: stress.absorbable * (stableUsdPrice ?? 1) },
    stressGap,
    backstopUsd,
    backstopGap: backstopUsd === null ? (s.psms.some((p) => p.held === null) ? 'source_error' : 'no_price') : null,
    redeemableWithinExit: null,
    liquity: null,
    exclude: new Set(Object.values(s.addresses)),
  };
}

/** Why a type has no auction served: not auctioned (not crypto, no Clipper on the Dog), or read before 1.5.0. */
function auctionGaps(x: MakerIlkState, kind: CollateralKind, served: boolean): Record<string, GapReason> {
  if (served) return {};
  if (kind !== 'crypto' || x.clipper === null) return { auction: 'not_applicable' };
  return { auction: 'no_data' };
}

/**
 * Selling `token` into its pools with `quote` until its price there falls by `move`: the tokens sold and what they
 * fetch (in DAI when `quote` is one of the quotes, else in `quote`'s units); null when no pool holds the pair.
 */
export type Sell = (token: string, quote: string, move: number) => { tokens: number; received: number } | null;

/**
 * Where a collateral is sold and how deep: into its own pools against the quotes (`market` the collateral itself), or,
 * when it has none, through the intermediate token that pays most (`market` that token, whose pools to the quotes the
 * collateral then shares with that token's own types). A route's two hops each move by 1 − √(1 − move), so that the
 * collateral's price in the quotes falls by at most `move`; the second hop sells what the first received, or what
 * its pools take within the hop's move, pro rata (a lower bound: the first units sell best).
 */
export function collateralMarket(
  gem: string,
  sell: Sell,
  pools: readonly { token0: string; token1: string }[],
  quotes: readonly string[],
): { gem: string; depth: (move: number) => number } {
  const direct = (token: string, move: number) => {
    let dai = 0;
    let any = false;
    for (const q of quotes) {
      const d = sell(token, q, move);
      if (d) {
        any = true;
        dai += d.received;
      }
    }
    return any ? dai : null;
  };
  const routed = (via: string, move: number) => {
    const hop = 1 - Math.sqrt(1 - move);
    const first = sell(gem, via, hop);
    if (!first) return 0;
    let tokens = 0;
    let dai = 0;
    for (const q of quotes) {
      const d = sell(via, q, hop);
      if (d) {
        tokens += d.tokens;
        dai += d.received;
      }
    }
    return tokens > 0 ? dai * Math.min(1, first.received / tokens) : 0;
  };
  if (direct(gem, 0.5) !== null) return { gem, depth: (move) => direct(gem, move) ?? 0 };
  const vias = [
    ...new Set(pools.flatMap((p) => (p.token0 === gem ? [p.token1] : p.token1 === gem ? [p.token0] : []))),
  ].filter((v) => !quotes.includes(v) && direct(v, 0.5) !== null);
  if (!vias.length) return { gem, depth: () => 0 };
  const best = vias.reduce((a, b) => (routed(b, 0.5) > routed(a, 0.5) ? b : a));
  return { gem: best, depth: (move) => routed(best, move) };
}
