import { afterEach, describe, expect, it } from 'vitest';
import { testStore } from '../../../../test/helpers.js';
import { DAY } from '../../../core/time.js';
import type { Store } from '../../../store/db.js';
import { BitcoinRepository } from './repo.js';
import type { BitcoinTables, BtcBlockTable } from './tables.js';

const T0 = Date.parse('2026-11-24T00:00:00Z') / 1000;

function row(height: number, time: number): BtcBlockTable {
  return {
    height,
    hash: `h${height}`,
    prev_hash: `h${height - 1}`,
    time,
    tx_count: 1,
    size: 100,
    weight: 400,
    total_fee_sat: '0',
    difficulty: 1,
    chainwork: '02',
    hashrate_144: null,
    hashrate_2016: null,
    tx_fees: '[]',
    type_mix: '{"outputs":{},"inputs":{}}',
    stats_from: 'getblockstats',
    address_roles: 1,
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setUp(): Promise<{ store: Store; repo: BitcoinRepository }> {
  const { store, cleanup } = testStore();
  cleanups.push(cleanup);
  await store.migrate();
  return { store, repo: new BitcoinRepository(store.db) };
}

describe('Bitcoin store: senders and addresses per day', () => {
  it('counts the addresses spent from apart from every address, distinct over the day’s blocks', async () => {
    const { repo } = await setUp();
    await repo.save(
      {
        blocks: [row(1, T0 - 600), row(2, T0 + 600), row(3, T0 + 1200)],
        addresses: [
          { height: 1, address: 'old', spent: 1 },
          // a is paid in block 2 and spends in block 3: one sender; b only paid; c spends in both blocks.
          { height: 2, address: 'a', spent: 0 },
          { height: 2, address: 'b', spent: 0 },
          { height: 2, address: 'c', spent: 1 },
          { height: 3, address: 'a', spent: 1 },
          { height: 3, address: 'c', spent: 1 },
        ],
        missing: [],
        checkpoint: { next: 4, at: T0 + 1200 },
      },
      T0 + 1200,
    );
    const input = await repo.computeInput(T0 - DAY);
    expect(input.activeAddresses.get('2026-11-24')).toBe(3);
    expect(input.activeSenders.get('2026-11-24')).toBe(2);
    expect(input.activeSenders.get('2026-11-23')).toBe(1);
  });

  it('a day with a block stored before migration 0015 has no sender count; its addresses stay known', async () => {
    const { store, repo } = await setUp();
    await repo.save(
      {
        blocks: [row(1, T0 + 60), row(2, T0 + 600)],
        addresses: [
          { height: 1, address: 'a', spent: 1 },
          { height: 2, address: 'b', spent: 0 },
        ],
        missing: [],
        checkpoint: { next: 3, at: T0 + 600 },
      },
      T0 + 600,
    );
    // Block 1 as the ingest stored it before 0015: neither the block's mark nor its rows' roles.
    const db = store.db.withTables<BitcoinTables>();
    await db.updateTable('btc_blocks').set({ address_roles: null }).where('height', '=', 1).execute();
    await db.updateTable('btc_block_addresses').set({ spent: null }).where('height', '=', 1).execute();
    const input = await repo.computeInput(T0 - DAY);
    expect(input.activeAddresses.get('2026-11-24')).toBe(2);
    expect(input.activeSenders.get('2026-11-24')).toBeNull();
  });
});
