import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/helpers.js';
import { fixtureHours, fixtureView, GENESIS, SYNTH_LINK, WBTC, WETH } from '../../../test/support/gmx-oracle-world.js';
import { startTestSources, type TestSources } from '../../../test/support/sources.js';
import { GmxOracleClient, GmxOracleError, GmxOracleSchemaError } from './client.js';
import { gmxPriceToUsd, tickerOf, tickerUsd, tokenDecimals, updatedAtMs, usdToGmxPrice } from './prices.js';
import type { GmxTicker } from './schemas.js';

/**
 * An answer in the published shape (gmx-interface `sdk/src/modules/oracle.ts` `TickersResponse`), with prices in
 * GMX's convention as gmx-synthetics `utils/prices.ts` writes them (WETH at 5000 USD = 5000 × 10^12, WBTC at 50000
 * USD = 50000 × 10^22, USDC at 1 USD = 10^24), and the keeper's extra `timestamp`.
 */
const PUBLISHED: GmxTicker[] = [
  {
    tokenAddress: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
    tokenSymbol: 'ETH',
    minPrice: '4990000000000000',
    maxPrice: '5010000000000000',
    oracleDecimals: 8,
    updatedAt: 1_764_000_000_123,
    timestamp: 1_764_000_001,
  },
  {
    tokenAddress: '0x2f2a2543B76A4166549F7aaB2e75Bef0aefC5B0f',
    tokenSymbol: 'BTC',
    minPrice: '500000000000000000000000000',
    maxPrice: '500000000000000000000000000',
    oracleDecimals: 20,
    updatedAt: 1_764_000_000_456,
    timestamp: 1_764_000_001,
  },
  {
    tokenAddress: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
    tokenSymbol: 'USDC',
    minPrice: '1000000000000000000000000',
    maxPrice: '1000000000000000000000000',
    oracleDecimals: 18,
    updatedAt: 1_764_000_000_789,
    timestamp: 1_764_000_001,
  },
];

/** A fetch that answers from a script, one entry per request; records the requests. */
function scripted(answers: (() => Response)[]) {
  const urls: string[] = [];
  const fetchFn = (async (url: string) => {
    urls.push(String(url));
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  }) as unknown as typeof fetch;
  return { fetchFn, urls };
}
const jsonAnswer =
  (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('GMX prices', () => {
  it.each([
    // [30-decimal price, token decimals, USD per whole token]
    [5000n * 10n ** 12n, 18, 5000],
    [50000n * 10n ** 22n, 8, 50000],
    [10n ** 24n, 6, 1],
    [1234567n * 10n ** 7n, 18, 12.34567],
    [0n, 18, 0],
  ])('%s with %i decimals is %f USD per token', (price, decimals, usd) => {
    expect(gmxPriceToUsd(price, decimals)).toBe(usd);
    expect(usdToGmxPrice(usd, decimals)).toBe(price);
  });

  it('marks at the midpoint of min and max, exactly', () => {
    const eth = tickerUsd(PUBLISHED[0]!, 18);
    expect(eth).toEqual({ min: 4990, max: 5010, mid: 5000, updatedAtMs: 1_764_000_000_123 });
    // An odd sum of two 30-decimal integers: the half is kept.
    const odd = tickerUsd({ ...PUBLISHED[0]!, minPrice: '1', maxPrice: '2' }, 18);
    expect(odd.mid).toBe(1.5e-12);
  });

  it('reads updatedAt in milliseconds, or in seconds as GMX documentation examples show', () => {
    expect(updatedAtMs(1_708_956_120)).toBe(1_708_956_120_000);
    expect(updatedAtMs(1_708_956_120_123)).toBe(1_708_956_120_123);
  });

  it('finds tickers and decimals by address, whatever the case', () => {
    expect(tickerOf(PUBLISHED, '0x82af49447d8a07e3bd95bd0d56f35241523fbab1')?.tokenSymbol).toBe('ETH');
    expect(tickerOf(PUBLISHED, WETH)).toBeUndefined();
    const tokens = [{ symbol: 'LINK', address: SYNTH_LINK, decimals: 18, synthetic: true }];
    expect(tokenDecimals(tokens, SYNTH_LINK.toUpperCase().replace('0X', '0x'))).toBe(18);
    expect(() => tokenDecimals(tokens, WBTC)).toThrow(/lists no token/);
    expect(() => gmxPriceToUsd(1n, 31)).toThrow(RangeError);
  });
});

describe('GMX oracle client', () => {
  const noSleep = async () => undefined;

  it('reads a published answer', async () => {
    const { fetchFn, urls } = scripted([jsonAnswer(PUBLISHED)]);
    const client = new GmxOracleClient({ baseUrl: 'https://keeper.example/', fetch: fetchFn, sleep: noSleep });
    expect(await client.tickers()).toEqual(PUBLISHED);
    expect(urls).toEqual(['https://keeper.example/prices/tickers']);
  });

  it('retries 429 after Retry-After, 5xx and a body that is not JSON, then answers', async () => {
    const slept: number[] = [];
    const { fetchFn } = scripted([
      jsonAnswer({ errors: ['Too Many Requests'] }, 429, { 'retry-after': '7' }),
      jsonAnswer({ errors: ['db is unavailable'] }, 500),
      () => new Response('<html>bad gateway</html>', { status: 200 }),
      jsonAnswer(PUBLISHED),
    ]);
    const client = new GmxOracleClient({
      fetch: fetchFn,
      sleep: async (ms) => {
        slept.push(ms);
      },
      random: () => 0,
    });
    expect(await client.tickers()).toHaveLength(3);
    expect(slept[0]).toBe(7000);
    expect(slept).toHaveLength(3);
    expect(client.stats).toMatchObject({ requests: 4, retries: 3, limited: 1 });
  });

  it('fails retryable when the retries are spent, and at once on an answer of another shape or a 4xx', async () => {
    const down = new GmxOracleClient({
      fetch: scripted(Array.from({ length: 3 }, () => jsonAnswer({ errors: ['x'] }, 503))).fetchFn,
      sleep: noSleep,
      maxRetries: 2,
    });
    await expect(down.tickers()).rejects.toMatchObject({ name: 'GmxOracleError', retryable: true });
    const changed = new GmxOracleClient({
      fetch: scripted([jsonAnswer([{ ...PUBLISHED[0], minPrice: 4990.5 }])]).fetchFn,
      sleep: noSleep,
    });
    const err = await changed.tickers().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GmxOracleSchemaError);
    expect(err).toMatchObject({ retryable: false, field: '/0/minPrice' });
    const empty = new GmxOracleClient({ fetch: scripted([jsonAnswer([])]).fetchFn, sleep: noSleep });
    await expect(empty.tickers()).rejects.toBeInstanceOf(GmxOracleSchemaError);
    const gone = new GmxOracleClient({ fetch: scripted([jsonAnswer({ errors: ['no'] }, 404)]).fetchFn });
    await expect(gone.tickers()).rejects.toMatchObject({ retryable: false, status: 404 });
    expect(new GmxOracleError('x', true)).toBeInstanceOf(Error);
  });
});

describe('GMX oracle source against the sandbox stand-in', () => {
  const hours = fixtureHours(30);
  const clock = new TestClock((GENESIS + 24 * 3600 + 120) * 1000);
  let opened: TestSources;

  beforeAll(async () => {
    opened = await startTestSources({
      kinds: ['gmx_oracle'],
      clock,
      overrides: { gmx_oracle: { world: Promise.resolve(fixtureView(hours)) } },
    });
  });
  afterAll(() => opened?.close());

  it('is opened from GMX_ORACLE_URL and names itself as the sandbox', () => {
    const handle = opened.sources.get('gmx_oracle')!;
    expect(opened.config.gmxOracleUrl).toBe(opened.server('gmx_oracle').url);
    expect(handle.source).toBe('sandbox:gmx_oracle');
    expect(handle.chain).toBe('arbitrum');
  });

  it("prices every token at the world's reference price of the closed hour (midpoint within 1e-9)", async () => {
    const { client } = opened.sources.get('gmx_oracle')!;
    const [tickers, tokens] = await Promise.all([client.tickers(), client.tokens()]);
    const reference = hours[23]!.prices;
    const bySymbol: Record<string, number> = {
      ETH: reference.WETH!,
      BTC: reference.WBTC!,
      USDC: reference.USDC!,
      LINK: reference.LINK!,
    };
    for (const t of tickers) {
      const usd = tickerUsd(t, tokenDecimals(tokens, t.tokenAddress));
      expect(Math.abs(usd.mid / bySymbol[t.tokenSymbol]! - 1), t.tokenSymbol).toBeLessThan(1e-9);
      expect(usd.updatedAtMs).toBe((GENESIS + 24 * 3600) * 1000);
    }
    // The synthetic index token's decimals come from /tokens, not from oracleDecimals.
    const link = tickerOf(tickers, SYNTH_LINK)!;
    expect(tokenDecimals(tokens, SYNTH_LINK)).toBe(18);
    expect(link.oracleDecimals).not.toBe(18);
  });

  it('rides out the stand-in’s 429 with Retry-After and its 5xx', async () => {
    const server = opened.server('gmx_oracle');
    const { client } = opened.sources.get('gmx_oracle')!;
    const before = client.stats.retries;
    const startMs = clock.nowMs();
    server.faults.inject(
      { fault: { kind: 'secondary-limit', retryAfterSeconds: 3 } },
      { fault: { kind: 'server-error', status: 502 } },
    );
    expect((await client.tickers()).length).toBe(4);
    expect(client.stats.retries - before).toBe(2);
    // The client waited (on the test clock) at least the 3 s the keeper asked for.
    expect(clock.nowMs() - startMs).toBeGreaterThanOrEqual(3000);
    expect(server.stats.violations).toBe(0);
  });
});
