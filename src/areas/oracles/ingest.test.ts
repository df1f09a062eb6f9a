import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import type { EvmLog } from '../../sources/evm/index.js';
import type { Dialect, Store } from '../../store/db.js';
import { AGGREGATOR_ABI, decodeAnswerUpdated } from './events.js';
import { OracleSink } from './ingest.js';
import { OracleRepository } from './repo.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

const PROXY = '0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419';
const AGGREGATOR: Hex = '0x00000000000000000000000000000000000000a1';
const OTHER: Hex = '0x00000000000000000000000000000000000000b2';

function answerLog(address: Hex, block: number, answer: bigint, roundId: bigint, updatedAt: number): EvmLog {
  const topics = encodeEventTopics({
    abi: AGGREGATOR_ABI,
    eventName: 'AnswerUpdated',
    args: { current: answer, roundId },
  }) as Hex[];
  return {
    address,
    topics,
    data: encodeAbiParameters([{ type: 'uint256' }], [BigInt(updatedAt)]),
    blockNumber: block,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    logIndex: 0,
    transactionHash: `0x${(block + 1000).toString(16).padStart(64, '0')}`,
    transactionIndex: 0,
  };
}

describe('AnswerUpdated decoding', () => {
  it('reads a negative answer, the round id and updatedAt; ignores other logs', () => {
    const log = answerLog(AGGREGATOR, 5, -123n, 7n, 1_700_000_000);
    expect(decodeAnswerUpdated(log)).toEqual({ answer: -123n, roundId: 7n, updatedAt: 1_700_000_000 });
    expect(decodeAnswerUpdated({ ...log, topics: [log.topics[1]!] })).toBeUndefined();
  });
});

describe.each(dialects)('the oracle sink on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(() => cleanup());

  const ctx = { chain: 'ethereum', blocks: new Map(), senders: new Map() };

  it('stores the rounds of the aggregators it was given under their feed, idempotently, and rolls back', async () => {
    const sink = new OracleSink('ethereum', 1);
    sink.setEmitters(new Map([[AGGREGATOR, PROXY]]));
    expect(await sink.queries(0, store.db)).toEqual([
      { addresses: [AGGREGATOR], topics: [expect.stringMatching(/^0x/)] },
    ]);
    const logs = [
      answerLog(AGGREGATOR, 10, 300_000_000_000n, 1n, 1000),
      answerLog(OTHER, 11, 1n, 1n, 1100),
      answerLog(AGGREGATOR, 12, 301_000_000_000n, 2n, 1200),
    ];
    const write = () => store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 20 }, [logs], ctx));
    expect(await write()).toBe(2);
    await write();
    const repo = new OracleRepository(store.db);
    const rounds = await repo.rounds('ethereum', PROXY, 0, 2000);
    expect(rounds.map((r) => [r.roundId, r.answer, r.updatedAt, r.aggregator])).toEqual([
      [1n, 300_000_000_000n, 1000, AGGREGATOR],
      [2n, 301_000_000_000n, 1200, AGGREGATOR],
    ]);
    // The predecessor of a window comes along.
    expect((await repo.rounds('ethereum', PROXY, 1100, 2000)).map((r) => r.roundId)).toEqual([1n, 2n]);

    // After a switch to a new aggregator, the old one stays read for the feed.
    sink.setEmitters(new Map([[OTHER, PROXY]]));
    expect((await sink.queries(0, store.db))[0]!.addresses).toEqual([AGGREGATOR, OTHER]);

    await store.db.transaction().execute((trx) => sink.rollback(trx, 11));
    expect((await repo.rounds('ethereum', PROXY, 0, 2000)).map((r) => r.roundId)).toEqual([1n]);
  });
});
