/**
 * A deterministic order-book venue for perpetuals, fed by the world's hourly reference prices: per market and closed
 * hour, its matched fills (taker side, size, price near the oracle, taker and maker accounts, liquidations on large
 * moves), its open interest (one side: each contract once, moved by the fills that open or close positions on both
 * sides), its hourly funding rate from the premium of trades over the oracle, and candles aggregated from the fills.
 *
 * Every hour is a pure function of (seed, venue, market, hour, reference prices): the open interest at each hour's
 * start is a target drawn from those alone, and the hour's fills are flagged opening or closing so that they move it
 * exactly to the next hour's target. Any page of any endpoint is then generated on demand, and only a bounded cache
 * of recent hours is kept in memory (issue 31: a resting service's memory).
 *
 * Data is public for an hour once the world has closed it and the clock has passed its end (`lastHour`).
 */
import { HOUR } from '../../../core/time.js';
import { streamRng, zipfWeights } from '../base/generate.js';
import { decimalString, toUnits, unit } from './decimal.js';
import type { PerpMarketSpec } from './markets.js';
import { type ReferencePrices, smoothNoise } from './prices.js';

/** The simulated chain's first block (dYdX Chain's launch day, 2023-10-26): one block a second from there. */
export const CHAIN_GENESIS_SECONDS = 1_698_278_400;

/** The block height of an instant (one block a second since `CHAIN_GENESIS_SECONDS`). */
export function heightAt(ms: number): number {
  return Math.floor(ms / 1000) - CHAIN_GENESIS_SECONDS + 1;
}

/** The time of a block, milliseconds. */
export function timeOfHeight(height: number): number {
  return (height - 1 + CHAIN_GENESIS_SECONDS) * 1000;
}

export interface SimFill {
  readonly market: string;
  /** dYdX's event id: height, transaction index and event index, 4 bytes each, in hex (24 digits). */
  readonly id: string;
  readonly timeMs: number;
  readonly height: number;
  /** The taker's side. */
  readonly side: 'BUY' | 'SELL';
  readonly sizeSteps: number;
  /** Base-asset units, exact. */
  readonly size: string;
  readonly priceTicks: number;
  /** USD, exact. */
  readonly price: string;
  /** A liquidation fills a liquidated position (dYdX: `LIQUIDATED`). */
  readonly type: 'LIMIT' | 'LIQUIDATED';
  readonly taker: string;
  readonly maker: string;
  /** How the fill moved the open interest, in steps: +size (both sides opened), −size (both closed) or 0. */
  readonly openInterestDeltaSteps: number;
}

export interface SimFunding {
  /** The hour's end, when the rate takes effect. */
  readonly effectiveAtMs: number;
  readonly height: number;
  /** The 1-hour rate (positive: longs pay shorts), exact decimal string. */
  readonly rate: string;
  /** The oracle price at `effectiveAtMs`. */
  readonly price: string;
}

export interface SimHour {
  readonly market: string;
  /** Start, Unix seconds. */
  readonly hour: number;
  /** Ascending by time, then id. */
  readonly fills: readonly SimFill[];
  readonly openInterestStartSteps: number;
  readonly openInterestEndSteps: number;
  /** Oracle prices at the hour's start and end, ticks. */
  readonly oracleOpenTicks: number;
  readonly oracleCloseTicks: number;
  readonly funding: SimFunding;
}

/** What a span of fills adds up to (a candle's body), exact. */
export interface SimAggregate {
  readonly trades: number;
  readonly baseSteps: number;
  /** Σ size × price in units of 10^-(stepDecimals + tickDecimals) USD. */
  readonly notionalUnits: bigint;
  readonly openTicks: number | undefined;
  readonly highTicks: number | undefined;
  readonly lowTicks: number | undefined;
  readonly closeTicks: number | undefined;
}

export interface PerpVenueOptions {
  readonly seed: number;
  /** Names the venue's streams (`dydx`, `synthetix`): two venues on one seed trade independently. */
  readonly venue: string;
  readonly markets: readonly PerpMarketSpec[];
  readonly prices: ReferencePrices;
  /** Market-hours kept in memory (default 2048). */
  readonly cacheHours?: number;
}

const TAKERS = 400;
const MAKERS = 12;
const TAKER_WEIGHTS = zipfWeights(TAKERS, 1.1);

export class PerpVenueSimulation {
  readonly venue: string;
  readonly markets: readonly PerpMarketSpec[];
  private readonly byId: ReadonlyMap<string, PerpMarketSpec>;
  private readonly cache = new Map<string, SimHour | null>();
  private readonly cacheHours: number;

  constructor(private readonly options: PerpVenueOptions) {
    this.venue = options.venue;
    this.markets = options.markets;
    this.byId = new Map(options.markets.map((m) => [m.id, m]));
    this.cacheHours = options.cacheHours ?? 2048;
  }

  market(id: string): PerpMarketSpec | undefined {
    return this.byId.get(id);
  }

  /** The last hour whose data is public at `nowMs`: closed by the world and ended by the clock. */
  lastHour(nowMs: number): number | undefined {
    const world = this.options.prices.lastHour();
    if (world === undefined) return undefined;
    const last = Math.min(world, Math.floor(nowMs / 1000 / HOUR) * HOUR - HOUR);
    return this.referenceClose(this.markets[0]!, last) === undefined ? undefined : last;
  }

  /** The first hour with data (Unix seconds): the first the reference prices still know. */
  firstHour(): number | undefined {
    return this.options.prices.firstHour();
  }

  /** The market's USD price at the close of the hour starting at `hour`, before rounding to ticks. */
  referenceClose(market: PerpMarketSpec, hour: number): number | undefined {
    const ref = this.options.prices.close(market.reference, hour);
    if (ref === undefined || !market.proxy) return ref;
    const initial = this.options.prices.initial(market.reference) ?? ref;
    const wander = 0.05 * smoothNoise(this.options.seed, `${this.venue}/${market.id}/basis`, hour, 12);
    return market.proxy.anchorUsd * Math.exp(market.proxy.beta * Math.log(ref / initial) + wander);
  }

  /** The price sizes are drawn against (fixed: open interest in tokens does not move with the price). */
  private anchor(market: PerpMarketSpec): number {
    return market.proxy?.anchorUsd ?? this.options.prices.initial(market.reference) ?? 1;
  }

  /** Open interest in steps at `hour`'s start: a slow wander, cut by a drawdown of the last six hours. */
  openInterestTarget(market: PerpMarketSpec, hour: number): number {
    const wander = Math.exp(0.3 * smoothNoise(this.options.seed, `${this.venue}/${market.id}/oi`, hour, 24));
    const now = this.referenceClose(market, hour - HOUR);
    const before = this.referenceClose(market, hour - 7 * HOUR);
    let cut = 1;
    if (now !== undefined && before !== undefined) {
      const drawdown = now / before - 1;
      if (drawdown < -0.04) cut = Math.max(0.5, 1 + 2.5 * (drawdown + 0.04));
    }
    const tokens = (market.openInterestUsd * wander * cut) / this.anchor(market);
    return Math.max(0, toUnits(tokens, market.stepDecimals));
  }

  /** The hour starting at `hour` (Unix seconds), undefined when the world has not closed it. */
  hour(id: string, hour: number): SimHour | undefined {
    const market = this.byId.get(id);
    if (!market || hour % HOUR !== 0) return undefined;
    const key = `${id}/${hour}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached ?? undefined;
    }
    const made = this.generate(market, hour);
    // An hour the world has not closed yet is not remembered: it will be.
    if (made) {
      this.cache.set(key, made);
      if (this.cache.size > this.cacheHours) this.cache.delete(this.cache.keys().next().value!);
    }
    return made;
  }

  /** Oracle price (ticks) at an instant: linear between the hours' closes. */
  oracleTicksAt(id: string, ms: number): number | undefined {
    const h = this.hour(id, Math.floor(ms / 1000 / HOUR) * HOUR);
    if (!h) return undefined;
    const f = (ms / 1000 - h.hour) / HOUR;
    return Math.round(h.oracleOpenTicks + (h.oracleCloseTicks - h.oracleOpenTicks) * f);
  }

  /** Open interest (steps) at an instant: the hour's start plus the fills before it. */
  openInterestAt(id: string, ms: number): number | undefined {
    const h = this.hour(id, Math.floor(ms / 1000 / HOUR) * HOUR);
    if (!h) return undefined;
    let oi = h.openInterestStartSteps;
    for (const f of h.fills) if (f.timeMs < ms) oi += f.openInterestDeltaSteps;
    return oi;
  }

  /** The fills of `fromMs ≤ time < toMs`, ascending, within the public hours at `nowMs`. */
  fills(id: string, fromMs: number, toMs: number, nowMs: number): SimFill[] {
    const last = this.lastHour(nowMs);
    if (last === undefined) return [];
    const out: SimFill[] = [];
    const end = Math.min(toMs, (last + HOUR) * 1000);
    for (let h = Math.floor(fromMs / 1000 / HOUR) * HOUR; h * 1000 < end; h += HOUR) {
      const hour = this.hour(id, h);
      if (!hour) continue;
      for (const f of hour.fills) if (f.timeMs >= fromMs && f.timeMs < end) out.push(f);
    }
    return out;
  }

  /** What the fills of `fromMs ≤ time < toMs` add up to. */
  aggregate(id: string, fromMs: number, toMs: number, nowMs: number): SimAggregate {
    let trades = 0;
    let baseSteps = 0;
    let notionalUnits = 0n;
    let openTicks: number | undefined;
    let highTicks: number | undefined;
    let lowTicks: number | undefined;
    let closeTicks: number | undefined;
    for (const f of this.fills(id, fromMs, toMs, nowMs)) {
      trades++;
      baseSteps += f.sizeSteps;
      notionalUnits += BigInt(f.sizeSteps) * BigInt(f.priceTicks);
      openTicks ??= f.priceTicks;
      highTicks = Math.max(highTicks ?? f.priceTicks, f.priceTicks);
      lowTicks = Math.min(lowTicks ?? f.priceTicks, f.priceTicks);
      closeTicks = f.priceTicks;
    }
    return { trades, baseSteps, notionalUnits, openTicks, highTicks, lowTicks, closeTicks };
  }

  private generate(market: PerpMarketSpec, hour: number): SimHour | undefined {
    const close = this.referenceClose(market, hour);
    if (close === undefined) return undefined;
    const open = this.referenceClose(market, hour - HOUR) ?? close;
    const { seed } = this.options;
    const rng = streamRng(seed, 'perps', this.venue, market.id, hour);
    const tick = unit(market.tickDecimals);
    const step = unit(market.stepDecimals);
    const ret = close / open - 1;
    const oracleAt = (ms: number) => open + (close - open) * ((ms / 1000 - hour) / HOUR);
    // The premium of trades over the oracle this hour (mark vs index), a few basis points either way.
    const premium = 0.0002 * smoothNoise(seed, `${this.venue}/${market.id}/premium`, hour, 8);
    const start = this.openInterestTarget(market, hour);
    const end = this.openInterestTarget(market, hour + HOUR);
    const drafts: Omit<SimFill, 'id' | 'height' | 'openInterestDeltaSteps' | 'market'>[] = [];
    const draft = (side: 'BUY' | 'SELL', ms: number, notionalUsd: number, type: SimFill['type'], shift: number) => {
      const oracle = oracleAt(ms);
      const sizeSteps = Math.max(1, Math.round(notionalUsd / oracle / step));
      const priceTicks = Math.max(1, Math.round((oracle * (1 + shift)) / tick));
      drafts.push({
        timeMs: ms,
        side,
        sizeSteps,
        size: decimalString(sizeSteps, market.stepDecimals),
        priceTicks,
        price: decimalString(priceTicks, market.tickDecimals),
        type,
        taker: `${this.venue}-trader-${rng.weightedIndex(TAKER_WEIGHTS)}`,
        maker: `${this.venue}-maker-${rng.int(MAKERS)}`,
      });
    };
    const activity = 1 + 8 * Math.abs(ret);
    const count = rng.poisson(market.fillsPerHour * activity);
    const buyShare = Math.min(0.85, Math.max(0.15, 0.5 + 0.25 * Math.tanh(50 * ret) + 300 * premium));
    const median = market.openInterestUsd * 0.002;
    for (let i = 0; i < count; i++) {
      const side = rng.chance(buyShare) ? 'BUY' : 'SELL';
      const ms = (hour + rng.int(HOUR)) * 1000;
      const notional = Math.min(market.openInterestUsd * 0.05, rng.logNormal(median, 1));
      const spread = (side === 'BUY' ? 1 : -1) * 0.0002 + 0.0001 * rng.normal();
      draft(side, ms, notional, 'LIMIT', premium + spread);
    }
    // A move of more than 2.5 % in the hour liquidates positions on the losing side: their closing fills.
    const liquidations: number[] = [];
    if (Math.abs(ret) > 0.025) {
      let budget = Math.floor(start * 0.3);
      const n = Math.min(12, Math.ceil(Math.abs(ret) * 150));
      for (let i = 0; i < n && budget > 0; i++) {
        const side = ret < 0 ? 'SELL' : 'BUY';
        const ms = (hour + rng.int(HOUR)) * 1000;
        const notional = rng.logNormal(market.openInterestUsd * 0.004, 0.5);
        draft(side, ms, notional, 'LIQUIDATED', (side === 'BUY' ? 1 : -1) * 0.002);
        const last = drafts.at(-1)!;
        if (last.sizeSteps > budget) {
          drafts.pop();
          break;
        }
        budget -= last.sizeSteps;
        liquidations.push(drafts.length - 1);
      }
    }
    // Flag opening and closing fills so that the hour moves open interest exactly from `start` to `end`.
    const deltas = new Array<number>(drafts.length).fill(0);
    let remaining = end - start;
    for (const i of liquidations) {
      deltas[i] = -drafts[i]!.sizeSteps;
      remaining += drafts[i]!.sizeSteps;
    }
    for (let i = 0; i < drafts.length; i++) {
      if (drafts[i]!.type === 'LIQUIDATED') continue;
      const size = drafts[i]!.sizeSteps;
      if (remaining >= size) {
        deltas[i] = size;
        remaining -= size;
      } else if (-remaining >= size) {
        deltas[i] = -size;
        remaining += size;
      }
    }
    if (remaining !== 0) {
      // The rest, in one fill in the hour's last second.
      const side = rng.chance(buyShare) ? 'BUY' : 'SELL';
      const ms = (hour + HOUR - 1) * 1000;
      draft(side, ms, Math.abs(remaining) * step * oracleAt(ms), 'LIMIT', premium);
      const last = drafts.at(-1)!;
      drafts[drafts.length - 1] = {
        ...last,
        sizeSteps: Math.abs(remaining),
        size: decimalString(Math.abs(remaining), market.stepDecimals),
      };
      deltas.push(remaining);
    }
    const order = drafts.map((_, i) => i).sort((a, b) => drafts[a]!.timeMs - drafts[b]!.timeMs || a - b);
    const fills: SimFill[] = [];
    let eventIndex = 0;
    let previousHeight = -1;
    let buy = 0;
    let sell = 0;
    for (const i of order) {
      const d = drafts[i]!;
      const height = heightAt(d.timeMs);
      eventIndex = height === previousHeight ? eventIndex + 1 : 0;
      previousHeight = height;
      const notional = d.sizeSteps * step * (d.priceTicks * tick);
      if (d.side === 'BUY') buy += notional;
      else sell += notional;
      fills.push({
        ...d,
        market: market.id,
        id: eventId(height, market.index, eventIndex),
        height,
        openInterestDeltaSteps: deltas[i]!,
      });
    }
    // Funding: the hour's premium (an 8-hour rate) over 8, leaning with the taker flow, capped at 0.04 % an hour.
    const flow = buy + sell > 0 ? (buy - sell) / (buy + sell) : 0;
    const rate = Math.min(0.0004, Math.max(-0.0004, premium / 8 + 0.00002 * flow));
    const effectiveAtMs = (hour + HOUR) * 1000;
    const closeTicks = Math.max(1, Math.round(close / tick));
    return {
      market: market.id,
      hour,
      fills,
      openInterestStartSteps: start,
      openInterestEndSteps: end,
      oracleOpenTicks: Math.max(1, Math.round(open / tick)),
      oracleCloseTicks: closeTicks,
      funding: {
        effectiveAtMs,
        height: heightAt(effectiveAtMs),
        rate: decimalString(Math.round(rate * 1e12), 12),
        price: decimalString(closeTicks, market.tickDecimals),
      },
    };
  }
}

function eventId(height: number, tx: number, event: number): string {
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return `${hex(height)}${hex(tx)}${hex(event)}`;
}
