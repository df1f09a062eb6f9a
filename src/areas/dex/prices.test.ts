import { describe, expect, it } from 'vitest';
import { Q96 } from '../../core/decimal.js';
import type { PoolFact, SwapFact, SyncFact, TokenFact } from './facts.js';
import {
  ASSUMED_ANCHOR_CONFIDENCE,
  computeHourlyPrices,
  HOP_DECAY,
  type PoolObservation,
  priceFromObservations,
} from './prices.js';

const chain = 'ethereum';
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const USDC = a(0xc1);
const USDT = a(0xc2);
const DAI = a(0xc3);
const WETH = a(0xe1);
const WBTC = a(0xb1);
const UNI = a(0xd1);
const THIN = a(0xf1);
const ORPHAN = a(0xf2);

const token = (address: string, symbol: string, decimals: number): TokenFact => ({
  chain,
  address,
  symbol,
  name: symbol,
  decimals,
});
const TOKENS = [
  token(USDC, 'USDC', 6),
  token(USDT, 'USDT', 6),
  token(DAI, 'DAI', 18),
  token(WETH, 'WETH', 18),
  token(WBTC, 'WBTC', 8),
  token(UNI, 'UNI', 18),
  token(THIN, 'THIN', 18),
  token(ORPHAN, 'ORPH', 18),
];
const ANCHORS = [USDC, USDT, DAI].map((address) => ({ address, peg: 'USD' as const }));

const pool = (address: string, token0: string, token1: string, design: 'uniswap-v2' | 'uniswap-v3'): PoolFact => ({
  chain,
  address,
  protocol: 'uniswap',
  version: design === 'uniswap-v2' ? 'V2' : 'V3',
  design,
  factory: a(0xfac),
  token0,
  token1,
  fee: design === 'uniswap-v2' ? 3000 : 500,
  tickSpacing: design === 'uniswap-v2' ? null : 10,
  createdBlock: 1,
  createdAt: 0,
});

const H0 = 1_795_190_400; // 2026-11-20T16:00:00Z, an hour start
let log = 0;
const sync = (p: string, reserve0: bigint, reserve1: bigint, timestamp: number): SyncFact => ({
  chain,
  pool: p,
  blockNumber: timestamp,
  logIndex: log++,
  reserve0,
  reserve1,
  timestamp,
});
const swap = (p: string, sqrtPriceX96: bigint, liquidity: bigint, timestamp: number): SwapFact => ({
  chain,
  pool: p,
  blockNumber: timestamp,
  logIndex: log++,
  txHash: `0x${log.toString(16)}`,
  trader: a(0x7),
  amount0: 1n,
  amount1: -1n,
  sqrtPriceX96,
  liquidity,
  tick: 0,
  timestamp,
});

const E6 = 10n ** 6n;
const E8 = 10n ** 8n;
const E18 = 10n ** 18n;

// Pools and their states (all before H0).
const P_USDC_WETH_V3 = a(0x1001); // 1 USDC = 0.0004 WETH → WETH $2500; L = 1e17: 5,000,000 USDC and 2,000 WETH virtual
const P_WBTC_USDC_V2 = a(0x1002); // 100 WBTC / 4,000,000 USDC → WBTC $40,000
const P_USDC_USDT_V2 = a(0x1003);
const P_DAI_USDC_V2 = a(0x1004);
const P_THIN_USDC_V2 = a(0x1005); // $5,000 of USDC: too thin
const P_ORPHAN_THIN_V2 = a(0x1006); // deep, but against an unpriced token
const P_UNI_WETH_V2 = a(0x1007); // 100,000 UNI / 200 WETH → UNI = 0.002 WETH = $5 (two hops)
const POOLS = [
  pool(P_USDC_WETH_V3, USDC, WETH, 'uniswap-v3'),
  pool(P_WBTC_USDC_V2, WBTC, USDC, 'uniswap-v2'),
  pool(P_USDC_USDT_V2, USDC, USDT, 'uniswap-v2'),
  pool(P_DAI_USDC_V2, DAI, USDC, 'uniswap-v2'),
  pool(P_THIN_USDC_V2, THIN, USDC, 'uniswap-v2'),
  pool(P_ORPHAN_THIN_V2, ORPHAN, THIN, 'uniswap-v2'),
  pool(P_UNI_WETH_V2, UNI, WETH, 'uniswap-v2'),
];
const SWAPS = [swap(P_USDC_WETH_V3, 20_000n * Q96, 10n ** 17n, H0 - 100)];
const SYNCS = [
  sync(P_WBTC_USDC_V2, 100n * E8, 4_000_000n * E6, H0 - 50),
  sync(P_USDC_USDT_V2, 1_000_000n * E6, 1_000_000n * E6, H0 - 50),
  sync(P_DAI_USDC_V2, 1_000_000n * E18, 1_000_000n * E6, H0 - 50),
  sync(P_THIN_USDC_V2, 1_000n * E18, 5_000n * E6, H0 - 50),
  sync(P_ORPHAN_THIN_V2, 1_000_000n * E18, 1_000_000n * E18, H0 - 50),
  sync(P_UNI_WETH_V2, 100_000n * E18, 200n * E18, H0 - 50),
];

const run = (over: { swaps?: SwapFact[]; syncs?: SyncFact[]; hours?: number[]; anchors?: typeof ANCHORS } = {}) =>
  computeHourlyPrices({
    chain,
    hours: over.hours ?? [H0],
    tokens: TOKENS,
    pools: POOLS,
    swaps: over.swaps ?? SWAPS,
    syncs: over.syncs ?? SYNCS,
    anchors: over.anchors ?? ANCHORS,
  });
const byToken = (facts: ReturnType<typeof run>, hour = H0) =>
  new Map(facts.filter((f) => f.hour === hour).map((f) => [f.token, f]));

describe('computeHourlyPrices', () => {
  it('anchors, V3 and V2 pools, decimals 6/8/18, two hops', () => {
    const prices = byToken(run());
    expect(prices.get(USDC)!.priceUsd).toBe(1);
    expect(prices.get(USDT)!.priceUsd).toBe(1);
    expect(prices.get(DAI)!.priceUsd).toBe(1);
    expect(prices.get(USDC)!.source).toBe(`anchor:USD;pools:${P_USDC_USDT_V2},${P_DAI_USDC_V2}`);
    expect(prices.get(WETH)!.priceUsd).toBe(2500);
    expect(prices.get(WETH)!.source).toBe(`pools:${P_USDC_WETH_V3}`);
    expect(prices.get(WBTC)!.priceUsd).toBe(40_000);
    expect(prices.get(UNI)!.priceUsd).toBeCloseTo(5, 12);
  });

  it('a thin pool gives no price, and neither does a pool against an unpriced token', () => {
    const prices = byToken(run());
    expect(prices.has(THIN)).toBe(false);
    expect(prices.has(ORPHAN)).toBe(false);
  });

  it('confidence: agreement × depth × decay per hop', () => {
    const prices = byToken(run());
    // One pool of $5M (above full depth) one hop from the anchors.
    expect(prices.get(WETH)!.confidence).toBeCloseTo(HOP_DECAY, 12);
    expect(prices.get(WBTC)!.confidence).toBeCloseTo(HOP_DECAY, 12);
    // UNI: 200 WETH = $500k on the priced side, two hops: depth 0.5 + 0.5 × log(50)/log(100).
    expect(prices.get(UNI)!.confidence).toBeCloseTo((0.5 + 0.5 * (Math.log(50) / Math.log(100))) * HOP_DECAY ** 2, 12);
    for (const f of prices.values()) {
      expect(f.confidence).toBeGreaterThan(0);
      expect(f.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('the state at the end of the hour: at hour + 3599 s counts, at hour + 3600 s belongs to the next hour', () => {
    const syncs = [
      ...SYNCS,
      sync(P_WBTC_USDC_V2, 100n * E8, 5_000_000n * E6, H0 + 3599), // $50,000 by the end of hour H0
      sync(P_WBTC_USDC_V2, 100n * E8, 6_000_000n * E6, H0 + 3600), // $60,000 from hour H0 + 1
    ];
    const facts = run({ syncs, hours: [H0 - 3600, H0, H0 + 3600, H0 + 7200] });
    expect(byToken(facts, H0 - 3600).get(WBTC)!.priceUsd).toBe(40_000);
    expect(byToken(facts, H0).get(WBTC)!.priceUsd).toBe(50_000);
    expect(byToken(facts, H0 + 3600).get(WBTC)!.priceUsd).toBe(60_000);
    // Without a new observation the last state carries over.
    expect(byToken(facts, H0 + 7200).get(WBTC)!.priceUsd).toBe(60_000);
    // Sorted by hour then token.
    const keys = facts.map((f) => `${f.hour}/${f.token}`);
    expect(keys).toEqual([...keys].sort());
  });

  it('a pool with no observation yet is skipped', () => {
    const facts = run({ hours: [H0 - 3600 * 2] });
    // Every observation is within the hour before H0, so two hours earlier nothing is known but the assumed anchors.
    const prices = byToken(facts, H0 - 7200);
    expect([...prices.keys()].sort()).toEqual([USDC, USDT, DAI].sort());
    expect(prices.get(USDC)!.source).toBe('anchor:assumed');
  });

  it('a stablecoin without a pool against another stablecoin is 1.0, assumed, with low confidence', () => {
    const prices = byToken(run({ anchors: [{ address: USDC, peg: 'USD' }] }));
    expect(prices.get(USDC)).toEqual({
      chain,
      token: USDC,
      hour: H0,
      priceUsd: 1,
      source: 'anchor:assumed',
      confidence: ASSUMED_ANCHOR_CONFIDENCE,
    });
    // Not anchors any more: USDT and DAI are priced from their pools against USDC, one hop away.
    expect(prices.get(USDT)!.source).toBe(`pools:${P_USDC_USDT_V2}`);
    expect(prices.get(WETH)!.priceUsd).toBe(2500);
  });
});

describe('priceFromObservations', () => {
  const obs = (p: string, token0: string, token1: string, price: number, reserve0: number, reserve1: number) =>
    ({ pool: p, token0, token1, price, reserve0, reserve1 }) satisfies PoolObservation;

  it('a depegged stablecoin is outvoted by the others and does not echo its deviation back', () => {
    const observations = [
      obs(a(1), USDT, USDC, 0.9, 1e6, 0.9e6),
      obs(a(2), USDT, DAI, 0.9, 1e6, 0.9e6),
      obs(a(3), USDC, DAI, 1, 1e6, 1e6),
    ];
    const prices = new Map(priceFromObservations(chain, H0, observations, ANCHORS).map((f) => [f.token, f]));
    expect(prices.get(USDT)!.priceUsd).toBeCloseTo(0.9, 12);
    expect(prices.get(USDC)!.priceUsd).toBeCloseTo(1, 12);
    expect(prices.get(DAI)!.priceUsd).toBeCloseTo(1, 12);
  });

  it('stablecoin prices are clamped to the band, with halved confidence', () => {
    const observations = [obs(a(1), USDT, USDC, 10, 1e6, 1e7)];
    const prices = new Map(priceFromObservations(chain, H0, observations, ANCHORS).map((f) => [f.token, f]));
    expect(prices.get(USDT)!.priceUsd).toBe(1.5);
    expect(prices.get(USDT)!.confidence).toBe(0.5);
    expect(prices.get(USDC)!.priceUsd).toBe(0.5);
  });

  it('liquidity-weighted median across pools; agreement is the share of liquidity within 2 %', () => {
    const observations = [
      obs(a(1), WETH, USDC, 2500, 2000, 5e6),
      obs(a(2), WETH, USDC, 2600, 400, 1e6),
      obs(a(3), WETH, USDC, 2510, 80, 2e5),
    ];
    const [weth] = priceFromObservations(chain, H0, observations, [{ address: USDC, peg: 'USD' }]).filter(
      (f) => f.token === WETH,
    );
    expect(weth!.priceUsd).toBe(2500);
    // 5.2M of 6.2M agree within 2 %; total depth 6.2M ≥ full depth.
    expect(weth!.confidence).toBeCloseTo((5.2 / 6.2) * HOP_DECAY, 12);
    expect(weth!.source).toBe(`pools:${a(1)},${a(2)},${a(3)}`);
  });

  it('is independent of the order of the observations', () => {
    const observations = [
      obs(a(1), WETH, USDC, 2500, 2000, 5e6),
      obs(a(2), UNI, WETH, 0.002, 1e5, 200),
      obs(a(3), WBTC, WETH, 16, 100, 1600),
      obs(a(4), WBTC, USDC, 40_000, 10, 4e5),
    ];
    const forward = priceFromObservations(chain, H0, observations, ANCHORS);
    const backward = priceFromObservations(chain, H0, [...observations].reverse(), ANCHORS);
    expect(backward).toEqual(forward);
  });
});

describe('priceFromObservations, stablecoin edge cases', () => {
  const obs = (p: string, token0: string, token1: string, price: number, reserve0: number, reserve1: number) =>
    ({ pool: p, token0, token1, price, reserve0, reserve1 }) satisfies PoolObservation;
  const two = [
    { address: USDC, peg: 'USD' as const },
    { address: USDT, peg: 'USD' as const },
  ];

  it('two stablecoins at par within the tolerance read each other at 1.0', () => {
    const prices = new Map(
      priceFromObservations(chain, H0, [obs(a(1), USDC, USDT, 1.01, 1e6, 1.01e6)], two).map((f) => [f.token, f]),
    );
    expect(prices.get(USDC)!.priceUsd).toBe(1.01);
    expect(prices.get(USDT)!.priceUsd).toBeCloseTo(1 / 1.01, 12);
    expect(prices.get(USDC)!.confidence).toBe(1);
  });

  it('a pool between stablecoins below the minimum liquidity is ignored', () => {
    const prices = new Map(
      priceFromObservations(chain, H0, [obs(a(1), USDC, USDT, 1.3, 5_000, 6_500)], two).map((f) => [f.token, f]),
    );
    expect(prices.get(USDC)!.source).toBe('anchor:assumed');
    expect(prices.get(USDT)!.source).toBe('anchor:assumed');
  });
});
