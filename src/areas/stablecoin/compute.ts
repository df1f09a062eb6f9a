/**
 * The stablecoin area's computation (pure): snapshots of each protocol's state, its logs and the DEX area's facts in,
 * the documents of the four stablecoin paths out (docs/methodology/stablecoin-liquidity.md). Chain amounts stay
 * bigints until a figure is presented; every unknown figure is null with its reason.
 */
import { toFloat } from '../../core/decimal.js';
import { type DepthPoolState, pairSellDepthUsd, poolPrice, sidePrice } from '../../core/depth.js';
import type { GapReason } from '../../core/gaps.js';
import { choosePrice, type PolicyPrice } from '../../core/price-policy.js';
import { roundTo, type ScoreRecord, scoreGapReason } from '../../core/score.js';
import { hhi } from '../../core/stats.js';
import { DAY, dailyHistoryInstants, HOUR, inDayWindow, isoSeconds, utcDate, utcDayWindow } from '../../core/time.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import { poolStateAt } from '../dex/public.js';
import type {
  CollateralKind,
  LiquitySnapshot,
  MakerIlkState,
  MakerSnapshot,
  StableDesign,
  StableEventFact,
  StableSnapshot,
} from './facts.js';
import type {
  CollateralEntry,
  CollateralsPayloadEntry,
  DepthRow,
  KindShareEntry,
  StableScoreRecordEntry,
  WeeklyRecordEntry,
} from './schema.js';
import {
  DROPS,
  EXIT_MOVE,
  type LiquidityScoreInputs,
  PEG_BAND,
  STRESS_DROP,
  scoreLiquidity,
  TOP_HOLDERS,
} from './score.js';

const WAD = 10n ** 18n;
const RAY = 10n ** 27n;
const SECONDS_PER_YEAR = 365 * DAY;
/** The depth moves of API.md (1/2/5 %). */
export const DEPTH_MOVES = [0.01, 0.02, 0.05] as const;
/** Collateral-ratio bands of the position distribution (lower bound inclusive). */
export const RATIO_BANDS = [0, 1.1, 1.3, 1.5, 1.75, 2, 3] as const;
/** Liquity's collateral: the USD price of the wrapped native token prices its ETH. */
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** What the computation knows of a protocol (the target, as the jobs resolved it). */
export interface StablecoinRef {
  readonly chain: string;
  readonly protocol: string;
  readonly name: string;
  readonly design: StableDesign;
  readonly symbol: string;
  /** USD stablecoins the peg and exit depth are measured against (lowercase addresses). */
  readonly quotes: readonly { readonly symbol: string; readonly address: string }[];
}

export interface StablecoinProtocolInput {
  readonly target: StablecoinRef;
  /** Snapshots of the history window, oldest first. */
  readonly snapshots: readonly StableSnapshot[];
  /** Flow events (liquidations, redemptions, pokes, prices) of the history window, in chain order. */
  readonly events: readonly StableEventFact[];
  /** Every stored Transfer of the stablecoin up to the newest snapshot, in chain order (holders' replay). */
  readonly transfers: readonly StableEventFact[];
}

export interface StablecoinDexInput {
  readonly pools: readonly PoolFact[];
  readonly tokens: readonly TokenFact[];
  readonly snapshots: readonly PoolSnapshotFact[];
  readonly swaps: readonly SwapFact[];
  readonly syncs: readonly SyncFact[];
  readonly prices: readonly TokenPriceFact[];
}

export interface StablecoinInput {
  readonly protocols: readonly StablecoinProtocolInput[];
  readonly dex: StablecoinDexInput;
}

export interface Dated<T> {
  readonly asOf: number;
  readonly data: T;
}

export interface StablecoinOutput {
  readonly weekly: ReadonlyMap<string, Dated<WeeklyRecordEntry[]>>;
  readonly collaterals: ReadonlyMap<string, Dated<CollateralsPayloadEntry>>;
  /** Key `chain/protocol`. */
  readonly scores: ReadonlyMap<string, Dated<StableScoreRecordEntry[]>>;
  readonly allMarkets: Dated<StableScoreRecordEntry[]> | undefined;
}

const r = (x: number, d = 6) => roundTo(x, d);
const rn = (x: number | null, d = 6) => (x === null ? null : roundTo(x, d));

// ---- Prices ----

/** The price policy's price of a token at an instant: the DEX price of its hour and a market oracle candidate. */
class Prices {
  private readonly byToken = new Map<string, Map<number, TokenPriceFact>>();

  constructor(prices: readonly TokenPriceFact[]) {
    for (const p of prices) {
      const m = this.byToken.get(p.token) ?? new Map<number, TokenPriceFact>();
      this.byToken.set(p.token, m);
      m.set(p.hour, p);
    }
  }

  dex(token: string, t: number): TokenPriceFact | undefined {
    return this.byToken.get(token.toLowerCase())?.get(Math.floor(t / HOUR) * HOUR);
  }

  price(token: string, t: number, oracle?: { priceUsd: number; updatedAt: number; ref: string }): PolicyPrice | null {
    const d = this.dex(token, t);
    return choosePrice(
      t,
      oracle && oracle.priceUsd > 0 ? { ...oracle, heartbeat: ORACLE_HEARTBEAT, kind: 'market_oracle' as const } : null,
      d ? { priceUsd: d.priceUsd, confidence: d.confidence, ref: d.source } : null,
    );
  }
}

/**
 * The protocols' own price feeds update at least hourly: Maker's OSMs release a price every hour (`hop` = 3600 s),
 * Liquity's PriceFeed reads Chainlink ETH/USD, whose heartbeat is one hour.
 */
export const ORACLE_HEARTBEAT = 3600;

// ---- DEX pools ----

interface DexView {
  readonly pools: readonly PoolFact[];
  readonly decimals: ReadonlyMap<string, number>;
  readonly snapshots: ReadonlyMap<string, PoolSnapshotFact>;
  readonly swaps: readonly SwapFact[];
  readonly syncs: readonly SyncFact[];
}

function dexView(dex: StablecoinDexInput): DexView {
  const snapshots = new Map<string, PoolSnapshotFact>();
  for (const s of dex.snapshots) {
    const prev = snapshots.get(s.pool);
    if (!prev || prev.blockNumber < s.blockNumber) snapshots.set(s.pool, s);
  }
  return {
    pools: dex.pools,
    decimals: new Map(dex.tokens.map((t) => [t.address, t.decimals])),
    snapshots,
    swaps: dex.swaps,
    syncs: dex.syncs,
  };
}

/** States at `t` of the pools holding exactly the pair (a, b), with whether their balances are known. */
function pairStates(view: DexView, a: string, b: string, t: number) {
  const out: { state: DepthPoolState; balancesKnown: boolean }[] = [];
  for (const p of view.pools) {
    const match = (p.token0 === a && p.token1 === b) || (p.token0 === b && p.token1 === a);
    if (!match) continue;
    const d0 = view.decimals.get(p.token0);
    const d1 = view.decimals.get(p.token1);
    if (d0 === undefined || d1 === undefined) continue;
    const snap = view.snapshots.get(p.address);
    const at = poolStateAt(p, d0, d1, snap, view.swaps, view.syncs, t);
    if (at) out.push({ state: at.state, balancesKnown: at.balancesKnown });
  }
  return out;
}

/** The stablecoin's price in a quote token at `t`: from the pair's pool with the largest quote balance. */
function priceInQuote(view: DexView, stable: string, quote: string, t: number): number | null {
  let best: { price: number; weight: number } | undefined;
  for (const { state } of pairStates(view, stable, quote, t)) {
    const side = state.token0 === stable ? 0 : 1;
    const price = sidePrice(state, side);
    if (price === null || poolPrice(state) === null) continue;
    const weight = toFloat(
      side === 0 ? state.reserve1 : state.reserve0,
      side === 0 ? state.decimals1 : state.decimals0,
    );
    if (!best || weight > best.weight) best = { price, weight };
  }
  return best?.price ?? null;
}

/** The stablecoin's USD price at `t`: its price in the first quote that has one × that quote's USD price. */
function stableUsd(view: DexView, prices: Prices, ref: StablecoinRef, token: string, t: number): number | null {
  for (const q of ref.quotes) {
    const inQuote = priceInQuote(view, token, q.address, t);
    const quoteUsd = prices.dex(q.address, t)?.priceUsd;
    if (inQuote !== null && quoteUsd !== undefined) return inQuote * quoteUsd;
  }
  return null;
}

export interface PegStats {
  readonly hoursPriced: number;
  readonly hoursOutside: number;
  readonly maxDeviation: number;
  readonly meanPrice: number;
}

/** Hourly peg over the UTC day of `t` up to `t`: each hour's price at its end (or at `t` for the running hour). */
export function pegOfDay(hourly: readonly (number | null)[]): PegStats | null {
  const priced = hourly.filter((p): p is number => p !== null);
  if (!priced.length) return null;
  const deviations = priced.map((p) => Math.abs(p - 1));
  return {
    hoursPriced: priced.length,
    hoursOutside: deviations.filter((d) => d > PEG_BAND).length,
    maxDeviation: Math.max(...deviations),
    meanPrice: priced.reduce((a, b) => a + b, 0) / priced.length,
  };
}

// ---- Holders ----

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

// ---- Collateral ----

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

interface PositionRow {
  /** Debt (stablecoin units) and collateral (token units) of one position. */
  readonly debt: number;
  readonly collateral: number;
}

function distribution(rows: readonly PositionRow[], price: number) {
  const bands = RATIO_BANDS.map((min, i) => {
    const max = RATIO_BANDS[i + 1] ?? null;
    // Labelled as the lending area labels its health-factor bands ('<1.1', '1.1-1.3', '>3').
    const band = max === null ? `>${min}` : min === 0 ? `<${max}` : `${min}-${max}`;
    return { band, min: min as number, max: max as number | null, positions: 0, debt: 0 };
  });
  for (const p of rows) {
    if (p.debt <= 0) continue;
    const ratio = (p.collateral * price) / p.debt;
    const band = [...bands].reverse().find((b) => ratio >= b.min)!;
    band.positions++;
    band.debt += p.debt;
  }
  return bands.map((b) => ({ ...b, debt: r(b.debt) }));
}

/** Positions liquidatable after each drop: collateral × price × (1 − drop) < debt × threshold(drop). */
function liquidatable(rows: readonly PositionRow[], price: number, threshold: (drop: number) => number) {
  return DROPS.map((drop) => {
    let debt = 0;
    let positions = 0;
    const limit = threshold(drop);
    for (const p of rows) {
      if (p.debt <= 0) continue;
      if (p.collateral * price * (1 - drop) < p.debt * limit) {
        debt += p.debt;
        positions++;
      }
    }
    return { price_drop: drop, debt: r(debt), positions };
  });
}

/** Yearly rate of a per-second ray factor (Jug duty + base − 1), compounded: e^{year · ln(1 + x)} − 1. */
export function yearlyRate(perSecondRay: bigint): number {
  const x = toFloat(perSecondRay - RAY, 27);
  return Math.expm1(SECONDS_PER_YEAR * Math.log1p(x));
}

interface StateFigures {
  readonly collaterals: CollateralEntry[];
  readonly kindShares: KindShareEntry[];
  readonly totalSupply: number;
  readonly circulating: number;
  readonly circulatingRaw: bigint;
  readonly totalDebt: number;
  /** Debt positions owe against collateral (Maker: Σ Art × rate; Liquity: the system debt). */
  readonly backedDebt: number;
  /** Maker: debt no collateral backs (Vat.vice); Liquity: null (not applicable). */
  readonly systemDebt: number | null;
  /** Maker: the Vow's DAI less its sin (null: not read); Liquity: null (not applicable). */
  readonly surplusBuffer: number | null;
  readonly totalCollateralUsd: number | null;
  readonly collateralRatio: number | null;
  readonly collateralRatioGap: GapReason | null;
  readonly liquidationRatio: number | null;
  readonly positionsOwners: number | null;
  readonly psmHoldingsUsd: number | null;
  readonly psmFees: { ilk: string; tin: number | null; tout: number | null }[];
  /** Debt liquidatable under STRESS_DROP (stablecoin units) and what absorbs it (USD, stablecoin units). */
  readonly stress: { liquidatable: number; absorbableUsd: number } | null;
  readonly stressGap: GapReason | null;
  readonly backstopUsd: number | null;
  /** Why the backstop is unknown. */
  readonly backstopGap: GapReason | null;
  /** Liquity: LUSD redeemable at once within the exit move's fee (null: the snapshot lacks the fee formula). */
  readonly redeemableWithinExit: number | null;
  readonly liquity: LiquitySnapshot | null;
  readonly exclude: ReadonlySet<string>;
}

/** Latest event of a kind up to `t` matching `pred`. */
function latestEvent<T extends StableEventFact>(
  events: readonly StableEventFact[],
  t: number,
  pred: (e: StableEventFact) => e is T,
): T | undefined {
  let out: T | undefined;
  for (const e of events) if (e.timestamp <= t && pred(e)) out = e;
  return out;
}

/**
 * Debt by collateral kind, with shares of the total. Maker adds a `system` row, the debt no collateral backs
 * (Vat.vice), so that the shares sum to one (Liquity has none: `system` undefined).
 */
function kindShares(
  rows: readonly { kind: CollateralKind; debt: number; usd: number | null }[],
  total: number,
  system?: number,
): KindShareEntry[] {
  const kinds: CollateralKind[] = ['crypto', 'psm', 'rwa', 'credit-line'];
  const backed = kinds
    .map((kind) => {
      const mine = rows.filter((x) => x.kind === kind);
      const debt = mine.reduce((s, x) => s + x.debt, 0);
      const usd = mine.some((x) => x.usd === null) ? null : mine.reduce((s, x) => s + (x.usd ?? 0), 0);
      return { kind, debt: r(debt), debt_share: total > 0 ? r(debt / total, 6) : null, collateral_usd: rn(usd, 2) };
    })
    .filter((k, i) => i === 0 || k.debt > 0 || rows.some((x) => x.kind === k.kind));
  if (system === undefined) return backed;
  return [
    ...backed,
    { kind: 'system', debt: r(system), debt_share: total > 0 ? r(system / total, 6) : null, collateral_usd: 0 },
  ];
}

function makerFigures(
  s: MakerSnapshot,
  events: readonly StableEventFact[],
  prices: Prices,
  view: DexView,
  stableUsdPrice: number | null,
  absorbQuotes: readonly string[],
): StateFigures {
  const t = s.timestamp;
  const psmIlks = new Set(s.psms.map((p) => p.ilk));
  const urnsByIlk = new Map<string, { ink: bigint; art: bigint }[]>();
  for (const u of s.urns) {
    const list = urnsByIlk.get(u.ilk) ?? [];
    urnsByIlk.set(u.ilk, list);
    list.push(u);
  }
  const rows: { kind: CollateralKind; debt: number; usd: number | null; mat: number }[] = [];
  let stressLiquidatable = 0;
  let stressAbsorbable = 0;
  let stressGap: GapReason | null = null;
  const collaterals: CollateralEntry[] = s.ilks.map((x) => {
    const kind = classifyIlk(x, psmIlks);
    const debtRad = x.Art * x.rate;
    const debt = toFloat(debtRad, 45);
    const amount = x.joinBalance === null ? null : toFloat(x.joinBalance, x.dec);
    const poke = latestEvent(
      events,
      t,
      (e): e is StableEventFact & { event: { kind: 'poke'; ilk: string; val: bigint } } =>
        e.event.source === 'event' && e.event.kind === 'poke' && e.event.ilk === x.ilk,
    );
    // The oracle's last price: Spot's Poke value, else spot × mat × par (the Vat's spot is price / mat / par).
    const oracleRaw = poke ? (poke.event.val * RAY) / WAD : (x.spot * x.mat) / RAY;
    const oracleUsd = toFloat((oracleRaw * s.par) / RAY, 27);
    const price = prices.price(x.gem, t, {
      priceUsd: oracleUsd,
      // Without a stored Poke the price's age is unknown: a stale oracle answer, at its low confidence.
      updatedAt: poke?.timestamp ?? 0,
      ref: x.pip,
    });
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
      const stressed = liq.find((l) => l.price_drop === STRESS_DROP)!;
      stressLiquidatable += stressed.debt;
      // Keepers sell the seized collateral on DEXs: depth within the liquidation penalty absorbs it.
      const penalty = toFloat(x.chop, 18) - 1;
      if (stressed.debt > 0 && penalty > 0) {
        const move = Math.min(penalty, 0.5);
        let depthUsd = 0;
        for (const q of absorbQuotes) {
          const states = pairStates(view, x.gem, q, t).map((p) => p.state);
          depthUsd += pairSellDepthUsd(states, x.gem, q, move, { [x.gem]: price.price_usd }).usd ?? 0;
        }
        stressAbsorbable += Math.min(depthUsd, stressed.debt * (stableUsdPrice ?? 1));
      }
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
      price_usd: rn(price?.price_usd ?? null),
      price_source: price?.source ?? null,
      price_confidence: price?.confidence ?? null,
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
      gap_reasons: {
        ...gaps,
        critical_collateralization: 'not_applicable',
        borrowing_rate: 'not_applicable',
        ...(x.chop > 0n ? {} : { liquidation_penalty: 'not_applicable' as const }),
        ...(complete ? {} : { positions: 'no_data' as const }),
      },
    };
  });
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
  const psmRows = s.psms.map((p) => {
    const ilk = collaterals.find((c) => c.ilk === p.ilk);
    return { p, usd: ilk?.collateral_usd ?? null };
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
    stress: stressGap ? null : { liquidatable: stressLiquidatable, absorbableUsd: stressAbsorbable },
    stressGap,
    backstopUsd,
    backstopGap: backstopUsd === null ? 'no_price' : null,
    redeemableWithinExit: null,
    liquity: null,
    exclude: new Set(Object.values(s.addresses)),
  };
}

function liquityFigures(
  s: LiquitySnapshot,
  events: readonly StableEventFact[],
  prices: Prices,
  stableUsdPrice: number | null,
): StateFigures {
  const t = s.timestamp;
  const good = latestEvent(
    events,
    t,
    (e): e is StableEventFact => e.event.source === 'event' && e.event.kind === 'last_good_price',
  );
  const price = prices.price(s.collateralToken, t, {
    priceUsd: toFloat(s.price, 18),
    updatedAt: good?.timestamp ?? 0,
    ref: s.addresses.priceFeed ?? s.troveManager,
  });
  const coll = toFloat(s.systemColl, 18);
  const debt = toFloat(s.systemDebt, 18);
  const usd = price === null ? null : coll * price.price_usd;
  const mcr = toFloat(s.mcr, 18);
  const ccr = toFloat(s.ccr, 18);
  const positions: PositionRow[] = s.troves.map((x) => ({
    debt: toFloat(x.debt, 18),
    collateral: toFloat(x.coll, 18),
  }));
  const trovesDebt = s.troves.reduce((a, x) => a + x.debt, 0n);
  // Redistribution rewards are rounded per trove: the troves read are all of them when their debts sum to the
  // system's within a billionth.
  const diff = trovesDebt > s.systemDebt ? trovesDebt - s.systemDebt : s.systemDebt - trovesDebt;
  const complete = s.systemDebt === 0n ? trovesDebt === 0n : diff * 1_000_000_000n <= s.systemDebt;
  const gaps: Record<string, GapReason> = { debt_ceiling: 'not_applicable', stability_fee: 'not_applicable' };
  let dist: CollateralEntry['distribution'] = [];
  let liq: CollateralEntry['liquidatable'] = [];
  let stress: StateFigures['stress'] = null;
  let stressGap: GapReason | null = null;
  if (!complete) stressGap = 'no_data';
  else if (price === null) stressGap = 'no_price';
  else {
    dist = distribution(positions, price.price_usd);
    // Liquity v1: below MCR a trove is liquidated; in recovery mode (TCR < CCR at the dropped price) every trove
    // below the TCR (and below CCR) is too.
    liq = liquidatable(positions, price.price_usd, (drop) => {
      const tcr = debt > 0 ? (coll * price.price_usd * (1 - drop)) / debt : Number.POSITIVE_INFINITY;
      return tcr < ccr ? Math.max(mcr, tcr) : mcr;
    });
    const stressed = liq.find((l) => l.price_drop === STRESS_DROP)!;
    // The Stability Pool absorbs liquidated debt with its LUSD.
    stress = { liquidatable: stressed.debt, absorbableUsd: toFloat(s.spDeposits, 18) * (stableUsdPrice ?? 1) };
  }
  if (stressGap) {
    gaps.distribution = stressGap;
    gaps.liquidatable = stressGap;
    gaps.positions = 'no_data';
  }
  if (price === null) {
    gaps.price_usd = 'no_price';
    gaps.collateral_usd = 'no_price';
    gaps.collateralization = 'no_price';
  }
  const collateral: CollateralEntry = {
    name: 'Ether',
    symbol: 'ETH',
    kind: 'crypto',
    collateral_token_address: s.collateralToken,
    amount: r(coll),
    price_usd: rn(price?.price_usd ?? null),
    price_source: price?.source ?? null,
    price_confidence: price?.confidence ?? null,
    collateral_usd: rn(usd, 2),
    debt: r(debt),
    collateralization: usd === null || debt <= 0 ? null : r(usd / debt),
    min_collateralization: r(mcr),
    critical_collateralization: r(ccr),
    // A trove liquidated at the minimum ratio loses the collateral above its debt: at most MCR − 1.
    liquidation_penalty: r(mcr - 1),
    debt_ceiling: null,
    stability_fee: null,
    borrowing_rate: r(toFloat(s.borrowingRate, 18)),
    positions: complete ? positions.filter((p) => p.debt > 0).length : null,
    distribution: dist,
    liquidatable: liq,
    gap_reasons: gaps,
  };
  if (debt <= 0) collateral.gap_reasons.collateralization = 'no_positions';
  const circulatingRaw = s.totalSupply - s.protocolHeld;
  // Redemptions give $1 of ETH per LUSD minus a fee that grows with the amount: the backstop is what can be
  // redeemed within the exit move's cost by the protocol's own formula at this block, not the whole debt.
  const redeemable = liquityRedeemableWithin(s, EXIT_MOVE);
  return {
    collaterals: [collateral],
    kindShares: kindShares([{ kind: 'crypto', debt, usd }], debt),
    totalSupply: toFloat(s.totalSupply, 18),
    circulating: toFloat(circulatingRaw, 18),
    circulatingRaw,
    totalDebt: debt,
    backedDebt: debt,
    systemDebt: null,
    surplusBuffer: null,
    totalCollateralUsd: usd,
    collateralRatio: usd === null || debt <= 0 ? null : usd / debt,
    collateralRatioGap: usd === null ? 'no_price' : debt <= 0 ? 'no_positions' : null,
    liquidationRatio: ccr,
    positionsOwners: s.troves.filter((x) => x.debt > 0n).length,
    psmHoldingsUsd: null,
    psmFees: [],
    stress,
    stressGap,
    backstopUsd: redeemable === null ? null : redeemable * (stableUsdPrice ?? 1),
    backstopGap: redeemable === null ? 'no_data' : null,
    redeemableWithinExit: redeemable,
    liquity: s,
    exclude: new Set(Object.values(s.addresses)),
  };
}

/**
 * Liquity v1's redemption backstop: the LUSD one redemption can take at a fee of at most `cost`. A redemption of x
 * LUSD first raises the base rate by x / (system debt × BETA) and then charges floor + base rate on all of it
 * (TroveManager `_updateBaseRateFromRedemption`, then `_calcRedemptionFee`), so the fee stays within `cost` while
 * x ≤ (cost − rate now) × BETA × system debt, where the rate now is `getRedemptionRateWithDecay`. At most the
 * circulating LUSD; 0 while redemptions are closed (TCR below MCR). Null when the snapshot predates the formula's
 * fields.
 */
export function liquityRedeemableWithin(s: LiquitySnapshot, cost: number): number | null {
  if (s.redemptionRateWithDecay === undefined || s.redemptionBeta === undefined) return null;
  if (s.tcr < s.mcr) return 0;
  const headroom = cost - toFloat(s.redemptionRateWithDecay, 18);
  if (headroom <= 0) return 0;
  const circulating = toFloat(s.totalSupply - s.protocolHeld, 18);
  return Math.min(headroom * Number(s.redemptionBeta) * toFloat(s.systemDebt, 18), circulating);
}

// ---- Records ----

function depthRows(view: DexView, ref: StablecoinRef, token: string, t: number, usd: number | null): DepthRow[] {
  return DEPTH_MOVES.map((move) => {
    let amount = 0;
    let reachable = true;
    for (const q of ref.quotes) {
      const states = pairStates(view, token, q.address, t).map((p) => p.state);
      const d = pairSellDepthUsd(states, token, q.address, move, { [token]: usd });
      amount += d.tokens;
      reachable &&= d.reachable;
    }
    return { price_move: move, sell_amount: r(amount), sell_usd: usd === null ? null : r(amount * usd, 2), reachable };
  });
}

function dexLiquidityUsd(
  view: DexView,
  prices: Prices,
  ref: StablecoinRef,
  token: string,
  t: number,
  usd: number | null,
) {
  let total = 0;
  let any = false;
  for (const q of ref.quotes) {
    const quoteUsd = prices.dex(q.address, t)?.priceUsd;
    for (const { state, balancesKnown } of pairStates(view, token, q.address, t)) {
      if (!balancesKnown || quoteUsd === undefined || usd === null) return null;
      const [sIdx, qIdx] = state.token0 === token ? [0, 1] : [1, 0];
      const reserves = [toFloat(state.reserve0, state.decimals0), toFloat(state.reserve1, state.decimals1)];
      total += reserves[sIdx]! * usd + reserves[qIdx]! * quoteUsd;
      any = true;
    }
  }
  return any ? total : 0;
}

/** The weekly record's Liquity-only figures (not applicable to MakerDAO). */
/** The weekly record's Maker-only flows (not applicable to Liquity). */
const MAKER_FIELDS = [
  'system_debt',
  'surplus_buffer',
  'auctions_started',
  'auctions_reset',
  'auction_takes',
  'auction_dai_recovered',
] as const;

const LIQUITY_FIELDS = [
  'stability_pool_deposits',
  'stability_pool_coverage',
  'redemptions',
  'redeemed',
  'redemption_rate',
  'redeemable_within_exit',
  'tcr',
  'tcr_above_critical',
  'recovery_mode',
] as const;

function emptyRecord(ref: StablecoinRef, token: string, reader: Record<string, string>, t: number, partial: boolean) {
  const nullFields = [
    'total_supply',
    'total_supply_raw',
    'circulating_supply',
    'total_debt',
    'total_debt_base',
    'backed_debt',
    'total_debt_usd',
    'total_collateral_usd',
    'collateral_ratio',
    'number_unique_wallets',
    'holders',
    'minted',
    'burned',
    'dex_liquidity_usd',
    'peg_mean_price',
    'peg_max_deviation',
    'peg_hours_outside_band',
    'psm_holdings_usd',
    ...LIQUITY_FIELDS,
    ...MAKER_FIELDS,
  ] as const;
  return {
    chain: ref.chain,
    protocol: ref.protocol,
    name: ref.name,
    token_address: token,
    ...reader,
    date: utcDate(t),
    partial,
    as_of: isoSeconds(t),
    snapshot_block: null,
    gap_reason: 'no_data',
    ...Object.fromEntries(nullFields.map((f) => [f, null])),
    kind_shares: [],
    depth: [],
    peg_hours_priced: 0,
    psm_fees: [],
    liquidations: 0,
    liquidated_debt: 0,
    gap_reasons: Object.fromEntries(nullFields.map((f) => [f, 'no_data'])),
  } as unknown as WeeklyRecordEntry;
}

function readerOf(s: StableSnapshot): Record<string, string> {
  return s.design === 'maker-mcd' ? { vat_address: s.vat } : { trove_manager_address: s.troveManager };
}

interface DayResult {
  readonly record: WeeklyRecordEntry;
  readonly score: LiquidityScoreInputs | null;
  readonly collaterals?: CollateralsPayloadEntry;
}

function computeProtocol(p: StablecoinProtocolInput, view: DexView, prices: Prices) {
  const ref = p.target;
  const newest = p.snapshots.at(-1);
  if (!newest) return undefined;
  const asOf = newest.timestamp;
  const token = newest.token;
  const reader = readerOf(newest);
  const instants = dailyHistoryInstants(asOf);
  const daySnapshots = instants.map((t) => {
    const window = utcDayWindow(t);
    let best: StableSnapshot | undefined;
    for (const s of p.snapshots) if (inDayWindow(s.timestamp, window)) best = s;
    return best;
  });
  const holders = replayHolders(
    p.transfers,
    daySnapshots.filter((s): s is StableSnapshot => s !== undefined).map((s) => s.blockNumber),
  );
  const days: DayResult[] = instants.map((t, i) => {
    const snap = daySnapshots[i];
    const partial = i === 0;
    if (!snap) return { record: emptyRecord(ref, token, reader, t, partial), score: null };
    const at = snap.timestamp;
    const window = utcDayWindow(t);
    const usd = stableUsd(view, prices, ref, token, at);
    const absorbQuotes = [...ref.quotes.map((q) => q.address), token];
    const f =
      snap.design === 'maker-mcd'
        ? makerFigures(snap, p.events, prices, view, usd, absorbQuotes)
        : liquityFigures(snap, p.events, prices, usd);
    const hourly: (number | null)[] = [];
    for (let h = window.from; h <= t; h += HOUR)
      hourly.push(stableUsd(view, prices, ref, token, Math.min(h + HOUR - 1, t)));
    const peg = pegOfDay(hourly);
    const depth = depthRows(view, ref, token, at, usd);
    const liquidity = dexLiquidityUsd(view, prices, ref, token, at, usd);
    const replay = holders.get(snap.blockNumber);
    const holdersKnown = replay !== undefined && replay.supply === snap.totalSupply;
    // One day window for every daily figure: [day start, next day start) by block timestamp (core/time.ts).
    const dayEvents = p.events.filter((e) => inDayWindow(e.timestamp, window));
    let minted = 0n;
    let burned = 0n;
    for (const e of p.transfers) {
      if (!inDayWindow(e.timestamp, window) || e.event.source !== 'event' || e.event.kind !== 'transfer') continue;
      if (e.event.from === ZERO_ADDRESS) minted += e.event.value;
      if (e.event.to === ZERO_ADDRESS) burned += e.event.value;
    }
    let liquidations = 0;
    let liquidatedDebt = 0;
    let redemptions = 0;
    let redeemed = 0n;
    const auctions = { kick: 0, redo: 0, take: 0, owe: 0n };
    for (const { event: e } of dayEvents) {
      if (e.source !== 'event') continue;
      if (e.kind === 'bark') {
        liquidations++;
        liquidatedDebt += toFloat(e.due, 45);
      } else if (e.kind === 'trove_liquidated') {
        liquidations++;
        liquidatedDebt += toFloat(e.debt, 18);
      } else if (e.kind === 'redemption') {
        redemptions++;
        redeemed += e.actual;
      } else if (e.kind === 'kick' || e.kind === 'redo') {
        auctions[e.kind]++;
      } else if (e.kind === 'take') {
        auctions.take++;
        auctions.owe += e.owe;
      }
    }
    const L = f.liquity;
    const na = snap.design === 'maker-mcd';
    const stablePools = view.pools.filter((x) => x.token0 === token || x.token1 === token).map((x) => x.address);
    const concentration = holdersKnown
      ? holderConcentration(replay.balances, new Set([...f.exclude, ...stablePools]))
      : null;
    const topShare = concentration?.share ?? null;
    // Concentration by collateral asset: ETH-A, ETH-B and ETH-C are one asset (one price, one crash), not three.
    const byAsset = new Map<string, number | null>();
    for (const c of f.collaterals) {
      const prev = byAsset.get(c.collateral_token_address);
      byAsset.set(
        c.collateral_token_address,
        prev === null || c.collateral_usd === null ? null : (prev ?? 0) + c.collateral_usd,
      );
    }
    const collateralUsd = [...byAsset.values()];
    const collateralHhi = collateralUsd.some((x) => x === null) ? null : hhi(collateralUsd as number[]);
    const record = {
      chain: ref.chain,
      protocol: ref.protocol,
      name: ref.name,
      token_address: token,
      ...reader,
      date: utcDate(t),
      partial,
      as_of: isoSeconds(partial ? asOf : at),
      snapshot_block: snap.blockNumber,
      gap_reason: null,
      total_supply: r(f.totalSupply),
      total_supply_raw: snap.totalSupply.toString(),
      circulating_supply: r(f.circulating),
      total_debt: r(f.totalDebt),
      total_debt_base: r(f.totalDebt),
      backed_debt: r(f.backedDebt),
      system_debt: rn(f.systemDebt),
      surplus_buffer: rn(f.surplusBuffer),
      total_debt_usd: usd === null ? null : r(f.totalDebt * usd, 2),
      total_collateral_usd: rn(f.totalCollateralUsd, 2),
      collateral_ratio: rn(f.collateralRatio),
      kind_shares: f.kindShares,
      number_unique_wallets: f.positionsOwners,
      holders: holdersKnown ? replay.holders : null,
      minted: r(toFloat(minted, 18)),
      burned: r(toFloat(burned, 18)),
      dex_liquidity_usd: rn(liquidity, 2),
      depth,
      peg_mean_price: peg ? r(peg.meanPrice) : null,
      peg_max_deviation: peg ? r(peg.maxDeviation) : null,
      peg_hours_outside_band: peg ? peg.hoursOutside : null,
      peg_hours_priced: peg?.hoursPriced ?? 0,
      psm_holdings_usd: rn(f.psmHoldingsUsd, 2),
      psm_fees: f.psmFees,
      stability_pool_deposits: L ? r(toFloat(L.spDeposits, 18)) : null,
      stability_pool_coverage: L && L.systemDebt > 0n ? r(toFloat(L.spDeposits, 18) / f.totalDebt) : null,
      redemptions: L ? redemptions : null,
      redeemed: L ? r(toFloat(redeemed, 18)) : null,
      redemption_rate: L ? r(toFloat(L.redemptionRate, 18)) : null,
      redeemable_within_exit: rn(f.redeemableWithinExit),
      // The chain's own WAD to 10 decimals (the vocabulary's most): checkable against getTCR within 1e-9 relative.
      tcr: L ? r(toFloat(L.tcr, 18), 10) : null,
      tcr_above_critical: L ? L.tcr >= L.ccr : null,
      recovery_mode: L ? L.recoveryMode : null,
      liquidations,
      liquidated_debt: r(liquidatedDebt),
      auctions_started: na ? auctions.kick : null,
      auctions_reset: na ? auctions.redo : null,
      auction_takes: na ? auctions.take : null,
      auction_dai_recovered: na ? r(toFloat(auctions.owe, 45)) : null,
      gap_reasons: {} as Record<string, string>,
    } satisfies WeeklyRecordEntry;
    const gaps = record.gap_reasons;
    if (usd === null) gaps.total_debt_usd = 'no_price';
    if (record.total_collateral_usd === null) gaps.total_collateral_usd = 'no_price';
    if (record.collateral_ratio === null) gaps.collateral_ratio = f.collateralRatioGap ?? 'no_price';
    if (record.holders === null) gaps.holders = 'no_data';
    if (liquidity === null) gaps.dex_liquidity_usd = usd === null ? 'no_price' : 'no_data';
    if (!peg) {
      gaps.peg_mean_price = 'no_price';
      gaps.peg_max_deviation = 'no_price';
      gaps.peg_hours_outside_band = 'no_price';
    }
    if (na) {
      for (const k of LIQUITY_FIELDS) gaps[k] = 'not_applicable';
      if (record.psm_holdings_usd === null) gaps.psm_holdings_usd = f.psmFees.length ? 'no_price' : 'no_members';
      if (record.surplus_buffer === null) gaps.surplus_buffer = 'no_data';
    } else {
      gaps.psm_holdings_usd = 'not_applicable';
      for (const k of MAKER_FIELDS) gaps[k] = 'not_applicable';
      if (record.stability_pool_coverage === null) gaps.stability_pool_coverage = 'no_positions';
      if (record.redeemable_within_exit === null) gaps.redeemable_within_exit = 'no_data';
    }
    const depth2 = depth.find((d) => d.price_move === EXIT_MOVE)?.sell_usd ?? null;
    const circulatingUsd = usd === null ? null : f.circulating * usd;
    const score: LiquidityScoreInputs = {
      peg: peg ? { value: peg } : { value: null, gap: 'no_price' },
      exit:
        depth2 === null || circulatingUsd === null || f.backstopUsd === null
          ? { value: null, gap: f.backstopUsd === null && f.backstopGap ? f.backstopGap : 'no_price' }
          : { value: { depthUsd: depth2, backstopUsd: f.backstopUsd, circulatingUsd } },
      buffer:
        f.collateralRatio === null || f.liquidationRatio === null
          ? { value: null, gap: f.collateralRatioGap ?? 'no_data' }
          : {
              value: {
                ratio: f.collateralRatio,
                liquidationRatio: f.liquidationRatio,
                recoveryMode: L?.recoveryMode ?? false,
              },
            },
      absorption: f.stress
        ? {
            value: {
              liquidatableUsd: f.stress.liquidatable * (usd ?? 1),
              absorbableUsd: f.stress.absorbableUsd,
            },
          }
        : { value: null, gap: f.stressGap ?? 'no_data' },
      concentration:
        collateralHhi === null && topShare === null
          ? { value: null, gap: 'no_data' }
          : {
              value: {
                collateralHhi,
                topHolderShare: topShare,
                topHolderShareRaw: concentration?.rawShare ?? null,
                excludedHolders: concentration?.excluded ?? null,
              },
            },
    };
    const collaterals =
      i === 0
        ? ({
            chain: ref.chain,
            protocol: ref.protocol,
            name: ref.name,
            token_address: token,
            ...reader,
            as_of: isoSeconds(at),
            snapshot_block: snap.blockNumber,
            total_supply: r(f.totalSupply),
            total_debt: r(f.totalDebt),
            total_debt_base: r(f.totalDebt),
            backed_debt: record.backed_debt!,
            system_debt: record.system_debt!,
            surplus_buffer: record.surplus_buffer,
            total_debt_usd: record.total_debt_usd,
            total_collateral_usd: record.total_collateral_usd,
            collateral_ratio: record.collateral_ratio,
            kind_shares: f.kindShares,
            collateral_assets: f.collaterals,
            gap_reasons: {
              ...(record.total_debt_usd === null ? { total_debt_usd: 'no_price' } : {}),
              ...(record.total_collateral_usd === null ? { total_collateral_usd: 'no_price' } : {}),
              ...(record.collateral_ratio === null ? { collateral_ratio: gaps.collateral_ratio! } : {}),
              ...(record.system_debt === null ? { system_debt: gaps.system_debt! } : {}),
              ...(record.surplus_buffer === null ? { surplus_buffer: gaps.surplus_buffer! } : {}),
            },
          } satisfies CollateralsPayloadEntry)
        : undefined;
    return { record, score, ...(collaterals ? { collaterals } : {}) };
  });
  const scores: StableScoreRecordEntry[] = days.map((d, i) => {
    const t = instants[i]!;
    const s: ScoreRecord = d.score
      ? scoreLiquidity(d.score, t)
      : { ...scoreLiquidity(NO_DATA_INPUTS, t), components: [] };
    return {
      chain: ref.chain,
      protocol: ref.protocol,
      ...s,
      date: utcDate(t),
      partial: i === 0,
      gap_reason: d.score ? scoreGapReason(s, 'no_data') : 'no_data',
    };
  });
  return { asOf, weekly: days.map((d) => d.record), collaterals: days[0]!.collaterals, scores };
}

/** A day without a snapshot: nothing to score (the record's gap reason says so). */
const NO_DATA_INPUTS: LiquidityScoreInputs = {
  peg: { value: null, gap: 'no_data' },
  exit: { value: null, gap: 'no_data' },
  buffer: { value: null, gap: 'no_data' },
  absorption: { value: null, gap: 'no_data' },
  concentration: { value: null, gap: 'no_data' },
};

export function computeStablecoin(input: StablecoinInput): StablecoinOutput {
  const view = dexView(input.dex);
  const prices = new Prices(input.dex.prices);
  const weekly = new Map<string, Dated<WeeklyRecordEntry[]>>();
  const collaterals = new Map<string, Dated<CollateralsPayloadEntry>>();
  const scores = new Map<string, Dated<StableScoreRecordEntry[]>>();
  const current: StableScoreRecordEntry[] = [];
  let oldest: number | undefined;
  for (const p of input.protocols) {
    const out = computeProtocol(p, view, prices);
    if (!out) continue;
    weekly.set(p.target.protocol, { asOf: out.asOf, data: out.weekly });
    if (out.collaterals) collaterals.set(p.target.protocol, { asOf: out.asOf, data: out.collaterals });
    scores.set(`${p.target.chain}/${p.target.protocol}`, { asOf: out.asOf, data: out.scores });
    current.push(out.scores[0]!);
    oldest = oldest === undefined ? out.asOf : Math.min(oldest, out.asOf);
  }
  current.sort((a, b) => (a.chain + a.protocol < b.chain + b.protocol ? -1 : 1));
  return {
    weekly,
    collaterals,
    scores,
    allMarkets: oldest === undefined ? undefined : { asOf: oldest, data: current },
  };
}
