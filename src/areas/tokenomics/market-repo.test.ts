import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import { DAY, HOUR } from '../../core/time.js';
import type { Dialect, Store } from '../../store/db.js';
import type { CoinReading } from './market-days.js';
import { MARKET_RETENTION_SECONDS, MarketRepository, type MarketRun } from './market-repo.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const T0 = Date.UTC(2026, 10, 20) / 1000;

const coin = (price: number): CoinReading => ({
  priceUsd: price,
  marketCapUsd: price * 10,
  circulatingSupply: 10,
  totalSupply: 20,
  maxSupply: null,
  chart: [
    [T0 * 1000, price],
    [(T0 + DAY) * 1000, price * 1.5],
  ],
  tickers: [],
});
const run = (fetchedAt: number, price: number, exchanges: MarketRun['exchanges'] = []): MarketRun => ({
  fetchedAt,
  coins: new Map([['uniswap', coin(price)]]),
  charts: new Map([
    ['ethereum', { chart: [[fetchedAt * 1000, 3000]] }],
    ['bitcoin', { chart: [[fetchedAt * 1000, 90000]] }],
  ]),
  global: { totalMarketCapUsd: 1e12 + price },
  exchanges,
});

describe.each(dialects)('the tokenomics market readings on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let repo: MarketRepository;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
    repo = new MarketRepository(store.db);
  });
  afterEach(async () => cleanup());

  it('stores a run and reads the newest reading at or before an instant', async () => {
    expect(await repo.newestFetch()).toBeNull();
    await repo.saveRun(run(T0, 5));
    await repo.saveRun(run(T0 + HOUR, 6));
    expect(await repo.newestFetch()).toBe(T0 + HOUR);
    expect(await repo.readingAt('coin', 'uniswap', T0 - 1)).toBeUndefined();
    expect(await repo.readingAt('coin', 'uniswap', T0 + HOUR - 1)).toEqual({ fetchedAt: T0, reading: coin(5) });
    expect(await repo.readingAt('coin', 'uniswap', T0 + 5 * HOUR)).toEqual({ fetchedAt: T0 + HOUR, reading: coin(6) });
    expect((await repo.readingAt('chart', 'bitcoin', T0))?.reading).toEqual({ chart: [[T0 * 1000, 90000]] });
    expect((await repo.readingAt('global', 'global', T0))?.reading).toEqual({ totalMarketCapUsd: 1e12 + 5 });
    expect(await repo.readingAt('coin', 'aave', T0 + HOUR)).toBeUndefined();
    // A run saved again at the same instant replaces its readings (idempotent).
    await repo.saveRun(run(T0, 7));
    expect((await repo.readingAt<CoinReading>('coin', 'uniswap', T0))?.reading.priceUsd).toBe(7);
    expect(await repo.count()).toBe(8);
  });

  it('keeps exchange flags, refreshed in place', async () => {
    await repo.saveRun(run(T0, 5, [{ id: 'cex_a', name: 'A', centralized: true }]));
    await repo.saveRun(
      run(T0 + DAY, 5, [
        { id: 'dex_b', name: 'B', centralized: false },
        { id: 'cex_a', name: 'A2', centralized: true },
      ]),
    );
    expect(await repo.exchanges()).toEqual([
      { id: 'cex_a', name: 'A2', centralized: true, fetchedAt: T0 + DAY },
      { id: 'dex_b', name: 'B', centralized: false, fetchedAt: T0 + DAY },
    ]);
  });

  it('keeps 8 days of readings: a run prunes what is older', async () => {
    for (let t = T0; t <= T0 + 10 * DAY; t += 12 * HOUR) await repo.saveRun(run(t, 5));
    const newest = T0 + 10 * DAY;
    expect(await repo.readingAt('coin', 'uniswap', newest - MARKET_RETENTION_SECONDS - 1)).toBeUndefined();
    expect((await repo.readingAt('coin', 'uniswap', newest - MARKET_RETENTION_SECONDS))?.fetchedAt).toBe(
      newest - MARKET_RETENTION_SECONDS,
    );
    // 17 runs of 12 hours in the 8 days (both ends), 4 readings each.
    expect(await repo.count()).toBe(17 * 4);
  });

  it('a run is all or nothing: a failing write leaves the previous readings alone', async () => {
    await repo.saveRun(run(T0, 5));
    const bad: MarketRun = {
      ...run(T0 + HOUR, 6),
      exchanges: [{ id: 'x', name: null as unknown as string, centralized: true }],
    };
    await expect(repo.saveRun(bad)).rejects.toThrow();
    expect(await repo.newestFetch()).toBe(T0);
    expect(await repo.count()).toBe(4);
  });
});
