import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testStore } from '../../test/helpers.js';
import type { JobContext } from '../jobs/types.js';
import { DatasetRepository } from '../store/datasets.js';
import type { Store } from '../store/db.js';
import { ComputedInputs, publishComputation } from './publication.js';

describe('publication helpers', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let notified: number;
  let now: number;
  let ctx: JobContext;

  beforeEach(async () => {
    ({ store, cleanup } = testStore());
    await store.migrate();
    notified = 0;
    now = 1_795_000_000_000;
    ctx = {
      store,
      clock: { nowMs: () => now },
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      attempt: 1,
      notifyPublished: async () => {
        notified++;
      },
    };
  });
  afterEach(async () => {
    await cleanup();
  });

  const doc = (path: string, asOf: number) => ({ path, data: { path }, asOf, source: 'test', freshFor: 3600 });

  it('publishes a version, records its inputs and notifies; the same inputs are then unchanged', async () => {
    const gate = new ComputedInputs(store.db, 'test:computed');
    const inputs = { heads: [['ethereum', 120]], pricesAt: { ethereum: 118 } };
    expect(await gate.unchanged(inputs)).toBe(false);
    expect(await new DatasetRepository(store.db).latestPublication('test.compute')).toBeUndefined();

    const v1 = await publishComputation(ctx, {
      computation: 'test.compute',
      area: 'dex',
      documents: [doc('/data/a', 1_794_999_000)],
      inputs: { gate, value: inputs },
    });
    expect(notified).toBe(1);
    expect(await new DatasetRepository(store.db).latestPublication('test.compute')).toEqual({
      version: v1,
      asOf: 1_794_999_000,
    });
    expect(await gate.unchanged({ heads: [['ethereum', 120]], pricesAt: { ethereum: 118 } })).toBe(true);
    expect(await gate.unchanged({ heads: [['ethereum', 121]], pricesAt: { ethereum: 118 } })).toBe(false);
    const stored = await new DatasetRepository(store.db).get('/data/a');
    expect(Number(stored?.computed_at)).toBe(now / 1000);

    // A publication without inputs (a job that gates otherwise) leaves the recorded inputs as they were.
    now += 60_000;
    const v2 = await publishComputation(ctx, {
      computation: 'test.compute',
      area: 'dex',
      documents: [doc('/data/a', 1_794_999_060)],
    });
    expect(v2).toBeGreaterThan(v1);
    expect(notified).toBe(2);
    expect(await new DatasetRepository(store.db).latestPublication('test.compute')).toEqual({
      version: v2,
      asOf: 1_794_999_060,
    });
    expect(await gate.unchanged(inputs)).toBe(true);
  });

  it('gates are per key', async () => {
    const a = new ComputedInputs(store.db, 'a:computed');
    const b = new ComputedInputs(store.db, 'b:computed');
    await a.record({ x: 1 }, 1);
    expect(await a.unchanged({ x: 1 })).toBe(true);
    expect(await b.unchanged({ x: 1 })).toBe(false);
  });
});
