import { describe, expect, it } from 'vitest';
import { sellDepth } from '../../core/depth.js';
import { HOUR } from '../../core/time.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact } from '../dex/public.js';
import { poolStateAt } from '../dex/public.js';
import type { LstRef } from './exposure.js';
import { lstPoolAnalytics, pegFigures } from './pool.js';

const WSTETH = '0x00000000000000000000000000000000000057e7';
const WETH = '0x000000000000000000000000000000000000e7e7';
const E18 = 10n ** 18n;
const T = 1_800_000_000; // 2027-01-15T08:00:00Z

const lst: LstRef = {
  chain: 'ethereum',
  protocol: 'lido',
  symbol: 'wstETH',
  token: WSTETH,
  decimals: 18,
  underlying: WETH,
  underlyingSymbol: 'WETH',
};
const t0: TokenFact = { chain: 'ethereum', address: WSTETH, symbol: 'wstETH', name: '', decimals: 18 };
const t1: TokenFact = { chain: 'ethereum', address: WETH, symbol: 'WETH', name: '', decimals: 18 };
const pool: PoolFact = {
  chain: 'ethereum',
  address: '0xpool',
  protocol: 'uniswap',
  version: 'V3',
  design: 'uniswap-v3',
  factory: '0xf',
  token0: WSTETH,
  token1: WETH,
  fee: 100,
  tickSpacing: 1,
  createdBlock: 1,
  createdAt: T - 30 * 86_400,
};
/** √1.17 · 2^96: the pool trades wstETH at 1.17 WETH against an exchange rate of 1.18. */
const sqrtPriceX96 = BigInt(Math.round(Math.sqrt(1.17) * 2 ** 48)) * 2n ** 48n;
const snapshot: PoolSnapshotFact = {
  chain: 'ethereum',
  pool: '0xpool',
  blockNumber: 500,
  timestamp: T,
  reserve0: 1000n * E18,
  reserve1: 900n * E18,
  sqrtPriceX96,
  liquidity: 20_000n * E18,
  tick: 1570,
};
const swap = (timestamp: number, amount0: bigint, amount1: bigint, trader = '0xt'): SwapFact => ({
  chain: 'ethereum',
  pool: '0xpool',
  blockNumber: 400,
  logIndex: 0,
  txHash: '0x',
  trader,
  amount0,
  amount1,
  sqrtPriceX96,
  liquidity: 20_000n * E18,
  tick: 1570,
  timestamp,
});
const prices = (token: string) => (token === WETH ? 2000 : token === WSTETH ? 2340 : undefined);

describe('lstPoolAnalytics', () => {
  const swaps = [
    swap(T - 2 * HOUR, 10n * E18, -11n * E18), // sells 10 wstETH: $23,400
    swap(T - 3 * 86_400, -5n * E18, 6n * E18), // buys wstETH with 6 WETH: $12,000
    swap(T - 8 * 86_400, 1n * E18, -1n * E18), // outside 7 d
  ];
  const a = lstPoolAnalytics({
    pool,
    token0: t0,
    token1: t1,
    lst,
    snapshot,
    exchangeRateRaw: 1_180_000_000_000_000_000n,
    swaps,
    prices,
    lstCollateralToken: 2000,
    lstPrice: null,
  });

  it('balances, value and imbalance at the exchange rate', () => {
    expect(a).toMatchObject({
      lst_is_token0: true,
      lst_balance: 1000,
      underlying_balance: 900,
      lst_balance_raw: (1000n * E18).toString(),
      lst_balance_usd: 2_340_000,
      underlying_balance_usd: 1_800_000,
      tvl_usd: 4_140_000,
      exchange_rate: 1.18,
      exchange_rate_raw: '1180000000000000000',
      snapshot_block: 500,
      as_of: '2027-01-15T08:00:00Z',
    });
    // LST value 1180 WETH against 900 WETH.
    expect(a.lst_share_of_value).toBeCloseTo(1180 / 2080, 6);
    expect(a.imbalance).toBeCloseTo(280 / 2080, 6);
  });

  it('price against the peg', () => {
    expect(a.pool_price).toBeCloseTo(1.17, 9);
    expect(a.price_vs_peg).toBeCloseTo(1.17 / 1.18, 6);
    expect(a.discount_pct).toBeCloseTo((1 - 1.17 / 1.18) * 100, 3);
  });

  it('depth 1, 2, 5 % each way from core/depth', () => {
    expect(a.depth.map((d) => d.price_move_pct)).toEqual([1, 2, 5]);
    const state = { ...pool, ...snapshot, address: pool.address, decimals0: 18, decimals1: 18 };
    const down2 = sellDepth(state, 0, 0.02);
    expect(a.depth[1]!.down.token_in).toBeCloseTo(Number(down2.amountIn) / 1e18, 9);
    expect(a.depth[1]!.down.usd).toBeCloseTo((Number(down2.amountIn) / 1e18) * 2340, 3);
    const up2 = sellDepth(state, 1, 0.02 / 1.02);
    expect(a.depth[1]!.up.token_in).toBeCloseTo(Number(up2.amountIn) / 1e18, 9);
    expect(a.depth[1]!.up.usd).toBeCloseTo((Number(up2.amountIn) / 1e18) * 2000, 3);
    expect(a.depth[0]!.down.token_in! < a.depth[2]!.down.token_in!).toBe(true);
    expect(a.depth.every((d) => d.down.reachable && d.up.reachable)).toBe(true);
  });

  it('volume over 24 h and 7 d from the swaps and hourly prices', () => {
    expect(a).toMatchObject({
      swap_count_24h: 1,
      swap_count_7d: 2,
      volume_24h_usd: 23_400,
      volume_7d_usd: 35_400,
      volume_24h_lst: 10,
      volume_7d_lst: 15,
      unpriced_swap_count_7d: 0,
      lst_collateral_in_lending_token: 2000,
      lst_collateral_in_lending_usd: 2000 * 2340,
    });
  });
});

describe('pegFigures', () => {
  it('a pool holding only the underlying has imbalance −1', () => {
    const state = { ...pool, ...snapshot, address: pool.address, decimals0: 18, decimals1: 18 };
    expect(pegFigures(state, 0, 1.18, { lst: 0, underlying: 10 }).imbalance).toBe(-1);
    expect(pegFigures(state, 0, 1.18, null).imbalance).toBeNull();
  });
});

describe('poolStateAt', () => {
  it('the snapshot when not newer than t; else the last swap (V3) or sync (V2) at or before t', () => {
    const early = { ...swap(T - 86_400, 1n, -1n), blockNumber: 300, sqrtPriceX96: 2n ** 96n };
    const late = { ...swap(T - 3600, 1n, -1n), blockNumber: 450 };
    expect(poolStateAt(pool, 18, 18, snapshot, [early, late], [], T)!.blockNumber).toBe(500);
    const before = poolStateAt(pool, 18, 18, snapshot, [early, late], [], T - 7200)!;
    expect(before).toMatchObject({ blockNumber: 300, balancesKnown: false });
    expect(before.state.sqrtPriceX96).toBe(2n ** 96n);
    expect(poolStateAt(pool, 18, 18, snapshot, [early], [], T - 2 * 86_400)).toBeUndefined();

    const v2: PoolFact = { ...pool, design: 'uniswap-v2', version: 'V2' };
    const sync: SyncFact = {
      chain: 'ethereum',
      pool: '0xpool',
      blockNumber: 200,
      logIndex: 3,
      reserve0: 5n,
      reserve1: 6n,
      timestamp: T - 2 * 86_400,
    };
    expect(poolStateAt(v2, 18, 18, undefined, [], [sync], T - 86_400)).toMatchObject({
      blockNumber: 200,
      balancesKnown: true,
      state: { reserve0: 5n, reserve1: 6n },
    });
  });
});

describe('every null figure of the pool analytics has a reason (issue 13)', () => {
  it('no price: no_price; no lending exposure known: no_data', () => {
    const a = lstPoolAnalytics({
      pool,
      token0: t0,
      token1: t1,
      lst,
      snapshot,
      exchangeRateRaw: 1_180_000_000_000_000_000n,
      swaps: [],
      prices: () => undefined,
      lstCollateralToken: null,
      lstPrice: null,
    });
    expect(a.lst_price_usd).toBeNull();
    expect(a.gap_reasons).toMatchObject({
      lst_price_usd: 'no_price',
      tvl_usd: 'no_price',
      lst_collateral_in_lending_token: 'no_data',
    });
    for (const [k, v] of Object.entries(a)) if (v === null) expect(a.gap_reasons[k], k).toBeTruthy();
  });
});
