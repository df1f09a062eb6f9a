import pino from 'pino';
import { encodeAbiParameters, pad } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenomicsArea } from '../src/areas/tokenomics/index.js';
import { TRANSFER_TOPIC, TransferSink } from '../src/areas/tokenomics/ingest.js';
import { ZERO_ADDRESS } from '../src/areas/tokenomics/ledger.js';
import { MarketRepository } from '../src/areas/tokenomics/market-repo.js';
import { TokenomicsRepository } from '../src/areas/tokenomics/repo.js';
import { type TokenTarget, tokenomicsTargets } from '../src/areas/tokenomics/targets.js';
import { loadConfig } from '../src/config/index.js';
import { addressBookFromRegistry } from '../src/registry/address-book.js';
import { registry } from '../src/registry/index.js';
import { CoingeckoClient } from '../src/sources/coingecko/client.js';
import type { CoingeckoEndpoint } from '../src/sources/coingecko/endpoint.js';
import { EvmChains } from '../src/sources/evm/chains.js';
import type { EvmLog, Hex } from '../src/sources/evm/types.js';
import { SourceMap } from '../src/sources/index.js';
import type { Store } from '../src/store/db.js';
import { TestClock, testStore } from './helpers.js';
import { areaRunner } from './support/areas.js';

/**
 * The market-data source failing under the tokenomics area: CoinGecko's JSON 429, a CDN's plain-text `Throttled`
 * 429, an HTML 503 page, a body of another shape, and a run killed after some requests. Each fails the
 * `tokenomics.market` run and writes nothing: the published documents stay byte-identical. A good run afterwards
 * (a new job instance) republishes every path with the new reading, never half of it. No sandbox: a ledger and a
 * snapshot are written to the store directly and CoinGecko is a fake `fetch`.
 */

const S = Date.UTC(2026, 10, 20, 13) / 1000; // the snapshot's time
const HOLDER = '0x00000000000000000000000000000000000000a1';

type Answer = { status: number; body: string; headers?: Record<string, string> };
const ok = (v: unknown): Answer => ({ status: 200, body: JSON.stringify(v) });

/** CoinGecko's answers for any coin, priced at `price` (one CEX ticker on `cex_a`). */
function goodAnswer(url: URL, price: number): Answer {
  const p = url.pathname;
  const id = p.split('/')[2] ?? '';
  const ms = S * 1000;
  if (p === '/global') {
    return ok({
      data: {
        total_market_cap: { usd: 3e12 },
        total_volume: { usd: 1e11 },
        market_cap_percentage: { btc: 50 },
        market_cap_change_percentage_24h_usd: 1,
        updated_at: S,
      },
    });
  }
  if (p.startsWith('/exchanges/')) {
    return ok({
      name: 'A',
      centralized: true,
      trust_score: 9,
      trust_score_rank: 1,
      year_established: 2017,
      country: null,
      url: 'https://a.invalid',
      has_trading_incentive: false,
      trade_volume_24h_btc: 1,
    });
  }
  if (p.endsWith('/market_chart')) {
    const prices = Array.from({ length: 32 }, (_, i) => [ms - (31 - i) * 86_400_000, price * (1 + 0.01 * (i % 3))]);
    return ok({ prices, market_caps: prices, total_volumes: prices });
  }
  if (p.endsWith('/tickers')) {
    return ok({
      name: id,
      tickers: [
        {
          base: 'X',
          target: 'USDT',
          market: { name: 'A', identifier: 'cex_a', has_trading_incentive: false },
          last: price,
          volume: 1000,
          converted_last: { usd: price },
          converted_volume: { usd: 1000 * price },
          trust_score: 'green',
          bid_ask_spread_percentage: 0.1,
          timestamp: null,
          last_traded_at: null,
          last_fetch_at: null,
          is_anomaly: false,
          is_stale: false,
          cost_to_move_up_usd: 5000,
          cost_to_move_down_usd: 4000,
          coin_id: id,
        },
      ],
    });
  }
  return ok({
    id,
    symbol: id,
    name: id,
    last_updated: null,
    market_data: {
      current_price: { usd: price },
      market_cap: { usd: price * 1e6 },
      total_volume: { usd: 1e5 },
      fully_diluted_valuation: {},
      circulating_supply: 1e6,
      total_supply: 2e6,
      max_supply: null,
      last_updated: null,
    },
  });
}

/** A fake CoinGecko: `fault(call)` may replace the good answer of the n-th request (from 1), or throw. */
function fakeFetch(price: number, fault: (n: number, url: URL) => Answer | undefined = () => undefined) {
  let calls = 0;
  const fn = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    calls++;
    const a = fault(calls, url) ?? goodAnswer(url, price);
    return new Response(a.body, { status: a.status, headers: a.headers });
  }) as typeof fetch;
  return { fn, calls: () => calls };
}

const endpoint = (fetchFn: typeof fetch): CoingeckoEndpoint => {
  const client = new CoingeckoClient({
    baseUrl: 'https://api.coingecko.invalid',
    fetch: fetchFn,
    sleep: async () => {},
    minIntervalMs: 0,
    maxRetries: 2,
  });
  return { client, baseUrl: client.baseUrl, plan: 'demo', source: 'coingecko' };
};

const THROTTLED: Answer = { status: 429, body: 'Throttled\n', headers: { 'content-type': 'text/plain' } };
const CG_429: Answer = {
  status: 429,
  body: JSON.stringify({ status: { error_code: 429, error_message: "You've exceeded the Rate Limit." } }),
  headers: { 'content-type': 'application/json' },
};
const HTML_503: Answer = {
  status: 503,
  body: '<html><head><title>503 Service Temporarily Unavailable</title></head><body>cloudflare</body></html>',
  headers: { 'content-type': 'text/html' },
};

describe('the tokenomics market source failing', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  const clock = new TestClock(S * 1000);
  const env = (fetchFn: typeof fetch) => {
    const chain = registry.chain('ethereum')!;
    return {
      config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
      registry,
      book: addressBookFromRegistry(registry, ['ethereum']),
      sources: new SourceMap({
        evm: new EvmChains([{ id: chain.id, rpcUrl: 'http://127.0.0.1:9', finalityDepth: chain.finalityDepth }], {
          log: pino({ level: 'warn' }),
        }),
      }).with('coingecko', endpoint(fetchFn)),
    };
  };
  const runner = (fetchFn: typeof fetch) => areaRunner(tokenomicsArea, env(fetchFn), store, clock);
  const published = async () =>
    store.db
      .selectFrom('datasets')
      .select(['path', 'payload', 'meta', 'version'])
      .where('area', '=', 'tokenomics')
      .orderBy('path')
      .execute();
  const priceOf = (rows: Awaited<ReturnType<typeof published>>, path: string) => {
    const r = rows.find((x) => x.path === path)!;
    return (JSON.parse(r.payload) as { tokenomics_metrics: { price: number | null } | null }[])[0]!.tokenomics_metrics
      ?.price;
  };

  beforeAll(async () => {
    ({ store, cleanup } = testStore());
    await store.migrate();
    const targets = tokenomicsTargets(env(fakeFetch(1).fn));
    const uni = targets.find((t) => t.protocol === 'uniswap') as TokenTarget;
    expect(uni.coingeckoId).toBe('uniswap');
    // A ledger of one mint at block 100 and a snapshot at block 101 (S).
    const log = {
      address: uni.address,
      blockNumber: 100n,
      logIndex: 0,
      transactionHash: `0x${'1'.padStart(64, '0')}`,
      topics: [TRANSFER_TOPIC, pad(ZERO_ADDRESS as Hex), pad(HOLDER as Hex)],
      data: encodeAbiParameters([{ type: 'uint256' }], [10n ** 24n]),
    } as unknown as EvmLog;
    const block = (n: number) => ({
      number: n,
      hash: `0x${n.toString(16).padStart(64, '0')}` as Hex,
      parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` as Hex,
      timestamp: S - (101 - n) * 12,
    });
    await store.db.transaction().execute((trx) =>
      new TransferSink(uni, 100).apply(trx, { from: 100, to: 101 }, [[log]], {
        chain: uni.chain,
        blocks: new Map([
          [100, block(100)],
          [101, block(101)],
        ]),
        senders: new Map(),
      }),
    );
    await new TokenomicsRepository(store.db).saveSnapshot({
      chain: uni.chain,
      token: uni.address,
      blockNumber: 101,
      timestamp: S,
      totalSupply: 10n ** 24n,
      replayedSupply: 10n ** 24n,
      sample: [],
      contracts: [],
    });
    // A first good reading 10 minutes before the snapshot, then the published documents.
    clock.ms = (S - 600) * 1000;
    const first = runner(fakeFetch(2).fn);
    await first.run('tokenomics.market');
    clock.ms = S * 1000;
    await first.run('tokenomics.compute');
  });
  afterAll(async () => cleanup?.());

  it('publishes the seven paths with the first reading', async () => {
    const rows = await published();
    expect(rows.map((r) => r.path)).toHaveLength(7);
    expect(priceOf(rows, '/data/tokenomics/uniswap')).toBe(2);
  });

  const faults: { name: string; fault: (n: number, url: URL) => Answer | undefined; error: RegExp }[] = [
    { name: "CoinGecko's JSON 429 on every request", fault: () => CG_429, error: /429.*Rate Limit/ },
    {
      name: "a CDN's plain-text Throttled 429 on the tickers",
      fault: (_, u) => (u.pathname.endsWith('/tickers') ? THROTTLED : undefined),
      error: /Throttled/,
    },
    {
      name: 'an HTML 503 page on /global',
      fault: (_, u) => (u.pathname === '/global' ? HTML_503 : undefined),
      error: /503/,
    },
    {
      name: 'a 200 whose body is of another shape (market_data without current_price)',
      fault: (_, u) =>
        /^\/coins\/[^/]+$/.test(u.pathname)
          ? ok({ id: 'uniswap', symbol: 'uni', name: 'Uniswap', last_updated: null, market_data: { market_cap: {} } })
          : undefined,
      error: /invalid response at \/market_data/,
    },
    {
      name: 'a 200 that is not JSON, every time',
      fault: (_, u) =>
        u.pathname.endsWith('/market_chart') ? { status: 200, body: '<html>maintenance</html>' } : undefined,
      error: /unavailable after 3 attempts/,
    },
  ];

  it.each(faults)(
    '$name: the run fails, nothing is written, the documents stay byte-identical',
    async ({ fault, error }) => {
      const before = await published();
      const readings = await new MarketRepository(store.db).count();
      clock.ms = (S - 300) * 1000;
      const r = runner(fakeFetch(3, fault).fn);
      await expect(r.run('tokenomics.market')).rejects.toThrow(error);
      expect(await new MarketRepository(store.db).count()).toBe(readings);
      clock.ms = S * 1000;
      expect(await r.run('tokenomics.compute')).toMatch(/up to date/);
      expect(await published()).toEqual(before);
    },
  );

  it('one answer that is not JSON is retried, and the run completes', async () => {
    const once = fakeFetch(3, (n) => (n === 3 ? { status: 200, body: '<html>maintenance</html>' } : undefined));
    clock.ms = (S - 300) * 1000;
    const r = runner(once.fn);
    expect(await r.run('tokenomics.market')).toMatch(/uniswap/);
    clock.ms = S * 1000;
    await r.run('tokenomics.compute');
    expect(priceOf(await published(), '/data/tokenomics/uniswap')).toBe(3);
  });

  it('a run killed after n requests writes nothing; a new job instance then republishes every path whole', async () => {
    const total = fakeFetch(4);
    clock.ms = (S - 200) * 1000;
    // A whole run makes 69 requests: 22 registry tokens × 3, the two reference charts, /global (the flag is fresh).
    const probe = new MarketRepository(store.db);
    const readings = await probe.count();
    const before = await published();
    for (const killAt of [1, 2, 5, 40, 69]) {
      const killed = fakeFetch(4, (n) => {
        // The process is gone from the n-th request on: nothing after it answers.
        if (n >= killAt) throw new TypeError(`fetch failed: killed after ${killAt - 1} requests`);
        return undefined;
      });
      const r = runner(killed.fn);
      await expect(r.run('tokenomics.market')).rejects.toThrow();
      expect(await probe.count(), `killed at ${killAt}`).toBe(readings);
      clock.ms = S * 1000;
      expect(await r.run('tokenomics.compute')).toMatch(/up to date/);
      expect(await published()).toEqual(before);
      clock.ms = (S - 200) * 1000;
    }
    const fresh = runner(total.fn);
    await fresh.run('tokenomics.market');
    expect(total.calls()).toBe(69);
    clock.ms = S * 1000;
    await fresh.run('tokenomics.compute');
    const after = await published();
    expect(after.map((r) => r.path)).toEqual(before.map((r) => r.path));
    // Every path moved to the new reading together.
    for (const row of after) expect(row.version).not.toBe(before.find((b) => b.path === row.path)!.version);
    expect(priceOf(after, '/data/tokenomics/uniswap')).toBe(4);
    expect(priceOf(after, '/data/tokenomics/metrics/uniswap')).toBe(4);
    const ex = JSON.parse(after.find((r) => r.path === '/data/tokenomics/exchanges/uniswap')!.payload) as {
      exchange_metrics: { cex_volume: number } | null;
    }[];
    expect(ex[0]!.exchange_metrics?.cex_volume).toBe(4000);
  });
});
