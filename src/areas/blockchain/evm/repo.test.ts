import { afterEach, describe, expect, it } from 'vitest';
import { testStore } from '../../../../test/helpers.js';
import { writeCheckpoint } from '../../../store/checkpoints.js';
import type { Store } from '../../../store/db.js';
import type { BlockFact } from './facts.js';
import { BlockchainRepository, startKey } from './repo.js';
import type { BlockchainTables } from './tables.js';
import type { EvmChainTarget } from './targets.js';

const T0 = Date.parse('2026-11-24T00:00:00Z') / 1000;
const TARGET: EvmChainTarget = {
  chain: 'ethereum',
  layer: 'l1',
  kind: 'l1',
  finalityDepth: 64,
  blockTimeSeconds: 12,
  beacon: false,
};

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

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setUp(): Promise<{ store: Store; repo: BlockchainRepository }> {
  const { store, cleanup } = testStore();
  cleanups.push(cleanup);
  await store.migrate();
  await writeCheckpoint(store.db, startKey('ethereum'), { block: 1, timestamp: T0 + 12 }, T0);
  return { store, repo: new BlockchainRepository(store.db) };
}

const today = async (repo: BlockchainRepository) => {
  const input = await repo.chainInput(TARGET, async () => new Map());
  return input!.days[0]!;
};

describe('blockchain EVM store: senders and addresses per day', () => {
  it('counts distinct senders and distinct senders and recipients; a reorg removes what only its blocks had', async () => {
    const { repo } = await setUp();
    await repo.saveBlocks('ethereum', [fact(1, ['0xa'], ['0xa', '0xb']), fact(2, ['0xb'], ['0xb', '0xc'])], T0);
    await repo.saveBlocks('ethereum', [fact(3, ['0xa', '0xd'], ['0xa', '0xd', '0xe'])], T0);
    expect(await today(repo)).toMatchObject({ activeSenders: 3, activeAddresses: 5 });
    await repo.rollbackFrom('ethereum', 3, T0);
    expect(await today(repo)).toMatchObject({ activeSenders: 2, activeAddresses: 3 });
  });

  it('a day with a block stored before its recipients were recorded (migration 0015) has no address count', async () => {
    const { store, repo } = await setUp();
    await repo.saveBlocks('ethereum', [fact(1, ['0xa'], ['0xa', '0xb'])], T0);
    // A block as the ingest stored it before 0015: no addresses row, `addresses_counted` null.
    await store.db
      .withTables<BlockchainTables>()
      .updateTable('blockchain_blocks')
      .set({ addresses_counted: null })
      .where('number', '=', 1)
      .execute();
    await repo.saveBlocks('ethereum', [fact(2, ['0xc'], ['0xc', '0xd'])], T0);
    expect(await today(repo)).toMatchObject({ activeSenders: 2, activeAddresses: null });
  });
});
