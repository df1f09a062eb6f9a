import { DAY, HOUR, nowSeconds, startOfUtcDay } from '../../../core/time.js';
import type { JobContext } from '../../../jobs/types.js';
import type { SynthetixEndpoint } from '../../../sources/synthetix/index.js';
import { readCheckpoint, writeCheckpoint } from '../../../store/checkpoints.js';
import { eachTarget } from '../../kit/each-target.js';
import type {
  SynthetixCandleFact,
  SynthetixFundingFact,
  SynthetixMarketFact,
  SynthetixObservationFact,
} from './compute.js';
import { SynthetixRepository } from './repo.js';
import type { SynthetixTables } from './tables.js';
import type { SynthetixTarget } from './targets.js';

/** The checkpoint of a venue's history reads: per market, when candles and funding were last read (Unix seconds). */
export const historyCheckpointKey = (protocol: string) => `derivatives.synthetix.history:${protocol}`;

type HistoryCheckpoint = Record<string, number>;

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * Every read of the Synthetix info API the part makes, each written with what it covers in one transaction:
 * - `markets`: `getMarkets`, `getMarketPrices` and `getOpenInterest` → the markets and each market's newest
 *   observation of its UTC day (the API's state now; it keeps no history of it);
 * - `history`: per market, the hourly candles from its newest stored candle (read again: the running hour's may have
 *   grown) and the funding rates after its newest stored point, `lookbackSeconds` before the running day on a first
 *   read. A market read in the current hour is not read again before the next hour starts: both series are hourly.
 */
export class SynthetixIngest {
  constructor(
    private readonly endpoint: SynthetixEndpoint,
    private readonly lookbackSeconds: number,
  ) {}

  async markets(ctx: JobContext, target: SynthetixTarget): Promise<string> {
    const { client } = this.endpoint;
    const listed = await client.markets();
    const prices = await client.marketPrices();
    const openInterest = await client.openInterest();
    const now = nowSeconds(ctx.clock);
    const markets: SynthetixMarketFact[] = listed.map((m) => ({
      symbol: m.symbol,
      baseAsset: m.baseAsset,
      quoteAsset: m.quoteAsset,
      isOpen: m.isOpen,
      isCloseOnly: m.isCloseOnly,
      firstSeen: now,
      lastSeen: now,
    }));
    const observations: SynthetixObservationFact[] = openInterest.flatMap((oi) => {
      const price = prices[oi.symbol];
      if (!price) return [];
      // The figures hold at the older of the two answers' instants.
      const time = seconds(Math.min(oi.timestamp, price.timestamp));
      return [
        {
          symbol: oi.symbol,
          day: startOfUtcDay(time),
          time,
          markPrice: price.markPrice,
          indexPrice: price.indexPrice,
          longOpenInterest: oi.longOpenInterest,
          shortOpenInterest: oi.shortOpenInterest,
          fundingRate: price.fundingRate,
        },
      ];
    });
    const repo = new SynthetixRepository(ctx.store.db);
    const changed = await repo.db.transaction().execute(async (trx) => {
      await repo.saveMarkets(trx, target.protocol, markets, now);
      return repo.saveObservations(trx, target.protocol, observations);
    });
    return `${target.protocol}: ${markets.length} markets, ${changed} new observations`;
  }

  async history(ctx: JobContext, target: SynthetixTarget): Promise<string> {
    const repo = new SynthetixRepository(ctx.store.db);
    const key = historyCheckpointKey(target.protocol);
    const nowMs = ctx.clock.nowMs();
    const now = seconds(nowMs);
    const read = (await readCheckpoint<HistoryCheckpoint>(ctx.store.db, key)) ?? {};
    const markets = await repo.markets(target.protocol);
    if (!markets.length) return `${target.protocol}: no market listed yet`;
    const due = markets.filter((m) => {
      const last = read[m.symbol];
      return last === undefined || Math.floor(last / HOUR) < Math.floor(now / HOUR);
    });
    if (!due.length) return `${target.protocol}: up to date (every market read this hour)`;
    const heads = await repo.heads(target.protocol);
    const start = startOfUtcDay(now) - this.lookbackSeconds;
    let candleCount = 0;
    let fundingCount = 0;
    const done = await eachTarget(
      ctx,
      due,
      (m) => m.symbol,
      async (m) => {
        const head = heads.get(m.symbol);
        const candlesFrom = Math.max(start, head?.candle ?? start);
        const fundingFrom = head?.funding == null ? start * 1000 : Math.max(start * 1000, head.funding * 1000 + 1);
        const { client } = this.endpoint;
        const candles: SynthetixCandleFact[] = (await client.candles(m.symbol, '1h', candlesFrom * 1000, nowMs)).map(
          (c) => ({
            symbol: m.symbol,
            openTime: seconds(c.openTime),
            closePrice: c.closePrice,
            volume: c.volume,
            quoteVolume: c.quoteVolume,
            tradeCount: c.tradeCount,
          }),
        );
        const funding: SynthetixFundingFact[] =
          fundingFrom < nowMs
            ? (await client.fundingRateHistory(m.symbol, fundingFrom, nowMs)).map((f) => ({
                symbol: m.symbol,
                time: seconds(f.fundingTime),
                rate: f.fundingRate,
              }))
            : [];
        await ctx.store.db.transaction().execute(async (trx) => {
          const facts = trx.withTables<SynthetixTables>();
          await repo.saveCandles(facts, target.protocol, candles);
          await repo.saveFunding(facts, target.protocol, funding);
          const cp = (await readCheckpoint<HistoryCheckpoint>(trx, key)) ?? {};
          await writeCheckpoint(trx, key, { ...cp, [m.symbol]: now }, now);
        });
        candleCount += candles.length;
        fundingCount += funding.length;
        return m.symbol;
      },
    );
    await repo.prune(repo.db, target.protocol, start - DAY);
    return `${target.protocol}: ${done.length} markets read (${candleCount} candles, ${fundingCount} funding points)`;
  }
}
