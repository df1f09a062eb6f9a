import { describe, expect, it } from 'vitest';
import type { PoolFact, PoolSnapshotFact, SwapFact, TokenFact, TokenPriceFact } from '../dex/public.js';
import type { LendingMarketTarget, MarketSnapshot, PositionSnapshot } from '../lending/public.js';
import {
  computeLiquidStaking,
  exchangeRateBlocks,
  historyInstants,
  type LiquidStakingInput,
  marketKey,
  rateKey,
} from './compute.js';
import { liquidStakingDocuments } from './jobs.js';
import type { LiquidStakingToken } from './targets.js';

const WSTETH = '0x00000000000000000000000000000000000057e7';
const WETH = '0x000000000000000000000000000000000000e7e7';
const USDC = '0x0000000000000000000000000000000000000c0c';
const POOL = '0x00000000000000000000000000000000000000aa';
const E18 = 10n ** 18n;
const T = 1_800_000_000 + 5 * 3600; // 13:00 UTC
const RATE = 1_180_000_000_000_000_000n;

const lst: LiquidStakingToken = {
  chain: 'ethereum',
  protocol: 'lido',
  symbol: 'wstETH',
  token: WSTETH,
  decimals: 18,
  underlying: WETH,
  lendingMarkets: [{ protocol: 'aave', version: 'V3', baseAsset: 'USDC' }],
  dexPools: [{ protocol: 'uniswap', version: 'V3', pool: POOL }],
};
const market: LendingMarketTarget = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design: 'aave-v3',
  pool: '0x00000000000000000000000000000000000000bb',
  assets: [
    { address: USDC, symbol: 'USDC', decimals: 6 },
    { address: WETH, symbol: 'WETH', decimals: 18 },
    { address: WSTETH, symbol: 'wstETH', decimals: 18 },
  ],
};
const tokens: TokenFact[] = [
  { chain: 'ethereum', address: WSTETH, symbol: 'wstETH', name: '', decimals: 18 },
  { chain: 'ethereum', address: WETH, symbol: 'WETH', name: '', decimals: 18 },
];
const pool: PoolFact = {
  chain: 'ethereum',
  address: POOL,
  protocol: 'uniswap',
  version: 'V3',
  design: 'uniswap-v3',
  factory: '0xf',
  token0: WSTETH,
  token1: WETH,
  fee: 100,
  tickSpacing: 1,
  createdBlock: 1,
  createdAt: T - 20 * 86_400,
};
const sqrt = (p: number) => BigInt(Math.round(Math.sqrt(p) * 2 ** 48)) * 2n ** 48n;
const snapshot: PoolSnapshotFact = {
  chain: 'ethereum',
  pool: POOL,
  blockNumber: 1000,
  timestamp: T,
  reserve0: 1000n * E18,
  reserve1: 1100n * E18,
  sqrtPriceX96: sqrt(1.178),
  liquidity: 30_000n * E18,
  tick: 0,
};
/** One swap an hour for 10 days; the price dips to 1.10 (a 6.8 % discount) three days ago. */
const swaps: SwapFact[] = Array.from({ length: 240 }, (_, i) => {
  const timestamp = T - i * 3600 - 60;
  const daysAgo = Math.floor((T - timestamp) / 86_400);
  return {
    chain: 'ethereum',
    pool: POOL,
    blockNumber: 1000 - i - 1,
    logIndex: 0,
    txHash: '0x',
    trader: `0xtrader${i % 7}`,
    amount0: i % 2 ? 2n * E18 : -2n * E18,
    amount1: i % 2 ? -2n * E18 : 2n * E18,
    sqrtPriceX96: sqrt(daysAgo === 3 ? 1.1 : 1.178),
    liquidity: 30_000n * E18,
    tick: 0,
    timestamp,
  };
});
const prices: TokenPriceFact[] = [];
for (let h = Math.floor((T - 15 * 86_400) / 3600) * 3600; h <= T; h += 3600) {
  prices.push({ chain: 'ethereum', token: WETH, hour: h, priceUsd: 2000, source: 'x', confidence: 1 });
  prices.push({ chain: 'ethereum', token: WSTETH, hour: h, priceUsd: 2356, source: 'x', confidence: 1 });
}
const pos = (account: string, wst: bigint, weth: bigint, hf: number): PositionSnapshot => ({
  account,
  marketId: '',
  supplied: { [WSTETH]: wst.toString() },
  borrowed: { [WETH]: weth.toString() },
  collateral: [WSTETH],
  thresholds: { [WSTETH]: 0.93 },
  bonuses: { [WSTETH]: 0.01 },
  eMode: 1,
  collateralUsd: Number(wst / E18) * 2360,
  debtUsd: Number(weth / E18) * 2000,
  healthFactor: hf,
});
const lendingSnapshot = (blockNumber: number, timestamp: number): MarketSnapshot => ({
  chain: 'ethereum',
  pool: market.pool,
  blockNumber,
  timestamp,
  reserves: [
    {
      asset: WSTETH,
      symbol: 'wstETH',
      decimals: 18,
      totalSupplyRaw: (200n * E18).toString(),
      totalBorrowRaw: '0',
      priceUsd: 2360,
      supplyRate: 0,
      borrowRate: 0,
      ltv: 0.69,
      liquidationThreshold: 0.795,
      liquidationBonus: 0.07,
      reserveFactor: 0.1,
      supplyCap: 0,
      borrowCap: 0,
      borrowingEnabled: false,
      collateralEnabled: true,
      active: true,
      frozen: false,
      paused: false,
      optimalUtilisation: 0.45,
      aToken: null,
      debtToken: null,
    },
    {
      asset: WETH,
      symbol: 'WETH',
      decimals: 18,
      totalSupplyRaw: (1000n * E18).toString(),
      totalBorrowRaw: '0',
      priceUsd: 2000,
      supplyRate: 0,
      borrowRate: 0,
      ltv: 0.8,
      liquidationThreshold: 0.83,
      liquidationBonus: 0.05,
      reserveFactor: 0.1,
      supplyCap: 0,
      borrowCap: 0,
      borrowingEnabled: true,
      collateralEnabled: true,
      active: true,
      frozen: false,
      paused: false,
      optimalUtilisation: 0.8,
      aToken: null,
      debtToken: null,
    },
  ],
  positions: [pos('0x1', 100n * E18, 105n * E18, (236_000 * 0.93) / 210_000), pos('0x2', 10n * E18, 5n * E18, 2.19)],
});

function input(rates: Map<string, bigint> | 'all'): LiquidStakingInput {
  const instants = historyInstants(T);
  const base: Omit<LiquidStakingInput, 'exchangeRates'> = {
    asOf: { blockNumber: 1000, timestamp: T },
    liquidStaking: [lst],
    lending: [market],
    exchangeNames: new Map([['ethereum/uniswap/V3', 'Uniswap']]),
    pools: [pool],
    tokens,
    snapshots: [snapshot],
    swaps,
    syncs: [],
    prices,
    lendingSnapshots: new Map([
      [
        marketKey(market),
        // No lending snapshot on the oldest day.
        instants.map((t, d) => (d === 6 ? undefined : lendingSnapshot(5000 - d, d === 0 ? T - 60 : t - 60))),
      ],
    ]),
  };
  if (rates !== 'all') return { ...base, exchangeRates: rates };
  const all = new Map<string, bigint>();
  for (const [key, blocks] of exchangeRateBlocks(base)) {
    const [chain, token] = key.split('/') as [string, string];
    for (const b of blocks) all.set(rateKey(chain, token, b), RATE);
  }
  return { ...base, exchangeRates: all };
}

describe('computeLiquidStaking', () => {
  const out = computeLiquidStaking(input('all'));

  it('listings', () => {
    expect(out.availableDexes).toEqual([
      {
        chain: 'ethereum',
        protocol: 'uniswap',
        version: 'V3',
        exchange_name: 'Uniswap',
        pool_addresses: [POOL],
        number_of_pools: 1,
        liquid_staking_tokens: [
          {
            protocol: 'lido',
            token_address: WSTETH,
            symbol: 'wstETH',
            decimals: 18,
            underlying_address: WETH,
            underlying_symbol: 'WETH',
          },
        ],
      },
    ]);
    expect(out.availableLending).toMatchObject([
      { chain: 'ethereum', protocol: 'aave', version: 'V3', base_asset_symbol: 'USDC', flags: [true, false] },
    ]);
  });

  it('exchange rates are needed at the pool states and the lending snapshots', () => {
    const blocks = [...exchangeRateBlocks(input(new Map())).get(`ethereum/${WSTETH}`)!].sort((a, b) => a - b);
    expect(blocks).toContain(1000);
    expect(blocks).toContain(5000);
    expect(blocks.length).toBeGreaterThan(7);
  });

  it('pool analytics and a 7-day score history that sees the depeg day', () => {
    const a = out.poolAnalytics.get(POOL)!;
    expect(a.asOf).toBe(T);
    expect(a.data.exchange_rate).toBe(1.18);
    expect(a.data.lst_collateral_in_lending_usd).toBe(110 * 2360);
    const s = out.poolScores.get(POOL)!.data;
    expect(s).toHaveLength(7);
    expect(s[0]!.partial).toBe(true);
    expect(s.every((r) => r.score !== null)).toBe(true);
    const peg = s.map((r) => r.components.find((c) => c.name === 'peg_deviation')!.value!);
    // Record 4 (the end of the UTC day 3 days and 13 hours before as_of) falls inside the dip: its last swap
    // traded at 1.10; the others at 1.178.
    expect(peg[4]).toBe(0);
    expect(peg.filter((v) => v === 1)).toHaveLength(6);
    expect(s[4]!.score!).toBeLessThan(s[3]!.score!);
  });

  it('lending analytics and scores per flag; a day without a snapshot is a gap', () => {
    expect(out.lending.map((l) => l.flag)).toEqual([true, false]);
    const all = out.lending.find((l) => !l.flag)!;
    expect(all.analytics).toMatchObject({ position_count: 2, lst_collateral_token: 110, snapshot_block: 5000 });
    expect(all.asOf).toBe(T - 60);
    expect(all.scores).toHaveLength(7);
    expect(all.scores[6]).toMatchObject({ score: null, gap_reason: 'no_data' });
    const absorption = all.scores[0]!.components.find((c) => c.name === 'dex_absorption')!;
    expect(absorption.inputs.dex_pools).toBe(1);
  });

  it('no exchange rate at a block: that figure is a gap, not a guess', () => {
    const o = computeLiquidStaking(input(new Map()));
    expect(o.poolAnalytics.size).toBe(0);
    expect(o.poolScores.get(POOL)!.data.every((r) => r.gap_reason === 'no_data')).toBe(true);
    expect(o.lending.find((l) => !l.flag)!.analytics.exchange_rate).toBeNull();
  });

  it('documents: the 6 paths', () => {
    const docs = liquidStakingDocuments(out, T);
    expect(docs.map((d) => d.path).sort()).toEqual(
      [
        '/data/liquidity/liquid-staking/available-dexes-exposure',
        '/data/liquidity/liquid-staking/available-lending-markets-exposure',
        '/data/liquidity/liquid-staking/asset-analytics-in-lending/ethereum/aave/V3/USDC/false',
        '/data/liquidity/liquid-staking/asset-analytics-in-lending/ethereum/aave/V3/USDC/true',
        `/data/liquidity/liquid-staking/pool-analytics-in-dex/${POOL}`,
        '/scores/liquidity/liquid-staking/exposure-in-lending/ethereum/aave/V3/USDC/false',
        '/scores/liquidity/liquid-staking/exposure-in-lending/ethereum/aave/V3/USDC/true',
        `/scores/liquidity/liquid-staking/dex-pool-scores/${POOL}`,
      ].sort(),
    );
    expect(docs.find((d) => d.path.includes('dex-pool-scores'))!.methodology).toBe('liquid-staking.dex-pool@1.2.0');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(computeLiquidStaking(input('all')).lending)).toBe(JSON.stringify(out.lending));
  });

  it('issue 13, item 6: record 0 is stamped with its payload’s as_of', () => {
    const all = out.lending.find((l) => !l.flag)!;
    expect(all.scores[0]!.timestamp).toBe(all.analytics.as_of);
    expect(all.scores[0]!.timestamp).toBe(new Date((T - 60) * 1000).toISOString().replace('.000Z', 'Z'));
    const pool = out.poolScores.get(POOL)!;
    expect(pool.data[0]!.timestamp).toBe(out.poolAnalytics.get(POOL)!.data.as_of);
  });

  it('one price of the LST in every ratio; exposure summed across markets; peg history in the daily records', () => {
    const a = out.poolAnalytics.get(POOL)!.data;
    // The feed's price (2360, AaveOracle's) prices the depth and the collateral alike, not the DEX price (2356),
    // labelled as the lending area labels it (`oracle`: one price label across lending and liquid staking).
    expect(a.lst_price).toMatchObject({ price_usd: 2360, source: 'oracle', alternative_price_usd: 2356 });
    expect(a.lst_price_usd).toBe(2360);
    expect(a.lst_collateral_in_lending_token).toBe(110);
    const coverage = out.poolScores.get(POOL)!.data[0]!.components.find((c) => c.name === 'depth_coverage')!;
    expect(coverage.inputs).toMatchObject({ lst_price_usd: 2360, price_source: 'oracle' });
    const all = out.lending.find((l) => !l.flag)!;
    expect(all.analytics.all_markets).toMatchObject({ markets: 1, lst_collateral_token: 110, gap_reason: null });
    const peg = out.poolScores.get(POOL)!.data.map((r) => r.peg_history);
    // The dip to 1.10 (6.78 % below 1.18) three days ago is in the 7-day max of every record that sees it.
    expect(peg[0]!.discount_max_pct_7d).toBeCloseTo((1 - 1.1 / 1.18) * 100, 2);
    expect(peg[0]!.discount_max_pct_day).toBeCloseTo((1 - 1.178 / 1.18) * 100, 2);
    expect(peg[0]!.swaps_day).toBeGreaterThan(0);
  });

  it('issue 13, item 2: a past day recomputed from the facts up to that day only is the same record', () => {
    const full = input('all');
    const instants = historyInstants(T);
    const fullSnapshots = full.lendingSnapshots.get(marketKey(market))!;
    for (let d = 1; d < 6; d++) {
      const t = instants[d]!;
      const known = <X extends { timestamp: number }>(xs: readonly X[]) => xs.filter((x) => x.timestamp <= t);
      const past: LiquidStakingInput = {
        ...full,
        asOf: { blockNumber: 1000 - d * 24, timestamp: t },
        // The pool snapshot of as_of is not known then; past states come from the swaps.
        snapshots: [],
        swaps: known(swaps),
        prices: prices.filter((p) => p.hour <= t),
        lendingSnapshots: new Map([[marketKey(market), historyInstants(t).map((_, k) => fullSnapshots[d + k])]]),
      };
      const o = computeLiquidStaking(past);
      const strip = ({ partial: _p, timestamp: _t, ...r }: Record<string, unknown>) => r;
      expect(strip(o.poolScores.get(POOL)!.data[0]!), `pool, day ${d}`).toEqual(
        strip(out.poolScores.get(POOL)!.data[d]!),
      );
      for (const flag of [true, false]) {
        const now = o.lending.find((l) => l.flag === flag)!.scores[0]!;
        const then = out.lending.find((l) => l.flag === flag)!.scores[d]!;
        expect(strip(now), `exposure ${flag}, day ${d}`).toEqual(strip(then));
      }
    }
  });
});

describe('one price per token per instant (issue 26 item 7)', () => {
  it('the pool analytics price the underlying as the lending exposure does, by the policy (AaveOracle 2010, DEX 2000)', () => {
    const base = input('all');
    const snapshots = new Map(
      [...base.lendingSnapshots].map(([k, list]) => [
        k,
        list.map((s) =>
          s ? { ...s, reserves: s.reserves.map((r) => (r.asset === WETH ? { ...r, priceUsd: 2010 } : r)) } : s,
        ),
      ]),
    );
    const o = computeLiquidStaking({ ...base, lendingSnapshots: snapshots });
    const exposure = o.lending.find((l) => !l.flag)!.analytics;
    const pool = o.poolAnalytics.get(POOL)!.data;
    expect(exposure.underlying_price).toMatchObject({ price_usd: 2010, source: 'oracle' });
    expect(pool.underlying_price_usd).toBe(2010);
    expect(pool.underlying_price).toMatchObject({ price_usd: 2010, source: 'oracle', alternative_price_usd: 2000 });
  });
});
