/**
 * What the lending area knows of a chain's prices and DEX pools at an instant, rebuilt from facts alone (pure):
 * - the USD price of a token under the one price policy (core/price-policy `choosePrice`): the lending markets' own
 *   oracle answers (Aave/Spark, read at the snapshot block) win, the DEX area's hourly price covers what no oracle
 *   prices, a Morpho market's own oracle (`IOracle.price()`: collateral in loan token) prices a collateral no feed
 *   covers, from the loan token's policy price;
 * - the DEX pools' states at the instant (the DEX area keeps only recent snapshots: V2 from the last `Sync`, V3
 *   from the last swap's price and active liquidity: the DEX area's `poolStateAt`, as liquid staking uses it), and the USD depth
 *   an asset finds in them, valued at the asset's policy price (one figure, one price per token).
 * Nothing here looks past the instant it is asked about (a past record is computed from what was known then).
 */
import { type DepthPoolState, pairSellDepthUsd } from '../../core/depth.js';
import {
  choosePrice,
  type FeedAnswer,
  feedCandidateAt,
  type OracleCandidate,
  type PolicyPrice,
  roundPriceUsd,
} from '../../core/price-policy.js';
import { HOUR } from '../../core/time.js';
import {
  type PoolFact,
  type PoolSnapshotFact,
  poolStateAt,
  type SwapFact,
  type SyncFact,
  type TokenFact,
  type TokenPriceFact,
} from '../dex/public.js';
import type { MarketSnapshot, MorphoMarketSnapshot } from './facts.js';

/** The DEX area's facts of one chain, up to the computation's `as_of`. */
export interface ChainDexFacts {
  readonly pools: readonly PoolFact[];
  readonly tokens: readonly TokenFact[];
  /** The newest pool snapshots (one block). */
  readonly snapshots: readonly PoolSnapshotFact[];
  /** V3 swaps of the window (with the pool's price and active liquidity after each). */
  readonly swaps: readonly SwapFact[];
  /** V2 syncs of the window, and the last one before it per pool. */
  readonly syncs: readonly SyncFact[];
  /** Hourly USD prices (docs/methodology/prices.md). */
  readonly prices: readonly TokenPriceFact[];
}

/** A DEX hourly price stands for an instant up to this long after its hour (the DEX area's own reach). */
export const DEX_PRICE_MAX_AGE = 6 * HOUR;

/** The newest hourly DEX price of `token` whose hour starts at or before `t`, within `DEX_PRICE_MAX_AGE`. */
export function dexPriceAt(
  facts: Pick<ChainDexFacts, 'prices'> | undefined,
  token: string,
  t: number,
): TokenPriceFact | undefined {
  let best: TokenPriceFact | undefined;
  for (const p of facts?.prices ?? []) {
    if (p.token !== token || p.hour > t || p.hour <= t - DEX_PRICE_MAX_AGE - HOUR) continue;
    if (!best || p.hour > best.hour) best = p;
  }
  return best;
}

/** The pools' states at instant `t`, from the facts known at t (the DEX area's `poolStateAt`). */
export function poolStatesAt(facts: ChainDexFacts | undefined, t: number): DepthPoolState[] {
  if (!facts) return [];
  const decimals = new Map(facts.tokens.map((x) => [x.address, x.decimals]));
  const snapshots = new Map(facts.snapshots.map((s) => [s.pool, s]));
  const states: DepthPoolState[] = [];
  for (const p of facts.pools) {
    const d0 = decimals.get(p.token0);
    const d1 = decimals.get(p.token1);
    if (d0 === undefined || d1 === undefined) continue;
    if (p.design !== 'uniswap-v2' && p.design !== 'uniswap-v3') continue;
    const at = poolStateAt(p, d0, d1, snapshots.get(p.address), facts.swaps, facts.syncs, t);
    if (at) states.push(at.state);
  }
  return states;
}

/**
 * The USD value of `asset` sellable on the pools within `maxImpact` price impact, summed over every pool pairing
 * it with another token, valued at `priceUsd` (the asset's policy price). Null when no pool holds it or unpriced.
 */
export function depthUsdIn(
  states: readonly DepthPoolState[],
  asset: string,
  maxImpact: number,
  priceUsd: number | null,
): number | null {
  const a = asset.toLowerCase();
  if (!(maxImpact > 0 && maxImpact < 1) || priceUsd === null) return null;
  const counterparts = new Set(states.flatMap((s) => (s.token0 === a ? [s.token1] : s.token1 === a ? [s.token0] : [])));
  if (!counterparts.size) return null;
  let total = 0;
  for (const other of counterparts) total += pairSellDepthUsd(states, a, other, maxImpact, { [a]: priceUsd }).usd ?? 0;
  return total;
}

/** The policy price of every token a market snapshot holds, at the snapshot's instant. */
export type SnapshotPrices = ReadonlyMap<string, PolicyPrice | null>;

/**
 * Prices of a market snapshot's tokens at its instant `t = snapshot.timestamp`:
 * - feed candidates: the snapshot's own oracle answers (Aave design), else those of the chain's other markets read
 *   at or before t in the same round (`peers`, first wins): the prices Aave and Spark value the token at;
 * - Morpho collateral without a feed: its market's oracle × the loan token's policy price (`market_oracle`);
 * - DEX candidate: the DEX area's hourly price at t.
 */
export function snapshotPrices(
  snapshot: MarketSnapshot,
  peers: readonly (MarketSnapshot | undefined)[],
  dex: Pick<ChainDexFacts, 'prices'> | undefined,
): Map<string, PolicyPrice | null> {
  const t = snapshot.timestamp;
  const feed = (token: string) => feedCandidate(snapshot, peers, token);
  const dexCandidate = (token: string) => {
    const p = dexPriceAt(dex, token, t);
    return p ? { priceUsd: p.priceUsd, confidence: p.confidence, ref: p.source } : null;
  };
  const out = new Map<string, PolicyPrice | null>();
  const priceOf = (token: string) => {
    if (!out.has(token)) out.set(token, choosePrice(t, feed(token), dexCandidate(token)));
    return out.get(token) ?? null;
  };
  for (const m of snapshot.morphoMarkets ?? []) {
    const loan = priceOf(m.loanToken);
    if (feed(m.collateralToken) || out.has(m.collateralToken)) continue;
    const own = marketOracleCandidate(m, loan, t);
    out.set(m.collateralToken, choosePrice(t, own, dexCandidate(m.collateralToken)));
  }
  for (const r of snapshot.reserves) priceOf(r.asset);
  return out;
}

/**
 * The feed answer the policy takes for `token` at the snapshot's instant: the snapshot's own oracle answers (Aave
 * design: AaveOracle, read at its block), else those of the chain's other Aave-design markets read at or before it
 * in the same round (`peers`, first wins). A Morpho snapshot holds no feed answer: the USD price its loan token was
 * stored with is the DEX price of its hour, never an oracle's.
 */
export function feedCandidate(
  snapshot: MarketSnapshot,
  peers: readonly (MarketSnapshot | undefined)[],
  token: string,
): OracleCandidate | null {
  for (const s of [snapshot, ...peers]) {
    if (!s || s.morphoMarkets || s.timestamp > snapshot.timestamp) continue;
    const r = s.reserves.find((x) => x.asset === token);
    if (r?.priceUsd != null && r.priceUsd > 0)
      return { priceUsd: r.priceUsd, updatedAt: s.timestamp, heartbeat: null, ref: s.oracle ?? s.pool, kind: 'oracle' };
  }
  return null;
}

/**
 * A Morpho market's own oracle as the policy's candidate for its collateral: `IOracle.price()` (collateral in loan
 * token) × the loan token's policy price, to 8 decimals (the precision of the USD feeds it stands in for).
 */
export function marketOracleCandidate(
  m: MorphoMarketSnapshot,
  loan: PolicyPrice | null,
  t: number,
): OracleCandidate | null {
  return loan && m.oraclePrice !== null && m.oraclePrice > 0
    ? {
        priceUsd: roundPriceUsd(m.oraclePrice * loan.price_usd),
        updatedAt: t,
        heartbeat: null,
        ref: m.oracle ?? m.id,
        kind: 'market_oracle',
      }
    : null;
}

/**
 * The policy price of `token` at instant `t` (a liquidation's block time), as every area takes it: the newest USD
 * feed answer at or before `t` of the oracle area's feeds (`feeds`, core/price-policy `feedCandidateAt`), fresh
 * within its heartbeat × 1.5, else the DEX price of the instant (at most 6 hours old), else the stale feed answer at
 * low confidence; null when neither exists. The price carries its source, so a figure valued with it can say which.
 */
export function priceAtInstant(
  feeds: readonly FeedAnswer[],
  dex: Pick<ChainDexFacts, 'prices'> | undefined,
  token: string,
  t: number,
): PolicyPrice | null {
  const d = dexPriceAt(dex, token, t);
  return choosePrice(
    t,
    feedCandidateAt(feeds, token, t),
    d ? { priceUsd: d.priceUsd, confidence: d.confidence, ref: d.source } : null,
  );
}
