import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../../test/helpers.js';
import { DAY, HOUR } from '../../../core/time.js';
import type { Dialect, Store } from '../../../store/db.js';
import type { SynthetixObservationFact } from './compute.js';
import { SynthetixRepository } from './repo.js';
import type { SynthetixTables } from './tables.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const TODAY = Date.UTC(2026, 10, 20) / 1000;
const VENUE = { protocol: 'synthetix', chain: 'ethereum', version: 'V4' };

const observation = (time: number, long: string): SynthetixObservationFact => ({
  symbol: 'BTC-USDT',
  day: time - (time % DAY),
  time,
  markPrice: '100',
  indexPrice: '100',
  longOpenInterest: long,
  shortOpenInterest: long,
  fundingRate: '0',
});

describe.each(dialects)('the Synthetix repository on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let repo: SynthetixRepository;

  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
    repo = new SynthetixRepository(store.db);
  });
  afterEach(async () => cleanup());

  it('keeps each market’s newest observation per UTC day, never an older one over it', async () => {
    const db = store.db.withTables<SynthetixTables>();
    expect(await repo.saveObservations(db, 'synthetix', [observation(TODAY - HOUR, '1')])).toBe(1);
    expect(await repo.saveObservations(db, 'synthetix', [observation(TODAY + HOUR, '2')])).toBe(1);
    expect(await repo.saveObservations(db, 'synthetix', [observation(TODAY + 2 * HOUR, '3')])).toBe(1);
    // The same answer again, or an older one: nothing changes.
    expect(await repo.saveObservations(db, 'synthetix', [observation(TODAY + 2 * HOUR, '3')])).toBe(0);
    expect(await repo.saveObservations(db, 'synthetix', [observation(TODAY + HOUR, '9')])).toBe(0);
    await repo.saveMarkets(
      db,
      'synthetix',
      [
        {
          symbol: 'BTC-USDT',
          baseAsset: 'BTC',
          quoteAsset: 'USDT',
          isOpen: true,
          isCloseOnly: false,
          firstSeen: 0,
          lastSeen: 0,
        },
      ],
      TODAY,
    );
    const input = (await repo.computeInput(VENUE))!;
    expect(input.asOf).toBe(TODAY + 2 * HOUR);
    expect(input.observations.map((o) => [o.day, o.time, o.longOpenInterest]).sort()).toEqual([
      [TODAY - DAY, TODAY - HOUR, '1'],
      [TODAY, TODAY + 2 * HOUR, '3'],
    ]);
    expect(input.markets.map((m) => [m.symbol, m.isOpen, m.firstSeen])).toEqual([['BTC-USDT', true, TODAY]]);
  });

  it('finds the newest candle and funding point per market, replaces a grown candle, and prunes old facts', async () => {
    const db = store.db.withTables<SynthetixTables>();
    const candle = (openTime: number, quoteVolume: string) => ({
      symbol: 'BTC-USDT',
      openTime,
      closePrice: '1',
      volume: '1',
      quoteVolume,
      tradeCount: 1,
    });
    await repo.saveCandles(db, 'synthetix', [candle(TODAY - 9 * DAY, '5'), candle(TODAY, '1')]);
    await repo.saveCandles(db, 'synthetix', [candle(TODAY, '2')]);
    await repo.saveFunding(db, 'synthetix', [
      { symbol: 'BTC-USDT', time: TODAY - 9 * DAY, rate: '0.1' },
      { symbol: 'BTC-USDT', time: TODAY, rate: '0.2' },
    ]);
    expect(await repo.heads('synthetix')).toEqual(new Map([['BTC-USDT', { candle: TODAY, funding: TODAY }]]));
    await repo.prune(db, 'synthetix', TODAY - 8 * DAY);
    await repo.saveObservations(db, 'synthetix', [observation(TODAY + HOUR, '1')]);
    const input = (await repo.computeInput(VENUE))!;
    expect(input.candles.map((c) => [c.openTime, c.quoteVolume])).toEqual([[TODAY, '2']]);
    expect(input.funding).toEqual([{ symbol: 'BTC-USDT', time: TODAY, rate: '0.2' }]);
    const rows = await db.selectFrom('synthetix_candles').select('open_time').execute();
    expect(rows.map((r) => Number(r.open_time))).toEqual([TODAY]);
  });
});
