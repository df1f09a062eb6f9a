import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../../core/time.js';
import {
  computeGmx,
  flows,
  type GmxComputeInput,
  hourlyPoints,
  marketOpenInterest,
  pairOf,
  signedFundingRates,
} from './compute.js';
import type { GmxEvent } from './events.js';
import type { GmxEventFact, GmxMarketFact, GmxMarketState, GmxStateSnapshot } from './facts.js';
import { gmxPublication } from './publish.js';

const E30 = 10n ** 30n;
const E18 = 10n ** 18n;
const WETH = '0x00000000000000000000000000000000000000e1';
const USDC = '0x00000000000000000000000000000000000000c1';
const DOGE = '0x00000000000000000000000000000000000000d0';
const ETH_USD = '0x0000000000000000000000000000000000000a01';
const ETH_ETH = '0x0000000000000000000000000000000000000a02';
const DOGE_USD = '0x0000000000000000000000000000000000000a03';
const DAY0 = Date.UTC(2026, 10, 20) / 1000;
const AS_OF = DAY0 + 12 * HOUR;

const market = (address: string, indexToken: string, longToken: string, shortToken: string): GmxMarketFact => ({
  chain: 'arbitrum',
  dataStore: '0xd5',
  market: address,
  indexToken,
  longToken,
  shortToken,
  createdBlock: null,
});
const MARKETS = [
  market(ETH_USD, WETH, WETH, USDC),
  market(ETH_ETH, WETH, WETH, WETH),
  market(DOGE_USD, DOGE, WETH, USDC),
];

/** USD price of one token unit in GMX's 30 decimals: $3,000 per WETH (18 decimals), $1 per USDC (6). */
const ETH_PRICE = 3_000n * 10n ** 12n;
const USDC_PRICE = 10n ** 24n;

function state(
  m: GmxMarketFact,
  oi: { long: [bigint, bigint]; short: [bigint, bigint] },
  extra: Partial<GmxMarketState> = {},
) {
  const collaterals = [m.longToken, m.shortToken];
  return {
    market: m.market,
    indexToken: m.indexToken,
    longToken: m.longToken,
    shortToken: m.shortToken,
    // [usd, tokens] per side, written under each collateral key as the DataStore holds them.
    openInterest: collaterals.flatMap((c, i) => [
      {
        collateralToken: c,
        isLong: true,
        usd: i === 0 || m.longToken === m.shortToken ? oi.long[0] : 0n,
        tokens: i === 0 || m.longToken === m.shortToken ? oi.long[1] : 0n,
      },
      {
        collateralToken: c,
        isLong: false,
        usd: i === 1 || m.longToken === m.shortToken ? oi.short[0] : 0n,
        tokens: i === 1 || m.longToken === m.shortToken ? oi.short[1] : 0n,
      },
    ]),
    poolAmounts: [...new Set(collaterals)].map((token) => ({
      token,
      amount: token === WETH ? 100n * E18 : 300_000n * 10n ** 6n,
    })),
    savedFundingFactorPerSecond: 0n,
    fundingIncreaseFactorPerSecond: 0n,
    maxOpenInterestLong: 1_000_000n * E30,
    maxOpenInterestShort: 2_000_000n * E30,
    disabled: false,
    ...extra,
  } satisfies GmxMarketState;
}

let seq = 0;
const fact = (timestamp: number, event: GmxEvent, blockNumber = timestamp, txHash?: string): GmxEventFact => ({
  blockNumber,
  logIndex: seq++,
  txHash: txHash ?? `0x${seq}`,
  timestamp,
  event,
});
const position = (
  kind: 'PositionIncrease' | 'PositionDecrease',
  m: string,
  account: string,
  sizeUsd: bigint,
  orderType = 2,
): GmxEvent => ({
  kind,
  account,
  market: m,
  collateralToken: USDC,
  isLong: true,
  sizeDeltaUsd: sizeUsd * E30,
  sizeDeltaInTokens: 0n,
  orderType,
  executionPrice: ETH_PRICE,
  indexTokenPriceMin: ETH_PRICE - 10n ** 12n,
  indexTokenPriceMax: ETH_PRICE + 10n ** 12n,
  collateralTokenPriceMin: USDC_PRICE,
  collateralTokenPriceMax: USDC_PRICE,
});

describe('GMX open interest (per market, GMX’s pool divisor)', () => {
  it.each([
    [
      'two-token market: collaterals add up',
      MARKETS[0]!,
      { longUsd: 10n, shortUsd: 20n, longTokens: 1n, shortTokens: 2n },
    ],
    [
      'single-token market: the one key read twice is halved',
      MARKETS[1]!,
      { longUsd: 10n, shortUsd: 20n, longTokens: 1n, shortTokens: 2n },
    ],
  ])('%s', (_, m, expected) => {
    expect(marketOpenInterest(state(m, { long: [10n, 1n], short: [20n, 2n] }))).toEqual(expected);
  });
});

describe('GMX funding', () => {
  const funding = (t: number, perSecond: bigint, m = ETH_USD): GmxEventFact =>
    fact(t, { kind: 'Funding', market: m, factorPerSecond: perSecond });
  const oiUpdate = (t: number, isLong: boolean, next: bigint): GmxEventFact =>
    fact(t, {
      kind: 'OpenInterestUpdated',
      market: ETH_USD,
      collateralToken: USDC,
      isLong,
      delta: 0n,
      nextValue: next,
    });
  const snapshotAt = (t: number, s: GmxMarketState): GmxStateSnapshot => ({
    chain: 'arbitrum',
    dataStore: '0xd5',
    blockNumber: t,
    timestamp: t,
    markets: [s],
  });

  it.each([
    ['longs heavier: longs pay (positive)', [oiUpdate(DAY0 + 1, true, 50n), oiUpdate(DAY0 + 2, false, 10n)], [], 1],
    ['shorts heavier: shorts pay (negative)', [oiUpdate(DAY0 + 1, true, 5n), oiUpdate(DAY0 + 2, false, 10n)], [], -1],
    [
      'state from the snapshot before, updates after it',
      [oiUpdate(DAY0 + 2, false, 10n)],
      [snapshotAt(DAY0 + 1, state(MARKETS[0]!, { long: [50n, 0n], short: [90n, 0n] }))],
      1,
    ],
    [
      'adaptive funding: the saved factor’s sign',
      [oiUpdate(DAY0 + 1, true, 50n)],
      [
        snapshotAt(
          DAY0 + 1,
          state(
            MARKETS[0]!,
            { long: [50n, 0n], short: [0n, 0n] },
            {
              fundingIncreaseFactorPerSecond: 1n,
              savedFundingFactorPerSecond: -5n,
            },
          ),
        ),
      ],
      -1,
    ],
  ] as const)('%s', (_, updates, snapshots, sign) => {
    const events = [...updates, funding(DAY0 + 3, 10n ** 22n)];
    const rates = signedFundingRates(MARKETS[0]!, events, snapshots);
    expect(rates).toEqual([{ time: DAY0 + 3, rate1h: sign * 3.6e-5 }]);
  });

  it('hourly points carry the last rate and are null before any', () => {
    const points = hourlyPoints(
      [
        { time: DAY0 - HOUR, rate1h: 1 },
        { time: DAY0 + HOUR + 5, rate1h: 2 },
        { time: DAY0 + HOUR + 50, rate1h: 3 },
      ],
      { from: DAY0, to: DAY0 + 3 * HOUR },
    );
    expect(points).toEqual([
      { time: DAY0, rate1h: 1 },
      { time: DAY0 + HOUR, rate1h: 3 },
      { time: DAY0 + 2 * HOUR, rate1h: 3 },
      { time: DAY0 + 3 * HOUR, rate1h: 3 },
    ]);
    expect(hourlyPoints([], { from: DAY0, to: DAY0 + 10 })).toEqual([{ time: DAY0, rate1h: null }]);
  });
});

describe('GMX flows', () => {
  it('volume and trades from position events, liquidations by order type, fees at the collateral min price', () => {
    const fees: GmxEvent = {
      kind: 'PositionFeesCollected',
      market: ETH_USD,
      collateralToken: WETH,
      isIncrease: false,
      collateralTokenPriceMin: ETH_PRICE,
      tradeSizeUsd: 0n,
      positionFeeAmount: E18 / 1000n,
      borrowingFeeAmount: E18 / 100n,
      fundingFeeAmount: E18,
      liquidationFeeAmount: E18 / 10n,
    };
    const out = flows([
      fact(1, position('PositionIncrease', ETH_USD, '0xa', 1000n)),
      fact(2, position('PositionDecrease', ETH_USD, '0xa', 400n)),
      fact(3, position('PositionDecrease', ETH_USD, '0xb', 250n, 7)),
      fact(4, fees),
      fact(5, { kind: 'Funding', market: ETH_USD, factorPerSecond: 1n }),
    ]);
    expect(out).toEqual({
      volumeUsd: 1650,
      tradeCount: 3,
      uniqueTraders: 2,
      // Funding fees move between traders: not a fee of the venue.
      fees: { totalUsd: 3 + 30 + 300, positionUsd: 3, borrowingUsd: 30, liquidationUsd: 300, swapUsd: null },
      liquidationsUsd: 250,
      liquidationCount: 1,
    });
  });
});

describe('pairOf', () => {
  it.each([
    ['WETH', 'ETH-USD'],
    ['WBTC.b', 'BTC-USD'],
    ['DOGE', 'DOGE-USD'],
    ['WIF', 'WIF-USD'],
    [undefined, null],
  ])('%s → %s', (symbol, pair) => {
    expect(pairOf(symbol, ['ETH-USD', 'BTC-USD', 'DOGE-USD'])).toBe(pair);
  });
});

describe('computeGmx', () => {
  const input = (over: Partial<GmxComputeInput> = {}): GmxComputeInput => ({
    protocol: 'gmx',
    chain: 'arbitrum',
    version: 'V2',
    dataStore: '0xd5',
    eventEmitter: '0xee',
    asOf: AS_OF,
    listedPairs: ['ETH-USD', 'BTC-USD'],
    markets: MARKETS,
    tokens: { [WETH]: { symbol: 'WETH', decimals: 18 }, [USDC]: { symbol: 'USDC', decimals: 6 } },
    snapshots: [
      {
        chain: 'arbitrum',
        dataStore: '0xd5',
        blockNumber: 500,
        timestamp: AS_OF - 60,
        markets: [
          state(MARKETS[0]!, { long: [2_900n * E30, E18], short: [6_000n * E30, 2n * E18] }),
          state(MARKETS[1]!, { long: [3_000n * E30, E18], short: [0n, 0n] }),
          state(MARKETS[2]!, { long: [0n, 0n], short: [0n, 0n] }),
        ],
      },
    ],
    events: [fact(AS_OF - 3600, position('PositionIncrease', ETH_USD, '0xa', 1000n))],
    ...over,
  });

  it('aggregates the markets of one index token into its pair, at the index price midpoint of the instant', () => {
    const out = computeGmx(input());
    expect(out.oiConvention).toBe('long_plus_short');
    expect(out.pairs.map((p) => [p.pair, p.listed, p.markets.map((m) => m.marketAddress)])).toEqual([
      ['ETH-USD', true, [ETH_USD, ETH_ETH]],
    ]);
    const today = out.days[0]!;
    expect(out.days).toHaveLength(7);
    expect(today).toMatchObject({ partial: true, blockNumber: 500, instant: AS_OF });
    const eth = today.pairs[0]!;
    // 1 + 1 WETH long (the single-token market's doubled key halved), 2 WETH short; mid $3,000.
    expect(eth.longOpenInterestTokens).toBe(2);
    expect(eth.shortOpenInterestTokens).toBe(2);
    expect(eth.longOpenInterestUsd).toBe(6_000);
    expect(eth.openInterestUsd).toBe(12_000);
    // Cost basis is served beside the marked value, never instead of it.
    expect(eth.longOpenInterestCostUsd).toBe(5_900);
    expect(eth.shortOpenInterestCostUsd).toBe(6_000);
    expect(eth.longShortSkew).toBe(0);
    expect(eth.indexPrice).toEqual({ min: 2999, max: 3001, mid: 3000 });
    expect(eth.volumeUsd).toBe(1000);
    // TVL: ETH/USD holds 100 WETH + 300,000 USDC, ETH/ETH 100 WETH; at $3,000 and $1.
    expect(eth.tvlUsd).toBe(900_000);
    // Pool value: TVL − the traders' net PnL: ETH/USD's long is worth $3,000 at a $2,900 cost (+100), the rest
    // is worth its cost (0).
    expect(eth.poolValueUsd).toBe(899_900);
    // A market whose index token has no symbol (synthetic, not in `tokens`) is in the venue, in no pair.
    expect(today.markets.find((m) => m.market.marketAddress === DOGE_USD)?.pair).toBeNull();
    expect(today.venue.numberOfPairs).toBe(1);
    expect(today.venue.tvlUsd).toBe(900_000 + 600_000);
    expect(today.venue.longOpenInterestTokens).toBeNull();
    expect(today.venue.gapReasons.long_open_interest_tokens).toBe('not_applicable');
  });

  it('TVL is what the market tokens hold (pool, collateral, fees); pool value stays the pool amounts less trader PnL', () => {
    const base = input();
    // Each market token holds 2 WETH and 1,000 USDC more than its pool amounts (the positions' collateral).
    const held = (p: GmxComputeInput['snapshots'][number]) => ({
      ...p,
      markets: p.markets.map((m) => ({
        ...m,
        heldAmounts: m.poolAmounts.map((a) => ({
          token: a.token,
          amount: a.amount + (a.token === WETH ? 2n * E18 : 1_000n * 10n ** 6n),
        })),
      })),
    });
    const before = computeGmx(base).days[0]!.pairs[0]!;
    const eth = computeGmx({ ...base, snapshots: base.snapshots.map(held) }).days[0]!.pairs[0]!;
    // ETH/USD: +2 WETH + 1,000 USDC; ETH/ETH (one token): +2 WETH; at $3,000 and $1.
    expect(eth.tvlUsd).toBe(900_000 + 6_000 + 1_000 + 6_000);
    expect(before.tvlUsd).toBe(900_000);
    expect(eth.poolValueUsd).toBe(before.poolValueUsd);
  });

  it('a registry pair without a market on the venue is published with not_listed days, as on the other venues', () => {
    const pairs = gmxPublication(computeGmx(input()), ['ETH-USD', 'SOL-USD']).pairs;
    const sol = pairs.find((p) => p.pair === 'SOL-USD')!;
    expect(sol.markets).toEqual([]);
    expect(sol.days).toHaveLength(7);
    expect(sol.days.every((d) => d.figures === null && d.gap_reason === 'not_listed')).toBe(true);
    expect(pairs.find((p) => p.pair === 'ETH-USD')!.days[0]!.figures).not.toBeNull();
  });

  it('values open interest at the oracle’s price read with the snapshot, not at an older trade’s', () => {
    const base = input();
    const priced = (p: GmxComputeInput['snapshots'][number]) => ({
      ...p,
      markets: p.markets.map((m) =>
        m.indexToken === WETH ? { ...m, oracleIndexPrice: { min: 3_100n * 10n ** 12n, max: 3_102n * 10n ** 12n } } : m,
      ),
    });
    const eth = computeGmx({ ...base, snapshots: base.snapshots.map(priced) }).days[0]!.pairs[0]!;
    expect(eth.indexPrice).toEqual({ min: 3100, max: 3102, mid: 3101 });
    expect(eth.longOpenInterestUsd).toBe(2 * 3101);
  });

  it('a day without a snapshot has no state figures (no_data), and zero flows', () => {
    const yesterday = computeGmx(input()).days[1]!;
    expect(yesterday).toMatchObject({ partial: false, blockNumber: null, instant: DAY0 - 1 });
    expect(yesterday.venue.openInterestUsd).toBeNull();
    expect(yesterday.venue.gapReasons).toEqual({ state: 'no_data' });
    expect(yesterday.venue.tradeCount).toBe(0);
    expect(yesterday.pairs[0]!.funding.history).toHaveLength(24);
    expect(yesterday.pairs[0]!.funding.rate1hMean).toBeNull();
  });

  it('without a price at the instant, USD open interest is null with no_price and tokens stay', () => {
    const day = computeGmx(input({ events: [], asOf: AS_OF })).days[0]!;
    const eth = day.pairs[0]!;
    expect(eth.longOpenInterestTokens).toBe(2);
    expect(eth.longOpenInterestUsd).toBeNull();
    expect(eth.gapReasons.long_open_interest_usd).toBe('no_price');
    expect(eth.gapReasons.tvl_usd).toBe('no_price');
  });

  it('a price older than a day is not used', () => {
    const old = [fact(AS_OF - DAY - 1, position('PositionIncrease', ETH_USD, '0xa', 1n))];
    expect(computeGmx(input({ events: old })).days[0]!.pairs[0]!.longOpenInterestUsd).toBeNull();
  });
});
