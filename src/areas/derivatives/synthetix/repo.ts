import type { Kysely, Transaction } from 'kysely';
import { DAY, startOfUtcDay } from '../../../core/time.js';
import { inChunks } from '../../../store/chunks.js';
import type { Database } from '../../../store/schema.js';
import type {
  SynthetixCandleFact,
  SynthetixComputeInput,
  SynthetixFundingFact,
  SynthetixMarketFact,
  SynthetixObservationFact,
} from './compute.js';
import { SYNTHETIX_DAYS } from './compute.js';
import type { SynthetixTables } from './tables.js';

type Db = Kysely<Database & SynthetixTables> | Transaction<Database & SynthetixTables>;

/** The newest stored points of a market: where its next read of candles and funding starts. */
export interface SynthetixHeads {
  /** `open_time` of its newest candle (read again: the running hour's candle may have grown). */
  readonly candle: number | null;
  readonly funding: number | null;
}

/** The Synthetix part's queries over its tables. */
export class SynthetixRepository {
  readonly db: Kysely<Database & SynthetixTables>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<SynthetixTables>();
  }

  /** Upserts the markets read now (first seen kept, last seen and states replaced). */
  async saveMarkets(db: Db, protocol: string, markets: readonly SynthetixMarketFact[], now: number): Promise<void> {
    for (const m of markets) {
      await db
        .insertInto('synthetix_markets')
        .values({
          protocol,
          symbol: m.symbol,
          base_asset: m.baseAsset,
          quote_asset: m.quoteAsset,
          is_open: m.isOpen ? 1 : 0,
          is_close_only: m.isCloseOnly ? 1 : 0,
          first_seen: now,
          last_seen: now,
        })
        .onConflict((oc) =>
          oc.columns(['protocol', 'symbol']).doUpdateSet({
            base_asset: m.baseAsset,
            quote_asset: m.quoteAsset,
            is_open: m.isOpen ? 1 : 0,
            is_close_only: m.isCloseOnly ? 1 : 0,
            last_seen: now,
          }),
        )
        .execute();
    }
  }

  async markets(protocol: string): Promise<SynthetixMarketFact[]> {
    const rows = await this.db
      .selectFrom('synthetix_markets')
      .selectAll()
      .where('protocol', '=', protocol)
      .orderBy('symbol')
      .execute();
    return rows.map((r) => ({
      symbol: r.symbol,
      baseAsset: r.base_asset,
      quoteAsset: r.quote_asset,
      isOpen: Number(r.is_open) === 1,
      isCloseOnly: Number(r.is_close_only) === 1,
      firstSeen: Number(r.first_seen),
      lastSeen: Number(r.last_seen),
    }));
  }

  /**
   * Keeps each observation as its market's state for its UTC day unless a newer one of that day is stored. Returns
   * how many rows changed.
   */
  async saveObservations(db: Db, protocol: string, observations: readonly SynthetixObservationFact[]) {
    let changed = 0;
    for (const o of observations) {
      const stored = await db
        .selectFrom('synthetix_observations')
        .select('time')
        .where('protocol', '=', protocol)
        .where('symbol', '=', o.symbol)
        .where('day', '=', o.day)
        .executeTakeFirst();
      if (stored && Number(stored.time) >= o.time) continue;
      const row = {
        time: o.time,
        mark_price: o.markPrice,
        index_price: o.indexPrice,
        long_open_interest: o.longOpenInterest,
        short_open_interest: o.shortOpenInterest,
        funding_rate: o.fundingRate,
      };
      await db
        .insertInto('synthetix_observations')
        .values({ protocol, symbol: o.symbol, day: o.day, ...row })
        .onConflict((oc) => oc.columns(['protocol', 'symbol', 'day']).doUpdateSet(row))
        .execute();
      changed++;
    }
    return changed;
  }

  async saveCandles(db: Db, protocol: string, candles: readonly SynthetixCandleFact[]): Promise<void> {
    await inChunks(candles, async (chunk) => {
      for (const c of chunk) {
        const row = {
          close_price: c.closePrice,
          volume: c.volume,
          quote_volume: c.quoteVolume,
          trade_count: c.tradeCount,
        };
        await db
          .insertInto('synthetix_candles')
          .values({ protocol, symbol: c.symbol, open_time: c.openTime, ...row })
          .onConflict((oc) => oc.columns(['protocol', 'symbol', 'open_time']).doUpdateSet(row))
          .execute();
      }
    });
  }

  async saveFunding(db: Db, protocol: string, points: readonly SynthetixFundingFact[]): Promise<void> {
    await inChunks(points, (chunk) =>
      db
        .insertInto('synthetix_funding')
        .values(chunk.map((f) => ({ protocol, symbol: f.symbol, funding_time: f.time, rate: f.rate })))
        .onConflict((oc) => oc.columns(['protocol', 'symbol', 'funding_time']).doNothing())
        .execute(),
    );
  }

  /** The newest candle and funding point stored per market. */
  async heads(protocol: string): Promise<Map<string, SynthetixHeads>> {
    const out = new Map<string, SynthetixHeads>();
    const candles = await this.db
      .selectFrom('synthetix_candles')
      .select(['symbol', (eb) => eb.fn.max('open_time').as('t')])
      .where('protocol', '=', protocol)
      .groupBy('symbol')
      .execute();
    const funding = await this.db
      .selectFrom('synthetix_funding')
      .select(['symbol', (eb) => eb.fn.max('funding_time').as('t')])
      .where('protocol', '=', protocol)
      .groupBy('symbol')
      .execute();
    for (const r of candles) out.set(r.symbol, { candle: Number(r.t), funding: null });
    for (const r of funding) out.set(r.symbol, { candle: out.get(r.symbol)?.candle ?? null, funding: Number(r.t) });
    return out;
  }

  /** What the computation reads: its gate (the newest observation, candle and funding point). */
  async newest(protocol: string): Promise<{ observation: number; candle: number; funding: number } | undefined> {
    const time = (row: { t: unknown } | undefined) => (row?.t === null || row?.t === undefined ? 0 : Number(row.t));
    const observation = time(
      await this.db
        .selectFrom('synthetix_observations')
        .select((eb) => eb.fn.max('time').as('t'))
        .where('protocol', '=', protocol)
        .executeTakeFirst(),
    );
    if (!observation) return undefined;
    const candle = await this.db
      .selectFrom('synthetix_candles')
      .select((eb) => eb.fn.max('open_time').as('t'))
      .where('protocol', '=', protocol)
      .executeTakeFirst();
    const funding = await this.db
      .selectFrom('synthetix_funding')
      .select((eb) => eb.fn.max('funding_time').as('t'))
      .where('protocol', '=', protocol)
      .executeTakeFirst();
    return { observation, candle: time(candle), funding: time(funding) };
  }

  /** The facts of the computed days (`SYNTHETIX_DAYS` up to the newest observation), or undefined before one. */
  async computeInput(venue: {
    protocol: string;
    chain: string;
    version: string;
  }): Promise<SynthetixComputeInput | undefined> {
    const newest = await this.newest(venue.protocol);
    if (!newest) return undefined;
    const asOf = newest.observation;
    const from = startOfUtcDay(asOf) - (SYNTHETIX_DAYS - 1) * DAY;
    const { protocol } = venue;
    const [observations, candles, funding] = await Promise.all([
      this.db
        .selectFrom('synthetix_observations')
        .selectAll()
        .where('protocol', '=', protocol)
        .where('day', '>=', from)
        .execute(),
      this.db
        .selectFrom('synthetix_candles')
        .selectAll()
        .where('protocol', '=', protocol)
        .where('open_time', '>=', from)
        .where('open_time', '<=', asOf)
        .execute(),
      this.db
        .selectFrom('synthetix_funding')
        .selectAll()
        .where('protocol', '=', protocol)
        .where('funding_time', '>=', from)
        .where('funding_time', '<=', asOf)
        .execute(),
    ]);
    return {
      ...venue,
      asOf,
      markets: await this.markets(protocol),
      observations: observations.map((o) => ({
        symbol: o.symbol,
        day: Number(o.day),
        time: Number(o.time),
        markPrice: o.mark_price,
        indexPrice: o.index_price,
        longOpenInterest: o.long_open_interest,
        shortOpenInterest: o.short_open_interest,
        fundingRate: o.funding_rate,
      })),
      candles: candles.map((c) => ({
        symbol: c.symbol,
        openTime: Number(c.open_time),
        closePrice: c.close_price,
        volume: c.volume,
        quoteVolume: c.quote_volume,
        tradeCount: Number(c.trade_count),
      })),
      funding: funding.map((f) => ({ symbol: f.symbol, time: Number(f.funding_time), rate: f.rate })),
    };
  }

  /** Drops facts older than `before` (Unix seconds): the computation never reads them again. */
  async prune(db: Db, protocol: string, before: number): Promise<void> {
    await db.deleteFrom('synthetix_candles').where('protocol', '=', protocol).where('open_time', '<', before).execute();
    await db
      .deleteFrom('synthetix_funding')
      .where('protocol', '=', protocol)
      .where('funding_time', '<', before)
      .execute();
    await db.deleteFrom('synthetix_observations').where('protocol', '=', protocol).where('day', '<', before).execute();
  }
}
