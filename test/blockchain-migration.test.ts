import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { BitcoinRepository } from '../src/areas/blockchain/bitcoin/repo.js';
import type { BlockFact } from '../src/areas/blockchain/evm/facts.js';
import { BlockchainRepository, startKey } from '../src/areas/blockchain/evm/repo.js';
import { areaMigrations } from '../src/areas/index.js';
import { DAY } from '../src/core/time.js';
import { writeCheckpoint } from '../src/store/checkpoints.js';
import { migrateToLatest } from '../src/store/migrations.js';
import { testStore } from './helpers.js';

/**
 * A store that ingested blocks before migration 0015 (issue 26: `active_senders` and `active_addresses` on every
 * chain), upgraded: the days holding those blocks publish the figure their facts lack as unknown (null, no_data in
 * the records), never a count of what was not recorded; the figure the old facts hold stays.
 */
const T0 = Date.parse('2026-11-24T00:00:00Z') / 1000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A store at the last migration before 0015, then `upgrade()` to the current one. */
async function oldStore() {
  const { store, cleanup } = testStore();
  cleanups.push(cleanup);
  const before = Object.fromEntries(Object.entries(areaMigrations()).filter(([key]) => key < '0015_'));
  await migrateToLatest(store.db as Kysely<unknown>, before);
  return { store, upgrade: () => store.migrate() };
}

function fact(number: number, senders: string[], addresses: string[]): BlockFact {
  return {
    chain: 'ethereum',
    number,
    hash: `0x${number}`,
    parentHash: `0x${number - 1}`,
    timestamp: T0 + number * 12,
    txs: senders.length,
    system: 0,
    systemViolation: 0,
    deposits: 0,
    typeMix: {},
    failed: 0,
    newContracts: 0,
    gasUsed: '0',
    gasLimit: '0',
    baseFeePerGas: null,
    blobGasUsed: null,
    gasFees: '0',
    l1DataFees: '0',
    burned: '0',
    priority: '0',
    blobFees: '0',
    fees: [],
    senders,
    addresses,
  };
}

describe('blockchain facts stored before migration 0015', () => {
  it('EVM: the day of an old block has its senders and no address count', async () => {
    const { store, upgrade } = await oldStore();
    // Block 1 and its sender as the ingest stored them before 0015.
    const {
      senders: _s,
      addresses: _a,
      chain: _c,
      number: _n,
      hash: _h,
      parentHash: _p,
      timestamp,
      ...stats
    } = fact(1, ['0xa'], ['0xa', '0xb']);
    await sql`insert into blockchain_blocks (chain, number, hash, parent_hash, timestamp, day, stats)
      values ('ethereum', 1, '0x1', '0x0', ${timestamp}, '2026-11-24', ${JSON.stringify(stats)})`.execute(store.db);
    await sql`insert into blockchain_senders (chain, day, address, first_block)
      values ('ethereum', '2026-11-24', '0xa', 1)`.execute(store.db);
    expect((await upgrade()).filter((key) => key.startsWith('0015_'))).toEqual([
      '0015_blockchain_bitcoin_addresses',
      '0015_blockchain_evm_addresses',
    ]);
    const repo = new BlockchainRepository(store.db);
    await writeCheckpoint(store.db, startKey('ethereum'), { block: 1, timestamp }, T0);
    await repo.saveBlocks('ethereum', [fact(2, ['0xc'], ['0xc', '0xd'])], T0);
    const target = {
      chain: 'ethereum',
      layer: 'l1',
      kind: 'l1',
      finalityDepth: 64,
      blockTimeSeconds: 12,
      beacon: false,
    } as const;
    const input = await repo.chainInput(target, async () => new Map());
    expect(input!.days[0]).toMatchObject({ date: '2026-11-24', activeSenders: 2, activeAddresses: null });
  });

  it('Bitcoin: the day of an old block has its addresses and no sender count', async () => {
    const { store, upgrade } = await oldStore();
    await sql`insert into btc_blocks (height, hash, prev_hash, time, tx_count, size, weight, total_fee_sat, difficulty,
        chainwork, tx_fees, type_mix, stats_from)
      values (1, 'h1', 'h0', ${T0 + 60}, 1, 100, 400, '0', 1, '02', '[]', '{"outputs":{},"inputs":{}}',
        'getblockstats')`.execute(store.db);
    await sql`insert into btc_block_addresses (height, address) values (1, 'a'), (1, 'b')`.execute(store.db);
    await upgrade();
    const input = await new BitcoinRepository(store.db).computeInput(T0 - DAY);
    expect(input.activeAddresses.get('2026-11-24')).toBe(2);
    expect(input.activeSenders.get('2026-11-24')).toBeNull();
  });
});
