/**
 * dYdX v4's daily figures from the part's facts (pure: facts, the instant → figures). One market's day:
 * - volume and trade count: the day's `1DAY` candle (`usdVolume`, `trades`: each match once);
 * - open interest (one side, base units) and the oracle price at the record's instant: the running day's from the
 *   indexer's market list as last read (at most an hour after `asOf`); a past day's from the next day's candle's
 *   `startingOpenInterest` and the price of the funding tick at the day's end (the indexer keeps no other history);
 * - mark price: the day's last fill price (the candle's `close`): the indexer publishes no mark of its own;
 * - taker flow and liquidations: the day's closed hours of taker fills (buys and sells; fills of type LIQUIDATED),
 *   known for a past day once its 24 hours are read;
 * - funding: the day's hourly points (`historicalFunding`, already 1-hour rates, `fundingRate1h(.., '1h')`);
 * - the open-interest cap: the market's `openInterestUpperCap` as last read (the running day only; 0 means none).
 * The venue's day adds the subaccounts module's USDC (TVL) and the insurance fund's at the day's end.
 * docs/methodology/derivatives.md defines each figure.
 */
import type { GapReason } from '../../../core/gaps.js';
import { DAY, startOfUtcDay } from '../../../core/time.js';
import { dayGap, dydxMarketState, type FundingPoint, fundingRate1h, type MarketState } from '../conventions.js';

/** The market list's newest state of one market. */
export interface DydxMarketFact {
  readonly ticker: string;
  readonly status: string;
  readonly oraclePrice: number;
  readonly openInterest: number;
  /** USD; null when the market has none (its tier's cap is 0 or absent). */
  readonly openInterestUpperCap: number | null;
  readonly observedAt: number;
}

export interface DydxCandleFact {
  readonly ticker: string;
  readonly startedAt: number;
  readonly usdVolume: number;
  readonly trades: number;
  readonly close: number;
  readonly startingOpenInterest: number;
}

export interface DydxFundingFact {
  readonly ticker: string;
  readonly effectiveAt: number;
  readonly rate: number;
  readonly price: number;
}

export interface DydxTradeHourFact {
  readonly ticker: string;
  readonly hour: number;
  readonly buyUsd: number;
  readonly sellUsd: number;
  readonly liquidationCount: number;
  readonly liquidationUsd: number;
}

export interface DydxBalanceFact {
  readonly account: 'subaccounts' | 'insurance_fund';
  readonly time: number;
  /** USD (USDC, 6 decimals, converted). */
  readonly usd: number;
}

export interface DydxComputeInput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  /** The payload's instant: the end of the newest closed hour read (the market list's first read before any). */
  readonly asOf: number;
  readonly markets: readonly DydxMarketFact[];
  readonly candles: readonly DydxCandleFact[];
  readonly funding: readonly DydxFundingFact[];
  readonly tradeHours: readonly DydxTradeHourFact[];
  readonly balances: readonly DydxBalanceFact[];
  /** Whether the node's REST is configured (else TVL and the insurance fund are unknown). */
  readonly readsBalances: boolean;
  /** Days of records (newest first, the running day the first): 7 records and older ones for the funding spread. */
  readonly days: number;
}

/** One market's figures for a day; null figures carry their reason in `gaps`. */
export interface DydxMarketDay {
  readonly ticker: string;
  readonly openInterestTokens: number | null;
  readonly oraclePrice: number | null;
  readonly markPrice: number | null;
  readonly volumeUsd: number | null;
  readonly tradeCount: number | null;
  readonly takerFlow: { readonly buyUsd: number; readonly sellUsd: number } | null;
  readonly liquidationsUsd: number | null;
  readonly liquidationCount: number | null;
  readonly funding: readonly FundingPoint[];
  readonly capUsd: number | null;
  readonly gaps: Readonly<Record<string, GapReason>>;
}

export interface DydxDay {
  /** The record's instant: `asOf` on the running day, else the day's last second. */
  readonly instant: number;
  readonly dayStart: number;
  /** Every market observed that day (a candle or a funding point), listed here or not. */
  readonly markets: readonly DydxMarketDay[];
  /** Why a market the venue lists has no figures that day, by ticker. */
  readonly missing: Readonly<Record<string, GapReason>>;
  readonly tvlUsd: number | null;
  readonly insuranceFundUsd: number | null;
  readonly gaps: Readonly<Record<string, GapReason>>;
}

export interface DydxMarketListing {
  readonly ticker: string;
  readonly venueStatus: string;
  readonly state: MarketState;
}

export interface DydxOutput {
  readonly protocol: string;
  readonly chain: string;
  readonly version: string;
  readonly asOf: number;
  readonly listed: readonly DydxMarketListing[];
  /** Newest first. */
  readonly days: readonly DydxDay[];
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** The instants of the records: `asOf` for the running day, then each earlier day's last second. */
export function recordInstants(asOf: number, days: number): number[] {
  const today = startOfUtcDay(asOf);
  return Array.from({ length: days }, (_, i) => (i === 0 ? asOf : today - (i - 1) * DAY - 1));
}

function marketDay(
  ticker: string,
  dayStart: number,
  instant: number,
  running: boolean,
  facts: {
    readonly market: DydxMarketFact | undefined;
    readonly candles: ReadonlyMap<number, DydxCandleFact>;
    readonly funding: readonly DydxFundingFact[];
    readonly tradeHours: readonly DydxTradeHourFact[];
  },
): DydxMarketDay | null {
  const dayEnd = dayStart + DAY;
  const candle = facts.candles.get(dayStart);
  const points = facts.funding.filter(
    (f) => f.effectiveAt >= dayStart && f.effectiveAt < dayEnd && f.effectiveAt <= instant,
  );
  if (!candle && points.length === 0) return null;
  const gaps: Record<string, GapReason> = {};
  let oi: number | null;
  let oracle: number | null;
  if (running) {
    oi = facts.market?.openInterest ?? null;
    oracle = facts.market?.oraclePrice ?? null;
  } else {
    oi = facts.candles.get(dayEnd)?.startingOpenInterest ?? null;
    oracle = facts.funding.find((f) => f.effectiveAt === dayEnd)?.price ?? null;
  }
  if (oi === null) gaps.open_interest = 'no_data';
  if (oracle === null) gaps.index_price = gaps.oracle_price = 'no_price';
  const hours = facts.tradeHours.filter((h) => h.hour >= dayStart && h.hour < dayEnd);
  // A past day's flow needs its 24 hours read (every hour read has a row, fills or not); the running day's is up
  // to the last hour read.
  const complete = running ? hours.length > 0 : hours.length === 24;
  const flow = complete
    ? hours.reduce(
        (s, h) => ({
          buyUsd: s.buyUsd + h.buyUsd,
          sellUsd: s.sellUsd + h.sellUsd,
          liqUsd: s.liqUsd + h.liquidationUsd,
          liqCount: s.liqCount + h.liquidationCount,
        }),
        { buyUsd: 0, sellUsd: 0, liqUsd: 0, liqCount: 0 },
      )
    : null;
  if (!flow) gaps.taker_flow = gaps.liquidations_usd = gaps.liquidation_count = 'no_data';
  if (!candle) gaps.volume_usd = gaps.trade_count = gaps.mark_price = 'no_data';
  let cap: number | null = null;
  if (!running) gaps.cap = 'no_data';
  else if (facts.market?.openInterestUpperCap) cap = facts.market.openInterestUpperCap;
  else gaps.cap = facts.market ? 'not_applicable' : 'no_data';
  return {
    ticker,
    openInterestTokens: oi,
    oraclePrice: oracle,
    markPrice: candle?.close ?? null,
    volumeUsd: candle?.usdVolume ?? null,
    tradeCount: candle?.trades ?? null,
    takerFlow: flow ? { buyUsd: flow.buyUsd, sellUsd: flow.sellUsd } : null,
    liquidationsUsd: flow?.liqUsd ?? null,
    liquidationCount: flow?.liqCount ?? null,
    funding: points.map((p) => ({ time: p.effectiveAt, rate_1h: fundingRate1h(p.rate, '1h') })),
    capUsd: cap,
    gaps,
  };
}

/** The balance standing for a day: at its end (a past day), or the newest read within it (the running day). */
function balanceOf(
  balances: readonly DydxBalanceFact[],
  account: DydxBalanceFact['account'],
  dayStart: number,
  running: boolean,
): number | null {
  const own = balances.filter((b) => b.account === account);
  if (!running) return own.find((b) => b.time === dayStart + DAY)?.usd ?? null;
  let newest: DydxBalanceFact | undefined;
  for (const b of own) if (b.time >= dayStart && (!newest || b.time > newest.time)) newest = b;
  return newest?.usd ?? null;
}

export function computeDydx(input: DydxComputeInput): DydxOutput {
  const markets = new Map(input.markets.map((m) => [m.ticker, m]));
  const candles = groupBy(input.candles, (c) => c.ticker);
  const funding = groupBy(input.funding, (f) => f.ticker);
  const hours = groupBy(input.tradeHours, (h) => h.ticker);
  const tickers = [...new Set([...markets.keys(), ...candles.keys(), ...funding.keys()])].sort();
  const firstSeen = new Map(
    tickers.map((t) => [
      t,
      Math.min(...(candles.get(t) ?? []).map((c) => c.startedAt), markets.get(t)?.observedAt ?? Infinity),
    ]),
  );
  const days = recordInstants(input.asOf, input.days).map((instant, i): DydxDay => {
    const dayStart = startOfUtcDay(instant);
    const running = i === 0;
    const out: DydxMarketDay[] = [];
    const missing: Record<string, GapReason> = {};
    for (const ticker of tickers) {
      const day = marketDay(ticker, dayStart, instant, running, {
        market: markets.get(ticker),
        candles: new Map((candles.get(ticker) ?? []).map((c) => [c.startedAt, c])),
        funding: funding.get(ticker) ?? [],
        tradeHours: hours.get(ticker) ?? [],
      });
      if (day) out.push(day);
      else {
        const seen = firstSeen.get(ticker)!;
        missing[ticker] =
          dayGap({
            day_start: dayStart,
            first_seen: Number.isFinite(seen) ? seen : null,
            listed: markets.has(ticker),
            observed: false,
          }) ?? 'no_data';
      }
    }
    const gaps: Record<string, GapReason> = {};
    const tvl = input.readsBalances ? balanceOf(input.balances, 'subaccounts', dayStart, running) : null;
    const insurance = input.readsBalances ? balanceOf(input.balances, 'insurance_fund', dayStart, running) : null;
    if (tvl === null) gaps.tvl_usd = 'no_data';
    if (insurance === null) gaps.insurance_fund_usd = 'no_data';
    return { instant, dayStart, markets: out, missing, tvlUsd: tvl, insuranceFundUsd: insurance, gaps };
  });
  return {
    protocol: input.protocol,
    chain: input.chain,
    version: input.version,
    asOf: input.asOf,
    listed: input.markets.map((m) => ({ ticker: m.ticker, venueStatus: m.status, state: dydxMarketState(m.status) })),
    days,
  };
}
