import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, TestClock, testStore } from '../../../../test/helpers.js';
import type { JobContext } from '../../../jobs/types.js';
import type { BlockInfo, EvmLog, Hex } from '../../../sources/evm/types.js';
import type { Dialect, Store } from '../../../store/db.js';
import { SnapshotSchedule } from '../../kit/snapshot-schedule.js';
import { GmxIngest, GmxSink, readKeeperTokens, readMarketList, readState } from './ingest.js';
import {
  KEY,
  marketPropertyKey,
  maxOpenInterestKey,
  openInterestInTokensKey,
  openInterestKey,
  poolAmountKey,
  savedFundingFactorPerSecondKey,
} from './keys.js';
import { GmxRepository } from './repo.js';
import type { GmxTarget } from './targets.js';
import { gmxLog } from './test-logs.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const EMITTER = '0xc8ee91a54287db53897056e12d9819156d3822fb';
const TARGET: GmxTarget = {
  protocol: 'gmx',
  chain: 'arbitrum',
  version: 'V2',
  pairs: ['ETH-USD'],
  dataStore: '0xfd70de6b91282d8017aa4e741e9ae325cab992d8',
  eventEmitter: EMITTER,
};
const ETH_USD = '0x70d95587d40a2caf56bd97485ab3eec10bee6336';
const ETH_ONLY = '0x450bb6774dd8a756274e0ab4107953259d2ac541';
const WETH = '0x82af49447d8a07e3bd95bd0d56f35241523fbab1';
const USDC = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';

const block = (n: number): BlockInfo => ({
  number: n,
  hash: `0x${n.toString(16).padStart(64, '0')}` as Hex,
  parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` as Hex,
  timestamp: 1_700_000_000 + n,
});

/** A DataStore answering multicalls from a map of keys (what GMX's `getUint`/`getInt`/… would return). */
function fakeStore(values: Map<string, unknown>, list: string[]) {
  const asked: string[] = [];
  const source = {
    async multicall(args: { contracts: readonly { functionName: string; args?: readonly unknown[] }[] }) {
      return args.contracts.map((c) => {
        const [key, start, end] = (c.args ?? []) as [string, bigint, bigint];
        asked.push(`${c.functionName}:${key}`);
        if (c.functionName === 'getAddressCount') return { status: 'success', result: BigInt(list.length) };
        if (c.functionName === 'getAddressValuesAt')
          return { status: 'success', result: list.slice(Number(start), Number(end)) };
        if (!values.has(key)) {
          const zero =
            c.functionName === 'getBool' ? false : c.functionName === 'getAddress' ? `0x${'0'.repeat(40)}` : 0n;
          return { status: 'success', result: zero };
        }
        return { status: 'success', result: values.get(key) };
      });
    },
  };
  return { source: source as never, asked };
}

describe('GMX DataStore reads', () => {
  it('reads the market list and each market’s tokens by MarketStoreUtils keys', async () => {
    const values = new Map<string, unknown>([
      [marketPropertyKey(ETH_USD, 'INDEX_TOKEN'), WETH],
      [marketPropertyKey(ETH_USD, 'LONG_TOKEN'), WETH],
      [marketPropertyKey(ETH_USD, 'SHORT_TOKEN'), USDC],
      [marketPropertyKey(ETH_ONLY, 'INDEX_TOKEN'), WETH],
      [marketPropertyKey(ETH_ONLY, 'LONG_TOKEN'), WETH],
      [marketPropertyKey(ETH_ONLY, 'SHORT_TOKEN'), WETH],
    ]);
    const { source, asked } = fakeStore(values, [ETH_USD, ETH_ONLY]);
    const markets = await readMarketList(source, TARGET, 10, new Set([ETH_USD]));
    expect(asked[0]).toBe(`getAddressCount:${KEY.MARKET_LIST}`);
    expect(markets).toEqual([
      {
        chain: 'arbitrum',
        dataStore: TARGET.dataStore,
        market: ETH_ONLY,
        indexToken: WETH,
        longToken: WETH,
        shortToken: WETH,
        createdBlock: null,
      },
    ]);
  });

  it('reads open interest per collateral and side (a single-token market’s key twice), pools, funding, caps', async () => {
    const values = new Map<string, unknown>([
      [openInterestKey(ETH_USD, WETH, true), 100n],
      [openInterestKey(ETH_USD, USDC, true), 50n],
      [openInterestKey(ETH_USD, USDC, false), 70n],
      [openInterestInTokensKey(ETH_USD, USDC, false), 7n],
      [openInterestKey(ETH_ONLY, WETH, true), 40n],
      [poolAmountKey(ETH_USD, WETH), 5n],
      [poolAmountKey(ETH_USD, USDC), 6n],
      [poolAmountKey(ETH_ONLY, WETH), 9n],
      [savedFundingFactorPerSecondKey(ETH_ONLY), -3n],
      [maxOpenInterestKey(ETH_USD, false), 1000n],
    ]);
    const { source } = fakeStore(values, []);
    const m = (market: string, longToken: string, shortToken: string) => ({
      chain: 'arbitrum',
      dataStore: TARGET.dataStore,
      market,
      indexToken: WETH,
      longToken,
      shortToken,
      createdBlock: null,
    });
    const snap = await readState(source, TARGET, block(20), [m(ETH_USD, WETH, USDC), m(ETH_ONLY, WETH, WETH)]);
    expect(snap.blockNumber).toBe(20);
    const [two, one] = snap.markets;
    expect(two!.openInterest).toEqual([
      { collateralToken: WETH, isLong: true, usd: 100n, tokens: 0n },
      { collateralToken: WETH, isLong: false, usd: 0n, tokens: 0n },
      { collateralToken: USDC, isLong: true, usd: 50n, tokens: 0n },
      { collateralToken: USDC, isLong: false, usd: 70n, tokens: 7n },
    ]);
    expect(two!.poolAmounts).toEqual([
      { token: WETH, amount: 5n },
      { token: USDC, amount: 6n },
    ]);
    expect(two!.maxOpenInterestShort).toBe(1000n);
    expect(one!.openInterest.filter((o) => o.isLong).map((o) => o.usd)).toEqual([40n, 40n]);
    expect(one!.poolAmounts).toEqual([{ token: WETH, amount: 9n }]);
    expect(one!.savedFundingFactorPerSecond).toBe(-3n);
  });
});

describe.each(dialects)('the GMX sink on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(async () => cleanup());

  const logs = [
    gmxLog(
      'MarketCreated',
      { address: { marketToken: ETH_USD, indexToken: WETH, longToken: WETH, shortToken: USDC } },
      { blockNumber: 5, logIndex: 0 },
    ),
    gmxLog(
      'OpenInterestUpdated',
      {
        address: { market: ETH_USD, collateralToken: USDC },
        bool: { isLong: true },
        int: { delta: 10n },
        uint: { nextValue: 10n },
      },
      { blockNumber: 7, logIndex: 3 },
    ),
    gmxLog('OrderCreated', {}, { blockNumber: 7, logIndex: 4 }),
    gmxLog(
      'Funding',
      { address: { market: ETH_USD }, uint: { fundingFactorPerSecond: 2n } },
      {
        blockNumber: 9,
        logIndex: 1,
        address: '0x0000000000000000000000000000000000000001',
      },
    ),
  ];
  const ctx = { chain: 'arbitrum', blocks: new Map([5, 7, 9].map((n) => [n, block(n)])), senders: new Map() };

  it('writes each event once, whatever the replays, and rolls back above a block', async () => {
    const sink = new GmxSink(TARGET, 1);
    const apply = () => store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 9 }, [logs], ctx));
    expect(await apply()).toBe(2);
    await apply();
    const repo = new GmxRepository(store.db);
    const events = await repo.events('arbitrum', EMITTER, ['MarketCreated', 'OpenInterestUpdated', 'Funding'], 0, 2e9);
    expect(events.map((e) => [e.blockNumber, e.logIndex, e.event.kind])).toEqual([
      [5, 0, 'MarketCreated'],
      [7, 3, 'OpenInterestUpdated'],
    ]);
    expect(events[1]!.event).toMatchObject({ delta: 10n, nextValue: 10n, isLong: true });
    expect(events[1]!.timestamp).toBe(block(7).timestamp);
    expect((await repo.markets('arbitrum', TARGET.dataStore)).map((m) => [m.market, m.createdBlock])).toEqual([
      [ETH_USD, 5],
    ]);
    await store.db.transaction().execute((trx) => sink.rollback(trx, 6));
    expect(await repo.events('arbitrum', EMITTER, ['MarketCreated', 'OpenInterestUpdated'], 0, 2e9)).toHaveLength(1);
    await store.db.transaction().execute((trx) => sink.rollback(trx, 4));
    expect(await repo.markets('arbitrum', TARGET.dataStore)).toEqual([]);
  });
});

/**
 * A chain for `GmxIngest.events` in memory: blocks 0…head, the EventEmitter's logs, and the DataStore and token
 * contracts answering multicalls (`fakeStore`); `asked` records every multicall's function and key.
 */
function fakeChain(values: Map<string, unknown>, list: string[]) {
  const chain = { head: 10, logs: [] as EvmLog[] };
  const { source: store, asked } = fakeStore(values, list);
  const source = {
    chain: { id: 'arbitrum', finalityDepth: 2 },
    log: undefined,
    window: () => ({ size: 1000 }),
    blockNumber: async () => chain.head,
    finalBlock: async (latest: number) => ({ number: latest - 2, by: 'depth' }),
    getBlock: async (n: number) => (n <= chain.head ? block(n) : null),
    getBlocks: async (numbers: readonly number[]) => new Map(numbers.map((n) => [n, block(n)])),
    getLogs: async (f: { fromBlock: number; toBlock: number }) =>
      chain.logs.filter((l) => l.blockNumber >= f.fromBlock && l.blockNumber <= f.toBlock),
    txSenders: async () => new Map(),
    forgetBlocksFrom: () => undefined,
    multicall: (store as { multicall: unknown }).multicall,
  };
  return { chain, asked, evm: { source: () => source } as never };
}

describe.each(dialects)('GmxIngest.events on %s: MARKET_LIST read when the market list may have changed', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(async () => cleanup());

  const ctx = (): JobContext => ({
    store,
    clock: new TestClock(),
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    attempt: 1,
    notifyPublished: async () => undefined,
  });
  const schedule = new SnapshotSchedule({ everySeconds: 300, days: 6, toleranceSeconds: 3600 });
  const target = { ...TARGET, startBlock: 1 };
  const created = (market: string, blockNumber: number) =>
    gmxLog(
      'MarketCreated',
      { address: { marketToken: market, indexToken: WETH, longToken: WETH, shortToken: USDC } },
      { blockNumber, logIndex: 0 },
    );

  it('reads it on the first run, not again without a MarketCreated, again with one and after a restart', async () => {
    const values = new Map<string, unknown>([
      [marketPropertyKey(ETH_ONLY, 'INDEX_TOKEN'), WETH],
      [marketPropertyKey(ETH_ONLY, 'LONG_TOKEN'), WETH],
      [marketPropertyKey(ETH_ONLY, 'SHORT_TOKEN'), WETH],
    ]);
    // ETH_ONLY predates ingestion (MARKET_LIST alone names it); ETH_USD is created at block 5.
    const { chain, asked, evm } = fakeChain(values, [ETH_ONLY, ETH_USD]);
    chain.logs.push(created(ETH_USD, 5));
    const listReads = () => asked.filter((a) => a === `getAddressCount:${KEY.MARKET_LIST}`).length;
    const repo = new GmxRepository(store.db);
    const ingest = new GmxIngest(evm, 86_400, schedule);

    expect(await ingest.events(ctx(), target)).toContain('1 markets from MARKET_LIST');
    expect(listReads()).toBe(1);
    expect((await repo.markets('arbitrum', TARGET.dataStore)).map((m) => m.market).sort()).toEqual(
      [ETH_ONLY, ETH_USD].sort(),
    );

    // New blocks, no MarketCreated: no MARKET_LIST call.
    chain.head = 20;
    chain.logs.push(
      gmxLog(
        'Funding',
        { address: { market: ETH_USD }, uint: { fundingFactorPerSecond: 2n } },
        { blockNumber: 15, logIndex: 0 },
      ),
    );
    await ingest.events(ctx(), target);
    chain.head = 25;
    await ingest.events(ctx(), target);
    expect(listReads()).toBe(1);

    // A run that ingests a MarketCreated reads it.
    const NEW = '0x00000000000000000000000000000000000000cc';
    chain.head = 30;
    chain.logs.push(created(NEW, 28));
    await ingest.events(ctx(), target);
    expect(listReads()).toBe(2);
    expect((await repo.markets('arbitrum', TARGET.dataStore)).map((m) => m.market)).toContain(NEW);
    chain.head = 35;
    await ingest.events(ctx(), target);
    expect(listReads()).toBe(2);

    // The stored market count moved without a MarketCreated of this process's run (another process, a reorg).
    await repo.saveMarkets([
      {
        chain: 'arbitrum',
        dataStore: TARGET.dataStore,
        market: '0x00000000000000000000000000000000000000dd',
        indexToken: WETH,
        longToken: WETH,
        shortToken: USDC,
        createdBlock: null,
      },
    ]);
    await ingest.events(ctx(), target);
    expect(listReads()).toBe(3);

    // A new process (a restart) reads it on its first run.
    const restarted = new GmxIngest(evm, 86_400, schedule);
    await restarted.events(ctx(), target);
    expect(listReads()).toBe(4);
    await restarted.events(ctx(), target);
    expect(listReads()).toBe(4);
  });
});

describe('readKeeperTokens', () => {
  it('names the asked tokens from the keeper’s /tokens (synthetic index tokens), by lowercase address', async () => {
    const BTC = '0x47904963fc8b2340414262125aF798B9655E58Cd';
    const keeper = {
      tokens: async () => [
        { symbol: 'BTC', address: BTC, decimals: 8, synthetic: true },
        { symbol: 'ETH', address: WETH, decimals: 18 },
      ],
    };
    expect(await readKeeperTokens(keeper, [BTC.toLowerCase(), '0x00000000000000000000000000000000000000aa'])).toEqual([
      { address: BTC.toLowerCase(), symbol: 'BTC', decimals: 8 },
    ]);
    expect(await readKeeperTokens(keeper, [])).toEqual([]);
  });
});
