import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../test/helpers.js';
import { DAY, HOUR } from '../../core/time.js';
import { CoingeckoClient } from '../../sources/coingecko/client.js';
import type { Store } from '../../store/db.js';
import type { CoinReading } from './market-days.js';
import { CHART_DAYS, MarketIngest } from './market-ingest.js';
import { MarketRepository } from './market-repo.js';
import type { TokenTarget } from './targets.js';

const T = Date.UTC(2026, 10, 20, 12) / 1000;
const TARGET: TokenTarget = {
  chain: 'ethereum',
  protocol: 'uniswap',
  symbol: 'UNI',
  address: '0x00000000000000000000000000000000000000aa',
  decimals: 18,
  coingeckoId: 'uniswap',
  startBlock: 0,
  labels: [],
  declaration: null,
};

const ticker = (venue: string, usd: number | null) => ({
  base: 'UNI',
  target: 'USDT',
  market: { name: venue.toUpperCase(), identifier: venue, has_trading_incentive: false },
  last: null,
  volume: 10,
  converted_last: { usd: 5 },
  converted_volume: { usd },
  trust_score: 'green',
  bid_ask_spread_percentage: 0.1,
  timestamp: null,
  last_traded_at: null,
  last_fetch_at: null,
  is_anomaly: false,
  is_stale: false,
  coin_id: 'uniswap',
});

/** A fake CoinGecko answering for UNI with venues `cex_a` (known) and `gone` (404), counting requests by path. */
function fake() {
  const paths: string[] = [];
  const fn = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    paths.push(url.pathname + (url.pathname.endsWith('market_chart') ? `?days=${url.searchParams.get('days')}` : ''));
    const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status });
    const p = url.pathname;
    if (p === '/global') {
      return json({
        data: {
          total_market_cap: { usd: 1e12 },
          total_volume: {},
          market_cap_percentage: {},
          market_cap_change_percentage_24h_usd: null,
          updated_at: T,
        },
      });
    }
    if (p === '/exchanges/gone') return json({ error: 'exchange not found' }, 404);
    if (p.startsWith('/exchanges/')) {
      return json({
        name: 'A',
        centralized: true,
        trust_score: 9,
        trust_score_rank: 1,
        year_established: null,
        country: null,
        url: '',
        has_trading_incentive: null,
        trade_volume_24h_btc: null,
      });
    }
    if (p.endsWith('/market_chart')) {
      return json({
        prices: [
          [T * 1000 - 86_400_000, 4],
          [T * 1000, null],
          [T * 1000, 5],
        ],
        market_caps: [],
        total_volumes: [],
      });
    }
    if (p.endsWith('/tickers')) return json({ name: 'Uniswap', tickers: [ticker('cex_a', 50), ticker('gone', null)] });
    return json({
      id: 'uniswap',
      symbol: 'uni',
      name: 'Uniswap',
      last_updated: null,
      market_data: {
        current_price: { usd: 5 },
        market_cap: {},
        total_volume: {},
        fully_diluted_valuation: {},
        circulating_supply: 600,
        total_supply: 1000,
        max_supply: 1000,
        last_updated: null,
      },
    });
  }) as typeof fetch;
  return { fn, paths };
}

describe('tokenomics.market', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore());
    await store.migrate();
  });
  afterEach(async () => cleanup());

  it('reads each endpoint once, keeps null as null, and refreshes exchange flags at most daily', async () => {
    const f = fake();
    const client = new CoingeckoClient({ baseUrl: 'https://cg.invalid', fetch: f.fn, minIntervalMs: 0 });
    const ingest = new MarketIngest(client, [TARGET, { ...TARGET, protocol: 'other', coingeckoId: undefined }]);
    const clock = new TestClock(T * 1000);
    const summary = await ingest.run({ store, clock });
    expect(summary).toBe('uniswap: 2 tickers, 1 exchange flags refreshed, 1 unknown; 8 requests');
    expect(f.paths.sort()).toEqual(
      [
        '/coins/uniswap',
        `/coins/uniswap/market_chart?days=${CHART_DAYS}`,
        '/coins/uniswap/tickers',
        `/coins/ethereum/market_chart?days=${CHART_DAYS}`,
        `/coins/bitcoin/market_chart?days=${CHART_DAYS}`,
        '/global',
        '/exchanges/cex_a',
        '/exchanges/gone',
      ].sort(),
    );
    const repo = new MarketRepository(store.db);
    const coin = (await repo.readingAt<CoinReading>('coin', 'uniswap', T))!;
    expect(coin.fetchedAt).toBe(T);
    // No market cap in the answer: null, never 0; the chart without its null point.
    expect(coin.reading).toMatchObject({ priceUsd: 5, marketCapUsd: null, circulatingSupply: 600, maxSupply: 1000 });
    expect(coin.reading.chart).toEqual([
      [T * 1000 - 86_400_000, 4],
      [T * 1000, 5],
    ]);
    expect(coin.reading.tickers.map((t) => [t.market.identifier, t.converted_volume.usd, t.last])).toEqual([
      ['cex_a', 50, null],
      ['gone', null, null],
    ]);
    expect((await repo.exchanges()).map((e) => [e.id, e.centralized])).toEqual([['cex_a', true]]);

    // An hour later the known flag is fresh: only the unknown venue is asked again.
    f.paths.length = 0;
    clock.advance(HOUR);
    await ingest.run({ store, clock });
    expect(f.paths.filter((p) => p.startsWith('/exchanges/'))).toEqual(['/exchanges/gone']);
    // A day after it was fetched, the flag is refreshed.
    f.paths.length = 0;
    clock.ms = (T + DAY) * 1000;
    await ingest.run({ store, clock });
    expect(f.paths.filter((p) => p.startsWith('/exchanges/')).sort()).toEqual(['/exchanges/cex_a', '/exchanges/gone']);
    expect(await repo.newestFetch()).toBe(T + DAY);
  });
});
