import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../test/helpers.js';
import { Q96 } from '../../core/decimal.js';
import type { JobContext } from '../../jobs/types.js';
import type { Store } from '../../store/db.js';
import type { PoolFact, TokenFact } from './facts.js';
import { pricesFrom, updatePrices } from './jobs.js';
import { DexRepository } from './repo.js';

const chain = 'ethereum';
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const USDC = a(0xc1);
const DAI = a(0xc3);
const WETH = a(0xe1);
const UNI = a(0xd1);
const OLD = a(0xd2);
const ANCHORS = [
  { chain, address: USDC, symbol: 'USDC', peg: 'USD' as const },
  { chain, address: DAI, symbol: 'DAI', peg: 'USD' as const },
];
const TOKENS: TokenFact[] = [
  { chain, address: USDC, symbol: 'USDC', name: 'USDC', decimals: 6 },
  { chain, address: DAI, symbol: 'DAI', name: 'DAI', decimals: 18 },
  { chain, address: WETH, symbol: 'WETH', name: 'WETH', decimals: 18 },
  { chain, address: UNI, symbol: 'UNI', name: 'UNI', decimals: 18 },
  { chain, address: OLD, symbol: 'OLD', name: 'OLD', decimals: 18 },
];
const pool = (n: number, token0: string, token1: string, design: PoolFact['design']): PoolFact => ({
  chain,
  address: a(0x900 + n),
  protocol: 'uniswap',
  version: design === 'uniswap-v2' ? 'V2' : 'V3',
  design,
  factory: a(0xfac),
  token0,
  token1,
  fee: 3000,
  tickSpacing: design === 'uniswap-v2' ? null : 60,
  createdBlock: 1,
  createdAt: 0,
});
const POOLS = [
  pool(1, USDC, WETH, 'uniswap-v2'),
  pool(2, DAI, WETH, 'uniswap-v3'),
  pool(3, WETH, UNI, 'uniswap-v3'),
  pool(4, WETH, UNI, 'uniswap-v2'),
  // Its last Sync is 17 days before the head: V2 state of any age still prices OLD.
  pool(5, WETH, OLD, 'uniswap-v2'),
  // Its last swap is 16 days before the head: out of the 15-day window, in both computations.
  pool(6, USDC, DAI, 'uniswap-v3'),
];

const HOUR = 3600;
const START = 1_793_491_200; // 2026-11-01T00:00:00Z
const BLOCK_SECONDS = 600;

/** A seeded stream (mulberry32), so both stores hold the same facts. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const e18 = 10n ** 18n;
const sqrtX96 = (price: number) => BigInt(Math.round(Math.sqrt(price) * 2 ** 40)) * (Q96 / 2n ** 40n);

/** Facts of blocks `from..to` (one every 10 minutes), the same for the same blocks whatever the store. */
async function writeBlocks(store: Store, from: number, to: number) {
  const rnd = random(from * 7919 + to);
  const swaps: Record<string, unknown>[] = [];
  const syncs: Record<string, unknown>[] = [];
  for (let block = from; block <= to; block++) {
    const timestamp = START + block * BLOCK_SECONDS;
    const eth = 3000 * (1 + 0.05 * Math.sin(block / 40));
    const uni = 8 * (1 + 0.1 * Math.cos(block / 25));
    let log = 0;
    const addSync = (p: PoolFact, r0: bigint, r1: bigint) =>
      syncs.push({
        chain,
        block_number: block,
        log_index: log++,
        pool: p.address,
        reserve0: String(r0),
        reserve1: String(r1),
        timestamp,
      });
    const addSwap = (p: PoolFact, price: number, liquidity: bigint | null) =>
      swaps.push({
        chain,
        block_number: block,
        log_index: log++,
        pool: p.address,
        tx_hash: `0x${block.toString(16).padStart(64, '0')}`,
        trader: a(0xabc),
        amount0: '1',
        amount1: '-1',
        sqrt_price_x96: liquidity === null ? null : String(sqrtX96(price)),
        liquidity: liquidity === null ? null : String(liquidity),
        tick: 0,
        timestamp,
      });
    if (rnd() < 0.7) addSync(POOLS[0]!, BigInt(Math.round(eth * 1000)) * 10n ** 6n, 1000n * e18);
    if (rnd() < 0.5) addSwap(POOLS[1]!, 1 / eth, 10n ** 24n);
    if (rnd() < 0.4) addSwap(POOLS[2]!, eth / uni, rnd() < 0.2 ? null : 10n ** 23n);
    if (rnd() < 0.3) addSync(POOLS[3]!, 500n * e18, BigInt(Math.round((eth / uni) * 500)) * e18);
    if (timestamp < START + 3 * 86_400 && rnd() < 0.5) addSync(POOLS[4]!, 400n * e18, 400_000n * e18);
    if (timestamp < START + 4 * 86_400 && rnd() < 0.5) addSwap(POOLS[5]!, 1e12, 10n ** 20n);
  }
  const db = store.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  for (let i = 0; i < swaps.length; i += 200)
    await db
      .insertInto('dex_swaps')
      .values(swaps.slice(i, i + 200))
      .execute();
  for (let i = 0; i < syncs.length; i += 200)
    await db
      .insertInto('dex_syncs')
      .values(syncs.slice(i, i + 200))
      .execute();
  await new DexRepository(store.db).saveSnapshots([
    {
      chain,
      pool: POOLS[0]!.address,
      blockNumber: to,
      timestamp: START + to * BLOCK_SECONDS,
      reserve0: 1n,
      reserve1: 1n,
      sqrtPriceX96: null,
      liquidity: null,
      tick: null,
    },
  ]);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function newStore(): Promise<{ store: Store; ctx: JobContext }> {
  const made = testStore();
  cleanups.push(made.cleanup);
  await made.store.migrate();
  const db = made.store.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  await db
    .insertInto('dex_pools')
    .values(
      POOLS.map((p) => ({
        chain,
        address: p.address,
        protocol: p.protocol,
        version: p.version,
        design: p.design,
        factory: p.factory,
        token0: p.token0,
        token1: p.token1,
        fee: p.fee,
        tick_spacing: p.tickSpacing,
        created_block: p.createdBlock,
        created_at: p.createdAt,
      })),
    )
    .execute();
  await new DexRepository(made.store.db).saveTokens(TOKENS);
  const ctx: JobContext = {
    store: made.store,
    clock: new TestClock(),
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    attempt: 1,
    notifyPublished: async () => undefined,
  };
  return { store: made.store, ctx };
}

const prices = async (store: Store, from: number, to: number) =>
  (await new DexRepository(store.db).prices(chain, from, to))
    .map((p) => ({ ...p }))
    .sort((x, y) => x.hour - y.hour || (x.token < y.token ? -1 : 1));

describe('hourly prices, incrementally', () => {
  it('computes only the hours since the last run, with the prices of a whole-window computation', async () => {
    // 20 days of blocks; the incremental store computes at day 19 + 3 blocks, then at every block to the end.
    const last = (20 * 86_400) / BLOCK_SECONDS;
    const first = last - 24 * 6 - 5;
    const incremental = await newStore();
    await writeBlocks(incremental.store, 1, first);
    const run = (s: { store: Store; ctx: JobContext }) =>
      updatePrices(s.ctx, new DexRepository(s.store.db), [chain], ANCHORS, START + last * BLOCK_SECONDS);
    expect((await run(incremental)).join()).toMatch(/over 360 hours up to block/);
    let step = first;
    const summaries: string[] = [];
    for (const to of [first + 1, first + 4, first + 40, last]) {
      await writeBlocks(incremental.store, step + 1, to);
      step = to;
      summaries.push((await run(incremental)).join());
    }
    expect(summaries[0]).toMatch(/over [23] hours up to block/);
    expect(summaries.every((x) => !/over 360 hours/.test(x))).toBe(true);
    expect((await run(incremental)).join()).toMatch(/up to date/);

    const whole = await newStore();
    await writeBlocks(whole.store, 1, first);
    await writeBlocks(whole.store, first + 1, first + 1);
    await writeBlocks(whole.store, first + 2, first + 4);
    await writeBlocks(whole.store, first + 5, first + 40);
    await writeBlocks(whole.store, first + 41, last);
    expect((await run(whole)).join()).toMatch(/over 360 hours/);

    const lastHour = Math.floor((START + last * BLOCK_SECONDS) / HOUR) * HOUR;
    const firstHour = lastHour - 359 * HOUR;
    const expected = await prices(whole.store, firstHour, lastHour);
    expect(expected.length).toBeGreaterThan(360 * 3);
    expect(new Set(expected.map((p) => p.token))).toEqual(new Set([USDC, DAI, WETH, UNI, OLD]));
    expect(await prices(incremental.store, firstHour, lastHour)).toEqual(expected);
  }, 60_000);

  it('starts from the hour before the last run, or the whole window when it cannot', () => {
    const firstHour = 1_000 * HOUR;
    expect(pricesFrom(undefined, { blockNumber: 10 }, firstHour)).toBe(firstHour);
    expect(pricesFrom({ block: 9 }, { blockNumber: 10 }, firstHour)).toBe(firstHour);
    expect(pricesFrom({ block: 9, timestamp: 1_200 * HOUR + 59 }, { blockNumber: 10 }, firstHour)).toBe(1_199 * HOUR);
    // A head below the last run's block (a reorganisation): everything again.
    expect(pricesFrom({ block: 11, timestamp: 1_200 * HOUR }, { blockNumber: 10 }, firstHour)).toBe(firstHour);
    expect(pricesFrom({ block: 9, timestamp: 900 * HOUR }, { blockNumber: 10 }, firstHour)).toBe(firstHour);
  });
});
