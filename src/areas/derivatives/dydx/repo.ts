import type { Kysely } from 'kysely';
import { DAY, startOfUtcDay } from '../../../core/time.js';
import { readCheckpoint, writeCheckpoint } from '../../../store/checkpoints.js';
import { inChunks } from '../../../store/chunks.js';
import type { Database } from '../../../store/schema.js';
import type { DydxBalanceFact, DydxComputeInput } from './compute.js';
import type {
  DydxBalanceTable,
  DydxCandleTable,
  DydxFundingTable,
  DydxMarketTable,
  DydxTables,
  DydxTradeHourTable,
} from './tables.js';
import type { DydxTarget } from './targets.js';

const CHUNK = 400;

/** What one hourly read covered, written with its facts: the closed hours read end at `readTo` (Unix seconds). */
export interface DydxHourlyCheckpoint {
  readonly readTo: number;
}

export const hourlyKey = (protocol: string) => `derivatives.dydx.hourly:${protocol}`;

/** One hourly read's facts, written with its checkpoint in one transaction. */
export interface DydxHourlyWrite {
  readonly protocol: string;
  readonly candles: readonly DydxCandleTable[];
  readonly funding: readonly DydxFundingTable[];
  readonly tradeHours: readonly DydxTradeHourTable[];
  readonly balances: readonly DydxBalanceTable[];
  readonly checkpoint: DydxHourlyCheckpoint;
  readonly at: number;
}

type MarketState = Omit<DydxMarketTable, 'protocol' | 'observed_at' | 'first_seen'>;

const sameState = (a: MarketState, b: MarketState) =>
  a.clob_pair_id === b.clob_pair_id &&
  a.status === b.status &&
  a.oracle_price === b.oracle_price &&
  a.open_interest === b.open_interest &&
  a.open_interest_upper_cap === b.open_interest_upper_cap &&
  a.next_funding_rate === b.next_funding_rate;

/** The dYdX part's queries over its tables. */
export class DydxRepository {
  private readonly db: Kysely<Database & DydxTables>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<DydxTables>();
  }

  async markets(protocol: string): Promise<DydxMarketTable[]> {
    const rows = await this.db
      .selectFrom('dydx_markets')
      .selectAll()
      .where('protocol', '=', protocol)
      .orderBy('ticker')
      .execute();
    return rows.map((r) => ({ ...r, observed_at: Number(r.observed_at), first_seen: Number(r.first_seen) }));
  }

  /**
   * The market list as read at `at`: a market whose state changed (or is new) is rewritten with `observed_at` =
   * `at`; an unchanged one is left as it is, so that a list that did not move writes nothing. Returns the count of
   * markets written.
   */
  async saveMarkets(protocol: string, states: readonly MarketState[], at: number): Promise<number> {
    const stored = new Map((await this.markets(protocol)).map((m) => [m.ticker, m]));
    const changed = states.filter((s) => {
      const old = stored.get(s.ticker);
      return !old || !sameState(old, s);
    });
    if (!changed.length) return 0;
    await this.db.transaction().execute(async (trx) => {
      for (const s of changed) {
        const row = { ...s, protocol, observed_at: at, first_seen: stored.get(s.ticker)?.first_seen ?? at };
        await trx
          .insertInto('dydx_markets')
          .values(row)
          .onConflict((oc) => oc.columns(['protocol', 'ticker']).doUpdateSet({ ...s, observed_at: at }))
          .execute();
      }
    });
    return changed.length;
  }

  /** When the market list last changed (Unix seconds), or undefined before the first read. */
  async marketsChangedAt(protocol: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('dydx_markets')
      .select((eb) => eb.fn.max('observed_at').as('at'))
      .where('protocol', '=', protocol)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  async hourlyCheckpoint(protocol: string): Promise<DydxHourlyCheckpoint | undefined> {
    return readCheckpoint<DydxHourlyCheckpoint>(this.db as unknown as Kysely<Database>, hourlyKey(protocol));
  }

  /** The facts of one hourly read and its checkpoint, in one transaction (a crash leaves both or neither). */
  async saveHourly(w: DydxHourlyWrite): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await inChunks(
        w.candles,
        (rows) =>
          trx
            .insertInto('dydx_candles')
            .values(rows)
            .onConflict((oc) =>
              oc.columns(['protocol', 'ticker', 'started_at']).doUpdateSet((eb) => ({
                usd_volume: eb.ref('excluded.usd_volume'),
                base_volume: eb.ref('excluded.base_volume'),
                trades: eb.ref('excluded.trades'),
                open: eb.ref('excluded.open'),
                close: eb.ref('excluded.close'),
                starting_open_interest: eb.ref('excluded.starting_open_interest'),
                read_at: eb.ref('excluded.read_at'),
              })),
            )
            .execute(),
        CHUNK,
      );
      await inChunks(
        w.funding,
        (rows) =>
          trx
            .insertInto('dydx_funding')
            .values(rows)
            .onConflict((oc) => oc.columns(['protocol', 'ticker', 'effective_at']).doNothing())
            .execute(),
        CHUNK,
      );
      await inChunks(
        w.tradeHours,
        (rows) =>
          trx
            .insertInto('dydx_trade_hours')
            .values(rows)
            .onConflict((oc) => oc.columns(['protocol', 'ticker', 'hour']).doNothing())
            .execute(),
        CHUNK,
      );
      await inChunks(
        w.balances,
        (rows) =>
          trx
            .insertInto('dydx_balances')
            .values(rows)
            .onConflict((oc) => oc.columns(['protocol', 'account', 'time']).doNothing())
            .execute(),
        CHUNK,
      );
      await writeCheckpoint(trx as unknown as Kysely<Database>, hourlyKey(w.protocol), w.checkpoint, w.at);
    });
  }

  /** Facts older than `before` (Unix seconds) are dropped: the records read 8 days. */
  async prune(protocol: string, before: number): Promise<void> {
    await this.db
      .deleteFrom('dydx_candles')
      .where('protocol', '=', protocol)
      .where('started_at', '<', before)
      .execute();
    await this.db
      .deleteFrom('dydx_funding')
      .where('protocol', '=', protocol)
      .where('effective_at', '<', before)
      .execute();
    await this.db.deleteFrom('dydx_trade_hours').where('protocol', '=', protocol).where('hour', '<', before).execute();
    await this.db.deleteFrom('dydx_balances').where('protocol', '=', protocol).where('time', '<', before).execute();
  }

  /**
   * What `computeDydx` reads for a venue: `days` records back from the payload's instant, the end of the newest closed
   * hour read (an hour boundary of the indexer's own data, the same for every process that reads the same indexer;
   * the market list's first read before any hour is). The running day's open interest, oracle price and cap are the
   * market list as last read, at most an hour after it.
   */
  async computeInput(target: DydxTarget, days: number, readsBalances: boolean): Promise<DydxComputeInput | undefined> {
    const markets = await this.markets(target.protocol);
    const listed = await this.marketsChangedAt(target.protocol);
    if (listed === undefined) return undefined;
    const asOf = (await this.hourlyCheckpoint(target.protocol))?.readTo ?? listed;
    const from = startOfUtcDay(asOf) - (days - 1) * DAY;
    const p = target.protocol;
    const candles = await this.db
      .selectFrom('dydx_candles')
      .selectAll()
      .where('protocol', '=', p)
      .where('started_at', '>=', from)
      .execute();
    const funding = await this.db
      .selectFrom('dydx_funding')
      .selectAll()
      .where('protocol', '=', p)
      .where('effective_at', '>=', from)
      .where('effective_at', '<=', asOf + DAY)
      .execute();
    const hours = await this.db
      .selectFrom('dydx_trade_hours')
      .selectAll()
      .where('protocol', '=', p)
      .where('hour', '>=', from)
      .execute();
    const balances = await this.db
      .selectFrom('dydx_balances')
      .selectAll()
      .where('protocol', '=', p)
      .where('time', '>=', from)
      .execute();
    const cap = (c: string | null) => (c === null || Number(c) === 0 ? null : Number(c));
    return {
      protocol: p,
      chain: target.chain,
      version: target.version,
      asOf,
      markets: markets.map((m) => ({
        ticker: m.ticker,
        status: m.status,
        oraclePrice: Number(m.oracle_price),
        openInterest: Number(m.open_interest),
        openInterestUpperCap: cap(m.open_interest_upper_cap),
        observedAt: m.observed_at,
      })),
      candles: candles.map((c) => ({
        ticker: c.ticker,
        startedAt: Number(c.started_at),
        usdVolume: Number(c.usd_volume),
        trades: Number(c.trades),
        close: Number(c.close),
        startingOpenInterest: Number(c.starting_open_interest),
      })),
      funding: funding.map((f) => ({
        ticker: f.ticker,
        effectiveAt: Number(f.effective_at),
        rate: Number(f.rate),
        price: Number(f.price),
      })),
      tradeHours: hours.map((h) => ({
        ticker: h.ticker,
        hour: Number(h.hour),
        buyUsd: Number(h.buy_usd),
        sellUsd: Number(h.sell_usd),
        liquidationCount: Number(h.liquidation_count),
        liquidationUsd: Number(h.liquidation_usd),
      })),
      balances: balances.map(
        (b): DydxBalanceFact => ({
          account: b.account as DydxBalanceFact['account'],
          time: Number(b.time),
          usd: Number(BigInt(b.amount)) / 1e6,
        }),
      ),
      readsBalances,
      days,
    };
  }
}
