import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import type { EvmLog } from '../../sources/evm/index.js';
import { writeCheckpoint } from '../../store/checkpoints.js';
import type { Dialect, Store } from '../../store/db.js';
import { AGGREGATOR_ABI, decodeAnswerUpdated } from './events.js';
import type { OracleFeedState } from './facts.js';
import { findSwitches, OracleSink, type ProxyReading, type ReadProxies, resolveFeeds } from './ingest.js';
import { feedsKey, OracleRepository, startKey } from './repo.js';
import type { OracleFeedTarget } from './targets.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

const PROXY = '0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419';
const AGGREGATOR: Hex = '0x00000000000000000000000000000000000000a1';
const OTHER: Hex = '0x00000000000000000000000000000000000000b2';
const THIRD: Hex = '0x00000000000000000000000000000000000000c3';

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

const target = (address: string, pair = 'ETH-USD'): OracleFeedTarget => ({
  chain: 'ethereum',
  oracle: 'chainlink',
  pair,
  address: address as `0x${string}`,
  heartbeatSeconds: 3600,
  deviationThresholdPct: 0.5,
  baseToken: null,
});

/** A chain of proxies: what each feed answers at a block (undefined: the call fails there). */
type Proxy = (block: number) => { aggregator?: string; decimals?: number };

function chainOf(proxies: Record<string, Proxy>) {
  const calls: number[] = [];
  const read: ReadProxies = async (feeds, block) => {
    calls.push(block);
    return feeds.map((f): ProxyReading => {
      const answer = proxies[f]!(block);
      return {
        aggregator: answer.aggregator ? { ok: true, value: answer.aggregator } : { ok: false, error: 'reverted' },
        decimals:
          answer.decimals !== undefined ? { ok: true, value: answer.decimals } : { ok: false, error: 'reverted' },
      };
    });
  };
  return { read, calls };
}

const resolvedAt = (block: number, periods: OracleFeedState['periods']): OracleFeedState => ({
  aggregator: periods.at(-1)!.aggregator,
  decimals: 8,
  periods,
  resolvedAt: block,
  coveredFrom: 1000,
  unresolved: null,
});

describe('feed resolution through the proxy', () => {
  const at = { block: 110, readBlock: 90, readTime: 5000 };

  it('a feed seen for the first time is read from where ingestion stands, through the aggregator its proxy names', async () => {
    const { read } = chainOf({ [PROXY]: () => ({ aggregator: AGGREGATOR, decimals: 8 }) });
    const { states, notes } = await resolveFeeds(read, [target(PROXY)], {}, at);
    expect(states[PROXY]).toEqual({
      aggregator: AGGREGATOR,
      decimals: 8,
      periods: [{ aggregator: AGGREGATOR, fromBlock: 0 }],
      resolvedAt: 110,
      coveredFrom: 5000,
      unresolved: null,
    });
    expect(notes).toEqual([]);
  });

  it('an unchanged aggregator keeps its periods and coverage; only the resolution block moves', async () => {
    const { read, calls } = chainOf({ [PROXY]: () => ({ aggregator: AGGREGATOR, decimals: 8 }) });
    const prev = resolvedAt(100, [{ aggregator: AGGREGATOR, fromBlock: 0 }]);
    const { states } = await resolveFeeds(read, [target(PROXY)], { [PROXY]: prev }, at);
    expect(states[PROXY]).toEqual({ ...prev, resolvedAt: 110 });
    expect(calls).toEqual([110]);
  });

  it('a repointed proxy: the switch block is found by asking the proxy in between, both periods kept', async () => {
    const { read, calls } = chainOf({
      [PROXY]: (b) => ({ aggregator: b < 105 ? AGGREGATOR : OTHER, decimals: 8 }),
    });
    const prev = resolvedAt(100, [{ aggregator: AGGREGATOR, fromBlock: 0 }]);
    const { states, notes } = await resolveFeeds(read, [target(PROXY)], { [PROXY]: prev }, at);
    expect(states[PROXY]).toMatchObject({
      aggregator: OTHER,
      periods: [
        { aggregator: AGGREGATOR, fromBlock: 0 },
        { aggregator: OTHER, fromBlock: 105 },
      ],
      resolvedAt: 110,
      coveredFrom: 1000,
    });
    expect(notes).toEqual([`ETH-USD: aggregator ${OTHER.slice(0, 10)}… from block 105`]);
    // Bisection over (100, 110]: a handful of calls, none outside the range.
    expect(calls.length).toBeLessThanOrEqual(1 + 4);
    expect(calls.slice(1).every((b) => b > 100 && b < 110)).toBe(true);
  });

  it('two switches between two resolutions are both found', async () => {
    const { read } = chainOf({
      [PROXY]: (b) => ({ aggregator: b < 103 ? AGGREGATOR : b < 107 ? THIRD : OTHER, decimals: 8 }),
    });
    const prev = resolvedAt(100, [{ aggregator: AGGREGATOR, fromBlock: 0 }]);
    const { states } = await resolveFeeds(read, [target(PROXY)], { [PROXY]: prev }, at);
    expect(states[PROXY]!.periods).toEqual([
      { aggregator: AGGREGATOR, fromBlock: 0 },
      { aggregator: THIRD, fromBlock: 103 },
      { aggregator: OTHER, fromBlock: 107 },
    ]);
  });

  it('without state that old on the node, the switch is placed right after the last block known to name the old one', async () => {
    const { read } = chainOf({
      [PROXY]: (b) => (b < 108 ? {} : { aggregator: OTHER, decimals: 8 }),
    });
    const prev = resolvedAt(100, [{ aggregator: AGGREGATOR, fromBlock: 0 }]);
    const { states, notes } = await resolveFeeds(read, [target(PROXY)], { [PROXY]: prev }, at);
    expect(states[PROXY]!.periods.at(-1)).toEqual({ aggregator: OTHER, fromBlock: 101 });
    expect(notes[0]).toContain('somewhere in blocks 101–110');
  });

  it('a state saved before resolution blocks were kept searches from the last block read', async () => {
    const probes: number[] = [];
    const found = await findSwitches(
      async (b) => {
        probes.push(b);
        return b < 95 ? AGGREGATOR : OTHER;
      },
      { aggregator: AGGREGATOR, block: at.readBlock },
      { aggregator: OTHER, block: at.block },
    );
    expect(found).toEqual({ periods: [{ aggregator: OTHER, fromBlock: 95 }], exact: true });
    expect(Math.min(...probes)).toBeGreaterThan(90);
  });

  it('a feed without decimals() is not read and says why; what was learned of it stays', async () => {
    const { read } = chainOf({ [PROXY]: () => ({ aggregator: AGGREGATOR }) });
    const fresh = await resolveFeeds(read, [target(PROXY)], {}, at);
    expect(fresh.states[PROXY]).toMatchObject({
      aggregator: null,
      periods: [],
      unresolved: { reason: 'no_decimals', detail: 'decimals() failed: reverted' },
    });
    expect(fresh.notes).toEqual(['ETH-USD not read (no_decimals: decimals() failed: reverted)']);
    const prev = resolvedAt(100, [{ aggregator: AGGREGATOR, fromBlock: 0 }]);
    const known = await resolveFeeds(read, [target(PROXY)], { [PROXY]: prev }, at);
    expect(known.states[PROXY]).toEqual({ ...prev, unresolved: fresh.states[PROXY]!.unresolved });
  });

  it('an address without aggregator() is not a proxy: it is not read, never taken for its own aggregator', async () => {
    // A bare aggregator: it has decimals() and emits rounds, but names no aggregator.
    const { read } = chainOf({ [AGGREGATOR]: () => ({ decimals: 8 }) });
    const { states, notes } = await resolveFeeds(read, [target(AGGREGATOR)], {}, at);
    expect(states[AGGREGATOR]).toEqual({
      aggregator: null,
      decimals: null,
      periods: [],
      resolvedAt: null,
      coveredFrom: null,
      unresolved: { reason: 'no_aggregator', detail: 'aggregator() failed: reverted' },
    });
    expect(notes).toEqual(['ETH-USD not read (no_aggregator: aggregator() failed: reverted)']);
    // A proxy that stops answering keeps what was learned of it, and is not read meanwhile.
    const prev = resolvedAt(100, [{ aggregator: OTHER, fromBlock: 0 }]);
    const known = await resolveFeeds(read, [target(AGGREGATOR)], { [AGGREGATOR]: prev }, at);
    expect(known.states[AGGREGATOR]).toEqual({ ...prev, unresolved: states[AGGREGATOR]!.unresolved });
  });
});

describe.each(dialects)('the oracle sink and repository on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(() => cleanup());

  const ctx = { chain: 'ethereum', blocks: new Map(), senders: new Map() };
  const write = (sink: OracleSink, logs: EvmLog[], to = 20) =>
    store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to }, [logs], ctx));

  it('stores the rounds of the aggregators it was given under their feed, idempotently, and rolls back', async () => {
    const sink = new OracleSink('ethereum', 1);
    sink.setFeeds(new Map([[PROXY, [{ aggregator: AGGREGATOR, fromBlock: 0 }]]]));
    expect(await sink.queries(0, store.db)).toEqual([
      { addresses: [AGGREGATOR], topics: [expect.stringMatching(/^0x/)] },
    ]);
    const logs = [
      answerLog(AGGREGATOR, 10, 300_000_000_000n, 1n, 1000),
      answerLog(OTHER, 11, 1n, 1n, 1100),
      answerLog(AGGREGATOR, 12, 301_000_000_000n, 2n, 1200),
    ];
    expect(await write(sink, logs)).toBe(2);
    await write(sink, logs);
    const repo = new OracleRepository(store.db);
    const rounds = await repo.rounds('ethereum', PROXY, 0, 2000);
    expect(rounds.map((r) => [r.roundId, r.answer, r.updatedAt, r.aggregator])).toEqual([
      [1n, 300_000_000_000n, 1000, AGGREGATOR],
      [2n, 301_000_000_000n, 1200, AGGREGATOR],
    ]);
    // The predecessor of a window comes along.
    expect((await repo.rounds('ethereum', PROXY, 1100, 2000)).map((r) => r.roundId)).toEqual([1n, 2n]);

    await store.db.transaction().execute((trx) => sink.rollback(trx, 11));
    expect((await repo.rounds('ethereum', PROXY, 0, 2000)).map((r) => r.roundId)).toEqual([1n]);
  });

  it('prunes rounds past a cutoff, keeping each feed’s predecessor: windows from the cutoff on read the same', async () => {
    const sink = new OracleSink('ethereum', 1);
    sink.setFeeds(new Map([[PROXY, [{ aggregator: AGGREGATOR, fromBlock: 0 }]]]));
    const logs = [1000, 1100, 1200, 1300, 1500].map((t, i) =>
      answerLog(AGGREGATOR, 10 + i, 300_000_000_000n + BigInt(i), BigInt(i + 1), t),
    );
    expect(await write(sink, logs)).toBe(5);
    const repo = new OracleRepository(store.db);
    const ids = async (from: number) => (await repo.rounds('ethereum', PROXY, from, 2000)).map((r) => r.roundId);
    const windows = [1250, 1300, 1400, 1600];
    const before = await Promise.all(windows.map(ids));

    expect(await repo.pruneRounds('ethereum', 1250)).toBe(2);
    expect(await Promise.all(windows.map(ids))).toEqual(before);
    expect(await ids(0)).toEqual([3n, 4n, 5n]);
    expect(await repo.pruneRounds('ethereum', 1250)).toBe(0);
    // Another chain's rounds are not touched.
    expect(await repo.pruneRounds('arbitrum', 10_000)).toBe(0);
    expect(await ids(0)).toEqual([3n, 4n, 5n]);
  });

  it('after a repointed proxy: the old aggregator’s rounds until the switch, the new one’s from it, nothing else', async () => {
    const sink = new OracleSink('ethereum', 1);
    sink.setFeeds(
      new Map([
        [
          PROXY,
          [
            { aggregator: AGGREGATOR, fromBlock: 0 },
            { aggregator: OTHER, fromBlock: 12 },
          ],
        ],
      ]),
    );
    expect((await sink.queries(0, store.db))[0]!.addresses).toEqual([AGGREGATOR, OTHER]);
    // Both aggregators ran side by side around the switch at block 12.
    const logs = [
      answerLog(AGGREGATOR, 10, 100n, 1n, 1000),
      answerLog(OTHER, 11, 101n, 1n, 1100),
      answerLog(AGGREGATOR, 12, 102n, 2n, 1200),
      answerLog(OTHER, 13, 103n, 2n, 1300),
    ];
    expect(await write(sink, logs)).toBe(2);
    const rounds = await new OracleRepository(store.db).rounds('ethereum', PROXY, 0, 2000);
    expect(rounds.map((r) => [r.blockNumber, r.aggregator, r.answer])).toEqual([
      [10, AGGREGATOR, 100n],
      [13, OTHER, 103n],
    ]);
    // Once ingestion is past the switch, the old aggregator is no longer read.
    await writeCheckpoint(store.db, sink.key, { block: 20, hash: '0x00', recent: [] }, 0);
    expect((await sink.queries(0, store.db))[0]!.addresses).toEqual([OTHER]);
  });

  it('reads feed states saved before aggregator periods, and covers only resolved feeds', async () => {
    const repo = new OracleRepository(store.db);
    await writeCheckpoint(store.db, feedsKey('ethereum'), { [PROXY]: { aggregator: AGGREGATOR, decimals: 8 } }, 0);
    await writeCheckpoint(store.db, startKey('ethereum'), { block: 1, timestamp: 900 }, 0);
    expect(await repo.feedStates('ethereum')).toEqual({
      [PROXY]: {
        aggregator: AGGREGATOR,
        decimals: 8,
        periods: [{ aggregator: AGGREGATOR, fromBlock: 0 }],
        resolvedAt: null,
        coveredFrom: null,
        unresolved: null,
      },
    });
    const input = await repo.computeInput([target(PROXY), target(OTHER, 'BTC-USD')], 2000);
    expect(input.feeds.map((f) => [f.pair, f.coverageFrom, f.state?.aggregator ?? null])).toEqual([
      ['ETH-USD', 900, AGGREGATOR],
      ['BTC-USD', null, null],
    ]);
  });
});
