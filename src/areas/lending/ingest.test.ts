import { type Abi, encodeAbiParameters, encodeEventTopics, type Hex, keccak256 } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import type { BlockInfo, EvmLog } from '../../sources/evm/index.js';
import type { Dialect, Store } from '../../store/db.js';
import { AAVE_POOL_EVENTS, ATOKEN_EVENTS, decodeAavePoolLog, decodeMorphoLog, MORPHO_EVENTS } from './events.js';
import {
  headSnapshotDue,
  LendingSink,
  missingDayEnds,
  morphoAccepts,
  morphoViews,
  SNAPSHOT_EVERY_SECONDS,
  snapshotsToPrune,
} from './ingest.js';
import { LendingRepository } from './repo.js';
import type { LendingMarketTarget } from './targets.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

const POOL: Hex = '0x00000000000000000000000000000000000000b0';
const ATOKEN: Hex = '0x00000000000000000000000000000000000000a0';
const MORPHO: Hex = '0x00000000000000000000000000000000000000c0';
const USDC: Hex = '0x00000000000000000000000000000000000000a1';
const WETH: Hex = '0x00000000000000000000000000000000000000e1';
const DOGE: Hex = '0x00000000000000000000000000000000000000d1';
const ALICE: Hex = '0x0000000000000000000000000000000000000a11';
const BOB: Hex = '0x0000000000000000000000000000000000000b0b';
const CAROL: Hex = '0x0000000000000000000000000000000000000ca1';

let logIndex = 0;

/** A log as the engine hands it over, encoded by viem from the event's ABI. */
function log(address: Hex, abi: Abi, eventName: string, args: Record<string, unknown>, block: number): EvmLog {
  const event = abi.find((x) => x.type === 'event' && x.name === eventName) as Extract<Abi[number], { type: 'event' }>;
  const topics = encodeEventTopics({ abi: [event], eventName, args } as never) as Hex[];
  const data = event.inputs.filter((i) => !i.indexed);
  return {
    address,
    topics,
    data: encodeAbiParameters(
      data,
      data.map((i) => args[i.name!]),
    ),
    blockNumber: block,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    logIndex: logIndex++,
    transactionHash: `0x${(block + 1000).toString(16).padStart(64, '0')}`,
    transactionIndex: 0,
  };
}

const params = (collateralToken: Hex) => ({
  loanToken: USDC,
  collateralToken,
  oracle: '0x00000000000000000000000000000000000000f1' as Hex,
  irm: '0x00000000000000000000000000000000000000f2' as Hex,
  lltv: 860_000_000_000_000_000n,
});
const ID_WETH = keccak256('0x01');
const ID_DOGE = keccak256('0x02');

describe('lending event decoding', () => {
  it('reads Aave’s positions from onBehalfOf and a liquidation’s both assets', () => {
    const supply = decodeAavePoolLog(
      log(
        POOL,
        AAVE_POOL_EVENTS,
        'Supply',
        { reserve: USDC, user: BOB, onBehalfOf: ALICE, amount: 5n, referralCode: 0 },
        1,
      ),
    );
    expect(supply).toMatchObject({ kind: 'supply', asset: USDC, account: ALICE, actor: BOB, amount: 5n });
    const liquidation = decodeAavePoolLog(
      log(
        POOL,
        AAVE_POOL_EVENTS,
        'LiquidationCall',
        {
          collateralAsset: WETH,
          debtAsset: USDC,
          user: ALICE,
          debtToCover: 100n,
          liquidatedCollateralAmount: 7n,
          liquidator: CAROL,
          receiveAToken: false,
        },
        2,
      ),
    );
    expect(liquidation).toMatchObject({
      kind: 'liquidation',
      asset: USDC,
      account: ALICE,
      actor: CAROL,
      amount: 100n,
      collateralAsset: WETH,
      collateralAmount: 7n,
    });
  });

  it('reads Morpho’s market params and a liquidation’s repaid and seized assets', () => {
    const created = decodeMorphoLog(
      log(MORPHO, MORPHO_EVENTS, 'CreateMarket', { id: ID_WETH, marketParams: params(WETH) }, 1),
    );
    expect(created?.params).toEqual({ ...params(WETH), oracle: params(WETH).oracle, irm: params(WETH).irm });
    const liq = decodeMorphoLog(
      log(
        MORPHO,
        MORPHO_EVENTS,
        'Liquidate',
        {
          id: ID_WETH,
          caller: CAROL,
          borrower: ALICE,
          repaidAssets: 10n,
          repaidShares: 11n,
          seizedAssets: 12n,
          badDebtAssets: 0n,
          badDebtShares: 0n,
        },
        2,
      ),
    );
    expect(liq).toMatchObject({
      kind: 'liquidation',
      account: ALICE,
      actor: CAROL,
      amount: 10n,
      collateralAmount: 12n,
    });
  });
});

describe.each(dialects)('the lending sink on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(() => cleanup());

  const blocks = new Map<number, BlockInfo>(
    [1, 2, 3, 4, 5].map((n) => [n, { number: n, hash: '0x00', parentHash: '0x00', timestamp: 1000 + n }]),
  );
  const ctx = { chain: 'ethereum', blocks, senders: new Map() };

  it('keeps the events of the markets in view, idempotently, names the participants, and rolls back', async () => {
    const sink = new LendingSink('ethereum', 1);
    sink.setTargets({
      aavePools: [POOL],
      aTokens: new Map([[ATOKEN, { pool: POOL, asset: USDC }]]),
      // The USDC view takes WETH as collateral, not DOGE.
      morpho: new Map([[MORPHO, (p) => p.loanToken === USDC && p.collateralToken === WETH]]),
    });
    const queries = await sink.queries(0, store.db);
    expect(queries.map((q) => q.addresses)).toEqual([[POOL], [ATOKEN], [MORPHO]]);
    const logs = [
      log(
        POOL,
        AAVE_POOL_EVENTS,
        'Supply',
        { reserve: USDC, user: ALICE, onBehalfOf: ALICE, amount: 1000n, referralCode: 0 },
        1,
      ),
      log(
        POOL,
        AAVE_POOL_EVENTS,
        'Borrow',
        {
          reserve: USDC,
          user: BOB,
          onBehalfOf: BOB,
          amount: 10n,
          interestRateMode: 2,
          borrowRate: 0n,
          referralCode: 0,
        },
        2,
      ),
      log(ATOKEN, ATOKEN_EVENTS, 'BalanceTransfer', { from: ALICE, to: CAROL, value: 5n, index: 10n ** 27n }, 3),
      log(MORPHO, MORPHO_EVENTS, 'CreateMarket', { id: ID_WETH, marketParams: params(WETH) }, 1),
      log(MORPHO, MORPHO_EVENTS, 'CreateMarket', { id: ID_DOGE, marketParams: params(DOGE) }, 1),
      log(MORPHO, MORPHO_EVENTS, 'SupplyCollateral', { id: ID_WETH, caller: BOB, onBehalf: BOB, assets: 3n }, 4),
      log(
        MORPHO,
        MORPHO_EVENTS,
        'Borrow',
        { id: ID_WETH, caller: BOB, onBehalf: BOB, receiver: BOB, assets: 2n, shares: 2n },
        4,
      ),
      log(MORPHO, MORPHO_EVENTS, 'SupplyCollateral', { id: ID_DOGE, caller: ALICE, onBehalf: ALICE, assets: 9n }, 5),
    ];
    const write = () => store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 5 }, [logs], ctx));
    expect(await write()).toBe(6);
    expect(await write()).toBe(6);
    const repo = new LendingRepository(store.db);
    const all = await repo.events('ethereum', POOL, ['supply', 'borrow', 'transfer'], 0, 2000);
    expect(all.map((e) => [e.kind, e.account, e.asset, e.timestamp])).toEqual([
      ['supply', ALICE, USDC, 1001],
      ['borrow', BOB, USDC, 1002],
      ['transfer', CAROL, USDC, 1003],
    ]);
    const aave = await repo.participants('ethereum', POOL, 5);
    expect([...aave.accounts.keys()].sort()).toEqual([ALICE, BOB, CAROL]);
    expect([...aave.accounts.get(BOB)!.borrowed]).toEqual([USDC]);
    const morpho = await repo.participants('ethereum', MORPHO, 5);
    expect([...morpho.accounts.keys()]).toEqual([`${ID_WETH}:${BOB}`]);
    expect(morpho.accounts.get(`${ID_WETH}:${BOB}`)).toEqual({ supplied: new Set([WETH]), borrowed: new Set([USDC]) });
    // Learnt markets survive a new sink (read back from the store).
    expect(await repo.createdMarkets('ethereum', MORPHO)).toHaveLength(1);

    await store.db.transaction().execute((trx) => sink.rollback(trx, 2));
    expect((await repo.events('ethereum', POOL, ['supply', 'borrow', 'transfer'], 0, 2000)).length).toBe(2);
    expect((await repo.participants('ethereum', MORPHO, 5)).accounts.size).toBe(0);
  });
});

describe('the Morpho views of a singleton', () => {
  const view = (baseAsset: string, assets: { address: string; symbol: string }[]): LendingMarketTarget => ({
    chain: 'ethereum',
    protocol: 'morpho',
    version: 'V1',
    baseAsset,
    marketName: `Morpho ${baseAsset}`,
    design: 'morpho-blue',
    pool: MORPHO,
    assets: assets.map((a) => ({ ...a, decimals: 18 })),
  });

  it('takes a market whose loan token is a view’s base asset and whose collateral the view lists', () => {
    const usdc = view('USDC', [
      { address: USDC, symbol: 'USDC' },
      { address: WETH, symbol: 'WETH' },
    ]);
    const weth = view('WETH', [
      { address: WETH, symbol: 'WETH' },
      { address: DOGE, symbol: 'DOGE' },
    ]);
    expect(morphoAccepts(usdc)(params(WETH))).toBe(true);
    expect(morphoAccepts(usdc)(params(DOGE))).toBe(false);
    const views = morphoViews([usdc, weth]);
    expect([...views.keys()]).toEqual([MORPHO]);
    const accepts = views.get(MORPHO)!;
    expect(accepts(params(WETH))).toBe(true);
    expect(accepts({ ...params(DOGE), loanToken: WETH })).toBe(true);
    expect(accepts(params(DOGE))).toBe(false);
  });
});

describe('snapshot scheduling', () => {
  // Chain time: 2026-11-20 12:00 UTC; the ends of the 6 previous days are 23:59:59 of 19 … 14 November.
  const HEAD = Date.UTC(2026, 10, 20, 12) / 1000;
  const dayEnd = (d: number) => Date.UTC(2026, 10, 21 - d) / 1000 - 1;
  const at = (timestamp: number, blockNumber = Math.floor(timestamp / 12)) => ({ blockNumber, timestamp });

  it('takes a head snapshot first, then at most every 5 minutes of chain time, never twice at one block', () => {
    expect(headSnapshotDue(undefined, at(HEAD))).toBe(true);
    expect(headSnapshotDue(at(HEAD - SNAPSHOT_EVERY_SECONDS), at(HEAD))).toBe(true);
    expect(headSnapshotDue(at(HEAD - SNAPSHOT_EVERY_SECONDS + 1), at(HEAD))).toBe(false);
    expect(headSnapshotDue(at(HEAD - 3600, 100), at(HEAD, 100))).toBe(false);
  });

  it('asks for each past day end without a snapshot in the 6 hours before it, none before the market’s start', () => {
    expect(missingDayEnds([], HEAD, 0)).toEqual([1, 2, 3, 4, 5, 6].map(dayEnd));
    const times = [
      at(dayEnd(1)), // exactly at the end of yesterday
      at(dayEnd(2) - 6 * 3600 + 1), // just inside the tolerance
      at(dayEnd(3) - 6 * 3600), // just outside it
      at(dayEnd(4) + 1), // after the day's end: stands for the next day at best
      at(HEAD), // the head stands for no past day
    ];
    expect(missingDayEnds(times, HEAD, 0)).toEqual([3, 4, 5, 6].map(dayEnd));
    // A market started 3.5 days ago has no state to read at the end of day 4 and earlier.
    expect(missingDayEnds([], HEAD, dayEnd(4) + 1)).toEqual([1, 2, 3].map(dayEnd));
  });

  it('keeps the 3 newest snapshots and the newest at or before the head and each of the 7 previous day ends', () => {
    const times = [
      at(dayEnd(9)), // superseded by the next two for the end of day 7
      at(dayEnd(8) - 7200),
      at(dayEnd(8) - 3600), // the newest before the end of day 7: kept
      at(dayEnd(2) - 100), // superseded by the next for day 2
      at(dayEnd(2) - 50),
      at(HEAD - 1200),
      at(HEAD - 900),
      at(HEAD - 600),
      at(HEAD - 300),
      at(HEAD),
    ];
    expect(snapshotsToPrune(times, HEAD)).toEqual(
      [dayEnd(9), dayEnd(8) - 7200, dayEnd(2) - 100, HEAD - 1200, HEAD - 900].map((t) => at(t).blockNumber),
    );
  });
});
