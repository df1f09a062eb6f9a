import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import type { FeedAnswer } from '../../core/price-policy.js';
import { DAY, HOUR } from '../../core/time.js';
import { computeLending, type LendingInput, type MarketInput } from './compute.js';
import type { LendingEventFact, MarketSnapshot } from './facts.js';
import { lendingDocuments } from './jobs.js';
import type { ChainDexFacts } from './prices.js';
import {
  AllMarketsEntry,
  AssetAnalytics,
  AvailableMarket,
  LendingScoreHistory,
  MarketAnalytics,
  MarketOverview,
} from './schema.js';
import type { LendingMarketTarget } from './targets.js';

if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));

/** Schema errors as readable lines (empty when the value fits). */
const errors = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.path} ${e.message}`);

const AS_OF = Date.UTC(2026, 10, 20, 12) / 1000;
const USDC = '0x00000000000000000000000000000000000000a1';
const WETH = '0x00000000000000000000000000000000000000e1';

const source: LendingMarketTarget = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design: 'aave-v3',
  pool: '0x00000000000000000000000000000000000000b0',
  assets: [
    { address: USDC, symbol: 'USDC', decimals: 6 },
    { address: WETH, symbol: 'WETH', decimals: 18 },
  ],
  startBlock: 1,
};

function reserve(asset: string, symbol: string, decimals: number, supply: string, borrow: string, price: number) {
  return {
    asset,
    symbol,
    decimals,
    totalSupplyRaw: supply,
    totalBorrowRaw: borrow,
    priceUsd: price,
    supplyRate: 0.01,
    borrowRate: 0.03,
    ltv: 0.8,
    liquidationThreshold: 0.825,
    liquidationBonus: 0.05,
    reserveFactor: 0.1,
    supplyCap: 0,
    borrowCap: 0,
    borrowingEnabled: true,
    collateralEnabled: true,
    active: true,
    frozen: false,
    paused: false,
    optimalUtilisation: 0.9,
    aToken: null,
    debtToken: null,
  };
}

function snapshot(timestamp: number, debtUsdc: number): MarketSnapshot {
  return {
    chain: 'ethereum',
    pool: source.pool,
    blockNumber: Math.floor(timestamp / 12),
    timestamp,
    reserves: [
      reserve(USDC, 'USDC', 6, '10000000000', String(debtUsdc * 1e6), 1),
      reserve(WETH, 'WETH', 18, '2000000000000000000', '0', 2000),
    ],
    positions: [
      {
        account: '0xlender',
        marketId: '',
        supplied: { [USDC]: '10000000000' },
        borrowed: {},
        collateral: [],
        thresholds: {},
        bonuses: {},
        eMode: 0,
        collateralUsd: 0,
        debtUsd: 0,
        healthFactor: null,
      },
      {
        account: '0xborrower',
        marketId: '',
        supplied: { [WETH]: '2000000000000000000' },
        borrowed: { [USDC]: String(debtUsdc * 1e6) },
        collateral: [WETH],
        thresholds: { [WETH]: 0.825 },
        bonuses: { [WETH]: 0.05 },
        eMode: 0,
        collateralUsd: 4000,
        debtUsd: debtUsdc,
        healthFactor: (4000 * 0.825) / debtUsdc,
      },
    ],
  };
}

const liquidation: LendingEventFact = {
  chain: 'ethereum',
  pool: source.pool,
  blockNumber: 10,
  logIndex: 1,
  txHash: '0xabc',
  timestamp: AS_OF - DAY,
  kind: 'liquidation',
  marketId: '',
  asset: USDC,
  account: '0xvictim',
  actor: '0xliquidator',
  amount: 500_000_000n,
  collateralAsset: WETH,
  collateralAmount: 262_500_000_000_000_000n,
};

function input(over: Partial<MarketInput> = {}): MarketInput {
  return {
    source,
    latest: snapshot(AS_OF, 1000),
    daily: [1, 2, 3, 4, 5, 6].map((d) => (d === 6 ? undefined : snapshot(AS_OF - d * DAY, 1000 + d * 100))),
    liquidations: [liquidation],
    ...over,
  };
}

/** The DEX area's hourly prices of `prices` over the 8 days before AS_OF (no pools: no depth). */
function dexFacts(prices: Record<string, number>): ChainDexFacts {
  const hourly = [];
  for (let hour = AS_OF - 8 * DAY; hour <= AS_OF; hour += HOUR)
    for (const [token, priceUsd] of Object.entries(prices))
      hourly.push({ chain: 'ethereum', token, hour, priceUsd, source: `pools:${token.slice(-2)}`, confidence: 0.9 });
  return { pools: [], tokens: [], snapshots: [], swaps: [], syncs: [], prices: hourly };
}

/** The computation's input with the DEX prices the snapshots' oracles agree with (USDC $1, WETH $2,000). */
const priced = (markets: MarketInput[], over: Partial<LendingInput> = {}): LendingInput => ({
  asOf: AS_OF,
  markets,
  dex: { ethereum: dexFacts({ [USDC]: 1, [WETH]: 2000 }) },
  ...over,
});

const FEED = '0x00000000000000000000000000000000000000f1';
/** A WETH-USD feed answer (Chainlink's ETH-USD heartbeat is an hour). */
const wethAnswer = (priceUsd: number, updatedAt: number): FeedAnswer => ({
  token: WETH,
  priceUsd,
  updatedAt,
  heartbeat: 3600,
  ref: FEED,
});

describe('computeLending', () => {
  it('publishes the legacy asset fields from the snapshot, with wallets counted from positions', () => {
    const out = computeLending(priced([input()]));
    const usdc = out.assets.find((a) => a.token === USDC)!.data;
    expect(usdc).toMatchObject({
      total_supply_token: 10_000,
      total_supply_usd: 10_000,
      total_borrow_token: 1000,
      total_borrow_usd: 1000,
      num_unique_wallets_supply: 1,
      num_unique_wallets_borrow: 1,
      utilisation: 0.1,
    });
    expect(errors(AssetAnalytics, usdc)).toEqual([]);
  });

  it('counts liquidations by day and values them at the time’s prices', () => {
    const out = computeLending(priced([input()]));
    const m = out.markets[0]!.data;
    expect(m.liquidations.count).toBe(1);
    expect(m.liquidations.debt_repaid_usd).toBe(500);
    expect(m.liquidations.collateral_seized_usd).toBe(525);
    expect(m.liquidations.by_day.map((d) => d.count)).toEqual([0, 1, 0, 0, 0, 0, 0]);
    expect(errors(MarketAnalytics, m)).toEqual([]);
  });

  it('values a liquidation at the policy price of its block time: the feed answer at or before it, else the DEX price, with the source', () => {
    const at = liquidation.timestamp;
    const recent = (feeds: FeedAnswer[]) => {
      const out = computeLending(priced([input()], { feeds: { ethereum: feeds } }));
      const m = out.markets[0]!.data;
      expect(errors(MarketAnalytics, m)).toEqual([]);
      return { l: m.liquidations, row: m.liquidations.recent[0]! };
    };
    // A fresh feed answer at or before the block wins over the DEX price of the hour ($2,000), which is published
    // beside it with the gap and the flag (5 % > 2 %); a later answer is not known at the block.
    const fresh = recent([wethAnswer(2050, at - 7200), wethAnswer(2100, at - 600), wethAnswer(3000, at + 1)]);
    expect(fresh.row.collateral_seized_usd).toBe(551.25); // 0.2625 WETH × $2,100
    expect(fresh.l.collateral_seized_usd).toBe(551.25);
    expect(fresh.row.collateral_price).toEqual({
      price_usd: 2100,
      source: 'oracle',
      source_ref: FEED,
      confidence: 0.475,
      alternative_price_usd: 2000,
      disagreement: 0.05,
      flagged: true,
    });
    // USDC has no feed: the DEX price of the instant, named as such.
    expect(fresh.row.debt_repaid_usd).toBe(500);
    expect(fresh.row.debt_price).toMatchObject({ price_usd: 1, source: 'dex', source_ref: 'pools:a1' });
    // No feed answer: the DEX price, source dex.
    const absent = recent([]);
    expect(absent.row.collateral_seized_usd).toBe(525);
    expect(absent.row.collateral_price).toMatchObject({ source: 'dex', alternative_price_usd: null, flagged: false });
    expect(absent.row.gap_reasons).toMatchObject({ 'collateral_price.alternative_price_usd': 'no_price' });
    // A stale answer (older than 1.5 heartbeats): the DEX price, with the stale answer beside it.
    const stale = recent([wethAnswer(2100, at - 3 * 3600)]);
    expect(stale.row.collateral_seized_usd).toBe(525);
    expect(stale.row.collateral_price).toMatchObject({ price_usd: 2000, source: 'dex', alternative_price_usd: 2100 });
    // Neither price: null with the reason, never the snapshot's price of another instant.
    const none = computeLending({ asOf: AS_OF, markets: [input()], feeds: { ethereum: [] } }).markets[0]!.data;
    expect(none.liquidations.recent[0]!.collateral_seized_usd).toBeNull();
    expect(none.liquidations.recent[0]!.collateral_price).toBeNull();
    expect(none.liquidations.recent[0]!.gap_reasons).toMatchObject({ collateral_price: 'no_price' });
    expect(none.liquidations.gap_reasons).toEqual({ debt_repaid_usd: 'no_price', collateral_seized_usd: 'no_price' });
  });

  it('one window for the liquidations object: its totals are its 7 UTC days’ rows; the rolling 7 d count apart', () => {
    // AS_OF is 12:00; the oldest UTC day starts 6.5 days before it. One liquidation 6.75 days back is inside the
    // rolling 604,800 s but before the rows' first day; one at that day's first second is in both.
    const oldestDayStart = AS_OF - 12 * 3600 - 6 * DAY;
    const before = { ...liquidation, logIndex: 2, txHash: '0xdef', timestamp: AS_OF - 6.75 * DAY };
    const atStart = { ...liquidation, logIndex: 3, txHash: '0x123', timestamp: oldestDayStart };
    const out = computeLending(priced([input({ liquidations: [before, atStart, liquidation] })]));
    const l = out.markets[0]!.data.liquidations;
    expect(l.by_day.map((d) => d.count)).toEqual([0, 1, 0, 0, 0, 0, 1]);
    expect(l.count).toBe(l.by_day.reduce((s, d) => s + d.count, 0));
    expect(l.debt_repaid_usd).toBe(l.by_day.reduce((s, d) => s + d.debt_repaid_usd!, 0));
    expect(l.count_7d).toBe(3);
    expect(l.recent.map((r) => r.tx_hash)).not.toContain('0xdef');
    expect(out.overviews[0]!.data.markets[0]!.liquidations_7d).toBe(3);
  });

  it('gives 7 daily scores, a gap where no snapshot stands for the day, and aggregates per protocol', () => {
    const out = computeLending(priced([input()]));
    const history = out.scores[0]!.data;
    expect(history).toHaveLength(7);
    expect(history[0]!.partial).toBe(true);
    expect(history[6]!.score).toBeNull();
    expect(history[6]!.gap_reason).toBe('no_data');
    expect(errors(LendingScoreHistory, history)).toEqual([]);
    const overview = out.overviewScores[0]!.data;
    expect(overview[0]!.score).toBe(history[0]!.score);
    expect(errors(LendingScoreHistory, overview)).toEqual([]);
    expect(errors(MarketOverview, out.overviews[0]!.data)).toEqual([]);
    for (const a of out.all) expect(errors(AllMarketsEntry, a)).toEqual([]);
    for (const a of out.available) expect(errors(AvailableMarket, a)).toEqual([]);
  });

  it('puts each document at its canonical path (lowercase version and base asset in the score path)', () => {
    const docs = lendingDocuments(computeLending(priced([input()])), AS_OF).map((d) => d.path);
    expect(docs).toEqual(
      expect.arrayContaining([
        '/data/liquidity/lending/available-markets',
        `/data/liquidity/lending/asset-analytics/ethereum/aave/V3/USDC/${USDC}`,
        '/data/liquidity/lending/protocol-analytics/ethereum/aave/V3/USDC',
        '/data/liquidity/lending/market-overview/aave',
        '/scores/liquidity/lending/protocol-score/ethereum/aave/v3/usdc',
        '/scores/liquidity/lending/market-overview/aave',
        '/scores/liquidity/lending/all-markets',
      ]),
    );
  });

  it('lists a market before its first snapshot, without analytics', () => {
    const out = computeLending({ asOf: AS_OF, markets: [input({ latest: undefined, daily: [] })] });
    expect(out.available).toHaveLength(1);
    expect(out.markets).toHaveLength(0);
    expect(out.all[0]!.gap_reason).toBe('no_data');
  });
});
