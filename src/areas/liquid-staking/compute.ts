/**
 * The liquid staking area's computation: the DEX area's facts, the lending area's market snapshots and the tokens'
 * exchange rates in, the 6 paths' payloads out. Pure: every window ends at the DEX snapshot (`asOf`), passed in.
 */
import { toFloat } from '../../core/decimal.js';
import { type DepthPoolState, pairSellDepthUsd, sellDepth } from '../../core/depth.js';
import { choosePrice, type DexCandidate, type PolicyPrice, roundUsd } from '../../core/price-policy.js';
import { roundTo } from '../../core/score.js';
import { DAY, dailyHistoryInstants, HOUR } from '../../core/time.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import { type PoolStateAt, poolStateAt, scorePoolAt } from '../dex/public.js';
import type { LendingMarketTarget, MarketSnapshot } from '../lending/public.js';
import { type LendingMarketRef, type LstRef, lendingExposure, lstInfo, marketPriceBook } from './exposure.js';
import {
  exchangeRateOf,
  lstPoolAnalytics,
  lstSide,
  type PriceLookup,
  pegFigures,
  pegHistory,
  swapUsd,
} from './pool.js';
import type {
  AvailableDexExposureEntry,
  AvailableLendingExposureEntry,
  LendingExposurePayload,
  LstPoolAnalyticsPayload,
  LstScoreRecordEntry,
} from './schema.js';
import { DEPTH_MOVE, scoreDexPool, scoreExposure } from './score.js';
import type { LiquidStakingToken } from './targets.js';

/** Daily records of a score history (API.md "Time windows"). */
export const HISTORY_DAYS = 7;
/** Swaps read: two 7-day windows, so the oldest daily continuity score has a full window. */
export const SWAP_HISTORY = 14 * DAY;

export interface LiquidStakingInput {
  /** The DEX area's newest snapshot block: the end of every window; history instants derive from it. */
  readonly asOf: { blockNumber: number; timestamp: number };
  readonly liquidStaking: readonly LiquidStakingToken[];
  readonly lending: readonly LendingMarketTarget[];
  /** `${chain}/${protocol}/${version}` → exchange name. */
  readonly exchangeNames: ReadonlyMap<string, string>;
  readonly pools: readonly PoolFact[];
  readonly tokens: readonly TokenFact[];
  /** Newest snapshot per pool (at or before asOf). */
  readonly snapshots: readonly PoolSnapshotFact[];
  /** Swaps in (asOf − 14 d, asOf] (and earlier ones are ignored). */
  readonly swaps: readonly SwapFact[];
  /** V2 syncs up to asOf, including the last one before the history. */
  readonly syncs: readonly SyncFact[];
  readonly prices: readonly TokenPriceFact[];
  /**
   * Per lending market (`marketKey`), its snapshots at the history instants (`historyInstants(asOf)`, newest
   * first): index 0 is the market's newest snapshot, the others the newest at or before each instant.
   */
  readonly lendingSnapshots: ReadonlyMap<string, readonly (MarketSnapshot | undefined)[]>;
  /** `rateKey(chain, token, block)` → stEthPerToken() at that block. */
  readonly exchangeRates: ReadonlyMap<string, bigint>;
}

export interface LiquidStakingOutput {
  readonly availableLending: AvailableLendingExposureEntry[];
  readonly availableDexes: AvailableDexExposureEntry[];
  readonly poolAnalytics: Map<string, { asOf: number; data: LstPoolAnalyticsPayload }>;
  readonly poolScores: Map<string, { asOf: number; data: LstScoreRecordEntry[] }>;
  readonly lending: {
    readonly chain: string;
    readonly protocol: string;
    readonly version: string;
    readonly baseAsset: string;
    readonly flag: boolean;
    readonly asOf: number;
    readonly analytics: LendingExposurePayload;
    readonly scores: LstScoreRecordEntry[];
  }[];
}

export const marketKey = (m: { chain: string; protocol: string; version: string; baseAsset: string }) =>
  `${m.chain}/${m.protocol}/${m.version}/${m.baseAsset}`;
export const rateKey = (chain: string, token: string, block: number) => `${chain}/${token}/${block}`;

export function historyInstants(asOf: number): number[] {
  return dailyHistoryInstants(asOf, HISTORY_DAYS);
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const hourOf = (t: number) => Math.floor(t / HOUR) * HOUR;

function lstRefOf(
  l: LiquidStakingToken,
  tokens: ReadonlyMap<string, TokenFact>,
  lending: readonly LendingMarketTarget[],
): LstRef {
  const symbol =
    tokens.get(`${l.chain}/${l.underlying}`)?.symbol ??
    lending.flatMap((m) => m.assets).find((a) => a.address === l.underlying)?.symbol ??
    l.underlying;
  return {
    chain: l.chain,
    protocol: l.protocol,
    symbol: l.symbol,
    token: l.token,
    decimals: l.decimals,
    underlying: l.underlying,
    underlyingSymbol: symbol,
  };
}

function marketRef(m: LendingMarketTarget): LendingMarketRef {
  return {
    chain: m.chain,
    protocol: m.protocol,
    version: m.version,
    baseAsset: m.baseAsset,
    marketName: m.marketName,
    design: m.design,
    pool: m.pool,
  };
}

/** The lending markets an LST is analysed in (its `lendingMarkets` found in `lending`). */
function marketsOf(l: LiquidStakingToken, lending: readonly LendingMarketTarget[]): LendingMarketTarget[] {
  return lending.filter(
    (m) =>
      m.chain === l.chain &&
      l.lendingMarkets.some((x) => x.protocol === m.protocol && x.version === m.version && x.baseAsset === m.baseAsset),
  );
}

/**
 * The blocks at which the computation needs each token's exchange rate: the pools' states (now and at each history
 * instant) and the lending snapshots. The job reads them (multicall at each block) before calling `computeLiquidStaking`.
 */
export function exchangeRateBlocks(input: Omit<LiquidStakingInput, 'exchangeRates'>): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  const add = (chain: string, token: string, block: number) => {
    const key = `${chain}/${token}`;
    let set = out.get(key);
    if (!set) {
      set = new Set();
      out.set(key, set);
    }
    set.add(block);
  };
  for (const ctx of poolContexts(input)) {
    for (const s of ctx.states) if (s) add(ctx.pool.chain, ctx.lst.token, s.blockNumber);
  }
  for (const l of input.liquidStaking) {
    for (const m of marketsOf(l, input.lending)) {
      for (const s of input.lendingSnapshots.get(marketKey(m)) ?? []) if (s) add(l.chain, l.token, s.blockNumber);
    }
  }
  return out;
}

interface PoolContext {
  readonly pool: PoolFact;
  readonly token0: TokenFact;
  readonly token1: TokenFact;
  readonly lst: LiquidStakingToken;
  readonly snapshot: PoolSnapshotFact | undefined;
  /** State at each history instant (index 0: the snapshot). */
  readonly states: (PoolStateAt | undefined)[];
  /** State at any instant (what was known of the pool then). */
  readonly stateAt: (t: number) => PoolStateAt | undefined;
}

function poolContexts(input: Omit<LiquidStakingInput, 'exchangeRates'>): PoolContext[] {
  const tokens = new Map(input.tokens.map((t) => [`${t.chain}/${t.address}`, t]));
  const pools = new Map(input.pools.map((p) => [`${p.chain}/${p.address}`, p]));
  const snapshots = new Map<string, PoolSnapshotFact>();
  for (const s of input.snapshots) {
    if (s.blockNumber > input.asOf.blockNumber) continue;
    const key = `${s.chain}/${s.pool}`;
    const current = snapshots.get(key);
    if (!current || s.blockNumber > current.blockNumber) snapshots.set(key, s);
  }
  const instants = historyInstants(input.asOf.timestamp);
  const out: PoolContext[] = [];
  for (const lst of input.liquidStaking) {
    for (const ref of lst.dexPools) {
      const pool = pools.get(`${lst.chain}/${ref.pool}`);
      if (!pool) continue;
      const token0 = tokens.get(`${pool.chain}/${pool.token0}`);
      const token1 = tokens.get(`${pool.chain}/${pool.token1}`);
      if (!token0 || !token1 || (pool.token0 !== lst.token && pool.token1 !== lst.token)) continue;
      const snapshot = snapshots.get(`${pool.chain}/${pool.address}`);
      const stateAt = (t: number) =>
        poolStateAt(pool, token0.decimals, token1.decimals, snapshot, input.swaps, input.syncs, t);
      // Record 0 is the pool's own as_of (its snapshot), as the payload's.
      const states = instants.map((t, d) => stateAt(d === 0 && snapshot ? snapshot.timestamp : t));
      out.push({ pool, token0, token1, lst, snapshot, states, stateAt });
    }
  }
  return out.sort((a, b) => compareText(a.pool.address, b.pool.address));
}

/** Computes every liquid staking payload and score. */
export function computeLiquidStaking(input: LiquidStakingInput): LiquidStakingOutput {
  const asOf = input.asOf.timestamp;
  const instants = historyInstants(asOf);
  const tokens = new Map(input.tokens.map((t) => [`${t.chain}/${t.address}`, t]));
  const priceFacts = new Map(input.prices.map((p) => [`${p.chain}/${p.token}/${p.hour}`, p]));
  const pricesOn =
    (chain: string): PriceLookup =>
    (token, hour) =>
      priceFacts.get(`${chain}/${token}/${hour}`)?.priceUsd;
  /** The DEX price of the hour of `at` (the DEX area's, docs/methodology/prices.md) as a policy candidate. */
  const dexCandidate = (chain: string, token: string, at: number): DexCandidate | null => {
    const f = priceFacts.get(`${chain}/${token}/${hourOf(at)}`);
    return f ? { priceUsd: f.priceUsd, confidence: f.confidence, ref: f.source } : null;
  };
  const rateAt = (chain: string, token: string, block: number) => input.exchangeRates.get(rateKey(chain, token, block));
  const contexts = poolContexts(input);

  // Lending exposure first: the DEX pool model measures depth against the LST collateral in lending.
  const lending: LiquidStakingOutput['lending'][number][] = [];
  /** Per LST and instant: LST collateral (tokens) over every market, null when one market is unknown then. */
  const collateralByLst = new Map<string, (number | null)[]>();
  /** Per LST and instant: its policy price (the markets' oracle where one prices it, else the DEX price). */
  const lstPriceByLst = new Map<string, (PolicyPrice | null)[]>();
  /** Per LST and instant: its underlying's policy price, chosen alike (one price of a token at an instant). */
  const underlyingPriceByLst = new Map<string, (PolicyPrice | null)[]>();
  const exposures: {
    lst: LiquidStakingToken;
    ref: LstRef;
    market: LendingMarketTarget;
    perFlag: Map<boolean, (LendingExposurePayload | undefined)[]>;
    snapshots: readonly (MarketSnapshot | undefined)[];
  }[] = [];
  for (const lst of input.liquidStaking) {
    const ref = lstRefOf(lst, tokens, input.lending);
    const lstMarkets = marketsOf(lst, input.lending);
    const collateral: (number | null)[] = instants.map(() => (lstMarkets.length ? 0 : null));
    const lstPrices: (PolicyPrice | null)[] = instants.map(() => null);
    const underlyingPrices: (PolicyPrice | null)[] = instants.map(() => null);
    for (const market of lstMarkets) {
      const snapshots = input.lendingSnapshots.get(marketKey(market)) ?? [];
      const perFlag = new Map<boolean, (LendingExposurePayload | undefined)[]>();
      for (const flag of [true, false]) {
        perFlag.set(
          flag,
          instants.map((_, d) => {
            const s = snapshots[d];
            if (!s) return undefined;
            const raw = rateAt(lst.chain, lst.token, s.blockNumber);
            const mref = marketRef(market);
            // The same chain's other markets at the instant: the feeds a Morpho view's loan token is priced by.
            const peers = input.lending
              .filter((x) => x !== market && x.chain === market.chain)
              .map((x) => input.lendingSnapshots.get(marketKey(x))?.[d]);
            const book = marketPriceBook(s, mref, (a) => dexCandidate(lst.chain, a, s.timestamp), peers);
            return lendingExposure(s, mref, ref, flag, raw === undefined ? null : exchangeRateOf(raw), book).payload;
          }),
        );
      }
      perFlag.get(false)!.forEach((e, d) => {
        // A total over the markets is unknown when one market is (no snapshot at that instant).
        collateral[d] = e && collateral[d] !== null ? collateral[d]! + e.lst_collateral_token : null;
        // The LST's price at the instant: a market oracle's (the first market that prices it), else DEX.
        const p = e?.lst_price ?? null;
        if (p && (!lstPrices[d] || (lstPrices[d]!.source === 'dex' && p.source !== 'dex'))) lstPrices[d] = p;
        const u = e?.underlying_price ?? null;
        if (u && (!underlyingPrices[d] || (underlyingPrices[d]!.source === 'dex' && u.source !== 'dex')))
          underlyingPrices[d] = u;
      });
      exposures.push({ lst, ref, market, perFlag, snapshots });
    }
    collateralByLst.set(`${lst.chain}/${lst.token}`, collateral);
    lstPriceByLst.set(
      `${lst.chain}/${lst.token}`,
      lstPrices.map((p, d) => p ?? choosePrice(instants[d]!, null, dexCandidate(lst.chain, lst.token, instants[d]!))),
    );
    underlyingPriceByLst.set(
      `${lst.chain}/${lst.token}`,
      underlyingPrices.map(
        (p, d) => p ?? choosePrice(instants[d]!, null, dexCandidate(lst.chain, lst.underlying, instants[d]!)),
      ),
    );
  }
  // Exposure summed across markets (flag false: every position posting the LST), on each market's analytics.
  for (const lst of input.liquidStaking) {
    const own = exposures.filter((x) => x.lst === lst);
    const latest = own.map((x) => x.perFlag.get(false)![0]);
    const known = latest.every((e) => e !== undefined);
    const price = lstPriceByLst.get(`${lst.chain}/${lst.token}`)![0] ?? null;
    const tokensAll = known ? latest.reduce((s, e) => s + e!.lst_collateral_token, 0) : null;
    const debts = latest.map((e) => e?.debt_usd ?? null);
    const total = {
      markets: own.length,
      lst_collateral_token: tokensAll === null ? null : roundTo(tokensAll, 9),
      lst_collateral_usd: tokensAll === null || !price ? null : roundUsd(tokensAll * price.price_usd),
      debt_usd: known && debts.every((x) => x !== null) ? roundUsd(debts.reduce((a, b) => a + b!, 0)) : null,
      position_count: known ? latest.reduce((s, e) => s + e!.position_count, 0) : null,
      lst_price_source: price?.source ?? null,
      gap_reason: !known ? 'no_data' : !price ? 'no_price' : null,
    };
    for (const x of own)
      for (const flag of [true, false]) {
        const e = x.perFlag.get(flag)![0];
        if (e) x.perFlag.get(flag)![0] = { ...e, all_markets: total };
      }
  }

  // DEX pools of each LST.
  const poolAnalytics = new Map<string, { asOf: number; data: LstPoolAnalyticsPayload }>();
  const poolScores = new Map<string, { asOf: number; data: LstScoreRecordEntry[] }>();
  for (const ctx of contexts) {
    const { pool, token0, token1, lst, snapshot } = ctx;
    const ref = lstRefOf(lst, tokens, input.lending);
    const prices = pricesOn(pool.chain);
    const collateral = collateralByLst.get(`${lst.chain}/${lst.token}`) ?? instants.map(() => null);
    const swaps = input.swaps.filter(
      (s) =>
        s.chain === pool.chain && s.pool === pool.address && s.timestamp > asOf - SWAP_HISTORY && s.timestamp <= asOf,
    );
    const currentRate = snapshot ? rateAt(pool.chain, lst.token, snapshot.blockNumber) : undefined;
    if (snapshot && currentRate !== undefined) {
      poolAnalytics.set(pool.address, {
        asOf: snapshot.timestamp,
        data: lstPoolAnalytics({
          pool,
          token0,
          token1,
          lst: ref,
          snapshot,
          exchangeRateRaw: currentRate,
          swaps,
          prices,
          lstCollateralToken: collateral[0] ?? null,
          lstPrice: lstPriceByLst.get(`${lst.chain}/${lst.token}`)?.[0] ?? null,
          underlyingPrice: underlyingPriceByLst.get(`${lst.chain}/${lst.token}`)?.[0] ?? null,
        }),
      });
    }
    const side = lstSide(pool, ref);
    const lstToken = side === 0 ? token0 : token1;
    const continuitySwaps = swaps.map((s) => ({
      timestamp: s.timestamp,
      trader: s.trader,
      usd: swapUsd(s, token0, token1, prices),
    }));
    const identity = {
      chain: pool.chain,
      protocol: pool.protocol,
      version: pool.version,
      pool_address: pool.address,
      token_address: lst.token,
    };
    const lstPrices = lstPriceByLst.get(`${lst.chain}/${lst.token}`) ?? instants.map(() => null);
    const scores = instants.map((t0, d) => {
      // Record 0 is stamped with the payload's as_of (the pool snapshot's time).
      const t = d === 0 && snapshot ? snapshot.timestamp : t0;
      const at = ctx.states[d];
      const raw = at ? rateAt(pool.chain, lst.token, at.blockNumber) : undefined;
      const rate = raw === undefined ? null : exchangeRateOf(raw);
      const balances =
        at?.balancesKnown === true
          ? {
              lst: toFloat(side === 0 ? at.state.reserve0 : at.state.reserve1, lstToken.decimals),
              underlying: toFloat(
                side === 0 ? at.state.reserve1 : at.state.reserve0,
                (side === 0 ? token1 : token0).decimals,
              ),
            }
          : null;
      const peg = at && rate !== null ? pegFigures(at.state, side, rate, balances) : null;
      const depth = at ? sellDepth(at.state, side, DEPTH_MOVE) : null;
      // One price for both sides of the coverage ratio (depth and collateral are amounts of one token).
      const policy = lstPrices[d] ?? null;
      const lstPrice = policy?.price_usd ?? null;
      const collateralTokens = collateral[d] ?? null;
      const continuity = scorePoolAt(
        continuitySwaps,
        { t, createdAt: pool.createdAt, dataStart: asOf - SWAP_HISTORY },
        d === 0,
      ).record.score;
      return scoreDexPool({
        t,
        partial: d === 0,
        discount: peg?.discount ?? null,
        imbalance: peg?.imbalance ?? null,
        depthUsd: depth && lstPrice !== null ? toFloat(depth.amountIn, lstToken.decimals) * lstPrice : null,
        lstPriceUsd: lstPrice,
        priceSource: policy?.source ?? null,
        depthReachable: depth?.reachable ?? false,
        lstCollateralUsd: collateralTokens === null || lstPrice === null ? null : collateralTokens * lstPrice,
        identity,
        pegHistory: pegHistory(pool, token0.decimals, token1.decimals, side, swaps, input.syncs, rate, t),
        continuity,
        blockNumber: at?.blockNumber ?? null,
        exchangeRate: rate,
        poolPrice: peg?.poolPrice ?? null,
      });
    });
    poolScores.set(pool.address, { asOf: snapshot?.timestamp ?? asOf, data: scores });
  }

  // Lending documents: analytics of the newest snapshot, and the score history (DEX absorption at each instant).
  for (const x of exposures) {
    const latest = x.snapshots[0];
    if (!latest) continue;
    const own = contexts.filter((c) => c.lst.token === x.lst.token && c.lst.chain === x.lst.chain);
    for (const flag of [true, false]) {
      const history = x.perFlag.get(flag)!;
      const identity = {
        chain: x.market.chain,
        protocol: x.market.protocol,
        version: x.market.version,
        base_asset: x.market.baseAsset,
        pool_address: x.market.pool,
        token_address: x.lst.token,
        looped_only: flag,
      };
      const scores = instants.map((t0, d) => {
        const e = history[d];
        // Record 0 is stamped with the payload's as_of (the lending snapshot's time), and sees the pools then.
        const t = d === 0 ? latest.timestamp : t0;
        const states: DepthPoolState[] = own.flatMap((c) => {
          const st = d === 0 ? c.stateAt(t) : c.states[d];
          return st ? [st.state] : [];
        });
        // A liquidator of the 10 % depeg must sell the seized LST within the bonus those positions pay (E-mode
        // positions pay their category's, usually far below the reserve's).
        const bonus = e?.depeg_scenarios[3]?.lst_liquidation_bonus ?? e?.liquidation_bonus ?? null;
        const depth =
          e && bonus !== null && bonus > 0 && bonus < 1 && states.length
            ? pairSellDepthUsd(states, x.lst.token, x.lst.underlying, bonus, { [x.lst.token]: e.lst_price_usd })
            : null;
        return scoreExposure({
          t,
          partial: d === 0,
          exposure: e,
          dexDepthUsd: depth?.usd ?? null,
          dexPools: states.length,
          identity,
        });
      });
      lending.push({
        chain: x.market.chain,
        protocol: x.market.protocol,
        version: x.market.version,
        baseAsset: x.market.baseAsset,
        flag,
        asOf: latest.timestamp,
        analytics: history[0]!,
        scores,
      });
    }
  }

  const availableLending: AvailableLendingExposureEntry[] = exposures
    .map((x) => ({
      chain: x.market.chain,
      protocol: x.market.protocol,
      version: x.market.version,
      base_asset_symbol: x.market.baseAsset,
      market_name: x.market.marketName,
      pool_address: x.market.pool,
      design: x.market.design,
      liquid_staking_token: lstInfo(x.ref),
      flags: [true, false],
    }))
    .sort((a, b) =>
      compareText(
        marketKey({ ...a, baseAsset: a.base_asset_symbol }),
        marketKey({ ...b, baseAsset: b.base_asset_symbol }),
      ),
    );

  const byExchange = new Map<string, AvailableDexExposureEntry>();
  for (const lst of input.liquidStaking) {
    const info = lstInfo(lstRefOf(lst, tokens, input.lending));
    for (const p of lst.dexPools) {
      const key = `${lst.chain}/${p.protocol}/${p.version}`;
      let entry = byExchange.get(key);
      if (!entry) {
        entry = {
          chain: lst.chain,
          protocol: p.protocol,
          version: p.version,
          exchange_name: input.exchangeNames.get(key) ?? p.protocol,
          pool_addresses: [],
          number_of_pools: 0,
          liquid_staking_tokens: [],
        };
        byExchange.set(key, entry);
      }
      if (!entry.pool_addresses.includes(p.pool)) entry.pool_addresses.push(p.pool);
      if (!entry.liquid_staking_tokens.some((t) => t.token_address === info.token_address)) {
        entry.liquid_staking_tokens.push(info);
      }
    }
  }
  const availableDexes = [...byExchange.entries()]
    .sort((a, b) => compareText(a[0], b[0]))
    .map(([, e]) => {
      e.pool_addresses.sort(compareText);
      return { ...e, number_of_pools: e.pool_addresses.length };
    });

  return { availableLending, availableDexes, poolAnalytics, poolScores, lending };
}
