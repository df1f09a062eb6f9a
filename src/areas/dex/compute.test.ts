import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { Q96 } from '../../core/decimal.js';
import { DAY, HOUR, isoSeconds } from '../../core/time.js';
import { computeDex, type DexDeploymentInfo, type DexInput } from './compute.js';
import type { PoolFact, PoolSnapshotFact, SwapFact, SyncFact, TokenFact, TokenPriceFact } from './facts.js';
import {
  AvailableDex,
  AvailablePool,
  DexDeploymentScoreHistory,
  DexOverviewScoreHistory,
  DexPoolScoreHistory,
  DexProtocolScore,
  PoolAnalytics,
  ProtocolAnalytics,
  ProtocolOverview,
} from './schema.js';
import { DEX_METHODOLOGY, historyInstants } from './score.js';

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const E6 = 10n ** 6n;
const E8 = 10n ** 8n;
const E18 = 10n ** 18n;

const USDC = a(0xc1);
const WETH = a(0xe1);
const WBTC = a(0xb1);
const UNP = a(0xf1); // never priced
const UNQ = a(0xf2); // never priced

const H = 1_795_190_400; // 2026-11-20T16:00:00Z
const T = H + 1800; // asOf: mid-hour
const BLOCK = 1_000_000;

const token = (chain: string, address: string, symbol: string, decimals: number): TokenFact => ({
  chain,
  address,
  symbol,
  name: symbol,
  decimals,
});

const P_V3 = a(0x1001); // ethereum uniswap V3 USDC/WETH 0.05 %
const P_V2 = a(0x1002); // ethereum uniswap V2 WBTC/USDC
const P_UNPRICED = a(0x1003); // ethereum uniswap V2 UNP/UNQ
const P_TIE_A = a(0x1004); // ethereum uniswap V3, same TVL as P_TIE_B
const P_TIE_B = a(0x1005);
const P_ARB = a(0x2001); // arbitrum uniswap V3 USDC/WETH

const pool = (
  chain: string,
  address: string,
  version: 'V2' | 'V3',
  token0: string,
  token1: string,
  fee: number,
  createdAt = T - 60 * DAY,
): PoolFact => ({
  chain,
  address,
  protocol: 'uniswap',
  version,
  design: version === 'V2' ? 'uniswap-v2' : 'uniswap-v3',
  factory: a(0xfac),
  token0,
  token1,
  fee,
  tickSpacing: version === 'V2' ? null : 10,
  createdBlock: 1,
  createdAt,
});

let logIndex = 0;
const swap = (
  chain: string,
  p: string,
  timestamp: number,
  trader: number,
  amount0: bigint,
  amount1: bigint,
): SwapFact => ({
  chain,
  pool: p,
  blockNumber: BLOCK - Math.floor((T - timestamp) / 12),
  logIndex: logIndex++,
  txHash: `0x${logIndex.toString(16).padStart(64, '0')}`,
  trader: a(0xa000 + trader),
  amount0,
  amount1,
  sqrtPriceX96: null,
  liquidity: null,
  tick: null,
  timestamp,
});

const snapshot = (
  chain: string,
  p: string,
  reserve0: bigint,
  reserve1: bigint,
  sqrtPriceX96: bigint | null = null,
): PoolSnapshotFact => ({
  chain,
  pool: p,
  blockNumber: BLOCK,
  timestamp: T,
  reserve0,
  reserve1,
  sqrtPriceX96,
  liquidity: sqrtPriceX96 === null ? null : 10n ** 18n,
  tick: sqrtPriceX96 === null ? null : 0,
});

/** The hour in which WETH has no price (the swap there is valued from its USDC side). */
const WETH_GAP_HOUR = H - 40 * HOUR;

function prices(): TokenPriceFact[] {
  const out: TokenPriceFact[] = [];
  for (let hour = H - 15 * 24 * HOUR; hour <= H; hour += HOUR) {
    for (const chain of ['ethereum', 'arbitrum']) {
      out.push({ chain, token: USDC, hour, priceUsd: 1, source: 'anchor:USD', confidence: 1 });
      if (hour !== WETH_GAP_HOUR)
        out.push({ chain, token: WETH, hour, priceUsd: 2500, source: 'pools:x', confidence: 1 });
      out.push({ chain, token: WBTC, hour, priceUsd: 40_000, source: 'pools:y', confidence: 1 });
    }
  }
  return out;
}

const DEPLOYMENTS: DexDeploymentInfo[] = [
  { chain: 'ethereum', protocol: 'uniswap', version: 'V3', exchangeName: 'Uniswap', design: 'uniswap-v3' },
  { chain: 'ethereum', protocol: 'uniswap', version: 'V2', exchangeName: 'Uniswap', design: 'uniswap-v2' },
  { chain: 'arbitrum', protocol: 'uniswap', version: 'V3', exchangeName: 'Uniswap', design: 'uniswap-v3' },
  { chain: 'ethereum', protocol: 'sushiswap', version: 'V2', exchangeName: 'SushiSwap', design: 'uniswap-v2' },
];

// Swaps of the V3 pool (token0 USDC, token1 WETH). Amounts from the pool's point of view (+ = into the pool).
const V3_SWAPS = [
  // exactly asOf − 24 h: in the 7-day window, not in the 24-hour one
  swap('ethereum', P_V3, T - DAY, 1, 1_000n * E6, -(4n * E18) / 10n), // $1,000 (USDC in)
  // one second later: in the 24-hour window
  swap('ethereum', P_V3, T - DAY + 1, 2, -2_490n * E6, 1n * E18), // $2,500 (WETH in)
  // at asOf exactly: included
  swap('ethereum', P_V3, T, 3, 500n * E6, -(2n * E18) / 10n), // $500
  // dust: $0.50
  swap('ethereum', P_V3, T - 3 * HOUR, 1, 500_000n, -(2n * E18) / 10_000n),
  // WETH in during the hour WETH has no price: valued on the USDC side, $3,000
  swap('ethereum', P_V3, WETH_GAP_HOUR + 60, 2, -3_000n * E6, (12n * E18) / 10n),
  // exactly asOf − 7 d: outside every window of the analytics
  swap('ethereum', P_V3, T - 7 * DAY, 4, 9_000n * E6, -(36n * E18) / 10n),
  // one second later: in the 7-day window
  swap('ethereum', P_V3, T - 7 * DAY + 1, 4, 2_000n * E6, -(8n * E18) / 10n), // $2,000
  // 10 days ago: only in the score history
  swap('ethereum', P_V3, T - 10 * DAY, 5, 7_000n * E6, -(28n * E18) / 10n),
];
const V2_SWAPS = [
  swap('ethereum', P_V2, T - 2 * HOUR, 6, 1n * E8, -39_800n * E6), // WBTC in: $40,000
  swap('ethereum', P_V2, T - 30 * HOUR, 1, -(49n * E8) / 100n, 20_000n * E6), // USDC in: $20,000
];
const UNPRICED_SWAPS = [swap('ethereum', P_UNPRICED, T - HOUR, 7, 5n * E18, -7n * E18)];
const ARB_SWAPS = [swap('arbitrum', P_ARB, T - 5 * HOUR, 1, 100n * E6, -(4n * E18) / 100n)]; // same trader id 1: other chain

function input(over: Partial<DexInput> = {}): DexInput {
  return {
    asOf: { blockNumber: BLOCK, timestamp: T },
    deployments: DEPLOYMENTS,
    tokens: [
      token('ethereum', USDC, 'USDC', 6),
      token('ethereum', WETH, 'WETH', 18),
      token('ethereum', WBTC, 'WBTC', 8),
      token('ethereum', UNP, 'UNP', 18),
      token('ethereum', UNQ, 'UNQ', 18),
      token('arbitrum', USDC, 'USDC', 6),
      token('arbitrum', WETH, 'WETH', 18),
    ],
    pools: [
      pool('ethereum', P_V3, 'V3', USDC, WETH, 500),
      pool('ethereum', P_V2, 'V2', WBTC, USDC, 3000),
      pool('ethereum', P_UNPRICED, 'V2', UNP, UNQ, 3000),
      pool('ethereum', P_TIE_B, 'V3', USDC, WETH, 3000),
      pool('ethereum', P_TIE_A, 'V3', USDC, WETH, 10_000),
      pool('arbitrum', P_ARB, 'V3', USDC, WETH, 500),
    ],
    swaps: [...V3_SWAPS, ...V2_SWAPS, ...UNPRICED_SWAPS, ...ARB_SWAPS],
    snapshots: [
      // 1,000,000 USDC + 400 WETH; 1 USDC = 0.0004 WETH (sqrtPriceX96 = 20000 × 2^96)
      snapshot('ethereum', P_V3, 1_000_000n * E6, 400n * E18, 20_000n * Q96),
      // 10 WBTC + 400,000 USDC
      snapshot('ethereum', P_V2, 10n * E8, 400_000n * E6),
      snapshot('ethereum', P_UNPRICED, 1_000n * E18, 2_000n * E18),
      snapshot('ethereum', P_TIE_A, 1_000n * E6, 0n, 20_000n * Q96),
      snapshot('ethereum', P_TIE_B, 1_000n * E6, 0n, 20_000n * Q96),
      snapshot('arbitrum', P_ARB, 50_000n * E6, 20n * E18, 20_000n * Q96),
    ],
    prices: prices(),
    ...over,
  };
}

// The wire's timestamps: ISO-8601 UTC with Z, seconds precision (API.md).
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));

const out = computeDex(input());

describe('computeDex: pool analytics', () => {
  const v3 = out.poolAnalytics.get(P_V3)!;

  it('identity, tokens, fee, reserves, price and TVL from the snapshot', () => {
    expect(v3).toMatchObject({
      pool_address: P_V3,
      pool_name: 'uniswap USDC/WETH 0.05%',
      chain: 'ethereum',
      protocol: 'uniswap',
      version: 'V3',
      exchange_name: 'Uniswap',
      token0: { address: USDC, symbol: 'USDC', decimals: 6 },
      token1: { address: WETH, symbol: 'WETH', decimals: 18 },
      fee_tier: 500,
      fee_percent: 0.05,
      reserve0: 1_000_000,
      reserve1: 400,
      reserve0_raw: '1000000000000',
      reserve1_raw: '400000000000000000000',
      price: 0.0004,
      token0_price_usd: 1,
      token1_price_usd: 2500,
      tvl_usd: 2_000_000,
      snapshot_block: BLOCK,
      as_of: isoSeconds(T),
    });
    // V2: price from the reserves (6 and 8 decimals).
    const v2 = out.poolAnalytics.get(P_V2)!;
    expect(v2.price).toBe(40_000);
    expect(v2.tvl_usd).toBe(800_000);
  });

  it('windows: (asOf − 24 h, asOf] and (asOf − 7 d, asOf], boundaries exact', () => {
    // 24 h: T − DAY + 1 ($2,500), dust ($0.50), T ($500)
    expect(v3.swap_count_24h).toBe(3);
    expect(v3.volume_24h_usd).toBe(3000.5);
    // 7 d: the above + T − DAY ($1,000) + the WETH-gap swap ($3,000) + T − 7 d + 1 ($2,000)
    expect(v3.swap_count_7d).toBe(6);
    expect(v3.volume_7d_usd).toBe(9000.5);
  });

  it('one side per swap: the input token, or the output token when the input has no price', () => {
    // The WETH-gap swap (WETH in, 3,000 USDC out) counts $3,000, not 1.2 × 2500.
    const week = v3.volume_7d_usd;
    expect(week - (1000 + 2500 + 500 + 0.5 + 2000)).toBeCloseTo(3000, 6);
    expect(out.poolAnalytics.get(P_V2)!.volume_7d_usd).toBe(60_000);
  });

  it('token volumes: Σ |amount| over the window, normalised by decimals', () => {
    expect(v3.volume_24h_token0).toBe(2490 + 0.5 + 500);
    expect(v3.volume_24h_token1).toBeCloseTo(1 + 0.0002 + 0.2, 12);
    expect(v3.volume_7d_token0).toBe(1000 + 2490 + 500 + 0.5 + 3000 + 2000);
    expect(v3.volume_7d_token1).toBeCloseTo(0.4 + 1 + 0.2 + 0.0002 + 1.2 + 0.8, 12);
  });

  it('unique traders, mean and median without dust, fees', () => {
    expect(v3.unique_traders_24h).toBe(3); // traders 2, 1 (dust), 3
    expect(v3.unique_traders_7d).toBe(4); // 1, 2, 3, 4
    expect(v3.dust_swap_count_7d).toBe(1);
    // trades above $1: 1000, 2500, 500, 3000, 2000
    expect(v3.mean_trade_usd_7d).toBe(1800);
    expect(v3.median_trade_usd_7d).toBe(2000);
    expect(v3.fees_24h_usd).toBeCloseTo(3000.5 * 0.0005, 6);
    expect(v3.fees_7d_usd).toBeCloseTo(9000.5 * 0.0005, 6);
    expect(v3.volume_complete).toBe(true);
    expect(v3.unpriced_tokens).toEqual([]);
  });

  it('hourly: 168 UTC hours, newest first, the first being the hour of asOf', () => {
    expect(v3.hourly).toHaveLength(168);
    expect(v3.hourly[0]!.hour).toBe(isoSeconds(H));
    expect(v3.hourly[167]!.hour).toBe(isoSeconds(H - 167 * HOUR));
    expect(v3.hourly[0]).toEqual({
      hour: isoSeconds(H),
      partial: true,
      volume_usd: 500,
      swap_count: 1,
      unpriced_swap_count: 0,
    });
    expect(v3.hourly.slice(1).every((e) => e.partial === false)).toBe(true);
    const at = (t: number) => v3.hourly.find((e) => e.hour === isoSeconds(Math.floor(t / HOUR) * HOUR))!;
    expect(at(T - 3 * HOUR)).toMatchObject({ volume_usd: 0.5, swap_count: 1 });
    expect(at(WETH_GAP_HOUR)).toMatchObject({ volume_usd: 3000, swap_count: 1 });
    // T − 7 d + 1 falls in the hour before the 168 listed (asOf is mid-hour): in volume_7d_usd, not in hourly.
    const listed = v3.hourly.reduce((s, e) => s + e.volume_usd, 0);
    expect(listed).toBeCloseTo(v3.volume_7d_usd - 2000, 6);
  });

  it('unpriced swaps: counted, not in USD; TVL needing a missing price is null', () => {
    const u = out.poolAnalytics.get(P_UNPRICED)!;
    expect(u.swap_count_24h).toBe(1);
    expect(u.volume_24h_usd).toBe(0);
    expect(u.unpriced_swap_count_24h).toBe(1);
    expect(u.volume_complete).toBe(false);
    expect(u.unpriced_tokens).toEqual([UNP, UNQ]);
    expect(u.tvl_usd).toBeNull();
    expect(u.reserve0).toBe(1000);
    expect(u.volume_24h_token0).toBe(5);
    expect(u.volume_24h_token1).toBe(7);
    expect(u.mean_trade_usd_7d).toBeNull();
    expect(u.hourly[1]).toMatchObject({ volume_usd: 0, swap_count: 1, unpriced_swap_count: 1 });
  });

  it('every payload matches its schema', () => {
    for (const p of out.poolAnalytics.values())
      expect([...Value.Errors(PoolAnalytics, p)].map((e) => `${e.path} ${e.message}`)).toEqual([]);
    for (const p of out.protocolAnalytics.values()) expect([...Value.Errors(ProtocolAnalytics, p)]).toEqual([]);
    for (const p of out.protocolOverview.values()) expect([...Value.Errors(ProtocolOverview, p)]).toEqual([]);
    for (const p of out.availableDexes) expect(Value.Check(AvailableDex, p)).toBe(true);
    for (const list of out.availablePools.values())
      for (const p of list) expect(Value.Check(AvailablePool, p)).toBe(true);
    for (const h of out.poolScores.values()) expect([...Value.Errors(DexPoolScoreHistory, h)]).toEqual([]);
    for (const h of out.protocolScores.values()) expect([...Value.Errors(DexDeploymentScoreHistory, h)]).toEqual([]);
    for (const h of out.protocolOverviewScores.values())
      expect([...Value.Errors(DexOverviewScoreHistory, h)]).toEqual([]);
    for (const p of out.allProtocols) expect(Value.Check(DexProtocolScore, p)).toBe(true);
  });
});

describe('computeDex: issue 13 additions (price source, depth, fee APR, daily figures, identifiers)', () => {
  const v2 = out.poolAnalytics.get(P_V2)!;
  const u = out.poolAnalytics.get(P_UNPRICED)!;
  const V2_SYNCS: SyncFact[] = [
    // WBTC/USDC reserves: 10 WBTC + 400k USDC until T − 2 d, then 12 WBTC + 480k USDC.
    {
      chain: 'ethereum',
      pool: P_V2,
      blockNumber: 1,
      logIndex: 0,
      reserve0: 10n * E8,
      reserve1: 400_000n * E6,
      timestamp: T - 9 * DAY,
    },
    {
      chain: 'ethereum',
      pool: P_V2,
      blockNumber: 2,
      logIndex: 0,
      reserve0: 12n * E8,
      reserve1: 480_000n * E6,
      timestamp: T - 2 * DAY,
    },
  ];

  it('publishes the source and confidence of each token price the figures use', () => {
    expect(v2).toMatchObject({
      token0_price_usd: 40_000,
      token0_price_source: 'pools:y',
      token0_price_confidence: 1,
      token1_price_source: 'anchor:USD',
      token1_price_confidence: 1,
      gap_reasons: {},
    });
    expect(u).toMatchObject({
      token0_price_usd: null,
      token0_price_source: null,
      tvl_usd: null,
      fee_apr: null,
      gap_reasons: {
        token0_price_usd: 'no_price',
        token0_price_source: 'no_price',
        tvl_usd: 'no_price',
        fee_apr: 'no_price',
      },
    });
  });

  it('depth to move the price 1, 2 and 5 %, and the fee APR', () => {
    expect(v2.depth.map((d) => d.price_move)).toEqual([0.01, 0.02, 0.05]);
    // V2, fee 0.3 %: selling dx of x moves the price by m when γdx² + x(1+γ)dx − x²m/(1−m) = 0.
    const g = 0.997;
    const dx = (x: number, m: number) => {
      const k = m / (1 - m);
      return (x * 2 * k) / (1 + g + Math.sqrt((1 + g) ** 2 + 4 * g * k));
    };
    expect(v2.depth[0]!.sell_token0).toBeCloseTo(dx(10, 0.01), 6);
    expect(v2.depth[2]!.sell_token1).toBeCloseTo(dx(400_000, 0.05), 3);
    expect(v2.depth[0]!.sell_token0_usd).toBeCloseTo(dx(10, 0.01) * 40_000, 2);
    expect(v2.depth.every((d) => d.reachable)).toBe(true);
    expect(v2.fee_apr).toBeCloseTo((v2.fees_7d_usd * 365) / 7 / v2.tvl_usd!, 6);
    expect(out.poolAnalytics.get(P_V3)!.depth).toHaveLength(3);
  });

  it('score records name their entity and carry the day’s volume, swaps and TVL', () => {
    const withSyncs = computeDex(input({ syncs: V2_SYNCS }));
    const history = withSyncs.poolScores.get(P_V2)!;
    expect(history[0]).toMatchObject({ chain: 'ethereum', protocol: 'uniswap', version: 'V2', pool_address: P_V2 });
    // Record 0: the snapshot at asOf (10 WBTC + 400k USDC, newer than the last Sync) → $800k.
    expect(history[0]!.tvl_usd).toBe(800_000);
    // Records 1 (yesterday, after the second Sync) and 3 (before it): from the Syncs at or before their instant.
    expect(history[1]!.tvl_usd).toBe(960_000);
    expect(history[3]!.tvl_usd).toBe(800_000);
    const dayVolume = (d: number) => {
      const t = historyInstants(T)[d]!;
      const start = Math.floor(t / DAY) * DAY;
      return V2_SWAPS.filter((x) => x.timestamp >= start && x.timestamp <= t).length;
    };
    expect(history.map((r) => r.swap_count)).toEqual([0, 1, 2, 3, 4, 5, 6].map(dayVolume));
    // V3 keeps no past balances: a past day's TVL is unknown, with its reason.
    const v3 = withSyncs.poolScores.get(P_V3)!;
    expect(v3[0]!.tvl_usd).not.toBeNull();
    expect(v3[2]).toMatchObject({ tvl_usd: null, gap_reasons: { tvl_usd: 'no_data' } });
    const deployment = withSyncs.protocolScores.get('ethereum/uniswap/V2')!;
    expect(deployment[0]).toMatchObject({ chain: 'ethereum', protocol: 'uniswap', version: 'V2' });
    // The unpriced pool: a sum over an unknown part is unknown, with the part's reason.
    expect(deployment[0]).toMatchObject({ tvl_usd: null, gap_reasons: { tvl_usd: 'no_price' } });
    expect(deployment[1]).toMatchObject({ tvl_usd: null, gap_reasons: { tvl_usd: 'no_data' } });
    expect(withSyncs.protocolOverviewScores.get('uniswap')![0]!.protocol).toBe('uniswap');
  });

  it('a past day recomputed from the facts up to that day only gives the same record (no look-ahead)', () => {
    const full = computeDex(input({ syncs: V2_SYNCS }));
    for (const d of [1, 3, 6]) {
      const t = historyInstants(T)[d]!;
      const past = computeDex(
        input({
          asOf: { blockNumber: BLOCK - Math.ceil((T - t) / 12), timestamp: t },
          swaps: input().swaps.filter((x) => x.timestamp <= t),
          syncs: V2_SYNCS.filter((x) => x.timestamp <= t),
          snapshots: [],
          prices: prices().filter((p) => p.hour <= Math.floor(t / HOUR) * HOUR),
        }),
      );
      const same = <R extends { partial: boolean }>(a: R, b: R, label: string) =>
        expect({ ...b, partial: a.partial }, label).toEqual(a);
      for (const [address, history] of full.poolScores) same(history[d]!, past.poolScores.get(address)![0]!, address);
      for (const [key, history] of full.protocolScores) same(history[d]!, past.protocolScores.get(key)![0]!, key);
      for (const [key, history] of full.protocolOverviewScores)
        same(history[d]!, past.protocolOverviewScores.get(key)![0]!, key);
      // The hourly series: the whole hours before t inside both 7-day windows are the same entries.
      for (const [address, a] of full.poolAnalytics) {
        const b = past.poolAnalytics.get(address)!;
        const hours = (x: typeof a) =>
          x.hourly.filter((e) => {
            const h = Date.parse(e.hour) / 1000;
            return h < Math.floor(t / HOUR) * HOUR && h > T - 7 * DAY;
          });
        expect(
          hours(b).map((e) => ({ ...e, partial: false })),
          address,
        ).toEqual(hours(a));
      }
    }
  });
});

describe('computeDex: listings and aggregates', () => {
  it('available dexes: every listed deployment, zero pools included', () => {
    expect(out.availableDexes.map((d) => [d.chain, d.protocol, d.version, d.pool_count, d.tvl_usd])).toEqual([
      ['arbitrum', 'uniswap', 'V3', 1, 100_000],
      ['ethereum', 'sushiswap', 'V2', 0, 0],
      ['ethereum', 'uniswap', 'V2', 2, 800_000],
      ['ethereum', 'uniswap', 'V3', 3, 2_002_000],
    ]);
    expect(out.availableDexes[1]).toMatchObject({ exchange_name: 'SushiSwap', number_of_pools: 0, tvl_complete: true });
    expect(out.availableDexes[2]!.tvl_complete).toBe(false);
  });

  it('available pools: by TVL desc, address breaks ties, null TVL last', () => {
    expect(out.availablePools.get('ethereum/uniswap/V3')!.map((p) => p.pool_address)).toEqual([P_V3, P_TIE_A, P_TIE_B]);
    expect(out.availablePools.get('ethereum/uniswap/V2')!.map((p) => [p.pool_address, p.tvl_usd])).toEqual([
      [P_V2, 800_000],
      [P_UNPRICED, null],
    ]);
    expect(out.availablePools.get('ethereum/sushiswap/V2')).toEqual([]);
    expect(out.availablePools.get('ethereum/uniswap/V3')![0]).toEqual({
      pool_address: P_V3,
      pool_name: 'uniswap USDC/WETH 0.05%',
      token0: { address: USDC, symbol: 'USDC', decimals: 6 },
      token1: { address: WETH, symbol: 'WETH', decimals: 18 },
      fee_tier: 500,
      tvl_usd: 2_000_000,
      volume_24h_usd: 3000.5,
      volume_complete: true,
      gap_reasons: {},
    });
    expect(out.availablePools.get('ethereum/uniswap/V2')![1]!.gap_reasons).toEqual({ tvl_usd: 'no_price' });
  });

  it('protocol analytics: sums, union of traders, incomplete TVL and volume flagged', () => {
    const v2 = out.protocolAnalytics.get('ethereum/uniswap/V2')!;
    expect(v2.pool_count).toBe(2);
    expect(v2.tvl_usd).toBe(800_000);
    expect(v2.tvl_complete).toBe(false);
    expect(v2.pools_without_tvl).toBe(1);
    expect(v2.swap_count_7d).toBe(3);
    expect(v2.volume_7d_usd).toBe(60_000);
    expect(v2.unique_traders_7d).toBe(3);
    expect(v2.volume_complete).toBe(false);
    expect(v2.unpriced_tokens).toEqual([UNP, UNQ]);
    expect(v2.fees_7d_usd).toBeCloseTo(60_000 * 0.003, 6);
    expect(v2.top_pools.map((p) => p.pool_address)).toEqual([P_V2, P_UNPRICED]);
    const empty = out.protocolAnalytics.get('ethereum/sushiswap/V2')!;
    expect(empty).toMatchObject({ pool_count: 0, tvl_usd: 0, volume_7d_usd: 0, swap_count_7d: 0, top_pools: [] });
    expect(empty.hourly).toHaveLength(168);
  });

  it('protocol overview: across chains and versions; a trader is counted once per chain', () => {
    const uni = out.protocolOverview.get('uniswap')!;
    expect(uni.chain_count).toBe(2);
    expect(uni.deployment_count).toBe(3);
    expect(uni.pool_count).toBe(6);
    expect(uni.deployments.map((d) => `${d.chain}/${d.version}`)).toEqual([
      'arbitrum/V3',
      'ethereum/V2',
      'ethereum/V3',
    ]);
    expect(uni.volume_7d_usd).toBeCloseTo(9000.5 + 60_000 + 100, 6);
    // ethereum traders 1, 2, 3, 4, 6, 7 and arbitrum trader 1
    expect(uni.unique_traders_7d).toBe(7);
    expect(uni.tvl_usd).toBe(2_902_000);
    expect(out.protocolOverview.get('sushiswap')!.pool_count).toBe(0);
  });
});

describe('computeDex: scores', () => {
  it('7 daily records per pool and protocol, newest first, data[0] current and partial', () => {
    const history = out.poolScores.get(P_V3)!;
    expect(history).toHaveLength(7);
    expect(history[0]!.timestamp).toBe(isoSeconds(T));
    expect(history[0]!.partial).toBe(true);
    expect(history[1]!.timestamp).toBe('2026-11-19T23:59:59Z');
    expect(history.map((r) => r.date)).toEqual([
      '2026-11-20',
      '2026-11-19',
      '2026-11-18',
      '2026-11-17',
      '2026-11-16',
      '2026-11-15',
      '2026-11-14',
    ]);
    expect(history.slice(1).every((r) => !r.partial)).toBe(true);
    for (const r of history) expect(r.methodology).toBe(DEX_METHODOLOGY);
    expect(out.protocolScores.get('ethereum/uniswap/V3')).toHaveLength(7);
    expect(out.protocolOverviewScores.get('uniswap')).toHaveLength(7);
  });

  it('a protocol without pools has null scores with a reason', () => {
    const [current] = out.protocolScores.get('ethereum/sushiswap/V2')!;
    expect(current).toMatchObject({ score: null, grade: null, gap_reason: 'no_members' });
  });

  it('a pool created during the history has null records before its creation', () => {
    const created = T - 2 * DAY - 3 * HOUR;
    const r = computeDex(
      input({
        pools: input().pools.map((p) => (p.address === P_V2 ? { ...p, createdAt: created } : p)),
      }),
    );
    const history = r.poolScores.get(P_V2)!;
    expect(history[0]!.score).not.toBeNull();
    expect(history[3]).toMatchObject({ score: null, gap_reason: 'not_deployed' });
    const coverage = history[0]!.components.find((c) => c.name === 'window_coverage')!;
    expect(coverage.inputs.limited_by).toBe('pool_created');
    expect(coverage.value).toBeCloseTo((T - created) / (7 * DAY), 4);
  });

  it('all protocols: one current score each, with the protocol id', () => {
    expect(out.allProtocols.map((p) => p.protocol)).toEqual(['sushiswap', 'uniswap']);
    expect(out.allProtocols[1]).toEqual(out.protocolOverviewScores.get('uniswap')![0]!);
  });

  it('is deterministic and independent of the order of the facts', () => {
    const base = input();
    const shuffled = computeDex({
      ...base,
      swaps: [...base.swaps].reverse(),
      pools: [...base.pools].reverse(),
      deployments: [...base.deployments].reverse(),
      prices: [...base.prices].reverse(),
    });
    expect(JSON.stringify([...shuffled.poolAnalytics])).toBe(JSON.stringify([...out.poolAnalytics]));
    expect(JSON.stringify([...shuffled.protocolOverviewScores])).toBe(JSON.stringify([...out.protocolOverviewScores]));
    expect(JSON.stringify(shuffled.allProtocols)).toBe(JSON.stringify(out.allProtocols));
  });

  it('a pool whose token has no TokenFact is an error, not a guess', () => {
    const base = input();
    expect(() => computeDex({ ...base, tokens: base.tokens.filter((t) => t.address !== UNQ) })).toThrow(/TokenFact/);
  });
});
