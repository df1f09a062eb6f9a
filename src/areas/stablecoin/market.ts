/**
 * What the stablecoin computation reads of the market (pure): the price policy's price of a token at an instant, and
 * the DEX pools of the stablecoin's pairs (its USD price, hourly peg, sell depth and pool liquidity).
 */
import { toFloat } from '../../core/decimal.js';
import { type DepthPoolState, pairSellDepthUsd, poolPrice, sidePrice } from '../../core/depth.js';
import {
  besidePolicy,
  choosePrice,
  type FeedAnswer,
  feedCandidateAt,
  type PolicyPrice,
  roundPriceUsd,
} from '../../core/price-policy.js';
import { HOUR } from '../../core/time.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenPriceFact } from '../dex/public.js';
import { poolStateAt } from '../dex/public.js';
import type { StablecoinDexInput, StablecoinRef } from './compute-types.js';
import { r } from './figures.js';
import type { DepthRow } from './schema.js';
import { PEG_BAND } from './score.js';

/** The depth moves of API.md (1/2/5 %). */
export const DEPTH_MOVES = [0.01, 0.02, 0.05] as const;

// ---- Prices ----

/**
 * The price policy's price of a token at an instant, as every area takes it: the chain's USD feed of the token (its
 * newest answer at the instant) and the DEX price of its hour; a protocol's own oracle (Maker's OSM, Liquity's
 * PriceFeed) is a candidate only for a token no feed prices, and is otherwise published beside the policy price.
 */
export class Prices {
  private readonly byToken = new Map<string, Map<number, TokenPriceFact>>();

  constructor(
    prices: readonly TokenPriceFact[],
    private readonly feeds: readonly FeedAnswer[] = [],
  ) {
    for (const p of prices) {
      const m = this.byToken.get(p.token) ?? new Map<number, TokenPriceFact>();
      this.byToken.set(p.token, m);
      m.set(p.hour, p);
    }
  }

  dex(token: string, t: number): TokenPriceFact | undefined {
    return this.byToken.get(token.toLowerCase())?.get(Math.floor(t / HOUR) * HOUR);
  }

  price(token: string, t: number, oracle?: OwnOracle): PolicyPrice | null {
    const d = this.dex(token, t);
    const feed = feedCandidateAt(this.feeds, token, t);
    return choosePrice(
      t,
      feed ??
        (oracle && oracle.priceUsd > 0
          ? { ...oracle, heartbeat: ORACLE_HEARTBEAT, kind: 'market_oracle' as const }
          : null),
      d ? { priceUsd: d.priceUsd, confidence: d.confidence, ref: d.source } : null,
    );
  }
}

/** A protocol's own oracle's answer (Maker: the Spot's poke of the OSM's price; Liquity: the PriceFeed's). */
export interface OwnOracle {
  readonly priceUsd: number;
  /** Unix seconds of the answer (0: unknown). */
  readonly updatedAt: number;
  readonly ref: string;
}

/**
 * A collateral's published price: the policy price with its source (and the other source's price and the gap when
 * both exist), and the protocol's own oracle beside it with its gap to the policy price and the flag above 2 %.
 */
export function collateralPriceFields(price: PolicyPrice | null, own: OwnOracle | null) {
  const ownUsd = own && own.priceUsd > 0 ? own.priceUsd : null;
  const beside = besidePolicy(ownUsd, price?.price_usd ?? null);
  const fields = {
    price_usd: price ? roundPriceUsd(price.price_usd) : null,
    price_source: price?.source ?? null,
    price_source_ref: price?.source_ref ?? null,
    price_confidence: price?.confidence ?? null,
    price_flagged: price?.flagged ?? false,
    price_disagreement: price?.disagreement ?? null,
    alternative_price_usd: price?.alternative_price_usd == null ? null : roundPriceUsd(price.alternative_price_usd),
    oracle_price_usd: ownUsd === null ? null : roundPriceUsd(ownUsd),
    oracle_source_ref: ownUsd === null ? null : own!.ref,
    oracle_disagreement: beside.disagreement,
    oracle_flagged: beside.flagged,
  };
  const gaps: Record<string, 'no_price' | 'no_data'> = {};
  for (const [k, v] of Object.entries(fields))
    if (v === null) gaps[k] = k.startsWith('oracle_') ? 'no_data' : 'no_price';
  if (price && ownUsd !== null && beside.disagreement === null) gaps.oracle_disagreement = 'no_price';
  return { fields, gaps };
}

/**
 * The protocols' own price feeds update at least hourly: Maker's OSMs release a price every hour (`hop` = 3600 s),
 * Liquity's PriceFeed reads Chainlink ETH/USD, whose heartbeat is one hour.
 */
export const ORACLE_HEARTBEAT = 3600;

// ---- DEX pools ----

export interface DexView {
  readonly pools: readonly PoolFact[];
  readonly decimals: ReadonlyMap<string, number>;
  readonly snapshots: ReadonlyMap<string, PoolSnapshotFact>;
  readonly swaps: readonly SwapFact[];
  readonly syncs: readonly SyncFact[];
}

export function dexView(dex: StablecoinDexInput): DexView {
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
export function pairStates(view: DexView, a: string, b: string, t: number) {
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
export function priceInQuote(view: DexView, stable: string, quote: string, t: number): number | null {
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

/**
 * The stablecoin's USD price at `t`: its price in the first quote that has one × that quote's policy price (the
 * price every area takes for the quote at `t`: its fresh feed, else the DEX price). The peg is measured against it.
 */
export function stablePrice(
  view: DexView,
  prices: Prices,
  ref: StablecoinRef,
  token: string,
  t: number,
): { usd: number; quote: string; quotePrice: PolicyPrice } | null {
  for (const q of ref.quotes) {
    const inQuote = priceInQuote(view, token, q.address, t);
    const quotePrice = prices.price(q.address, t);
    if (inQuote !== null && quotePrice) return { usd: inQuote * quotePrice.price_usd, quote: q.address, quotePrice };
  }
  return null;
}

/** The stablecoin's USD price at `t` (`stablePrice`), null when no quote prices it. */
export function stableUsd(view: DexView, prices: Prices, ref: StablecoinRef, token: string, t: number): number | null {
  return stablePrice(view, prices, ref, token, t)?.usd ?? null;
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

// ---- Records ----

export function depthRows(view: DexView, ref: StablecoinRef, token: string, t: number, usd: number | null): DepthRow[] {
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

export function dexLiquidityUsd(
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
    const quoteUsd = prices.price(q.address, t)?.price_usd;
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
