import { describe, expect, it } from 'vitest';
import { decodeEventLogData, decodeGmxEvent, EVENT_LOG_TOPICS, eventNameHash, ORDER_TYPE } from './events.js';
import { gmxLog } from './test-logs.js';

const MARKET = '0x70d95587d40a2caf56bd97485ab3eec10bee6336';
const WETH = '0x82af49447d8a07e3bd95bd0d56f35241523fbab1';
const USDC = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const ACCOUNT = '0x1111111111111111111111111111111111111111';

describe('GMX EventEmitter decoding', () => {
  it('has the topics of GMX’s published ABI (@gmx-io/sdk abis/EventEmitter, verified by hand)', () => {
    expect(EVENT_LOG_TOPICS).toEqual([
      '0x7e3bde2ba7aca4a8499608ca57f3b0c1c1c93ace63ffd3741a9fab204146fc9a',
      '0x137a44067c8961cd7e1d876f4754a5a3a75989b4552f1843fc69c3b372def160',
      '0x468a25a7ba624ceea6e540ad6f49171b52495b648417ae91bca21676d8a24dc5',
    ]);
    expect(eventNameHash('PositionIncrease')).toBe(
      '0xf94196ccb31f81a3e67df18f2a62cbfb50009c80a7d3c728a3f542e3abc5cb63',
    );
    const log = gmxLog('PositionIncrease', {});
    expect(log.topics[1]).toBe(eventNameHash('PositionIncrease'));
  });

  const increaseItems = {
    address: { account: ACCOUNT, market: MARKET, collateralToken: USDC },
    uint: {
      sizeInUsd: 5n,
      'indexTokenPrice.max': 3_001n * 10n ** 12n,
      'indexTokenPrice.min': 2_999n * 10n ** 12n,
      'collateralTokenPrice.min': 10n ** 24n,
      'collateralTokenPrice.max': 10n ** 24n,
      sizeDeltaUsd: 1_000n * 10n ** 30n,
      sizeDeltaInTokens: 333_333_333_333_333_333n,
      orderType: 2n,
      executionPrice: 3_000n * 10n ** 12n,
    },
    bool: { isLong: true },
  };

  it('reads items by key, whatever their position', () => {
    const reversed = {
      ...increaseItems,
      uint: Object.fromEntries(Object.entries(increaseItems.uint).reverse()),
      address: Object.fromEntries(Object.entries(increaseItems.address).reverse()),
    };
    for (const items of [increaseItems, reversed]) {
      expect(decodeGmxEvent(gmxLog('PositionIncrease', items))).toEqual({
        kind: 'PositionIncrease',
        account: ACCOUNT,
        market: MARKET,
        collateralToken: USDC,
        isLong: true,
        sizeDeltaUsd: 1_000n * 10n ** 30n,
        sizeDeltaInTokens: 333_333_333_333_333_333n,
        orderType: ORDER_TYPE.MarketIncrease,
        executionPrice: 3_000n * 10n ** 12n,
        indexTokenPriceMin: 2_999n * 10n ** 12n,
        indexTokenPriceMax: 3_001n * 10n ** 12n,
        collateralTokenPriceMin: 10n ** 24n,
        collateralTokenPriceMax: 10n ** 24n,
      });
    }
  });

  it('names the missing key and the event', () => {
    const { sizeDeltaUsd: _, ...uint } = increaseItems.uint;
    expect(() => decodeGmxEvent(gmxLog('PositionDecrease', { ...increaseItems, uint }))).toThrow(
      'GMX PositionDecrease: no uint item "sizeDeltaUsd"',
    );
  });

  it.each([
    [
      'OpenInterestUpdated',
      {
        address: { market: MARKET, collateralToken: WETH },
        bool: { isLong: false },
        int: { delta: -7n },
        uint: { nextValue: 93n },
      },
      { kind: 'OpenInterestUpdated', market: MARKET, collateralToken: WETH, isLong: false, delta: -7n, nextValue: 93n },
    ],
    [
      'PoolAmountUpdated',
      { address: { market: MARKET, token: USDC }, int: { delta: 10n }, uint: { nextValue: 110n } },
      { kind: 'PoolAmountUpdated', market: MARKET, token: USDC, delta: 10n, nextValue: 110n },
    ],
    [
      'Funding',
      { address: { market: MARKET }, uint: { fundingFactorPerSecond: 12n } },
      { kind: 'Funding', market: MARKET, factorPerSecond: 12n },
    ],
    [
      'MarketCreated',
      { address: { marketToken: MARKET, indexToken: WETH, longToken: WETH, shortToken: USDC } },
      { kind: 'MarketCreated', marketToken: MARKET, indexToken: WETH, longToken: WETH, shortToken: USDC },
    ],
  ] as const)('decodes %s', (name, items, expected) => {
    expect(decodeGmxEvent(gmxLog(name, items))).toEqual(expected);
  });

  it('reads the liquidation fee of PositionFeesCollected only where GMX adds it', () => {
    const base = {
      address: { market: MARKET, collateralToken: USDC },
      uint: {
        'collateralTokenPrice.min': 10n ** 24n,
        tradeSizeUsd: 10n ** 33n,
        positionFeeAmount: 500_000n,
        borrowingFeeAmount: 20_000n,
        fundingFeeAmount: 1n,
      },
      bool: { isIncrease: false },
    };
    expect(decodeGmxEvent(gmxLog('PositionFeesCollected', base))).toMatchObject({ liquidationFeeAmount: 0n });
    const liquidated = { ...base, uint: { ...base.uint, liquidationFeeAmount: 9n } };
    expect(decodeGmxEvent(gmxLog('PositionFeesCollected', liquidated))).toMatchObject({
      positionFeeAmount: 500_000n,
      liquidationFeeAmount: 9n,
    });
  });

  it('leaves other events and other logs undefined', () => {
    expect(decodeGmxEvent(gmxLog('OrderCreated', {}))).toBeUndefined();
    expect(decodeEventLogData({ topics: ['0x01'], data: '0x' })).toBeUndefined();
  });
});
