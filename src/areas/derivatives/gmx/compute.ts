import { ratioToFloat, toFloat } from '../../../core/decimal.js';
import type { GapReason } from '../../../core/gaps.js';
import { DAY, dailyHistoryInstants, HOUR, inDayWindow, utcDate, utcDayWindow } from '../../../core/time.js';
import { fundingRate1h, gmxFundingRate1h, gmxIndexPrice, gmxSideOpenInterest, longShortSkew } from '../conventions.js';
import type { PositionChange } from './events.js';
import {
  type GmxEventFact,
  type GmxMarketFact,
  type GmxMarketState,
  type GmxStateSnapshot,
  ORDER_TYPE,
} from './facts.js';

/**
 * GMX v2's daily figures (pure): per market, per pair (every market whose index token is the pair's base,
 * aggregated and listed) and for the venue (every market, listed or not), for the 7 UTC days ending at `asOf`.
 *
 * - Open interest: the DataStore's `OPEN_INTEREST_IN_TOKENS` per collateral token (the market's long and short
 *   token) and side, summed and divided by GMX's pool divisor: a market whose long and short token are the same
 *   writes the same key under both, so the sum is halved (`MarketUtils.getOpenInterest`). Longs and shorts are
 *   traders' independent positions (a pool venue): both are served and their sum. USD open interest is the tokens
 *   times the index price midpoint `(min + max) / 2` at the record's instant (the oracle's last
 *   `OraclePriceUpdate` read with the snapshot, else a position event's prices); `OPEN_INTEREST` (cost basis) is
 *   served beside it, never instead.
 * - Volume: `sizeDeltaUsd` of `PositionIncrease` and `PositionDecrease` (swaps apart); one trade per event;
 *   liquidations: decreases of order type `Liquidation` (7).
 * - Fees: `PositionFeesCollected` only, each amount (collateral token units) times the event's
 *   `collateralTokenPrice.min`; GMX's position events carry no swap fee.
 * - Funding: `Funding`'s factor per second (magnitude) × 3600 → a 1-hour rate, positive when longs pay shorts: for
 *   a market with adaptive funding (`FUNDING_INCREASE_FACTOR_PER_SECOND` ≠ 0) the sign of the saved funding factor,
 *   otherwise longs pay when their open interest (USD, GMX's default balance) exceeds the shorts' just before the
 *   update, replayed from `OpenInterestUpdated` over the last snapshot before it. Borrowing (`Borrowing`, a fee to
 *   the pool) is not funding: served apart as `borrowRate1h`.
 * - TVL: the long and short tokens the market tokens hold (ERC-20 balances: the pool, the positions' collateral, fees
 *   not yet claimed) at their prices' midpoints; pool value: the pool amounts (`POOL_AMOUNT`) at the same prices
 *   minus the traders' net unrealised PnL (pending borrowing fees and the impact pool are left out).
 *
 * The area's conventions (conventions.ts) are applied here, not restated: `gmxSideOpenInterest` (the divisor),
 * `gmxIndexPrice` (the midpoint), `gmxFundingRate1h` (per second to 1 hour, signed), `longShortSkew` (method `oi`).
 */

/** GMX's 30-decimal fixed point (`Precision.FLOAT_PRECISION`): USD values, prices per token unit, factors. */
const ONE = 10n ** 30n;
const LIQUIDATION = ORDER_TYPE.Liquidation;

export interface GmxTokenInfo {
  readonly symbol: string;
  readonly decimals: number;
}

/** A USD price of one token unit, 30 decimals, observed at `timestamp`. */
export interface GmxPriceObservation {
  readonly token: string;
  readonly timestamp: number;
  readonly min: bigint;
  readonly max: bigint;
}

export interface GmxComputeInput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  readonly dataStore: string;
  readonly eventEmitter: string;
  /** The instant of the newest record (the newest snapshot's time). */
  readonly asOf: number;
  /** The registry's listed pairs (`BASE-QUOTE`). */
  readonly listedPairs: readonly string[];
  readonly markets: readonly GmxMarketFact[];
  /** Symbol and decimals by lowercase address (ERC-20; synthetic index tokens from the oracle keeper's list). */
  readonly tokens: Readonly<Record<string, GmxTokenInfo>>;
  /** DataStore snapshots up to `asOf`, any order; a day's state is its newest snapshot within the day. */
  readonly snapshots: readonly GmxStateSnapshot[];
  /** Events in chain order from at least a day before the oldest record (funding carries over). */
  readonly events: readonly GmxEventFact[];
  /** Prices besides those the position events carry (the oracle keeper's tickers). */
  readonly prices?: readonly GmxPriceObservation[];
}

export interface GmxFees {
  readonly totalUsd: number;
  readonly positionUsd: number;
  readonly borrowingUsd: number;
  readonly liquidationUsd: number;
  /** GMX's position events carry no swap fee (`not_applicable`). */
  readonly swapUsd: null;
}

export interface GmxFlows {
  readonly volumeUsd: number;
  readonly tradeCount: number;
  readonly uniqueTraders: number;
  readonly fees: GmxFees;
  readonly liquidationsUsd: number;
  readonly liquidationCount: number;
}

/** Figures of the state at the record's snapshot; null with its reason in `gapReasons`. */
export interface GmxState {
  readonly longOpenInterestTokens: number | null;
  readonly shortOpenInterestTokens: number | null;
  readonly longOpenInterestUsd: number | null;
  readonly shortOpenInterestUsd: number | null;
  /** long + short: a pool venue's traders hold both sides independently. */
  readonly openInterestUsd: number | null;
  readonly longOpenInterestCostUsd: number | null;
  readonly shortOpenInterestCostUsd: number | null;
  readonly tvlUsd: number | null;
  readonly poolValueUsd: number | null;
  readonly maxOpenInterestLongUsd: number | null;
  readonly maxOpenInterestShortUsd: number | null;
  readonly gapReasons: Readonly<Record<string, GapReason>>;
}

export interface GmxMarketIds {
  readonly marketAddress: string;
  readonly indexToken: string;
  readonly longToken: string;
  readonly shortToken: string;
}

export interface GmxFundingPoint {
  /** Unix seconds of the hour's start. */
  readonly time: number;
  /** The rate the hour's last update set (or the previous one, carried), per hour; null before any. */
  readonly rate1h: number | null;
}

export interface GmxFunding {
  readonly rate1hMean: number | null;
  readonly rate1hLast: number | null;
  /** GMX sets funding per second. */
  readonly sourceInterval: 'per_second';
  readonly history: readonly GmxFundingPoint[];
}

/** USD per whole index token (the price per token unit × 10^decimals); null without the token's decimals. */
export interface GmxIndexPrice {
  readonly min: number;
  readonly max: number;
  readonly mid: number;
}

export interface GmxMarketDay extends GmxState, GmxFlows {
  readonly market: GmxMarketIds;
  readonly pair: string | null;
  readonly indexPrice: GmxIndexPrice | null;
  readonly lastExecutionPrice: number | null;
  readonly funding: GmxFunding;
  /** The latest `Borrowing` factor per second × 3600 (the larger of an update's two sides). */
  readonly borrowRate1h: number | null;
}

export interface GmxPairDay extends GmxState, GmxFlows {
  readonly pair: string;
  readonly markets: readonly GmxMarketIds[];
  readonly indexPrice: GmxIndexPrice | null;
  /** (long − short) / (long + short) of USD open interest; method `oi` (a pool venue). */
  readonly longShortSkew: number | null;
  readonly skewMethod: 'oi';
  /** The markets' funding weighted by their open interest at the record's instant (equal weights without any). */
  readonly funding: GmxFunding;
  readonly borrowRate1h: number | null;
}

export interface GmxDay {
  readonly date: string;
  /** The record's instant: `asOf` for the running day, the day's last second before. */
  readonly instant: number;
  readonly partial: boolean;
  /** The block the record's state was read at (its snapshot), null without one. */
  readonly blockNumber: number | null;
  readonly venue: GmxState & GmxFlows & { readonly numberOfPairs: number };
  readonly pairs: readonly GmxPairDay[];
  readonly markets: readonly GmxMarketDay[];
}

export interface GmxPairListing {
  readonly pair: string;
  readonly listed: boolean;
  /** `active`, or `disabled` when every market of the pair is (`IS_MARKET_DISABLED`). */
  readonly status: 'active' | 'disabled';
  readonly markets: readonly GmxMarketIds[];
}

export interface GmxOutput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  readonly dataStoreAddress: string;
  readonly eventEmitterAddress: string;
  readonly asOf: number;
  readonly oiConvention: 'long_plus_short';
  readonly pairs: readonly GmxPairListing[];
  /** Newest first. */
  readonly days: readonly GmxDay[];
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A pair's base from an index token's symbol: `WETH` → `ETH` where the unwrapped base is listed, `WBTC.b` → `BTC`. */
export function pairOf(symbol: string | undefined, listedPairs: readonly string[]): string | null {
  if (!symbol) return null;
  const base = symbol.toUpperCase().split('.')[0]!;
  const listed = new Set(listedPairs.map((p) => p.split('-')[0]));
  if (!listed.has(base) && base.startsWith('W') && listed.has(base.slice(1))) return `${base.slice(1)}-USD`;
  return `${base}-USD`;
}

const ids = (m: GmxMarketFact): GmxMarketIds => ({
  marketAddress: m.market,
  indexToken: m.indexToken,
  longToken: m.longToken,
  shortToken: m.shortToken,
});

/** USD (float) of an amount × a 30-decimal price. */
const usd = (amountTimesPrice: bigint, scale = ONE) => ratioToFloat(amountTimesPrice, scale);

class PriceBook {
  private readonly byToken = new Map<string, GmxPriceObservation[]>();

  constructor(observations: Iterable<GmxPriceObservation>) {
    for (const o of observations) {
      const list = this.byToken.get(o.token) ?? [];
      list.push(o);
      this.byToken.set(o.token, list);
    }
    for (const list of this.byToken.values()) list.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** The latest price at or before `t`, at most a day old. */
  at(token: string, t: number): GmxPriceObservation | undefined {
    const list = this.byToken.get(token) ?? [];
    let found: GmxPriceObservation | undefined;
    for (const o of list) {
      if (o.timestamp > t) break;
      found = o;
    }
    return found && found.timestamp > t - DAY ? found : undefined;
  }
}

function priceObservations(events: readonly GmxEventFact[], markets: ReadonlyMap<string, GmxMarketFact>) {
  const out: GmxPriceObservation[] = [];
  for (const f of events) {
    const e = f.event;
    if (e.kind !== 'PositionIncrease' && e.kind !== 'PositionDecrease') continue;
    const m = markets.get(e.market);
    if (m)
      out.push({ token: m.indexToken, timestamp: f.timestamp, min: e.indexTokenPriceMin, max: e.indexTokenPriceMax });
    out.push({
      token: e.collateralToken,
      timestamp: f.timestamp,
      min: e.collateralTokenPriceMin,
      max: e.collateralTokenPriceMax,
    });
  }
  return out;
}

/**
 * A market's open interest at a state, GMX's way (the area's `gmxSideOpenInterest`: halved for a single-token
 * market). A side's entries are in the snapshot's order: with the long token as collateral, then the short token.
 */
export function marketOpenInterest(state: GmxMarketState) {
  const sum = (isLong: boolean, field: 'usd' | 'tokens') => {
    const [withLong, withShort] = state.openInterest.filter((o) => o.isLong === isLong).map((o) => o[field]);
    return gmxSideOpenInterest({
      long_token: state.longToken,
      short_token: state.shortToken,
      with_long_collateral: withLong ?? 0n,
      with_short_collateral: withShort ?? 0n,
    });
  };
  return {
    longUsd: sum(true, 'usd'),
    shortUsd: sum(false, 'usd'),
    longTokens: sum(true, 'tokens'),
    shortTokens: sum(false, 'tokens'),
  };
}

interface RawState {
  /** Sums × 2·10^30 (the midpoint's denominator), exact. */
  longUsd2: bigint | null;
  shortUsd2: bigint | null;
  longTokens: number | null;
  shortTokens: number | null;
  longCost: bigint;
  shortCost: bigint;
  tvl2: bigint | null;
  /** The pool amounts' value ×2 (what the LPs' pool holds, positions' collateral apart). */
  poolAssets2: bigint | null;
  maxLong: bigint;
  maxShort: bigint;
  tokensReason?: GapReason;
  priceReason?: GapReason;
}

function rawState(state: GmxMarketState, prices: PriceBook, t: number, tokens: GmxComputeInput['tokens']): RawState {
  const oi = marketOpenInterest(state);
  const index = prices.at(state.indexToken, t);
  const mid2 = index ? index.min + index.max : undefined;
  const decimals = tokens[state.indexToken]?.decimals;
  const value2 = (amounts: GmxMarketState['poolAmounts']) => {
    let total: bigint | null = 0n;
    for (const p of amounts) {
      const price = prices.at(p.token, t);
      if (!price) total = null;
      else if (total !== null) total += p.amount * (price.min + price.max);
    }
    return total;
  };
  const poolAssets2 = value2(state.poolAmounts);
  // TVL: what the market token holds (pool, collateral, unclaimed fees); a snapshot from before the balances were
  // read falls back to the pool amounts.
  const tvl2 = state.heldAmounts ? value2(state.heldAmounts) : poolAssets2;
  return {
    longUsd2: mid2 === undefined ? null : oi.longTokens * mid2,
    shortUsd2: mid2 === undefined ? null : oi.shortTokens * mid2,
    longTokens: decimals === undefined ? null : toFloat(oi.longTokens, decimals),
    shortTokens: decimals === undefined ? null : toFloat(oi.shortTokens, decimals),
    longCost: oi.longUsd,
    shortCost: oi.shortUsd,
    tvl2,
    poolAssets2,
    maxLong: state.maxOpenInterestLong,
    maxShort: state.maxOpenInterestShort,
    ...(decimals === undefined ? { tokensReason: 'no_data' as const } : {}),
    ...(mid2 === undefined || tvl2 === null || poolAssets2 === null ? { priceReason: 'no_price' as const } : {}),
  };
}

const NO_STATE: GmxState = {
  longOpenInterestTokens: null,
  shortOpenInterestTokens: null,
  longOpenInterestUsd: null,
  shortOpenInterestUsd: null,
  openInterestUsd: null,
  longOpenInterestCostUsd: null,
  shortOpenInterestCostUsd: null,
  tvlUsd: null,
  poolValueUsd: null,
  maxOpenInterestLongUsd: null,
  maxOpenInterestShortUsd: null,
  gapReasons: { state: 'no_data' },
};

/** The state figures of several markets' raw states (one market, a pair's, the venue's); sums of unknowns unknown. */
function stateFigures(raws: readonly RawState[], sameIndex: boolean): GmxState {
  if (!raws.length) return NO_STATE;
  const TWO_ONE = 2n * ONE;
  const sumBig = (f: (r: RawState) => bigint | null) =>
    raws.reduce<bigint | null>((a, r) => (a === null || f(r) === null ? null : a + f(r)!), 0n);
  const sumNum = (f: (r: RawState) => number | null) =>
    raws.reduce<number | null>((a, r) => (a === null || f(r) === null ? null : a + f(r)!), 0);
  const longUsd2 = sumBig((r) => r.longUsd2);
  const shortUsd2 = sumBig((r) => r.shortUsd2);
  const longCost = sumBig((r) => r.longCost)!;
  const shortCost = sumBig((r) => r.shortCost)!;
  const tvl2 = sumBig((r) => r.tvl2);
  const poolAssets2 = sumBig((r) => r.poolAssets2);
  const gapReasons: Record<string, GapReason> = {};
  // Tokens of different index tokens do not add up: the venue's totals have none.
  const longTokens = sameIndex ? sumNum((r) => r.longTokens) : null;
  const shortTokens = sameIndex ? sumNum((r) => r.shortTokens) : null;
  if (longTokens === null) {
    const reason = sameIndex ? (raws.find((r) => r.tokensReason)?.tokensReason ?? 'no_data') : 'not_applicable';
    gapReasons.long_open_interest_tokens = reason;
    gapReasons.short_open_interest_tokens = reason;
  }
  if (longUsd2 === null) {
    for (const f of ['long_open_interest_usd', 'short_open_interest_usd', 'open_interest_usd'])
      gapReasons[f] = 'no_price';
  }
  if (tvl2 === null) gapReasons.tvl_usd = 'no_price';
  // Pool value = the pool amounts' value − net trader PnL; long PnL = value − cost, short PnL = cost − value.
  const pool2 =
    poolAssets2 === null || longUsd2 === null || shortUsd2 === null
      ? null
      : poolAssets2 - (longUsd2 - 2n * longCost) - (2n * shortCost - shortUsd2);
  if (pool2 === null) gapReasons.pool_value_usd = 'no_price';
  return {
    longOpenInterestTokens: longTokens,
    shortOpenInterestTokens: shortTokens,
    longOpenInterestUsd: longUsd2 === null ? null : usd(longUsd2, TWO_ONE),
    shortOpenInterestUsd: shortUsd2 === null ? null : usd(shortUsd2, TWO_ONE),
    openInterestUsd: longUsd2 === null || shortUsd2 === null ? null : usd(longUsd2 + shortUsd2, TWO_ONE),
    longOpenInterestCostUsd: usd(longCost),
    shortOpenInterestCostUsd: usd(shortCost),
    tvlUsd: tvl2 === null ? null : usd(tvl2, TWO_ONE),
    poolValueUsd: pool2 === null ? null : usd(pool2, TWO_ONE),
    maxOpenInterestLongUsd: usd(sumBig((r) => r.maxLong)!),
    maxOpenInterestShortUsd: usd(sumBig((r) => r.maxShort)!),
    gapReasons,
  };
}

/** A day's flows over the events of some markets. */
export function flows(events: readonly GmxEventFact[]): GmxFlows {
  let volume = 0n;
  let trades = 0;
  let liquidations = 0n;
  let liquidationCount = 0;
  const traders = new Set<string>();
  let position = 0n;
  let borrowing = 0n;
  let liquidationFee = 0n;
  for (const { event: e } of events) {
    if (e.kind === 'PositionIncrease' || e.kind === 'PositionDecrease') {
      volume += e.sizeDeltaUsd;
      trades++;
      traders.add(e.account);
      if (e.kind === 'PositionDecrease' && e.orderType === LIQUIDATION) {
        liquidations += e.sizeDeltaUsd;
        liquidationCount++;
      }
    } else if (e.kind === 'PositionFeesCollected') {
      position += e.positionFeeAmount * e.collateralTokenPriceMin;
      borrowing += e.borrowingFeeAmount * e.collateralTokenPriceMin;
      liquidationFee += e.liquidationFeeAmount * e.collateralTokenPriceMin;
    }
  }
  return {
    volumeUsd: usd(volume),
    tradeCount: trades,
    uniqueTraders: traders.size,
    fees: {
      totalUsd: usd(position + borrowing + liquidationFee),
      positionUsd: usd(position),
      borrowingUsd: usd(borrowing),
      liquidationUsd: usd(liquidationFee),
      swapUsd: null,
    },
    liquidationsUsd: usd(liquidations),
    liquidationCount,
  };
}

/** GMX's 30-decimal factor per second as a fraction per second. */
const perSecond = (factor: bigint): number => ratioToFloat(factor, ONE);

const before = (a: { blockNumber: number; logIndex: number }, b: { blockNumber: number; logIndex: number }) =>
  a.blockNumber < b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex < b.logIndex);

/**
 * Each `Funding` event of a market as a signed 1-hour rate (positive: longs pay shorts), in chain order. See the
 * module comment for the sign.
 */
export function signedFundingRates(
  market: GmxMarketFact,
  events: readonly GmxEventFact[],
  snapshots: readonly GmxStateSnapshot[],
): { time: number; rate1h: number }[] {
  const ordered = [...snapshots].sort((a, b) => a.blockNumber - b.blockNumber);
  const divisor = market.longToken === market.shortToken ? 2n : 1n;
  const out: { time: number; rate1h: number }[] = [];
  for (const f of events) {
    const e = f.event;
    if (e.kind !== 'Funding' || e.market !== market.market) continue;
    const base = ordered.filter((s) => s.blockNumber < f.blockNumber).at(-1);
    const state = base?.markets.find((m) => m.market === market.market);
    let longsPay: boolean;
    if (state && state.fundingIncreaseFactorPerSecond !== 0n) longsPay = state.savedFundingFactorPerSecond > 0n;
    else {
      const oi = new Map<string, bigint>();
      for (const o of state?.openInterest ?? []) oi.set(`${o.collateralToken}:${o.isLong}`, o.usd);
      for (const u of events) {
        if (!before(u, f)) break;
        const x = u.event;
        if (x.kind !== 'OpenInterestUpdated' || x.market !== market.market) continue;
        if (base && u.blockNumber <= base.blockNumber) continue;
        oi.set(`${x.collateralToken}:${x.isLong}`, x.nextValue);
      }
      const side = (isLong: boolean) =>
        [market.longToken, market.shortToken].reduce((a, c) => a + (oi.get(`${c}:${isLong}`) ?? 0n), 0n) / divisor;
      longsPay = side(true) > side(false);
    }
    out.push({
      time: f.timestamp,
      rate1h: gmxFundingRate1h({ factor_per_second: perSecond(e.factorPerSecond), longs_pay_shorts: longsPay }),
    });
  }
  return out;
}

/** Hourly points of a day window from signed rates (sorted by time): each hour's last rate, carried over. */
export function hourlyPoints(
  rates: readonly { time: number; rate1h: number }[],
  window: { from: number; to: number },
): GmxFundingPoint[] {
  const points: GmxFundingPoint[] = [];
  let i = 0;
  let current: number | null = null;
  for (let h = window.from; h <= window.to; h += HOUR) {
    const end = Math.min(h + HOUR - 1, window.to);
    while (i < rates.length && rates[i]!.time <= end) current = rates[i++]!.rate1h;
    points.push({ time: h, rate1h: current });
  }
  return points;
}

function fundingOf(history: readonly GmxFundingPoint[]): GmxFunding {
  const known = history.filter((p) => p.rate1h !== null).map((p) => p.rate1h!);
  return {
    rate1hMean: known.length ? known.reduce((a, b) => a + b, 0) / known.length : null,
    rate1hLast: history.at(-1)?.rate1h ?? null,
    sourceInterval: 'per_second',
    history,
  };
}

function borrowRate(market: string, events: readonly GmxEventFact[], t: number): number | null {
  const mine = events.filter((f) => f.event.kind === 'Borrowing' && f.event.market === market && f.timestamp <= t);
  const last = mine.at(-1);
  if (!last) return null;
  const rates = mine
    .filter((f) => f.txHash === last.txHash)
    .map((f) => (f.event as { factorPerSecond: bigint }).factorPerSecond);
  const largest = [...rates].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).at(-1) ?? 0n;
  // Borrowing is quoted per second as funding is: the same scaling to an hour (it is not funding).
  return fundingRate1h(perSecond(largest), 'per_second');
}

const isPosition = (f: GmxEventFact): f is GmxEventFact & { event: PositionChange } =>
  f.event.kind === 'PositionIncrease' || f.event.kind === 'PositionDecrease';

export function computeGmx(input: GmxComputeInput): GmxOutput {
  const byAddress = new Map(input.markets.map((m) => [m.market, m]));
  // The oracle's price read with each snapshot last: at the snapshot's instant it is the one that applies.
  const snapshotPrices = input.snapshots.flatMap((s) =>
    s.markets.flatMap((m) =>
      m.oracleIndexPrice ? [{ token: m.indexToken, timestamp: s.timestamp, ...m.oracleIndexPrice }] : [],
    ),
  );
  const prices = new PriceBook([
    ...priceObservations(input.events, byAddress),
    ...(input.prices ?? []),
    ...snapshotPrices,
  ]);
  const pairOfMarket = new Map(
    input.markets.map((m) => [
      m.market,
      m.indexToken === ZERO_ADDRESS ? null : pairOf(input.tokens[m.indexToken]?.symbol, input.listedPairs),
    ]),
  );
  const pairNames = [...new Set([...pairOfMarket.values()].filter((p): p is string => p !== null))].sort();
  const snapshots = [...input.snapshots].sort((a, b) => a.blockNumber - b.blockNumber);
  const newest = snapshots.at(-1);
  const disabled = new Set(newest?.markets.filter((m) => m.disabled).map((m) => m.market) ?? []);
  const pairs: GmxPairListing[] = pairNames.map((pair) => {
    const markets = input.markets.filter((m) => pairOfMarket.get(m.market) === pair);
    return {
      pair,
      listed: input.listedPairs.includes(pair),
      status: markets.every((m) => disabled.has(m.market)) ? 'disabled' : 'active',
      markets: markets.map(ids),
    };
  });
  const fundingRates = new Map(input.markets.map((m) => [m.market, signedFundingRates(m, input.events, snapshots)]));

  const days: GmxDay[] = dailyHistoryInstants(input.asOf, 7).map((instant, d) => {
    const window = utcDayWindow(instant);
    const snapshot = snapshots.filter((s) => inDayWindow(s.timestamp, window)).at(-1);
    const dayEvents = input.events.filter((f) => inDayWindow(f.timestamp, window));
    const states = new Map(snapshot?.markets.map((s) => [s.market, s]) ?? []);
    const raws = new Map<string, RawState>();
    for (const [market, s] of states) raws.set(market, rawState(s, prices, instant, input.tokens));
    const eventsOf = (markets: ReadonlySet<string>) =>
      dayEvents.filter((f) => {
        const e = f.event;
        return e.kind !== 'MarketCreated' && markets.has(e.market);
      });
    const marketDays: GmxMarketDay[] = input.markets.map((m) => {
      const raw = raws.get(m.market);
      const index = prices.at(m.indexToken, instant);
      const decimals = input.tokens[m.indexToken]?.decimals;
      const perToken = (price: bigint) => usd(price * 10n ** BigInt(decimals ?? 0));
      const positions = eventsOf(new Set([m.market])).filter(isPosition);
      return {
        market: ids(m),
        pair: pairOfMarket.get(m.market) ?? null,
        ...(raw ? stateFigures([raw], true) : NO_STATE),
        ...flows(eventsOf(new Set([m.market]))),
        indexPrice:
          index && decimals !== undefined
            ? {
                min: perToken(index.min),
                max: perToken(index.max),
                mid: gmxIndexPrice({ min: perToken(index.min), max: perToken(index.max) }),
              }
            : null,
        lastExecutionPrice:
          positions.length && decimals !== undefined ? perToken(positions.at(-1)!.event.executionPrice) : null,
        funding: fundingOf(hourlyPoints(fundingRates.get(m.market) ?? [], window)),
        borrowRate1h: borrowRate(m.market, input.events, instant),
      };
    });
    const pairDays: GmxPairDay[] = pairs.map((p) => {
      const members = new Set(p.markets.map((m) => m.marketAddress));
      const mine = marketDays.filter((m) => members.has(m.market.marketAddress));
      const memberRaws = [...members].flatMap((m) => (raws.has(m) ? [raws.get(m)!] : []));
      const state = snapshot && memberRaws.length ? stateFigures(memberRaws, true) : NO_STATE;
      const skew =
        state.longOpenInterestUsd === null || state.shortOpenInterestUsd === null
          ? null
          : longShortSkew({ method: 'oi', long: state.longOpenInterestUsd, short: state.shortOpenInterestUsd }).value;
      const weights = mine.map((m) => (m.openInterestUsd ?? 0) || 0);
      const total = weights.reduce((a, b) => a + b, 0);
      const history = (mine[0]?.funding.history ?? []).map((point, h) => {
        const parts = mine
          .map((m, i) => ({ rate: m.funding.history[h]?.rate1h ?? null, w: total > 0 ? weights[i]! : 1 }))
          .filter((x) => x.rate !== null && x.w > 0);
        const w = parts.reduce((a, x) => a + x.w, 0);
        return { time: point.time, rate1h: w > 0 ? parts.reduce((a, x) => a + x.rate! * x.w, 0) / w : null };
      });
      const borrow = mine.map((m) => m.borrowRate1h).filter((r): r is number => r !== null);
      return {
        pair: p.pair,
        markets: p.markets,
        ...state,
        ...flows(eventsOf(members)),
        indexPrice: mine.find((m) => m.indexPrice)?.indexPrice ?? null,
        longShortSkew: skew,
        skewMethod: 'oi',
        funding: fundingOf(history),
        borrowRate1h: borrow.length ? Math.max(...borrow) : null,
      };
    });
    const all = new Set(input.markets.map((m) => m.market));
    return {
      date: utcDate(instant),
      instant,
      partial: d === 0,
      blockNumber: snapshot?.blockNumber ?? null,
      venue: {
        ...(snapshot ? stateFigures([...raws.values()], false) : NO_STATE),
        ...flows(eventsOf(all)),
        numberOfPairs: pairs.length,
      },
      pairs: pairDays,
      markets: marketDays,
    };
  });

  return {
    protocol: input.protocol,
    chain: input.chain,
    version: input.version,
    dataStoreAddress: input.dataStore,
    eventEmitterAddress: input.eventEmitter,
    asOf: input.asOf,
    oiConvention: 'long_plus_short',
    pairs,
    days,
  };
}
