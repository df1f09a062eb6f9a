import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testStore } from '../../test/helpers.js';
import { loadConfig } from '../config/index.js';
import { DatasetRepository } from '../store/datasets.js';
import type { Store } from '../store/db.js';
import { isoInstants, readyState } from './status.js';

const AREAS = [
  { id: 'dex' as const, computations: ['dex.compute'] },
  { id: 'lending' as const, computations: ['lending.compute'] },
  { id: 'oracles' as const, computations: ['oracles.compute'] },
];

describe('readiness', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore('sqlite'));
    await store.migrate();
  });
  afterEach(() => cleanup());

  it('waits only for the computations this process schedules', async () => {
    const config = loadConfig({ DISABLED_AREAS: '' });
    // Without a job list every area's computations count.
    const all = await readyState(store, config, undefined, AREAS);
    expect(all.ready).toBe(false);
    expect(all.waiting).toEqual(expect.arrayContaining(['dex.compute', 'lending.compute', 'oracles.compute']));

    // Only the DEX runs here (no lending market, no feed on the configured chains): only it is awaited.
    const jobs = [{ name: 'dex.ingest' }, { name: 'dex.compute' }];
    expect(await readyState(store, config, jobs, AREAS)).toEqual({ ready: false, waiting: ['dex.compute'] });
    await new DatasetRepository(store.db).publish({
      computation: 'dex.compute',
      area: 'dex',
      computedAt: 1,
      documents: [{ path: '/data/liquidity/dex/available-dexes', data: [], asOf: 1, source: 'test', freshFor: 60 }],
    });
    expect(await readyState(store, config, jobs, AREAS)).toEqual({ ready: true, waiting: [] });
  });
});

describe('/status instants', () => {
  it('writes the Unix seconds of extra fields as ISO, by their names (the sandbox world: simulated_until)', () => {
    const sandbox = { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, seed: 7, simulated_until: 1_795_190_400 };
    expect(isoInstants({ sandbox })).toEqual({ sandbox: { ...sandbox, simulated_until: '2026-11-20T16:00:00Z' } });
    expect(isoInstants({ a: [{ started_at: 0, block_count: 3 }], as_of: 60, now: 'x' })).toEqual({
      a: [{ started_at: '1970-01-01T00:00:00Z', block_count: 3 }],
      as_of: '1970-01-01T00:01:00Z',
      now: 'x',
    });
  });
});
