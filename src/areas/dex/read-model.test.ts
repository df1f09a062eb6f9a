import { afterEach, describe, expect, it } from 'vitest';
import { testStore } from '../../../test/helpers.js';
import type { Store } from '../../store/db.js';
import type { PoolSnapshotFact, TokenPriceFact } from './facts.js';
import { DexReadModel } from './read-model.js';
import { DexRepository } from './repo.js';

const H = 3600;
const T = 1_790_000_000 - (1_790_000_000 % H);
const TOKEN = '0x00000000000000000000000000000000000000a1';
const POOL = '0x00000000000000000000000000000000000000p1';
const snapshot = (blockNumber: number, timestamp: number): PoolSnapshotFact => ({
  chain: 'ethereum',
  pool: POOL,
  blockNumber,
  timestamp,
  reserve0: 1n,
  reserve1: 2n,
  sqrtPriceX96: null,
  liquidity: null,
  tick: null,
});
const price = (hour: number, priceUsd: number): TokenPriceFact => ({
  chain: 'ethereum',
  token: TOKEN,
  hour,
  priceUsd,
  source: 'test',
  confidence: 1,
});

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function store(): Promise<Store> {
  const made = testStore();
  cleanup = made.cleanup;
  await made.store.migrate();
  const repo = new DexRepository(made.store.db);
  await repo.saveSnapshots([snapshot(10, T - 2 * H), snapshot(20, T)]);
  await repo.replacePrices('ethereum', T - 10 * H, T, [price(T - 8 * H, 1.01), price(T - 3 * H, 0.99)], {
    key: 'prices:ethereum',
    value: { block: 20 },
    now: T,
  });
  return made.store;
}

describe('the DEX read model', () => {
  it('picks the snapshot at the head, at or before an instant, or at a block', async () => {
    const dex = new DexReadModel((await store()).db);
    const window = { from: T - 12 * H, until: T };
    expect((await dex.factsWindow('ethereum', window)).snapshots.map((s) => s.blockNumber)).toEqual([20]);
    const before = await dex.factsWindow('ethereum', { ...window, snapshot: { atOrBefore: T - H } });
    expect(before.snapshots).toEqual([]);
    const pinned = await dex.factsWindow('ethereum', { ...window, snapshot: { block: 10 } });
    expect(pinned.snapshots.map((s) => s.blockNumber)).toEqual([10]);
    // Prices from the hour of `from` unless told.
    expect((await dex.factsWindow('ethereum', window)).prices.map((p) => p.priceUsd)).toEqual([1.01, 0.99]);
    const later = await dex.factsWindow('ethereum', { ...window, pricesFrom: T - 4 * H });
    expect(later.prices.map((p) => p.priceUsd)).toEqual([0.99]);
  });

  it("gives a token's USD price at an instant: its newest hourly price within the age allowed", async () => {
    const dex = new DexReadModel((await store()).db);
    expect((await dex.usdPricesAt('ethereum', T + 1800, 6 * H)).get(TOKEN)).toBe(0.99);
    expect((await dex.usdPricesAt('ethereum', T - 5 * H, 6 * H)).get(TOKEN)).toBe(1.01);
    expect((await dex.usdPricesAt('ethereum', T + 1800, 2 * H)).has(TOKEN)).toBe(false);
  });
});
