import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/helpers.js';
import { coingeckoChain, coingeckoHours, coingeckoView, GENESIS, UNI } from '../../../test/support/coingecko-world.js';
import { startTestSources, type TestSources } from '../../../test/support/sources.js';
import { configWith, loadConfig } from '../../config/index.js';
import {
  COINGECKO_DEMO_URL,
  COINGECKO_LIMIT_WAIT_MS,
  COINGECKO_PRO_URL,
  CoingeckoClient,
  CoingeckoError,
  CoingeckoSchemaError,
  coingeckoErrorOf,
} from './client.js';
import { coingeckoFromConfig, openCoingecko } from './endpoint.js';

/**
 * Recorded shapes of what CoinGecko and the CDN in front of it answer when they refuse (docs.coingecko.com "Errors &
 * Rate Limits"; the CDN's pages are HTML or plain text, never JSON).
 */
const RATE_LIMITED = {
  status: {
    error_code: 429,
    error_message:
      "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits.",
  },
};
const PRO_KEY_ON_DEMO_HOST = {
  status: {
    error_code: 10010,
    error_message:
      'If you are using Pro API key, please change your root URL from api.coingecko.com to pro-api.coingecko.com',
  },
};
const HTML_503 =
  '<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>';
const GLOBAL = {
  data: {
    active_cryptocurrencies: 17000,
    total_market_cap: { usd: 3.1e12, btc: 3.2e7 },
    total_volume: { usd: 1.2e11 },
    market_cap_percentage: { btc: 57.1, eth: 11.9 },
    market_cap_change_percentage_24h_usd: -1.2,
    updated_at: 1_790_000_000,
  },
};

/** A fetch that answers from a script, one entry per request; records the requests. */
function scripted(answers: (() => Response)[]) {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const fetchFn = (async (url: string, init?: RequestInit) => {
    requests.push({ url: String(url), headers: { ...(init?.headers as Record<string, string>) } });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  }) as unknown as typeof fetch;
  return { fetchFn, requests };
}
const answer =
  (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers });

describe('CoinGecko client', () => {
  const noSleep = async () => undefined;

  it('sends a demo key in x-cg-demo-api-key to the demo host, a pro key in x-cg-pro-api-key, none keyless', async () => {
    const demo = scripted([answer(GLOBAL)]);
    const d = new CoingeckoClient({ apiKey: 'CG-demo', fetch: demo.fetchFn, sleep: noSleep });
    expect((await d.global()).data.market_cap_percentage.btc).toBe(57.1);
    expect(demo.requests[0]).toEqual({
      url: `${COINGECKO_DEMO_URL}/global`,
      headers: { accept: 'application/json', 'x-cg-demo-api-key': 'CG-demo' },
    });
    const pro = scripted([answer(GLOBAL)]);
    await new CoingeckoClient({ apiKey: 'CG-pro', plan: 'pro', fetch: pro.fetchFn, sleep: noSleep }).global();
    expect(pro.requests[0]!.url).toBe(`${COINGECKO_PRO_URL}/global`);
    expect(pro.requests[0]!.headers).toEqual({ accept: 'application/json', 'x-cg-pro-api-key': 'CG-pro' });
    const keyless = scripted([answer(GLOBAL)]);
    await new CoingeckoClient({ fetch: keyless.fetchFn, sleep: noSleep }).global();
    expect(Object.keys(keyless.requests[0]!.headers)).toEqual(['accept']);
  });

  it('waits a 429’s Retry-After, a minute after one without (a plain-text Throttled), backs off an HTML 503 and a 200 that is not JSON', async () => {
    const slept: number[] = [];
    let now = 1_000_000;
    const { fetchFn } = scripted([
      answer(RATE_LIMITED, 429, { 'retry-after': '7' }),
      answer('Throttled', 429, { 'content-type': 'text/plain' }),
      answer(HTML_503, 503, { 'content-type': 'text/html' }),
      answer('<html>cut sho', 200),
      answer(GLOBAL),
    ]);
    const client = new CoingeckoClient({
      apiKey: 'CG-demo',
      fetch: fetchFn,
      clock: { nowMs: () => now },
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
      random: () => 0.5,
      minIntervalMs: 0,
    });
    expect((await client.global()).data.total_market_cap.usd).toBe(3.1e12);
    expect(slept[0]).toBe(7000);
    expect(slept[1]).toBe(COINGECKO_LIMIT_WAIT_MS);
    expect(slept).toHaveLength(4);
    expect(client.stats).toMatchObject({ requests: 5, retries: 4, limited: 2 });
  });

  it('paces its requests by the plan: a keyless client waits 6 s between two', async () => {
    let now = 0;
    const slept: number[] = [];
    const { fetchFn } = scripted([answer(GLOBAL), answer(GLOBAL)]);
    const client = new CoingeckoClient({
      fetch: fetchFn,
      clock: { nowMs: () => now },
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    await client.global();
    await client.global();
    expect(slept).toEqual([6000]);
  });

  it('fails retryable when the retries are spent, at once on a 4xx with CoinGecko’s error code, and on another shape', async () => {
    const down = new CoingeckoClient({
      fetch: scripted(Array.from({ length: 3 }, () => answer(HTML_503, 503))).fetchFn,
      sleep: noSleep,
      maxRetries: 2,
      minIntervalMs: 0,
    });
    const spent = await down.global().catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(CoingeckoError);
    expect(spent).toMatchObject({ retryable: true });
    expect((spent as Error).message).toMatch(/unavailable after 3 attempts: HTTP 503/);

    const key = 'CG-secret-key';
    const wrongHost = new CoingeckoClient({
      apiKey: key,
      fetch: scripted([answer(PRO_KEY_ON_DEMO_HOST, 401)]).fetchFn,
      sleep: noSleep,
    });
    const refused = await wrongHost.global().catch((e: unknown) => e);
    expect(refused).toMatchObject({ retryable: false, status: 401, errorCode: 10010 });
    expect((refused as Error).message).toMatch(/pro-api\.coingecko\.com/);
    expect((refused as Error).message).not.toContain(key);

    const missing = new CoingeckoClient({
      fetch: scripted([answer({ error: 'coin not found' }, 404)]).fetchFn,
      sleep: noSleep,
    });
    await expect(missing.coin('nothing')).rejects.toMatchObject({ status: 404, message: /coin not found/ });

    const blocked = new CoingeckoClient({
      fetch: scripted([answer('<html><body>Access denied | error 1020</body></html>', 403)]).fetchFn,
      sleep: noSleep,
    });
    await expect(blocked.global()).rejects.toMatchObject({ status: 403, retryable: false, message: /error 1020/ });

    const changed = new CoingeckoClient({
      fetch: scripted([answer({ data: { ...GLOBAL.data, updated_at: 'yesterday' } })]).fetchFn,
      sleep: noSleep,
    });
    const schema = await changed.global().catch((e: unknown) => e);
    expect(schema).toBeInstanceOf(CoingeckoSchemaError);
    expect(schema).toMatchObject({ field: '/data/updated_at', retryable: false });
    await expect(changed.coin('../global')).rejects.toBeInstanceOf(RangeError);
  });

  it('reads every error body shape CoinGecko sends, and any other text', () => {
    expect(coingeckoErrorOf(JSON.stringify(RATE_LIMITED)).code).toBe(429);
    expect(coingeckoErrorOf('{"error":"coin not found"}')).toEqual({ message: 'coin not found' });
    expect(coingeckoErrorOf('{"error":{"status":{"error_code":10002,"error_message":"API Key Missing"}}}')).toEqual({
      message: 'API Key Missing',
      code: 10002,
    });
    expect(coingeckoErrorOf('Throttled\n')).toEqual({ message: 'Throttled' });
    expect(coingeckoErrorOf('')).toEqual({ message: '(empty body)' });
  });

  it('pages tickers until a page has fewer than 100', async () => {
    const ticker = (i: number) => ({
      base: 'UNI',
      target: 'USDT',
      market: { name: 'X', identifier: `x${i}`, has_trading_incentive: false },
      last: 8,
      volume: 1,
      converted_last: { usd: 8 },
      converted_volume: { usd: 8 },
      trust_score: 'green',
      bid_ask_spread_percentage: 0.1,
      timestamp: '2026-11-29T00:00:00+00:00',
      last_traded_at: '2026-11-29T00:00:00+00:00',
      last_fetch_at: '2026-11-29T00:00:00+00:00',
      is_anomaly: false,
      is_stale: false,
      coin_id: 'uniswap',
      target_coin_id: 'tether',
    });
    const { fetchFn, requests } = scripted([
      answer({ name: 'Uniswap', tickers: Array.from({ length: 100 }, (_, i) => ticker(i)) }),
      answer({ name: 'Uniswap', tickers: [ticker(100)] }),
    ]);
    const client = new CoingeckoClient({ fetch: fetchFn, sleep: noSleep, minIntervalMs: 0 });
    expect(await client.tickers('uniswap')).toHaveLength(101);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?include_exchange_logo=false&depth=true&page=1',
      '?include_exchange_logo=false&depth=true&page=2',
    ]);
  });
});

describe('CoinGecko configuration', () => {
  it('reads the plan, its host and the key; pro needs a key; the key stays out of the handle', () => {
    expect(coingeckoFromConfig(loadConfig({}))).toEqual({
      baseUrl: COINGECKO_DEMO_URL,
      plan: 'demo',
      apiKey: undefined,
    });
    const pro = loadConfig({ COINGECKO_API_PLAN: 'pro', COINGECKO_API_KEY: 'CG-x' });
    expect(coingeckoFromConfig(pro)).toEqual({ baseUrl: COINGECKO_PRO_URL, plan: 'pro', apiKey: 'CG-x' });
    expect(() => loadConfig({ COINGECKO_API_PLAN: 'pro' })).toThrow(/COINGECKO_API_KEY/);
    expect(() => loadConfig({ COINGECKO_API_PLAN: 'enterprise' })).toThrow(/COINGECKO_API_PLAN/);
    expect(() => loadConfig({ COINGECKO_API_URL: 'ftp://x' })).toThrow(/COINGECKO_API_URL/);
    const custom = configWith(loadConfig({}), {
      COINGECKO_API_URL: 'http://127.0.0.1:9/api/v3/',
      COINGECKO_API_KEY: 'k',
    });
    const handle = openCoingecko(coingeckoFromConfig(custom));
    expect(handle.baseUrl).toBe('http://127.0.0.1:9/api/v3');
    expect(handle.source).toBe('coingecko');
    expect(JSON.stringify(handle)).not.toContain('"k"');
  });
});

describe('CoinGecko source against the sandbox stand-in', () => {
  const hours = coingeckoHours(50);
  const clock = new TestClock((GENESIS + 48 * 3600 + 600) * 1000);
  let opened: TestSources;

  beforeAll(async () => {
    opened = await startTestSources({
      kinds: ['coingecko'],
      clock,
      overrides: {
        coingecko: { world: Promise.resolve(coingeckoView(hours)), chain: coingeckoChain(hours), pollMs: 60_000 },
      },
    });
    await opened.server('coingecko').refresh();
  });
  afterAll(() => opened?.close());

  it('is opened from the keys the stand-in answers with, and names itself as the sandbox', () => {
    const handle = opened.sources.get('coingecko')!;
    expect(opened.config.coingecko.apiUrl).toBe(opened.server('coingecko').url);
    expect(opened.config.coingecko.plan).toBe('demo');
    expect(handle.source).toBe('sandbox:coingecko');
  });

  it('reads a coin, its chart, every ticker, the venues and the global market, as the stand-in’s truth has them', async () => {
    const { client } = opened.sources.get('coingecko')!;
    const server = opened.server('coingecko');
    const truth = server.truth('uniswap', clock.nowMs())!;
    const coin = await client.coin('uniswap');
    expect(coin.market_data.current_price.usd).toBe(truth.priceUsd);
    expect(coin.market_data.circulating_supply).toBe(truth.circulatingReported);
    expect(coin.market_data.total_supply).toBe(truth.totalSupply);
    const chart = await client.marketChart('uniswap', 1);
    expect(chart.prices.at(-1)).toEqual([clock.nowMs(), truth.priceUsd]);
    const tickers = await client.tickers('uniswap');
    expect(tickers.filter((t) => t.base === UNI).length).toBe(2);
    expect(tickers.some((t) => t.is_anomaly) && tickers.some((t) => t.is_stale)).toBe(true);
    const venues = await Promise.all(
      [...new Set(tickers.map((t) => t.market.identifier))].map((id) => client.exchange(id)),
    );
    expect(
      venues
        .filter((v) => !v.centralized)
        .map((v) => v.name)
        .sort(),
    ).toEqual(['Uniswap V2 (Ethereum)', 'Uniswap V3 (Ethereum)']);
    const cex = tickers.filter((t) => t.market.identifier.startsWith('sandbox_') && !t.is_anomaly && !t.is_stale);
    expect(cex.reduce((s, t) => s + (t.converted_volume.usd ?? 0), 0)).toBeCloseTo(truth.cexVolumeUsd, 6);
    const global = await client.global();
    expect(global.data.market_cap_percentage.eth).toBeGreaterThan(0);
    await expect(client.coin('nothing')).rejects.toMatchObject({ status: 404, retryable: false });
    expect(server.stats.violations).toBe(0);
  });

  it('rides out the stand-in’s 429 with Retry-After and its 5xx', async () => {
    const server = opened.server('coingecko');
    const { client } = opened.sources.get('coingecko')!;
    const before = client.stats.retries;
    const startMs = clock.nowMs();
    server.faults.inject(
      { fault: { kind: 'secondary-limit', retryAfterSeconds: 3 } },
      { fault: { kind: 'server-error', status: 503 } },
    );
    expect((await client.global()).data.total_market_cap.usd).toBeGreaterThan(0);
    expect(client.stats.retries - before).toBe(2);
    expect(clock.nowMs() - startMs).toBeGreaterThanOrEqual(3000);
    expect(server.stats.violations).toBe(0);
  });
});
