import { type Clock, HOUR } from '../../../core/time.js';
import type { WorldManifest } from '../../world/manifest.js';
import { pow } from '../../world/pow.js';
import type { WorldView } from '../../world/view.js';
import {
  type FaultRates,
  HttpError,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinService,
  startStandin,
} from '../base/index.js';
import { type MarketChain, rpcMarketChain } from './chain.js';
import {
  CEX_VENUES,
  CoingeckoMarket,
  type CoinTruth,
  dexVenueOf,
  GLOBAL_TURNOVER,
  type HourFacts,
  REFERENCE_DOMINANCE,
} from './world.js';

/**
 * A stand-in of CoinGecko's API v3 (`https://api.coingecko.com/api/v3`, or the pro host), serving what the tokenomics
 * area reads in CoinGecko's wire format: `GET /coins/{id}`, `/coins/{id}/market_chart`, `/coins/{id}/tickers` (100 a
 * page), `/exchanges/{id}`, `/global` and `/ping`, at the root of its URL (which plays `…/api/v3`). The market is
 * `./world.ts`; what it reads of the chain (`./chain.ts`) is read in the background, hour by hour, as the world closes
 * them (handlers answer from what was read; before the first hour is read they answer 503).
 *
 * Keys as CoinGecko checks them: on the demo host (`plan: 'demo'`) a request with `x-cg-demo-api-key` must carry the
 * sandbox's key (else 401, error 10002), one with `x-cg-pro-api-key` is refused (401, error 10010: a pro key on the
 * demo host), one without a key is keyless (a lower limit); on the pro host a missing key is 401 error 10002 and a
 * demo key 401 error 10011. Errors are CoinGecko's: `{"status": {"error_code", "error_message"}}` (401, 429) and
 * `{"error": "coin not found"}` (400, 404). Limits: `callsPerMinute` with a key (default 100), 10 keyless; the
 * 429 of an exhausted minute carries no `Retry-After` (CoinGecko documents none), an injected one does.
 */

export interface CoingeckoStandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  /** The world, once open: the Ethereum manifest (tokens, pools) and the closed hours' prices. */
  readonly world?: Promise<WorldView>;
  /** The Ethereum chain's RPC URL, once it answers (`totalSupply()`, blocks, swaps). */
  readonly rpcUrl?: Promise<string | undefined>;
  /** The chain reader instead of the RPC one (tests). */
  readonly chain?: MarketChain;
  /** The host played: `demo` (api.coingecko.com, default) or `pro`. */
  readonly plan?: 'demo' | 'pro';
  /** The key the stand-in accepts (default `SANDBOX_COINGECKO_KEY`). */
  readonly apiKey?: string;
  readonly faults?: FaultRates;
  /** Calls a minute with a key (default 100). */
  readonly callsPerMinute?: number;
  /** How often the chain is read for newly closed hours (default 5 s). */
  readonly pollMs?: number;
}

export interface CoingeckoStandin extends Standin {
  /** The market, once the world is open (ground truth: coins, venues, tickers at an hour). */
  market(): CoingeckoMarket | undefined;
  /** The hour quoted at `nowMs` (the newest closed hour read), if any. */
  quotedHour(nowMs: number): number | undefined;
  /** Ground truth of a coin at the hour quoted at `nowMs`. */
  truth(id: string, nowMs: number): CoinTruth | undefined;
  /** Reads the chain for every closed hour not read yet (the stand-in does it every `pollMs`). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** The key the sandbox's clients send (a demo plan's key). */
export const SANDBOX_COINGECKO_KEY = 'CG-sandbox-demo-key';

/** Seeded faults of the sandbox's CoinGecko: an occasional 5xx or 429 with `Retry-After`. */
export const SANDBOX_COINGECKO_FAULTS: FaultRates = {
  serverError: 0.01,
  secondaryLimit: 0.005,
  secondaryRetryAfterSeconds: 5,
};

export const RATE_LIMIT_MESSAGE =
  "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits.";
const ERROR_CODES: Record<string, number> = {
  'API Key Missing': 10002,
  'Invalid API Key': 10002,
  'If you are using Pro API key, please change your root URL from api.coingecko.com to pro-api.coingecko.com': 10010,
  'If you are using Demo API key, please change your root URL from pro-api.coingecko.com to api.coingecko.com': 10011,
};

const statusBody = (code: number, message: string) => ({ status: { error_code: code, error_message: message } });

function coingeckoDialect(plan: 'demo' | 'pro', key: string): StandinDialect {
  return {
    defaultResource: 'api',
    commonHeaders: { 'content-type': 'application/json; charset=utf-8', server: 'protoscore-coingecko-standin' },
    errorBody: (status, message) =>
      status === 400 || status === 404
        ? { error: message }
        : statusBody(ERROR_CODES[message] ?? status, status === 429 ? RATE_LIMIT_MESSAGE : message),
    identify: (headers) => {
      const demo = headers['x-cg-demo-api-key'];
      const pro = headers['x-cg-pro-api-key'];
      const [mine, other] = plan === 'demo' ? [demo, pro] : [pro, demo];
      if (other !== undefined) {
        throw new HttpError(
          401,
          plan === 'demo'
            ? 'If you are using Pro API key, please change your root URL from api.coingecko.com to pro-api.coingecko.com'
            : 'If you are using Demo API key, please change your root URL from pro-api.coingecko.com to api.coingecko.com',
        );
      }
      if (mine === undefined) {
        if (plan === 'pro') throw new HttpError(401, 'API Key Missing');
        return undefined;
      }
      if (mine !== key) throw new HttpError(401, 'Invalid API Key');
      return 'key';
    },
    rateLimitHeaders: () => ({}),
    primaryLimited: () => ({ status: 429, body: statusBody(429, RATE_LIMIT_MESSAGE) }),
    secondaryLimited: (retryAfterSeconds) => ({
      status: 429,
      body: statusBody(429, RATE_LIMIT_MESSAGE),
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  };
}

/** Everything the stand-in read of the chain, by hour. */
class FactsCache {
  readonly byHour = new Map<number, HourFacts>();
  newest: number | undefined;
}

/** Reads the facts of every closed hour of `view` not read yet, oldest first. */
async function readHours(
  view: WorldView,
  manifest: WorldManifest,
  market: CoingeckoMarket,
  chain: MarketChain,
  cache: FactsCache,
) {
  const pools = manifest.pools.map((p) => ({ address: p.address, version: p.version }));
  const poolTokens = new Map(manifest.pools.map((p) => [p.address.toLowerCase(), [p.token0, p.token1]] as const));
  let previousBlock: number | undefined;
  for (const h of view.hours()) {
    const known = cache.byHour.get(h.hour);
    if (known) {
      previousBlock = known.block;
      continue;
    }
    const block = await chain.blockAt(h.hour + HOUR);
    if (block === undefined) continue;
    const from = previousBlock ?? (await chain.blockAt(h.hour)) ?? -1;
    const supply: Record<string, number> = {};
    const dex: Record<string, Record<string, number>> = {};
    for (const coin of market.coins) {
      if (!coin.token) continue;
      const raw = await chain.totalSupply(coin.token.address, block);
      if (raw !== undefined) supply[coin.id] = Number(raw) / pow(10, coin.token.decimals);
    }
    for (const swap of await chain.swaps(pools, from + 1, block)) {
      const [t0, t1] = poolTokens.get(swap.pool) ?? [];
      for (const [address, amount] of [
        [t0, swap.amount0],
        [t1, swap.amount1],
      ] as const) {
        const coin = market.coins.find((c) => c.token && c.token.address.toLowerCase() === address?.toLowerCase());
        if (!coin?.token) continue;
        dex[coin.id] ??= {};
        dex[coin.id]![swap.pool] = (dex[coin.id]![swap.pool] ?? 0) + Number(amount) / pow(10, coin.token.decimals);
      }
    }
    cache.byHour.set(h.hour, { hour: h.hour, block, supply, dex });
    cache.newest = Math.max(cache.newest ?? h.hour, h.hour);
    previousBlock = block;
  }
}

export async function startCoingeckoStandin(options: CoingeckoStandinOptions): Promise<CoingeckoStandin> {
  const plan = options.plan ?? 'demo';
  const cache = new FactsCache();
  let view: WorldView | undefined;
  let market: CoingeckoMarket | undefined;
  let chain: MarketChain | undefined = options.chain;
  let failed: Error | undefined;
  const quotedHour = (nowMs: number) => {
    let newest: number | undefined;
    for (const h of cache.byHour.keys())
      if ((h + HOUR) * 1000 <= nowMs && (newest === undefined || h > newest)) newest = h;
    return newest;
  };
  const opening = (async () => {
    const v = await options.world;
    if (!v) return;
    const manifest = v.manifests.get('ethereum');
    if (!manifest) throw new Error('the world has no Ethereum manifest');
    if (!chain) {
      const url = await options.rpcUrl;
      if (url) chain = rpcMarketChain(url);
    }
    view = v;
    market = new CoingeckoMarket(options.seed, manifest, {
      hour: (h) => v.hour(h),
      facts: (h) => cache.byHour.get(h),
      quotedHour,
    });
  })().catch((err: Error) => {
    failed = err;
  });
  let reading: Promise<void> | undefined;
  const refresh = async () => {
    await opening;
    if (!view || !market || !chain) return;
    reading ??= readHours(view, view.manifests.get('ethereum')!, market, chain, cache).finally(() => {
      reading = undefined;
    });
    await reading;
  };

  const ready = (nowMs: number) => {
    if (failed) throw new HttpError(503, `world unavailable: ${failed.message}`);
    const hour = quotedHour(nowMs);
    if (!market || hour === undefined) throw new HttpError(503, 'market data is not available yet');
    return { m: market, hour };
  };
  const coinOf = (m: CoingeckoMarket, id: string) => {
    const coin = m.coin(id);
    if (!coin) throw new HttpError(404, 'coin not found');
    return coin;
  };
  const venueTickers = (m: CoingeckoMarket, hour: number, venue: string) =>
    m.coins.flatMap((c) => m.tickers(c, hour)).filter((t) => t.market.identifier === venue);

  const routes: RouteDef[] = [
    { method: 'GET', path: '/ping', resource: 'api', handler: () => json({ gecko_says: '(V3) To the Moon!' }) },
    {
      method: 'GET',
      path: '/coins/:id',
      resource: 'api',
      handler: (req) => {
        const { m, hour } = ready(req.nowMs);
        return json(m.coinAnswer(coinOf(m, req.params.id!), hour));
      },
    },
    {
      method: 'GET',
      path: '/coins/:id/market_chart',
      resource: 'api',
      handler: (req) => {
        const { m, hour } = ready(req.nowMs);
        const coin = coinOf(m, req.params.id!);
        const vs = req.query.get('vs_currency');
        if (vs === null) throw new HttpError(400, 'Missing parameter vs_currency');
        if (vs !== 'usd') throw new HttpError(400, 'invalid vs_currency');
        const daysRaw = req.query.get('days');
        if (daysRaw === null) throw new HttpError(400, 'Missing parameter days');
        if (!/^\d{1,5}$/.test(daysRaw) || Number(daysRaw) < 1) throw new HttpError(400, 'invalid days');
        const interval = req.query.get('interval');
        if (interval !== null && interval !== 'daily') throw new HttpError(400, 'invalid interval');
        return json(m.chartAnswer(coin, Number(daysRaw), hour, req.nowMs));
      },
    },
    {
      method: 'GET',
      path: '/coins/:id/tickers',
      resource: 'api',
      handler: (req) => {
        const { m, hour } = ready(req.nowMs);
        const coin = coinOf(m, req.params.id!);
        const page = Number(req.query.get('page') ?? '1');
        if (!Number.isInteger(page) || page < 1) throw new HttpError(400, 'invalid page');
        const depth = req.query.get('depth') === 'true';
        const all = m
          .tickers(coin, hour)
          .map(({ cost_to_move_up_usd, cost_to_move_down_usd, ...t }) =>
            depth && cost_to_move_up_usd !== undefined ? { ...t, cost_to_move_up_usd, cost_to_move_down_usd } : t,
          );
        return json({ name: coin.name, tickers: all.slice((page - 1) * 100, page * 100) });
      },
    },
    {
      method: 'GET',
      path: '/exchanges/:id',
      resource: 'api',
      handler: (req) => {
        const { m, hour } = ready(req.nowMs);
        const id = req.params.id!;
        const cex = CEX_VENUES.find((v) => v.id === id);
        const dex = m.manifest.pools.map(dexVenueOf).find((v) => v.id === id);
        if (!cex && !dex) throw new HttpError(404, 'exchange not found');
        // An exchange's tickers carry no depth and no coin market cap (CoinGecko's `ExchangeGetIDResponse.Ticker`).
        const tickers = venueTickers(m, hour, id).map(
          ({ coin_mcap_usd: _c, cost_to_move_up_usd: _u, cost_to_move_down_usd: _d, ...t }) => t,
        );
        const btcVolume = tickers.reduce((s, t) => s + (t.is_anomaly || t.is_stale ? 0 : t.converted_volume.btc), 0);
        return json({
          name: cex?.name ?? dex!.name,
          year_established: cex?.year ?? null,
          country: cex?.country ?? null,
          description: '',
          url: `https://exchange.sandbox.invalid/${id}`,
          image: '',
          facebook_url: '',
          reddit_url: '',
          telegram_url: '',
          slack_url: '',
          other_url_1: '',
          other_url_2: '',
          twitter_handle: '',
          has_trading_incentive: false,
          centralized: cex !== undefined,
          public_notice: '',
          alert_notice: '',
          trust_score: cex?.trust ?? 7,
          trust_score_rank: cex ? CEX_VENUES.indexOf(cex) + 1 : CEX_VENUES.length + 1,
          coins: new Set(tickers.map((t) => t.coin_id)).size,
          pairs: tickers.length,
          trade_volume_24h_btc: btcVolume,
          tickers: tickers.slice(0, 100),
          status_updates: [],
        });
      },
    },
    {
      method: 'GET',
      path: '/global',
      resource: 'api',
      handler: (req) => {
        const { m, hour } = ready(req.nowMs);
        const at = (h: number) => {
          const caps: Record<string, number> = {};
          for (const c of m.coins) {
            const s = m.supply(c, h).circulating;
            if (s !== null) caps[c.symbol] = Math.max(caps[c.symbol] ?? 0, s * m.price(c.priceSymbol, h));
          }
          const total = ((caps.btc ?? 0) + (caps.eth ?? 0)) / REFERENCE_DOMINANCE;
          return { caps, total };
        };
        const now = at(hour);
        const before = at(hour - 24 * HOUR);
        const percentage = Object.fromEntries(
          Object.entries(now.caps)
            .sort(([, a], [, b]) => b - a)
            .slice(0, 10)
            .map(([symbol, cap]) => [symbol, (cap / now.total) * 100]),
        );
        return json({
          data: {
            active_cryptocurrencies: 17_000,
            upcoming_icos: 0,
            ongoing_icos: 49,
            ended_icos: 3376,
            markets: 1_200,
            total_market_cap: {
              usd: now.total,
              btc: now.total / m.price('WBTC', hour),
              eth: now.total / m.price('WETH', hour),
            },
            total_volume: { usd: now.total * GLOBAL_TURNOVER },
            market_cap_percentage: percentage,
            market_cap_change_percentage_24h_usd: before.total > 0 ? (now.total / before.total - 1) * 100 : 0,
            volume_change_percentage_24h_usd: before.total > 0 ? (now.total / before.total - 1) * 100 : 0,
            updated_at: hour + HOUR,
          },
        });
      },
    },
  ];
  const service: StandinService = {
    name: 'coingecko',
    routes,
    dialect: coingeckoDialect(plan, options.apiKey ?? SANDBOX_COINGECKO_KEY),
  };
  const perMinute = options.callsPerMinute ?? 100;
  const standin = await startStandin(service, {
    seed: options.seed,
    clock: options.clock,
    rateLimit: { limit: perMinute, anonymousLimit: 10, windowSeconds: 60 },
    ...(options.faults ? { faults: options.faults } : {}),
  });
  let polling = false;
  const poll = () => {
    if (polling) return;
    polling = true;
    refresh()
      .catch(() => undefined)
      .finally(() => {
        polling = false;
      });
  };
  poll();
  const timer = setInterval(poll, options.pollMs ?? 5000);
  timer.unref();
  const closeServer = standin.close;
  return Object.assign(standin, {
    market: () => market,
    quotedHour,
    truth: (id: string, nowMs: number) => {
      const hour = quotedHour(nowMs);
      const coin = market?.coin(id);
      return market && coin && hour !== undefined ? market.truth(coin, hour) : undefined;
    },
    refresh,
    close: async () => {
      clearInterval(timer);
      await reading?.catch(() => undefined);
      await closeServer();
    },
  });
}
