import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/helpers.js';
import { SYNTHETIX_SPEC, synthetixWire } from '../../../test/support/synthetix-wire.js';
import { loadConfig } from '../../config/index.js';
import {
  FUNDING_HISTORY_LIMIT,
  FUNDING_HISTORY_MAX_AGE_MS,
  SynthetixApiError,
  SynthetixClient,
  SynthetixRangeError,
  SynthetixSchemaError,
} from './client.js';
import { openSynthetix, synthetixFromConfig } from './endpoint.js';

/**
 * Answers as Synthetix documents them (developers.synthetix.io/developer-resources/api/rest-api/info/<action>: the
 * examples of getMarkets, getMarketPrices, getOpenInterest and getCandles, and the error envelope), served to the
 * client by a scripted fetch that records each request's body.
 */
const REQUEST_ID = '5ccf215d37e3ae6d';
const MARKETS = {
  status: 'ok',
  response: [
    {
      symbol: 'SOL-USDT',
      description: 'Solana',
      baseAsset: 'SOL',
      quoteAsset: 'USDT',
      isOpen: true,
      isCloseOnly: false,
      priceExponent: 2,
      quantityExponent: 2,
      priceIncrement: '0.01',
      minOrderSize: '0.01',
      orderSizeIncrement: '0.01',
      contractSize: 1,
      maxMarketOrderSize: '1000000',
      minNotionalValue: '10',
      maintenanceMarginTiers: [
        {
          minPositionSize: '0',
          maxPositionSize: '500000',
          maxLeverage: 100,
          initialMarginRequirement: '0.01',
          maintenanceMarginRequirement: '0.005',
        },
        {
          minPositionSize: '200000001',
          maxPositionSize: null,
          maxLeverage: 2,
          initialMarginRequirement: '0.5',
          maintenanceMarginRequirement: '0.25',
        },
      ],
    },
  ],
  request_id: REQUEST_ID,
};
const PRICES = {
  status: 'ok',
  response: {
    'BTC-USDT': {
      symbol: 'BTC-USDT',
      markPrice: '45025.37500000',
      indexPrice: '45025.50000000',
      lastPrice: '45025.00000000',
      bestBid: '45020.00000000',
      bestAsk: '45030.00000000',
      volume24h: '1250.50',
      quoteVolume24h: '56282500.00',
      fundingRate: '0.00001250',
      openInterest: '12500.75',
      prevDayPrice: '44952.00000000',
      timestamp: 1704067200000,
    },
  },
  request_id: REQUEST_ID,
};
const OPEN_INTEREST = {
  status: 'ok',
  response: [
    {
      symbol: 'BTC-USDT',
      openInterest: '1250.50',
      longOpenInterest: '750.25',
      shortOpenInterest: '500.25',
      timestamp: 1704067200000,
    },
    {
      symbol: 'ETH-USDT',
      openInterest: '8500.75',
      longOpenInterest: '4800.50',
      shortOpenInterest: '3700.25',
      timestamp: 1704067200000,
    },
  ],
  request_id: REQUEST_ID,
};
const candle = (openTime: number) => ({
  openTime,
  closeTime: openTime + 3_600_000,
  openPrice: '45000.50',
  highPrice: '45100.00',
  lowPrice: '44950.00',
  closePrice: '45050.00',
  volume: '125.5',
  quoteVolume: '125500.00',
  tradeCount: 1523,
});
const ERROR = {
  status: 'error',
  error: { message: 'Failed to retrieve open interest data', code: 'INTERNAL_ERROR' },
  request_id: REQUEST_ID,
  timestamp: '2025-01-01T00:00:00Z',
};

type Answer = { status?: number; body: unknown; headers?: Record<string, string>; raw?: string };
function scripted(answers: Answer[]) {
  const requests: { url: string; method: string; params: Record<string, unknown> }[] = [];
  const fetchFn = (async (url: string, init: RequestInit) => {
    requests.push({
      url: String(url),
      method: String(init.method),
      params: (JSON.parse(String(init.body)) as { params: Record<string, unknown> }).params,
    });
    const a = answers.shift();
    if (!a) throw new Error('no more answers');
    return new Response(a.raw ?? JSON.stringify(a.body), {
      status: a.status ?? 200,
      headers: { 'content-type': 'application/json', ...a.headers },
    });
  }) as unknown as typeof fetch;
  return { fetchFn, requests };
}
const NOW = Date.UTC(2026, 10, 20, 12);
const client = (answers: Answer[], more: Partial<ConstructorParameters<typeof SynthetixClient>[0]> = {}) => {
  const s = scripted(answers);
  const slept: number[] = [];
  const c = new SynthetixClient({
    baseUrl: 'https://papi.synthetix.example/',
    fetch: s.fetchFn,
    clock: new TestClock(NOW),
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0,
    ...more,
  });
  return { c, requests: s.requests, slept };
};

describe('Synthetix info API client', () => {
  it('posts {params: {action}} to /v1/info and reads markets, prices and open interest', async () => {
    const { c, requests } = client([{ body: MARKETS }, { body: PRICES }, { body: OPEN_INTEREST }]);
    const markets = await c.markets();
    expect(markets.map((m) => [m.symbol, m.baseAsset, m.isOpen])).toEqual([['SOL-USDT', 'SOL', true]]);
    expect((await c.marketPrices())['BTC-USDT']!.markPrice).toBe('45025.37500000');
    const oi = await c.openInterest();
    // Documented: openInterest is the total of both sides.
    for (const row of oi) {
      expect(Number(row.openInterest)).toBeCloseTo(Number(row.longOpenInterest) + Number(row.shortOpenInterest), 9);
    }
    expect(requests.map((r) => [r.url, r.method, r.params.action])).toEqual([
      ['https://papi.synthetix.example/v1/info', 'POST', 'getMarkets'],
      ['https://papi.synthetix.example/v1/info', 'POST', 'getMarketPrices'],
      ['https://papi.synthetix.example/v1/info', 'POST', 'getOpenInterest'],
    ]);
  });

  it('pages candles by time and keeps those opening in the window', async () => {
    const start = NOW - 3 * 86_400_000;
    const first = Array.from({ length: 1000 }, (_, i) => candle(start + i * 60_000));
    const second = [candle(start + 1000 * 60_000), candle(start + 1001 * 60_000)];
    const { c, requests } = client([
      { body: { status: 'ok', response: { symbol: 'BTC-USDT', interval: '1m', candles: first } } },
      { body: { status: 'ok', response: { symbol: 'BTC-USDT', interval: '1m', candles: second } } },
    ]);
    const candles = await c.candles('BTC-USDT', '1m', start, start + 1002 * 60_000);
    expect(candles).toHaveLength(1002);
    expect(requests[1]!.params).toEqual({
      action: 'getCandles',
      symbol: 'BTC-USDT',
      interval: '1m',
      startTime: start + 999 * 60_000 + 1,
      endTime: start + 1002 * 60_000,
      limit: 1000,
    });
  });

  it('reads funding history within 30 days, paging at 2160, and refuses an older start before sending', async () => {
    const start = NOW - 7 * 86_400_000;
    const rates = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        symbol: 'ETH-USDT',
        fundingRate: '0.0000125',
        fundingTime: from + i * 60_000,
      }));
    const { c, requests } = client([
      { body: { status: 'ok', response: { symbol: 'ETH-USDT', fundingRates: rates(start, FUNDING_HISTORY_LIMIT) } } },
      { body: { status: 'ok', response: { symbol: 'ETH-USDT', fundingRates: rates(start + 2160 * 60_000, 5) } } },
    ]);
    const got = await c.fundingRateHistory('ETH-USDT', start, NOW);
    expect(got).toHaveLength(2165);
    expect(got[0]!.fundingTime).toBe(start);
    expect(requests[0]!.params).toEqual({
      action: 'getFundingRateHistory',
      symbol: 'ETH-USDT',
      startTime: start,
      endTime: NOW,
      limit: 2160,
    });
    expect(requests[1]!.params.startTime).toBe(start + 2159 * 60_000 + 1);
    const old = client([]);
    await expect(
      old.c.fundingRateHistory('ETH-USDT', NOW - FUNDING_HISTORY_MAX_AGE_MS - 1, NOW),
    ).rejects.toBeInstanceOf(SynthetixRangeError);
    expect(old.requests).toHaveLength(0);
  });

  it('retries 429 (Retry-After), 5xx, INTERNAL_ERROR and a body that is not JSON', async () => {
    const { c, slept } = client([
      {
        status: 429,
        body: { status: 'error', error: { message: 'rate limited', code: 'RATE_LIMITED' } },
        headers: { 'retry-after': '2' },
      },
      { status: 502, body: {}, raw: '<html>bad gateway</html>' },
      { status: 500, body: ERROR },
      { body: {}, raw: '{"status":"ok","resp' },
      { body: OPEN_INTEREST },
    ]);
    expect(await c.openInterest()).toHaveLength(2);
    expect(slept).toHaveLength(4);
    expect(slept[0]).toBe(2000);
    expect(c.stats).toMatchObject({ requests: 5, retries: 4, limited: 1 });
  });

  it('fails at once on an error code, a 4xx or an answer of another shape, and retryable when retries are spent', async () => {
    const refused = client([
      { status: 400, body: { status: 'error', error: { message: 'invalid symbol', code: 'INVALID_PARAMS' } } },
    ]);
    await expect(refused.c.candles('NOPE', '1h', NOW - 3_600_000, NOW)).rejects.toMatchObject({
      name: 'SynthetixApiError',
      retryable: false,
      status: 400,
      code: 'INVALID_PARAMS',
    });
    const changed = client([
      { body: { ...OPEN_INTEREST, response: [{ ...OPEN_INTEREST.response[0], openInterest: 1250.5 }] } },
    ]);
    const err = await changed.c.openInterest().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SynthetixSchemaError);
    expect((err as Error).message).toMatch(/\/response\/0\/openInterest/);
    const down = client(
      Array.from({ length: 3 }, () => ({ status: 503, body: ERROR })),
      { maxRetries: 2 },
    );
    await expect(down.c.markets()).rejects.toMatchObject({ retryable: true });
    expect(new SynthetixApiError('x', false)).toBeInstanceOf(Error);
  });

  it("records answers that conform to Synthetix's documented shapes (the stand-in's conformance schemas)", () => {
    const conform = (action: string, body: unknown) => synthetixWire.errors(`${SYNTHETIX_SPEC}#/$defs/${action}`, body);
    expect(conform('getMarkets', MARKETS)).toEqual([]);
    expect(conform('getMarketPrices', PRICES)).toEqual([]);
    expect(conform('getOpenInterest', OPEN_INTEREST)).toEqual([]);
    const candles = { status: 'ok', response: { symbol: 'BTC-USDT', interval: '1h', candles: [candle(NOW)] } };
    expect(conform('getCandles', candles)).toEqual([]);
    expect(conform('Error', ERROR)).toEqual([]);
    // A field the documentation does not name is a deviation.
    expect(
      conform('getOpenInterest', { ...OPEN_INTEREST, response: [{ ...OPEN_INTEREST.response[0], oi: '1' }] }),
    ).not.toEqual([]);
  });

  it('is opened from SYNTHETIX_API_URL only', () => {
    expect(synthetixFromConfig(loadConfig({}))).toBeUndefined();
    const config = loadConfig({ SYNTHETIX_API_URL: 'https://papi.synthetix.io/' });
    expect(synthetixFromConfig(config)).toBe('https://papi.synthetix.io');
    const handle = openSynthetix(synthetixFromConfig(config)!);
    expect([handle.source, handle.chain, handle.baseUrl]).toEqual([
      'synthetix',
      'ethereum',
      'https://papi.synthetix.io',
    ]);
    expect(openSynthetix('http://127.0.0.1:1', { label: 'sandbox synthetix stand-in' }).source).toBe(
      'sandbox:synthetix',
    );
  });
});
