import { HOUR, nowSeconds, startOfUtcDay } from '../../../core/time.js';
import type { JobContext } from '../../../jobs/types.js';
import { type DydxClient, DydxError, type Trade } from '../../../sources/dydx/index.js';
import { DYDX_MODULE_ACCOUNTS, DYDX_USDC } from './accounts.js';
import { DydxRepository } from './repo.js';
import type { DydxBalanceTable, DydxCandleTable, DydxFundingTable, DydxTradeHourTable } from './tables.js';
import type { DydxTarget } from './targets.js';

/**
 * Every read of dYdX v4 (wiring apart), in two cadences:
 * - `markets`: the indexer's market list (status, oracle price, open interest, caps): one request, stored only
 *   where it changed;
 * - `hourly`: per market, the closed hours since the checkpoint (7 days back on a first run): the taker fills summed
 *   per hour, the hourly funding points and the daily candles from the first day read; then the module accounts'
 *   USDC at the heights of the funding ticks that end a day and of the newest one. Facts and checkpoint in one
 *   transaction. A run before the next hour has closed (and settled) reads nothing.
 */

/** An hour is read once it is this long over: the indexer writes a block's fills a few seconds after it. */
export const SETTLE_SECONDS = 120;
/** At most this many hours per run (a first run catches up over several; `moreToDo`). */
export const HOURS_PER_RUN = 48;

const num = Number;

/** A page of fills summed per closed hour of `[from, to)`: every hour gets a row, fills or not. */
export function tradeHours(
  protocol: string,
  ticker: string,
  trades: readonly Trade[],
  from: number,
  to: number,
): DydxTradeHourTable[] {
  const rows = new Map<number, DydxTradeHourTable>();
  for (let h = from; h < to; h += HOUR) {
    rows.set(h, {
      protocol,
      ticker,
      hour: h,
      fills: 0,
      buy_usd: 0,
      sell_usd: 0,
      liquidation_count: 0,
      liquidation_usd: 0,
    });
  }
  for (const t of trades) {
    const at = Math.floor(Date.parse(t.createdAt) / 1000);
    const row = rows.get(Math.floor(at / HOUR) * HOUR);
    if (!row) continue;
    const usd = num(t.size) * num(t.price);
    row.fills++;
    if (t.side === 'BUY') row.buy_usd += usd;
    else row.sell_usd += usd;
    if (t.type === 'LIQUIDATED') {
      row.liquidation_count++;
      row.liquidation_usd += usd;
    }
  }
  return [...rows.values()];
}

export class DydxIngest {
  constructor(
    private readonly client: DydxClient,
    private readonly lookbackSeconds: number,
  ) {}

  async markets(ctx: JobContext, target: DydxTarget): Promise<string> {
    const markets = await this.client.perpetualMarkets();
    const repo = new DydxRepository(ctx.store.db);
    const states = Object.values(markets).map((m) => ({
      ticker: m.ticker,
      clob_pair_id: m.clobPairId,
      status: m.status,
      oracle_price: m.oraclePrice,
      open_interest: m.openInterest,
      open_interest_upper_cap: m.openInterestUpperCap ?? null,
      next_funding_rate: m.nextFundingRate,
    }));
    const written = await repo.saveMarkets(target.protocol, states, nowSeconds(ctx.clock));
    return `${target.protocol}: ${states.length} markets, ${written} changed`;
  }

  async hourly(ctx: JobContext, target: DydxTarget): Promise<string> {
    const repo = new DydxRepository(ctx.store.db);
    const now = nowSeconds(ctx.clock);
    const closedTo = Math.floor((now - SETTLE_SECONDS) / HOUR) * HOUR;
    const from = (await repo.hourlyCheckpoint(target.protocol))?.readTo ?? startOfUtcDay(now) - this.lookbackSeconds;
    if (from >= closedTo)
      return `${target.protocol}: up to date (hours read to ${new Date(from * 1000).toISOString()})`;
    const to = Math.min(closedTo, from + HOURS_PER_RUN * HOUR);
    const tickers = (await repo.markets(target.protocol)).map((m) => m.ticker);
    if (!tickers.length) return `${target.protocol}: no market listed yet`;
    const candles: DydxCandleTable[] = [];
    const funding: DydxFundingTable[] = [];
    const hours: DydxTradeHourTable[] = [];
    for (const ticker of tickers) {
      if (ctx.signal.aborted) throw new Error('stopped');
      const fills = await this.client.tradesBetween(ticker, from * 1000, to * 1000);
      hours.push(...tradeHours(target.protocol, ticker, fills, from, to));
      for (const f of await this.client.fundingBetween(ticker, from * 1000, to * 1000)) {
        funding.push({
          protocol: target.protocol,
          ticker,
          effective_at: Math.floor(Date.parse(f.effectiveAt) / 1000),
          effective_at_height: Number(f.effectiveAtHeight),
          rate: f.rate,
          price: f.price,
        });
      }
      for (const c of await this.client.candles(ticker, '1DAY', { fromMs: startOfUtcDay(from) * 1000 })) {
        candles.push({
          protocol: target.protocol,
          ticker,
          started_at: Math.floor(Date.parse(c.startedAt) / 1000),
          usd_volume: c.usdVolume,
          base_volume: c.baseTokenVolume,
          trades: c.trades,
          open: c.open,
          close: c.close,
          starting_open_interest: c.startingOpenInterest,
          read_at: now,
        });
      }
    }
    const balances = await this.balances(ctx, target, funding, to);
    await repo.saveHourly({
      protocol: target.protocol,
      candles,
      funding,
      tradeHours: hours,
      balances,
      checkpoint: { readTo: to },
      at: now,
    });
    await repo.prune(target.protocol, startOfUtcDay(now) - this.lookbackSeconds - 86_400);
    if (to < closedTo) ctx.moreToDo?.();
    return (
      `${target.protocol}: ${tickers.length} markets, hours to ${new Date(to * 1000).toISOString()}: ` +
      `${hours.reduce((s, h) => s + h.fills, 0)} fills, ${funding.length} funding points, ${balances.length} balances`
    );
  }

  /**
   * The module accounts' USDC at the heights of the funding ticks that end a day within the read and of the newest
   * tick (`to`): a tick's `effectiveAtHeight` is the chain's block at that instant. A node without the state of a
   * past height (pruned) refuses it (a 4xx): that balance is a gap, not a failure of the read. A malformed answer is
   * no refusal: it fails the read (nothing is written, the next run reads the hours again).
   */
  private async balances(
    ctx: JobContext,
    target: DydxTarget,
    funding: readonly DydxFundingTable[],
    to: number,
  ): Promise<DydxBalanceTable[]> {
    if (!this.client.readsBalances) return [];
    const heights = new Map<number, number>();
    for (const f of funding) {
      if (f.effective_at % 86_400 === 0 || f.effective_at === to) heights.set(f.effective_at, f.effective_at_height);
    }
    const out: DydxBalanceTable[] = [];
    for (const [time, height] of [...heights].sort((a, b) => a[0] - b[0])) {
      for (const [account, address] of Object.entries(DYDX_MODULE_ACCOUNTS)) {
        try {
          const amount = await this.client.balance(address, DYDX_USDC, height);
          out.push({ protocol: target.protocol, account, time, height, amount: amount.toString() });
        } catch (err) {
          // Only the node's refusal (a 4xx answer) is a gap; an answer of another shape fails the read as any other.
          if (!(err instanceof DydxError) || err.retryable || err.status === undefined) throw err;
          ctx.log.warn({ account, height, err: err.message }, 'dydx: balance at a height not readable');
        }
      }
    }
    return out;
  }
}
