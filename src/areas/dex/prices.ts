/**
 * Hourly USD prices of tokens from DEX pool states (docs/methodology/prices.md). Pure: facts in, prices out.
 *
 * For each hour, every pool's state at the end of the hour (V3: the last swap's sqrtPriceX96 and liquidity; V2: the
 * last Sync's reserves) gives a rate between its two tokens and the depth behind it. Stablecoins (anchors) are
 * priced from their pools against the other anchors; every other token, breadth-first from the anchors, from its
 * pools against already-priced tokens. Thin pools are ignored; a token with no usable pool gets no price.
 */
import { reservesToPrice, sqrtPriceX96ToPrice, toFloat, v3VirtualReserves } from '../../core/decimal.js';
import { logScale } from '../../core/score.js';
import { sum, weightedMedian } from '../../core/stats.js';
import { HOUR } from '../../core/time.js';
import type { PoolFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from './facts.js';

/**
 * Minimum USD liquidity on the priced side of a pool for the pool to price the other token. In a constant-product
 * pool with $10k on that side, an ordinary $1,000 trade moves the price by 21 % ((1 + 0.1)² − 1); below that, one
 * trade — not only an attacker — decides the price.
 */
export const MIN_POOL_LIQUIDITY_USD = 10_000;

/**
 * USD liquidity (summed over the pools used) at which the depth factor of the confidence reaches 1. At $1M a $10k
 * trade moves a constant-product price by about 2 %, the agreement tolerance.
 */
export const FULL_DEPTH_USD = 1_000_000;

/**
 * Two pool prices agree when within 2 % of each other's median: arbitrage keeps a pool within its fee of the market
 * (at most 1 % for the 1 % tier), so two honest pools can differ by up to twice that.
 */
export const AGREEMENT_TOLERANCE = 0.02;

/** Confidence lost per hop from the anchors: each hop adds one more pool's fee band and timing error. */
export const HOP_DECAY = 0.9;

/**
 * Longest chain of pools from an anchor to a priced token. After 4 hops the compounded fee bands (up to ±4 % at the
 * 1 % tier) exceed what we publish as a price.
 */
export const MAX_HOPS = 4;

/**
 * Band of USD prices accepted for a stablecoin. Wider than any depeg of a surviving USD stablecoin (USDC traded at
 * 0.87 in March 2023) yet narrow enough to stop a broken or manipulated pool from pricing a stablecoin at 10× or 0.
 * A clamped price halves its confidence.
 */
export const ANCHOR_BAND: readonly [number, number] = [0.5, 1.5];

/**
 * Confidence of a stablecoin priced at its peg without any pool against another stablecoin: a redeemable
 * stablecoin's peg is a strong prior, but unobserved; 0.25 marks it as the weakest kind of price we publish.
 */
export const ASSUMED_ANCHOR_CONFIDENCE = 0.25;

export interface PriceAnchor {
  readonly address: string;
  readonly peg: 'USD';
}

export interface HourlyPriceInput {
  readonly chain: string;
  /** Unix seconds of UTC hour starts. */
  readonly hours: readonly number[];
  readonly tokens: readonly TokenFact[];
  readonly pools: readonly PoolFact[];
  /** Every swap up to the last hour's end, including the last one before the first hour (V3 state). */
  readonly swaps: readonly SwapFact[];
  /** Every Sync up to the last hour's end, including the last one before the first hour (V2 state). */
  readonly syncs: readonly SyncFact[];
  /** The stablecoins the USD prices hang from. */
  readonly anchors: readonly PriceAnchor[];
}

/** A pool's state at one instant in token units: 1 token0 = `price` token1; `reserve0/1` are the depth. */
export interface PoolObservation {
  readonly pool: string;
  readonly token0: string;
  readonly token1: string;
  readonly price: number;
  readonly reserve0: number;
  readonly reserve1: number;
}

interface RawState {
  readonly timestamp: number;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly observe: () => PoolObservation | null;
}

function byChainOrder(a: RawState, b: RawState): number {
  return a.timestamp - b.timestamp || a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
}

/**
 * Prices of all tokens reachable from the anchors in one set of pool observations (one hour). Exported for tests;
 * `computeHourlyPrices` applies it to each hour. Output sorted by token address.
 */
export function priceFromObservations(
  chain: string,
  hour: number,
  observations: readonly PoolObservation[],
  anchors: readonly PriceAnchor[],
): TokenPriceFact[] {
  const anchorSet = new Set(anchors.map((a) => a.address));
  const byToken = new Map<string, { obs: PoolObservation; self: 0 | 1 }[]>();
  for (const obs of observations) {
    if (!(obs.price > 0 && Number.isFinite(obs.price))) continue;
    for (const self of [0, 1] as const) {
      const token = self === 0 ? obs.token0 : obs.token1;
      let list = byToken.get(token);
      if (!list) {
        list = [];
        byToken.set(token, list);
      }
      list.push({ obs, self });
    }
  }
  const edgesOf = (token: string) => byToken.get(token) ?? [];
  /** The token's value in units of the pool's other token, the other token, and the other token's depth. */
  const edge = (e: { obs: PoolObservation; self: 0 | 1 }) =>
    e.self === 0
      ? { rate: e.obs.price, other: e.obs.token1, otherReserve: e.obs.reserve1, pool: e.obs.pool }
      : { rate: 1 / e.obs.price, other: e.obs.token0, otherReserve: e.obs.reserve0, pool: e.obs.pool };

  const out = new Map<string, TokenPriceFact>();
  const prices = new Map<string, number>();

  // Stablecoins. The USD reference is the largest group of stablecoins that trade at par with each other (pairs
  // whose liquid pools agree with 1:1 within the agreement tolerance), each valued at 1.0: a depegged stablecoin
  // is outvoted by the others instead of dragging them along. Every stablecoin is priced against the reference
  // group (others than itself); with no group of two, against all other stablecoins at 1.0.
  const anchorEdges = (anchor: string) =>
    edgesOf(anchor)
      .map(edge)
      .filter((e) => anchorSet.has(e.other) && e.other !== anchor && e.otherReserve >= MIN_POOL_LIQUIDITY_USD);
  const reference = referenceGroup([...anchorSet].sort(), anchorEdges);
  for (const anchor of [...anchorSet].sort()) {
    const edges = anchorEdges(anchor);
    const againstReference = edges.filter((e) => reference.has(e.other));
    const candidates: Candidate[] = (againstReference.length > 0 ? againstReference : edges).map((e) => ({
      value: e.rate,
      weight: e.otherReserve,
      pool: e.pool,
    }));
    const found = consensus(candidates);
    if (!found) {
      prices.set(anchor, 1);
      out.set(anchor, {
        chain,
        token: anchor,
        hour,
        priceUsd: 1,
        source: 'anchor:assumed',
        confidence: ASSUMED_ANCHOR_CONFIDENCE,
      });
      continue;
    }
    const [lo, hi] = ANCHOR_BAND;
    const clamped = Math.min(hi, Math.max(lo, found.price));
    const confidence = found.agreement * found.depth * (clamped === found.price ? 1 : 0.5);
    prices.set(anchor, clamped);
    out.set(anchor, {
      chain,
      token: anchor,
      hour,
      priceUsd: clamped,
      source: `anchor:USD;pools:${found.pools.join(',')}`,
      confidence,
    });
  }

  // Other tokens, breadth-first: a round only uses tokens priced in earlier rounds, so the result does not depend
  // on the order in which tokens are visited.
  for (let hop = 1; hop <= MAX_HOPS; hop++) {
    const round: TokenPriceFact[] = [];
    for (const token of [...byToken.keys()].sort()) {
      if (prices.has(token)) continue;
      const candidates: Candidate[] = [];
      for (const e of edgesOf(token).map(edge)) {
        const otherPrice = prices.get(e.other);
        if (otherPrice === undefined) continue;
        candidates.push({ value: e.rate * otherPrice, weight: e.otherReserve * otherPrice, pool: e.pool });
      }
      const found = consensus(candidates);
      if (!found) continue;
      round.push({
        chain,
        token,
        hour,
        priceUsd: found.price,
        source: `pools:${found.pools.join(',')}`,
        confidence: found.agreement * found.depth * HOP_DECAY ** hop,
      });
    }
    if (round.length === 0) break;
    for (const fact of round) {
      prices.set(fact.token, fact.priceUsd);
      out.set(fact.token, fact);
    }
  }
  return [...out.values()].sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
}

/**
 * The largest set of stablecoins connected by pairs that trade at par (the liquidity-weighted median rate of the
 * pair's pools within AGREEMENT_TOLERANCE of 1): most members first, then most connections, then the smallest
 * address. Empty when no two stablecoins agree.
 */
function referenceGroup(
  anchors: readonly string[],
  edgesOf: (anchor: string) => readonly { rate: number; other: string; otherReserve: number }[],
): Set<string> {
  const parent = new Map(anchors.map((a) => [a, a]));
  const find = (a: string): string => {
    let root = a;
    while (parent.get(root) !== root) root = parent.get(root)!;
    return root;
  };
  const links = new Map<string, number>();
  for (const a of anchors) {
    const byOther = new Map<string, { values: number[]; weights: number[] }>();
    for (const e of edgesOf(a)) {
      let pair = byOther.get(e.other);
      if (!pair) {
        pair = { values: [], weights: [] };
        byOther.set(e.other, pair);
      }
      pair.values.push(e.rate);
      pair.weights.push(e.otherReserve);
    }
    for (const [other, pair] of byOther) {
      const rate = weightedMedian(pair.values, pair.weights);
      if (rate === null || Math.abs(rate - 1) > AGREEMENT_TOLERANCE) continue;
      const [ra, rb] = [find(a), find(other)];
      if (ra !== rb) {
        // The smaller address becomes the root, so the groups do not depend on the order of the pools.
        const [low, high] = [ra, rb].sort();
        parent.set(high!, low!);
      }
      links.set(a, (links.get(a) ?? 0) + 1);
    }
  }
  const groups = new Map<string, string[]>();
  for (const a of anchors) {
    const root = find(a);
    groups.set(root, [...(groups.get(root) ?? []), a]);
  }
  const linkCount = (g: readonly string[]) => sum(g.map((a) => links.get(a) ?? 0));
  const best = [...groups.values()]
    .filter((g) => g.length >= 2)
    .sort((x, y) => y.length - x.length || linkCount(y) - linkCount(x) || (x[0]! < y[0]! ? -1 : 1))[0];
  return new Set(best ?? []);
}

interface Candidate {
  /** Implied USD price of the token. */
  readonly value: number;
  /** USD liquidity of the priced side. */
  readonly weight: number;
  readonly pool: string;
}

/** Liquidity-weighted median of the implied prices of pools deep enough, with its agreement and depth factors. */
function consensus(
  all: readonly Candidate[],
): { price: number; agreement: number; depth: number; pools: string[] } | null {
  const usable = all.filter((c) => c.weight >= MIN_POOL_LIQUIDITY_USD && c.value > 0 && Number.isFinite(c.value));
  if (usable.length === 0) return null;
  const price = weightedMedian(
    usable.map((c) => c.value),
    usable.map((c) => c.weight),
  )!;
  const total = sum(usable.map((c) => c.weight));
  const agreeing = sum(
    usable.filter((c) => Math.abs(c.value / price - 1) <= AGREEMENT_TOLERANCE + 1e-12).map((c) => c.weight),
  );
  const pools = [...usable]
    .sort((a, b) => b.weight - a.weight || (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0))
    .map((c) => c.pool);
  return {
    price,
    agreement: agreeing / total,
    // Between 0.5 (at the minimum liquidity) and 1 (at FULL_DEPTH_USD), logarithmic in between: the cost of moving
    // a price grows with depth, and depth spans decades.
    depth: 0.5 + 0.5 * logScale(total, MIN_POOL_LIQUIDITY_USD, FULL_DEPTH_USD),
    pools: [...new Set(pools)],
  };
}

/**
 * USD prices for every hour of `input.hours` and every token priced in it, sorted by hour then token. A token with
 * no usable pool in an hour has no entry for that hour.
 */
export function computeHourlyPrices(input: HourlyPriceInput): TokenPriceFact[] {
  const tokens = new Map<string, TokenFact>();
  for (const t of input.tokens) if (t.chain === input.chain) tokens.set(t.address, t);
  const states = new Map<string, RawState[]>();
  const poolsByAddress = new Map<string, PoolFact>();
  for (const pool of input.pools) {
    if (pool.chain !== input.chain) continue;
    if (!tokens.has(pool.token0) || !tokens.has(pool.token1)) continue;
    poolsByAddress.set(pool.address, pool);
    states.set(pool.address, []);
  }
  for (const swap of input.swaps) {
    if (swap.chain !== input.chain) continue;
    const pool = poolsByAddress.get(swap.pool);
    if (pool?.design !== 'uniswap-v3' || swap.sqrtPriceX96 === null || swap.liquidity === null) continue;
    const d0 = tokens.get(pool.token0)!.decimals;
    const d1 = tokens.get(pool.token1)!.decimals;
    const sqrtPriceX96 = swap.sqrtPriceX96;
    const liquidity = swap.liquidity;
    states.get(pool.address)!.push({
      timestamp: swap.timestamp,
      blockNumber: swap.blockNumber,
      logIndex: swap.logIndex,
      observe: () => {
        if (sqrtPriceX96 <= 0n) return null;
        const virtual = v3VirtualReserves(liquidity, sqrtPriceX96);
        return {
          pool: pool.address,
          token0: pool.token0,
          token1: pool.token1,
          price: sqrtPriceX96ToPrice(sqrtPriceX96, d0, d1),
          reserve0: toFloat(virtual.reserve0, d0),
          reserve1: toFloat(virtual.reserve1, d1),
        };
      },
    });
  }
  for (const sync of input.syncs) {
    if (sync.chain !== input.chain) continue;
    const pool = poolsByAddress.get(sync.pool);
    if (pool?.design !== 'uniswap-v2') continue;
    const d0 = tokens.get(pool.token0)!.decimals;
    const d1 = tokens.get(pool.token1)!.decimals;
    states.get(pool.address)!.push({
      timestamp: sync.timestamp,
      blockNumber: sync.blockNumber,
      logIndex: sync.logIndex,
      observe: () => {
        const price = reservesToPrice(sync.reserve0, sync.reserve1, d0, d1);
        if (price === null || price <= 0) return null;
        return {
          pool: pool.address,
          token0: pool.token0,
          token1: pool.token1,
          price,
          reserve0: toFloat(sync.reserve0, d0),
          reserve1: toFloat(sync.reserve1, d1),
        };
      },
    });
  }
  const cursors = [...states.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, list]) => ({ list: list.sort(byChainOrder), next: 0, current: null as PoolObservation | null }));
  const anchors = input.anchors
    .map((a) => ({ ...a, address: a.address.toLowerCase() }))
    .filter((a) => tokens.has(a.address));
  const out: TokenPriceFact[] = [];
  for (const hour of [...new Set(input.hours)].sort((a, b) => a - b)) {
    const end = hour + HOUR;
    const observations: PoolObservation[] = [];
    for (const cursor of cursors) {
      // The state at the end of the hour: the last observation with a timestamp before the next hour starts.
      let last: RawState | undefined;
      while (cursor.next < cursor.list.length && cursor.list[cursor.next]!.timestamp < end) {
        last = cursor.list[cursor.next]!;
        cursor.next++;
      }
      if (last) cursor.current = last.observe();
      if (cursor.current) observations.push(cursor.current);
    }
    out.push(...priceFromObservations(input.chain, hour, observations, anchors));
  }
  return out;
}
