import { DAY } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import { REFERENCE_COINS } from '../../registry/tokens.js';
import { type CoingeckoClient, CoingeckoError } from '../../sources/coingecko/client.js';
import type { CoingeckoMarketChart, CoingeckoTicker } from '../../sources/coingecko/schemas.js';
import type { ExchangeInfo, Ticker } from './compute.js';
import { RETURN_WINDOW_DAYS } from './market.js';
import type { ChartReading, CoinReading } from './market-days.js';
import { MarketRepository } from './market-repo.js';
import type { TokenTarget } from './targets.js';

/**
 * `tokenomics.market`: the market-data source's readings of each tracked token (docs/methodology/tokenomics.md
 * "Market readings"). One run, for each target with a CoinGecko id: `/coins/{id}` (price, market cap, supplies),
 * `/coins/{id}/market_chart` (daily, `CHART_DAYS`: the 30-day return window and the close before it),
 * `/coins/{id}/tickers` with depth (every page), and `/exchanges/{id}` for each venue its tickers name whose flag is
 * missing or older than `EXCHANGE_REFRESH_SECONDS`; once per run the ETH and BTC reference charts and `/global`.
 * Everything is fetched first and written in one transaction at the run's fetch time (market-repo.ts): a source that
 * fails (429s beyond the client's retries, 5xx, a body of another shape) fails the run and writes nothing, so what is
 * published stays as it was; a run killed midway leaves nothing half-written.
 */

/** Days of `market_chart`: the 30 returns of the window need 31 daily closes. */
export const CHART_DAYS = RETURN_WINDOW_DAYS + 1;
/** An exchange's CEX/DEX flag is fetched again at most this often. */
export const EXCHANGE_REFRESH_SECONDS = DAY;
/** Hourly: records are read at hourly snapshots, and a reading stands for them for `MARKET_TOLERANCE_SECONDS`. */
export const MARKET_EVERY_SECONDS = 3600;

const finite = (v: number | null | undefined): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

/** The price points of a daily chart, without CoinGecko's null points. */
export function chartPoints(chart: CoingeckoMarketChart): [number, number][] {
  return chart.prices.flatMap(([t, p]) => (finite(p) === null ? [] : [[t, p as number] as [number, number]]));
}

/** A CoinGecko ticker as the exchange figures read it (exchanges.ts `Ticker`). */
export function tickerOf(t: CoingeckoTicker): Ticker {
  return {
    market: { name: t.market.name, identifier: t.market.identifier },
    last: finite(t.last),
    volume: finite(t.volume),
    converted_volume: { usd: finite(t.converted_volume.usd) },
    converted_last: { usd: finite(t.converted_last.usd) },
    bid_ask_spread_percentage: finite(t.bid_ask_spread_percentage),
    cost_to_move_up_usd: finite(t.cost_to_move_up_usd),
    cost_to_move_down_usd: finite(t.cost_to_move_down_usd),
    trust_score: t.trust_score,
    is_anomaly: t.is_anomaly,
    is_stale: t.is_stale,
    timestamp: t.timestamp,
  };
}

export class MarketIngest {
  constructor(
    private readonly client: CoingeckoClient,
    private readonly targets: readonly TokenTarget[],
  ) {}

  /** The CoinGecko ids read (each once, in the targets' order). */
  get coinIds(): string[] {
    return [...new Set(this.targets.flatMap((t) => (t.coingeckoId ? [t.coingeckoId] : [])))];
  }

  async run(ctx: Pick<JobContext, 'store' | 'clock'>): Promise<string> {
    const ids = this.coinIds;
    if (!ids.length) return 'no token with a CoinGecko id';
    const repo = new MarketRepository(ctx.store.db);
    const fetchedAt = Math.floor(ctx.clock.nowMs() / 1000);
    const requestsBefore = this.client.stats.requests;
    const coins = new Map<string, CoinReading>();
    const venues = new Set<string>();
    for (const id of ids) {
      const coin = await this.client.coin(id);
      const chart = await this.client.marketChart(id, CHART_DAYS);
      const tickers = (await this.client.tickers(id)).map(tickerOf);
      for (const t of tickers) if (t.market.identifier) venues.add(t.market.identifier);
      const md = coin.market_data;
      coins.set(id, {
        priceUsd: finite(md.current_price.usd),
        marketCapUsd: finite(md.market_cap.usd),
        circulatingSupply: finite(md.circulating_supply),
        totalSupply: finite(md.total_supply),
        maxSupply: finite(md.max_supply),
        chart: chartPoints(chart),
        tickers,
      });
    }
    const charts = new Map<string, ChartReading>();
    for (const id of [REFERENCE_COINS.ETH, REFERENCE_COINS.BTC]) {
      charts.set(id, { chart: chartPoints(await this.client.marketChart(id, CHART_DAYS)) });
    }
    const global = await this.client.global();
    const known = new Map((await repo.exchanges()).map((e) => [e.id, e.fetchedAt]));
    const exchanges: ExchangeInfo[] = [];
    let unknown = 0;
    for (const id of [...venues].sort()) {
      const at = known.get(id);
      if (at !== undefined && fetchedAt - at < EXCHANGE_REFRESH_SECONDS) continue;
      try {
        const e = await this.client.exchange(id);
        exchanges.push({ id, name: e.name, centralized: e.centralized });
      } catch (err) {
        // A venue CoinGecko does not know as an exchange: its type stays unknown (neither CEX nor DEX volume).
        if (err instanceof CoingeckoError && err.status === 404) {
          unknown++;
          continue;
        }
        throw err;
      }
    }
    await repo.saveRun({
      fetchedAt,
      coins,
      charts,
      global: { totalMarketCapUsd: finite(global.data.total_market_cap.usd) },
      exchanges,
    });
    const requests = this.client.stats.requests - requestsBefore;
    return (
      `${ids.join(', ')}: ${[...coins.values()].reduce((n, c) => n + c.tickers.length, 0)} tickers, ` +
      `${exchanges.length} exchange flags refreshed${unknown ? `, ${unknown} unknown` : ''}; ${requests} requests`
    );
  }
}
