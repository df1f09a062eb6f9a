import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import { DAY, HOUR } from '../../core/time.js';
import { writeCheckpoint } from '../../store/checkpoints.js';
import type { Dialect, Store } from '../../store/db.js';
// The test writes the DEX area's prices as its ingest would: through the DEX repository (test code only).
import { DexRepository } from '../dex/repo.js';
// And the oracle area's rounds and feed states as its ingest writes them.
import type { OracleFeedTarget } from '../oracles/public.js';
import { feedsKey } from '../oracles/repo.js';
import type { OracleTables } from '../oracles/tables.js';
import type { MarketSnapshot, ReserveSnapshot } from './facts.js';
import { snapshotAccounts } from './ingest.js';
import { readsAccount } from './participants.js';
import { LendingRepository } from './repo.js';
import type { LendingTables } from './tables.js';
import type { LendingMarketTarget } from './targets.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

const HEAD = Date.UTC(2026, 10, 20, 12) / 1000;
/** The last second of the UTC day `d` days before HEAD's. */
const dayEnd = (d: number) => Date.UTC(2026, 10, 21 - d) / 1000 - 1;
const USDC = '0x00000000000000000000000000000000000000a1';
const WETH = '0x00000000000000000000000000000000000000e1';
const AAVE = '0x00000000000000000000000000000000000000b0';
const MORPHO = '0x00000000000000000000000000000000000000c0';

const market = (design: 'aave-v3' | 'morpho-blue', pool: `0x${string}`): LendingMarketTarget => ({
  chain: 'ethereum',
  protocol: design === 'aave-v3' ? 'aave' : 'morpho',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design,
  pool,
  assets: [
    { address: USDC, symbol: 'USDC', decimals: 6 },
    { address: WETH, symbol: 'WETH', decimals: 18 },
  ],
});
const A = market('aave-v3', AAVE);
const B = market('morpho-blue', MORPHO);

const reserve = (asset: string, priceUsd: number) => ({ asset, priceUsd }) as unknown as ReserveSnapshot;

function snapshot(pool: string, blockNumber: number, timestamp: number): MarketSnapshot {
  return {
    chain: 'ethereum',
    pool,
    blockNumber,
    timestamp,
    reserves: [reserve(USDC, 1), reserve(WETH, 2000)],
    positions: [],
  };
}

describe.each(dialects)('the lending repository on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(() => cleanup());

  const liquidation = (blockNumber: number, timestamp: number) => ({
    chain: 'ethereum',
    block_number: blockNumber,
    log_index: 0,
    tx_hash: `0x${blockNumber}`,
    timestamp,
    pool: AAVE,
    kind: 'liquidation',
    market_id: '',
    asset: USDC,
    account: '0xvictim',
    actor: '0xliquidator',
    amount: '500000000',
    collateral_asset: WETH,
    collateral_amount: '250000000000000000',
    data: null,
  });

  it('loads the computation’s input: as_of the oldest newest snapshot, day ends, the week’s liquidations, prices', async () => {
    const repo = new LendingRepository(store.db);
    expect(await repo.computeInput([A, B])).toBeUndefined();
    expect(await repo.latestSnapshotBlocks([A, B])).toEqual([]);

    await repo.saveSnapshot(snapshot(AAVE, 100, HEAD));
    await repo.saveSnapshot(snapshot(AAVE, 90, dayEnd(1) - 100));
    // Seven hours before the end of day 2: too old to stand for it.
    await repo.saveSnapshot(snapshot(AAVE, 80, dayEnd(2) - 7 * HOUR));
    await repo.saveSnapshot(snapshot(MORPHO, 95, HEAD - 600));
    await store.db
      .withTables<LendingTables>()
      .insertInto('lending_events')
      .values([liquidation(70, HEAD - DAY), liquidation(10, HEAD - 8 * DAY)])
      .execute();
    const priceHour = Math.floor((HEAD - DAY) / HOUR) * HOUR;
    await new DexRepository(store.db).replacePrices(
      'ethereum',
      priceHour,
      priceHour,
      [{ chain: 'ethereum', token: USDC, hour: priceHour, priceUsd: 0.99, source: 'test', confidence: 1 }],
      { key: 'prices:ethereum', value: { block: 1 }, now: HEAD },
    );

    expect(await repo.latestSnapshotBlocks([A, B])).toEqual([
      [AAVE, 100],
      [MORPHO, 95],
    ]);
    const input = (await repo.computeInput([A, B]))!;
    expect(input.asOf).toBe(HEAD - 600);
    const [aave, morpho] = input.markets;
    expect(aave!.source).toBe(A);
    expect(aave!.latest?.blockNumber).toBe(100);
    expect(aave!.daily.map((s) => s?.blockNumber)).toEqual([90, undefined, undefined, undefined, undefined, undefined]);
    expect(aave!.liquidations.map((l) => l.blockNumber)).toEqual([70]);
    // The DEX area's hourly prices; no oracle feed given: no feed answers.
    expect(input.dex?.ethereum?.prices.map((p) => [p.token, p.priceUsd])).toEqual([[USDC, 0.99]]);
    expect(input.feeds).toEqual({ ethereum: [] });
    // No DEX pool indexed: no pools in the DEX facts the computation rebuilds depth from.
    expect(input.dex?.ethereum?.pools).toEqual([]);
    expect(morpho!.latest?.blockNumber).toBe(95);
    expect(morpho!.liquidations).toEqual([]);
    expect((await repo.usdPrices('ethereum', HEAD - DAY + 60)).get(USDC)).toBe(0.99);
  });

  it('loads the oracle area’s USD feed answers of the week (and the newest before it) for the liquidations', async () => {
    const repo = new LendingRepository(store.db);
    await repo.saveSnapshot(snapshot(AAVE, 100, HEAD));
    const FEED = '0x00000000000000000000000000000000000000f1';
    const feed: OracleFeedTarget = {
      chain: 'ethereum',
      oracle: 'chainlink',
      pair: 'ETH-USD',
      address: FEED,
      heartbeatSeconds: 3600,
      deviationThresholdPct: 0.5,
      baseToken: WETH,
    };
    await writeCheckpoint(store.db, feedsKey('ethereum'), { [FEED]: { aggregator: '0xagg', decimals: 8 } }, HEAD);
    const round = (block: number, answer: bigint, updatedAt: number) => ({
      chain: 'ethereum',
      block_number: block,
      log_index: 0,
      tx_hash: `0x${block}`,
      feed: FEED,
      aggregator: '0xagg',
      round_id: String(block),
      answer: answer.toString(),
      updated_at: updatedAt,
    });
    await store.db
      .withTables<OracleTables>()
      .insertInto('oracle_rounds')
      .values([
        round(1, 190_000_000_000n, HEAD - 10 * DAY),
        round(2, 195_000_000_000n, HEAD - 9 * DAY),
        round(3, 210_000_000_000n, HEAD - DAY),
      ])
      .execute();
    const input = (await repo.computeInput([A], [feed]))!;
    expect(input.feeds?.ethereum).toEqual([
      { token: WETH, priceUsd: 1950, updatedAt: HEAD - 9 * DAY, heartbeat: 3600, ref: FEED },
      { token: WETH, priceUsd: 2100, updatedAt: HEAD - DAY, heartbeat: 3600, ref: FEED },
    ]);
  });

  it('chooses a snapshot’s accounts: incremental from the day’s previous snapshot, a full read on a new day (issue 30)', async () => {
    const repo = new LendingRepository(store.db);
    const event = (block: number, kind: string, account: string, actor: string, asset = USDC) => ({
      ...liquidation(block, HEAD - 3_600 + block),
      log_index: account.length + kind.length,
      kind,
      account,
      actor,
      asset,
      amount: '1',
      collateral_asset: '',
      collateral_amount: '0',
    });
    await store.db
      .withTables<LendingTables>()
      .insertInto('lending_events')
      .values([
        event(5, 'supply', '0xold', '0xold'),
        event(5, 'borrow', '0xborrower', '0xborrower', WETH),
        event(12, 'transfer', '0xnew', '0xold'),
        event(13, 'account_change', '0xborrower', '0xborrower', ''),
        event(14, 'supply', '0xlater', '0xlater'),
      ])
      .execute();
    const carry = {
      '0xold': { supplied: [USDC], borrowed: [] },
      '0xborrower': { supplied: [], borrowed: [WETH] },
      '0xquiet': { supplied: [USDC], borrowed: [] },
    };
    await repo.saveSnapshot({ ...snapshot(AAVE, 10, HEAD - 3_000), carry });

    // Same UTC day: the base's participants + the events of blocks 11–13; read: the accounts they touched.
    const same = await snapshotAccounts(repo, A, { number: 13, timestamp: HEAD });
    expect(same.base).toEqual(carry);
    expect([...same.touched!].sort()).toEqual(['0xborrower', '0xnew', '0xold']);
    expect([...same.participants.accounts.keys()].sort()).toEqual(['0xborrower', '0xnew', '0xold', '0xquiet']);
    expect(readsAccount(same, '0xquiet')).toBe(false);
    expect(readsAccount(same, '0xnew')).toBe(true);

    // The next UTC day's first snapshot: every participant the events ever named, all read (the reconciliation).
    const nextDay = Math.floor(HEAD / DAY) * DAY + DAY + 60;
    const full = await snapshotAccounts(repo, A, { number: 14, timestamp: nextDay });
    expect(full.base).toBeUndefined();
    expect([...full.participants.accounts.keys()].sort()).toEqual(['0xborrower', '0xlater', '0xnew', '0xold']);
    expect(readsAccount(full, '0xold')).toBe(true);

    // A base without a carry (taken before issue 30) cannot be carried from: a full read.
    await repo.saveSnapshot(snapshot(AAVE, 11, HEAD - 2_000));
    expect((await snapshotAccounts(repo, A, { number: 13, timestamp: HEAD })).base).toBeUndefined();
  });
});
