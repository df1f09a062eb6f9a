import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../../test/helpers.js';
import { DAY } from '../../../core/time.js';
import type { BlockInfo, Hex } from '../../../sources/evm/types.js';
import type { Dialect, Store } from '../../../store/db.js';
import { computeGmx } from './compute.js';
import type { GmxStateSnapshot } from './facts.js';
import { GmxSink } from './ingest.js';
import { GmxRepository } from './repo.js';
import type { GmxTarget } from './targets.js';
import { gmxLog } from './test-logs.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const E30 = 10n ** 30n;
const E18 = 10n ** 18n;
const TARGET: GmxTarget = {
  protocol: 'gmx',
  chain: 'arbitrum',
  version: 'V2',
  pairs: ['ETH-USD'],
  dataStore: '0x00000000000000000000000000000000000000d5',
  eventEmitter: '0x00000000000000000000000000000000000000ee',
};
const MARKET = '0x0000000000000000000000000000000000000a01';
const WETH = '0x00000000000000000000000000000000000000e1';
const USDC = '0x00000000000000000000000000000000000000c1';
const T0 = Date.UTC(2026, 10, 20, 6) / 1000;
const block = (n: number): BlockInfo => ({
  number: n,
  hash: `0x${n.toString(16).padStart(64, '0')}` as Hex,
  parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` as Hex,
  timestamp: T0 + n,
});
const snapshot = (n: number, timestamp = block(n).timestamp): GmxStateSnapshot => ({
  chain: 'arbitrum',
  dataStore: TARGET.dataStore,
  blockNumber: n,
  timestamp,
  markets: [
    {
      market: MARKET,
      indexToken: WETH,
      longToken: WETH,
      shortToken: USDC,
      openInterest: [
        { collateralToken: WETH, isLong: true, usd: 3_000n * E30, tokens: E18 },
        { collateralToken: WETH, isLong: false, usd: 0n, tokens: 0n },
        { collateralToken: USDC, isLong: true, usd: 0n, tokens: 0n },
        { collateralToken: USDC, isLong: false, usd: 0n, tokens: 0n },
      ],
      poolAmounts: [
        { token: WETH, amount: E18 },
        { token: USDC, amount: 10n ** 6n },
      ],
      savedFundingFactorPerSecond: -1n,
      fundingIncreaseFactorPerSecond: 0n,
      maxOpenInterestLong: 10n ** 40n,
      maxOpenInterestShort: 0n,
      disabled: false,
    },
  ],
});

describe.each(dialects)('the GMX repository on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(async () => cleanup());

  it('gives computeGmx what the sink and the snapshots stored, up to the newest snapshot', async () => {
    const repo = new GmxRepository(store.db);
    const sink = new GmxSink(TARGET, 1);
    const increase = (n: number, account: string) =>
      gmxLog(
        'PositionIncrease',
        {
          address: { account, market: MARKET, collateralToken: USDC },
          uint: {
            sizeDeltaUsd: 3_000n * E30,
            sizeDeltaInTokens: E18,
            orderType: 2n,
            executionPrice: 3_000n * 10n ** 12n,
            'indexTokenPrice.min': 3_000n * 10n ** 12n,
            'indexTokenPrice.max': 3_000n * 10n ** 12n,
            'collateralTokenPrice.min': 10n ** 24n,
            'collateralTokenPrice.max': 10n ** 24n,
          },
          bool: { isLong: true },
        },
        { address: TARGET.eventEmitter, blockNumber: n, logIndex: 0 },
      );
    const created = gmxLog(
      'MarketCreated',
      { address: { marketToken: MARKET, indexToken: WETH, longToken: WETH, shortToken: USDC } },
      { address: TARGET.eventEmitter, blockNumber: 2, logIndex: 0 },
    );
    const logs = [
      created,
      increase(3, '0x0000000000000000000000000000000000000001'),
      increase(9, '0x0000000000000000000000000000000000000002'),
    ];
    const ctx = { chain: 'arbitrum', blocks: new Map([2, 3, 9].map((n) => [n, block(n)])), senders: new Map() };
    await store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 9 }, [logs], ctx));
    expect(await repo.metadataCounts('arbitrum', TARGET.dataStore)).toEqual({ markets: 1, tokens: 0 });
    await repo.saveTokens('arbitrum', [
      { address: WETH, symbol: 'WETH', decimals: 18 },
      { address: USDC, symbol: 'USDC', decimals: 6 },
    ]);
    expect(await repo.tokensWithoutMetadata('arbitrum', TARGET.dataStore)).toEqual([]);
    // Part of the computation's inputs: a token named after a snapshot is published without waiting for another.
    expect(await repo.metadataCounts('arbitrum', TARGET.dataStore)).toEqual({ markets: 1, tokens: 2 });
    expect(await repo.computeInput(TARGET)).toBeUndefined();
    await repo.saveSnapshot(snapshot(5));
    await repo.saveSnapshot(snapshot(5));

    const input = (await repo.computeInput(TARGET))!;
    expect(input.asOf).toBe(block(5).timestamp);
    // The trade at block 9 is after the newest snapshot: it waits for the next one.
    expect(input.events.map((e) => e.blockNumber)).toEqual([3]);
    expect(input.snapshots[0]!.markets[0]!.savedFundingFactorPerSecond).toBe(-1n);
    const today = computeGmx(input).days[0]!;
    expect(today.blockNumber).toBe(5);
    expect(today.pairs.map((p) => [p.pair, p.tradeCount, p.volumeUsd, p.longOpenInterestUsd, p.tvlUsd])).toEqual([
      ['ETH-USD', 1, 3_000, 3_000, 3_001],
    ]);
  });

  it('prunes old snapshots but the newest of each day', async () => {
    const repo = new GmxRepository(store.db);
    for (const [n, t] of [
      [1, T0 - 3 * DAY],
      [2, T0 - 3 * DAY + 60],
      [3, T0 - DAY],
      [4, T0],
    ] as const)
      await repo.saveSnapshot(snapshot(n, t));
    expect(await repo.pruneSnapshots('arbitrum', TARGET.dataStore, T0 - DAY / 2)).toBe(1);
    expect((await repo.snapshotTimes('arbitrum', TARGET.dataStore)).map((s) => s.blockNumber)).toEqual([2, 3, 4]);
  });
});
