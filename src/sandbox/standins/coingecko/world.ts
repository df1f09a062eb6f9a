import { HOUR } from '../../../core/time.js';
import { ethereumTokens, REFERENCE_COINS } from '../../../registry/tokens.js';
import type { ManifestPool, WorldManifest } from '../../world/manifest.js';
import type { WorldHour } from '../../world/view.js';
import { streamRng } from '../base/generate.js';

/**
 * What the CoinGecko stand-in knows of the market: a pure function of the seed, the world's closed hours (reference
 * prices), what it read of the chain per hour (`HourFacts`: the block closing the hour, each token's `totalSupply()`
 * there, the pools' swapped amounts within the hour) and the instant asked. It quotes the newest closed hour it has
 * read ("the quoted hour").
 *
 * - Coins: every token of the Ethereum world the registry gives a CoinGecko id (UNI `uniswap`, AAVE `aave`, LINK
 *   `chainlink`, WETH `weth`, USDC `usd-coin`, …), priced at the world's reference price; and the reference coins
 *   `ethereum` and `bitcoin` (priced as WETH and WBTC), whose supplies are stated constants (`REFERENCE_SUPPLY`).
 * - Supply: `total_supply` is the token's `totalSupply()` at the hour's closing block; `max_supply` is the same for a
 *   fixed-supply (`volatile`) token and null for the mintable ones (stablecoins, WETH); the self-reported
 *   `circulating_supply` is total × a seeded per-coin factor in [0.55, 0.95) (`selfReportFactor`; 1 for stablecoins
 *   and WETH), as projects' own figures differ from the chain's.
 * - CEX venues: 3 to 6 per coin out of `CEX_VENUES` (real exchanges' names with ` (sandbox)`, ids `sandbox_…`), each
 *   a `<COIN>/USDT` ticker whose 24-hour volume is a seeded share of a seeded daily turnover (2–8 %) of the market
 *   cap, its last price within ±0.2 % of the reference, its spread and ±2 % depth seeded per venue and hour. Each coin
 *   also has one anomalous ticker (`<COIN>/USD` on its first venue, at 37 × the price, `is_anomaly`) and one stale
 *   one (`<COIN>/BTC` on its second, last traded 3 days before, `is_stale`).
 * - DEX venues: one ticker per world pool holding the token (`uniswap_v2`, `uniswap_v3`: base and target are the
 *   tokens' addresses, as CoinGecko writes DEX pairs), whose 24-hour volume is the chain's own: the token amounts
 *   the pool's `Swap` events moved in the last 24 closed hours, each hour's at its reference price. A pool without
 *   a swap in 24 hours is stale. DEX tickers carry no depth (the area reads pools' depth from the chain).
 * - `total_volume` is the sum of the non-anomalous, non-stale tickers' USD volumes.
 * - `/global`: the total market cap assumes bitcoin and ethereum are `REFERENCE_DOMINANCE` (70 %) of it.
 */

/** Stated supplies of the reference coins (no contract in the world): whole coins. */
export const REFERENCE_SUPPLY = {
  bitcoin: { circulating: 19_850_000, total: 19_850_000, max: 21_000_000 },
  ethereum: { circulating: 120_400_000, total: 120_400_000, max: null },
} as const;
/** The share of the whole market's capitalisation held by bitcoin and ethereum together, assumed for `/global`. */
export const REFERENCE_DOMINANCE = 0.7;
/** The whole market's 24-hour volume, as a share of its capitalisation, assumed for `/global`. */
export const GLOBAL_TURNOVER = 0.04;
/** How many times the reference price an anomalous ticker quotes. */
export const ANOMALY_FACTOR = 37;
/** How long before the quoted hour's close a stale ticker last traded. */
export const STALE_AGE_SECONDS = 3 * 86_400;

export interface CexVenue {
  readonly id: string;
  readonly name: string;
  readonly country: string;
  readonly year: number;
  /** CoinGecko's exchange trust score, 1–10. */
  readonly trust: number;
}

export const CEX_VENUES: readonly CexVenue[] = [
  { id: 'sandbox_binance', name: 'Binance (sandbox)', country: 'Cayman Islands', year: 2017, trust: 10 },
  { id: 'sandbox_coinbase', name: 'Coinbase Exchange (sandbox)', country: 'United States', year: 2012, trust: 10 },
  { id: 'sandbox_kraken', name: 'Kraken (sandbox)', country: 'United States', year: 2011, trust: 10 },
  { id: 'sandbox_okx', name: 'OKX (sandbox)', country: 'Seychelles', year: 2017, trust: 9 },
  { id: 'sandbox_bybit', name: 'Bybit (sandbox)', country: 'United Arab Emirates', year: 2018, trust: 9 },
  { id: 'sandbox_kucoin', name: 'KuCoin (sandbox)', country: 'Seychelles', year: 2017, trust: 8 },
  { id: 'sandbox_gate', name: 'Gate (sandbox)', country: 'Cayman Islands', year: 2013, trust: 7 },
  { id: 'sandbox_mexc', name: 'MEXC (sandbox)', country: 'Seychelles', year: 2018, trust: 6 },
];

export interface CoinDef {
  readonly id: string;
  /** Lowercase, as CoinGecko writes it. */
  readonly symbol: string;
  readonly name: string;
  /** The world's symbol whose reference price the coin has. */
  readonly priceSymbol: string;
  /** The world's token (absent for the reference coins). */
  readonly token?: { readonly address: string; readonly decimals: number; readonly fixedSupply: boolean };
}

/** What the stand-in read of the chain for one closed hour. */
export interface HourFacts {
  /** The hour's start, Unix seconds. */
  readonly hour: number;
  /** The last block at or before the hour's close. */
  readonly block: number;
  /** Whole tokens of `totalSupply()` at that block, by coin id (absent: the node had no state). */
  readonly supply: Readonly<Record<string, number>>;
  /** Whole tokens each pool's swaps moved within the hour, by coin id, then pool address (lowercase). */
  readonly dex: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface DexVenue {
  readonly id: string;
  readonly name: string;
}

/** A DEX venue's CoinGecko id and name from the pool's protocol and version (`uniswap_v3`, `Uniswap V3 (Ethereum)`). */
export function dexVenueOf(pool: Pick<ManifestPool, 'protocol' | 'version'>): DexVenue {
  const protocol = pool.protocol.toLowerCase();
  const title = protocol.charAt(0).toUpperCase() + protocol.slice(1);
  return { id: `${protocol}_${pool.version.toLowerCase()}`, name: `${title} ${pool.version} (Ethereum)` };
}

/** The coins the stand-in serves for a world manifest. */
export function coinsOf(manifest: WorldManifest): CoinDef[] {
  const bySymbol = new Map(Object.values(ethereumTokens).map((t) => [t.symbol, t]));
  const coins: CoinDef[] = [];
  for (const t of manifest.tokens) {
    const id = bySymbol.get(t.symbol)?.coingeckoId;
    if (!id) continue;
    coins.push({
      id,
      symbol: t.symbol.toLowerCase(),
      name: bySymbol.get(t.symbol)?.name ?? t.name,
      priceSymbol: t.symbol,
      token: { address: t.address, decimals: t.decimals, fixedSupply: t.kind === 'volatile' },
    });
  }
  const has = (s: string) => manifest.tokens.some((t) => t.symbol === s);
  if (has('WETH')) coins.push({ id: REFERENCE_COINS.ETH, symbol: 'eth', name: 'Ethereum', priceSymbol: 'WETH' });
  if (has('WBTC')) coins.push({ id: REFERENCE_COINS.BTC, symbol: 'btc', name: 'Bitcoin', priceSymbol: 'WBTC' });
  return coins;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export interface CexPlan {
  readonly venue: CexVenue;
  /** The venue's share of the coin's CEX volume. */
  readonly share: number;
  /** Base bid-ask spread, percent. */
  readonly spreadPct: number;
  /** ±2 % depth as a share of the venue's 24-hour volume. */
  readonly depthRatio: number;
}

/** Ground truth of one coin at the quoted hour. */
export interface CoinTruth {
  readonly id: string;
  readonly hour: number;
  readonly block: number | undefined;
  readonly priceUsd: number;
  readonly totalSupply: number | null;
  readonly maxSupply: number | null;
  readonly selfReportFactor: number;
  readonly circulatingReported: number | null;
  readonly marketCapUsd: number | null;
  /** Daily turnover of the CEX venues, as a share of the market cap. */
  readonly cexTurnover: number;
  readonly cexVenues: readonly CexPlan[];
  /** 24-hour USD volume of the regular CEX tickers, and of each DEX pool (the chain's swaps). */
  readonly cexVolumeUsd: number;
  readonly dexVolumeUsd: Readonly<Record<string, number>>;
}

/** A ticker as CoinGecko writes it (`/coins/{id}/tickers` with `depth=true`). */
export interface WireTicker {
  base: string;
  target: string;
  market: { name: string; identifier: string; has_trading_incentive: boolean };
  last: number;
  volume: number;
  cost_to_move_up_usd?: number;
  cost_to_move_down_usd?: number;
  converted_last: { btc: number; eth: number; usd: number };
  converted_volume: { btc: number; eth: number; usd: number };
  trust_score: string | null;
  bid_ask_spread_percentage: number;
  timestamp: string;
  last_traded_at: string;
  last_fetch_at: string;
  is_anomaly: boolean;
  is_stale: boolean;
  trade_url: string;
  token_info_url: string | null;
  coin_id: string;
  target_coin_id: string;
  coin_mcap_usd: number;
}

export class CoingeckoMarket {
  readonly coins: readonly CoinDef[];
  private readonly byId: Map<string, CoinDef>;
  private readonly byAddress: Map<string, CoinDef>;

  constructor(
    private readonly seed: number,
    readonly manifest: WorldManifest,
    /** The world's closed hours and what was read of the chain for them. */
    private readonly source: {
      hour(hour: number): WorldHour | undefined;
      facts(hour: number): HourFacts | undefined;
      /** The newest hour with facts whose close is at or before `nowMs`. */
      quotedHour(nowMs: number): number | undefined;
    },
  ) {
    this.coins = coinsOf(manifest);
    this.byId = new Map(this.coins.map((c) => [c.id, c]));
    this.byAddress = new Map(this.coins.filter((c) => c.token).map((c) => [c.token!.address.toLowerCase(), c]));
  }

  coin(id: string): CoinDef | undefined {
    return this.byId.get(id);
  }

  /** The world pools holding a coin's token. */
  pools(coin: CoinDef): ManifestPool[] {
    if (!coin.token) return [];
    const a = coin.token.address.toLowerCase();
    return this.manifest.pools.filter((p) => p.token0.toLowerCase() === a || p.token1.toLowerCase() === a);
  }

  /** Reference price of a world symbol at the close of `hour` (the manifest's starting price before any hour). */
  price(symbol: string, hour: number): number {
    const p = this.source.hour(hour)?.prices[symbol];
    if (p !== undefined) return p;
    return this.manifest.tokens.find((t) => t.symbol === symbol)?.initialPriceUsd ?? Number.NaN;
  }

  quotedHour(nowMs: number): number | undefined {
    return this.source.quotedHour(nowMs);
  }

  /** The seeded self-report factor of a coin: 1 for mintable tokens and the reference coins. */
  selfReportFactor(coin: CoinDef): number {
    if (!coin.token?.fixedSupply) return 1;
    return 0.55 + 0.4 * streamRng(this.seed, 'coingecko', 'self-report', coin.id).next();
  }

  cexPlan(coin: CoinDef): { turnover: number; venues: CexPlan[] } {
    const rng = streamRng(this.seed, 'coingecko', 'venues', coin.id);
    const turnover = 0.02 + 0.06 * rng.next();
    const count = 3 + rng.int(4);
    const order = CEX_VENUES.map((v) => ({ v, k: rng.next() })).sort((a, b) => a.k - b.k);
    const picked = order.slice(0, count).map(({ v }) => ({
      venue: v,
      weight: 0.2 + rng.next(),
      spreadPct: (0.02 + 0.3 * rng.next()) * Math.sqrt(11 - v.trust),
      depthRatio: 0.005 + 0.025 * rng.next(),
    }));
    const total = picked.reduce((s, p) => s + p.weight, 0);
    return {
      turnover,
      venues: picked.map(({ weight, ...p }) => ({ ...p, share: weight / total })),
    };
  }

  /** Supplies of a coin at `hour`: the facts' `totalSupply()`, else the newest earlier reading, else the oldest. */
  supply(coin: CoinDef, hour: number): { total: number | null; max: number | null; circulating: number | null } {
    if (!coin.token) {
      const s = REFERENCE_SUPPLY[coin.id as keyof typeof REFERENCE_SUPPLY];
      return s
        ? { total: s.total, max: s.max, circulating: s.circulating }
        : { total: null, max: null, circulating: null };
    }
    let total: number | undefined;
    for (let h = hour, n = 0; total === undefined && n < 24 * 90; h -= HOUR, n++) {
      const f = this.source.facts(h);
      if (f) total = f.supply[coin.id];
    }
    // No earlier reading (a resumed world whose node kept no state for the first hours): the oldest later one.
    for (let h = hour + HOUR, n = 0; total === undefined && n < 24 * 90; h += HOUR, n++) {
      const f = this.source.facts(h);
      if (f) total = f.supply[coin.id];
    }
    if (total === undefined) return { total: null, max: null, circulating: null };
    return {
      total,
      max: coin.token.fixedSupply ? total : null,
      circulating: total * this.selfReportFactor(coin),
    };
  }

  /** 24-hour swapped amounts of each of the coin's pools to the close of `hour`, in USD, and the last hour traded. */
  dexVolumes(coin: CoinDef, hour: number): Map<string, { usd: number; tokens: number; lastHour: number | undefined }> {
    const out = new Map<string, { usd: number; tokens: number; lastHour: number | undefined }>();
    for (const pool of this.pools(coin))
      out.set(pool.address.toLowerCase(), { usd: 0, tokens: 0, lastHour: undefined });
    for (let h = hour - 23 * HOUR; h <= hour; h += HOUR) {
      const moved = this.source.facts(h)?.dex[coin.id];
      if (!moved) continue;
      const p = this.price(coin.priceSymbol, h);
      for (const [pool, tokens] of Object.entries(moved)) {
        const v = out.get(pool);
        if (!v || !(tokens > 0)) continue;
        v.tokens += tokens;
        v.usd += tokens * p;
        v.lastHour = h;
      }
    }
    return out;
  }

  /** Every ticker of a coin at the close of `hour`, CEX first, in CoinGecko's wire format (with depth). */
  tickers(coin: CoinDef, hour: number): WireTicker[] {
    const close = hour + HOUR;
    const p = this.price(coin.priceSymbol, hour);
    const btc = this.price('WBTC', hour);
    const eth = this.price('WETH', hour);
    const { circulating } = this.supply(coin, hour);
    const mcap = circulating === null ? null : p * circulating;
    const plan = this.cexPlan(coin);
    const base = coin.symbol.toUpperCase();
    const converted = (usd: number) => ({ btc: usd / btc, eth: usd / eth, usd });
    const tickers: WireTicker[] = [];
    // A coin without a known market cap trades as if its cap were 10 million USD.
    const cexDaily = plan.turnover * (mcap ?? 1e7);
    for (const [i, v] of plan.venues.entries()) {
      const rng = streamRng(this.seed, 'coingecko', 'ticker', coin.id, v.venue.id, hour);
      const volumeUsd = cexDaily * v.share * (0.8 + 0.4 * rng.next());
      const last = p * (1 + (rng.next() - 0.5) * 0.004);
      const spread = v.spreadPct * (0.8 + 0.4 * rng.next());
      const depth = volumeUsd * v.depthRatio;
      const tradedAt = close - rng.int(300);
      const ticker = (
        target: string,
        targetId: string,
        lastPrice: number,
        extra: { anomaly?: boolean; stale?: boolean },
      ) => {
        const tradedAtSeconds = extra.stale ? close - STALE_AGE_SECONDS : tradedAt;
        const usdLast = extra.anomaly ? p * ANOMALY_FACTOR : lastPrice;
        const inTarget = target === 'BTC' ? usdLast / btc : usdLast;
        return {
          base,
          target,
          market: { name: v.venue.name, identifier: v.venue.id, has_trading_incentive: false },
          last: inTarget,
          volume: volumeUsd / usdLast,
          cost_to_move_up_usd: depth * (0.9 + 0.2 * rng.next()),
          cost_to_move_down_usd: depth * (0.9 + 0.2 * rng.next()),
          converted_last: converted(usdLast),
          converted_volume: converted(volumeUsd),
          trust_score: extra.anomaly ? null : extra.stale ? 'red' : v.venue.trust >= 8 ? 'green' : 'yellow',
          bid_ask_spread_percentage: spread,
          timestamp: iso(tradedAtSeconds),
          last_traded_at: iso(tradedAtSeconds),
          last_fetch_at: iso(close),
          is_anomaly: extra.anomaly ?? false,
          is_stale: extra.stale ?? false,
          trade_url: `https://exchange.sandbox.invalid/${v.venue.id}/${base}_${target}`,
          token_info_url: null,
          coin_id: coin.id,
          target_coin_id: targetId,
          coin_mcap_usd: mcap ?? 0,
        };
      };
      tickers.push(ticker('USDT', 'tether', last, {}));
      if (i === 0) tickers.push(ticker('USD', 'usd', last, { anomaly: true }));
      if (i === 1) tickers.push(ticker('BTC', 'bitcoin', last, { stale: true }));
    }
    for (const [address, dex] of this.dexVolumes(coin, hour)) {
      const pool = this.manifest.pools.find((q) => q.address.toLowerCase() === address)!;
      const venue = dexVenueOf(pool);
      const mine = coin.token!.address.toLowerCase();
      const other = pool.token0.toLowerCase() === mine ? pool.token1 : pool.token0;
      const otherCoin = this.byAddress.get(other.toLowerCase());
      const otherSymbol = this.manifest.tokens.find((t) => t.address.toLowerCase() === other.toLowerCase())?.symbol;
      const otherPrice = otherSymbol ? this.price(otherSymbol, hour) : Number.NaN;
      const tradedAt = dex.lastHour === undefined ? close - STALE_AGE_SECONDS : dex.lastHour + HOUR;
      tickers.push({
        base: coin.token!.address,
        target: other,
        market: { name: venue.name, identifier: venue.id, has_trading_incentive: false },
        last: Number.isFinite(otherPrice) && otherPrice > 0 ? p / otherPrice : p,
        volume: dex.tokens,
        converted_last: converted(p),
        converted_volume: converted(dex.usd),
        trust_score: 'green',
        bid_ask_spread_percentage: pool.fee / 10_000,
        timestamp: iso(tradedAt),
        last_traded_at: iso(tradedAt),
        last_fetch_at: iso(close),
        is_anomaly: false,
        is_stale: dex.lastHour === undefined,
        trade_url: `https://app.uniswap.org/swap?inputCurrency=${other}&outputCurrency=${coin.token!.address}`,
        token_info_url: null,
        coin_id: coin.id,
        target_coin_id: otherCoin?.id ?? otherSymbol?.toLowerCase() ?? other.toLowerCase(),
        coin_mcap_usd: mcap ?? 0,
      });
    }
    return tickers;
  }

  /** The coin's 24-hour volume as CoinGecko counts it: regular tickers only (no anomaly, nothing stale). */
  totalVolumeUsd(coin: CoinDef, hour: number): number {
    return this.tickers(coin, hour)
      .filter((t) => !t.is_anomaly && !t.is_stale)
      .reduce((s, t) => s + t.converted_volume.usd, 0);
  }

  truth(coin: CoinDef, hour: number): CoinTruth {
    const p = this.price(coin.priceSymbol, hour);
    const s = this.supply(coin, hour);
    const plan = this.cexPlan(coin);
    const tickers = this.tickers(coin, hour);
    const dex = this.dexVolumes(coin, hour);
    const cexIds = new Set(CEX_VENUES.map((v) => v.id));
    return {
      id: coin.id,
      hour,
      block: this.source.facts(hour)?.block,
      priceUsd: p,
      totalSupply: s.total,
      maxSupply: s.max,
      selfReportFactor: this.selfReportFactor(coin),
      circulatingReported: s.circulating,
      marketCapUsd: s.circulating === null ? null : s.circulating * p,
      cexTurnover: plan.turnover,
      cexVenues: plan.venues,
      cexVolumeUsd: tickers
        .filter((t) => cexIds.has(t.market.identifier) && !t.is_anomaly && !t.is_stale)
        .reduce((sum, t) => sum + t.converted_volume.usd, 0),
      dexVolumeUsd: Object.fromEntries([...dex].map(([pool, v]) => [pool, v.usd])),
    };
  }

  /** `/coins/{id}` at the close of `hour`, every field CoinGecko's description requires. */
  coinAnswer(coin: CoinDef, hour: number) {
    const close = hour + HOUR;
    const p = this.price(coin.priceSymbol, hour);
    const s = this.supply(coin, hour);
    const before = this.price(coin.priceSymbol, hour - 24 * HOUR);
    const usd = (v: number | null) => (v === null ? {} : { usd: v });
    const mcap = s.circulating === null ? null : s.circulating * p;
    const fdv = s.max ?? s.total;
    const platforms: Record<string, string> = coin.token ? { ethereum: coin.token.address.toLowerCase() } : {};
    return {
      id: coin.id,
      symbol: coin.symbol,
      name: coin.name,
      web_slug: coin.id,
      asset_platform_id: coin.token ? 'ethereum' : null,
      platforms: coin.token ? platforms : { '': '' },
      detail_platforms: coin.token
        ? { ethereum: { decimal_place: coin.token.decimals, contract_address: coin.token.address.toLowerCase() } }
        : { '': { decimal_place: null, contract_address: '' } },
      block_time_in_minutes: 0,
      hashing_algorithm: null,
      categories: [],
      preview_listing: false,
      public_notice: null,
      additional_notices: [],
      description: { en: `${coin.name} in the protoscore sandbox.` },
      links: { homepage: [], whitepaper: '', blockchain_site: [], repos_url: { github: [], bitbucket: [] } },
      image: { thumb: '', small: '', large: '' },
      country_origin: '',
      genesis_date: null,
      sentiment_votes_up_percentage: null,
      sentiment_votes_down_percentage: null,
      watchlist_portfolio_users: 0,
      market_cap_rank: null,
      market_cap_rank_with_rehypothecated: null,
      has_supply_breakdown: false,
      market_data: {
        current_price: { usd: p },
        market_cap: usd(mcap),
        total_volume: { usd: this.totalVolumeUsd(coin, hour) },
        fully_diluted_valuation: usd(fdv === null ? null : fdv * p),
        price_change_24h: p - before,
        price_change_percentage_24h: (p / before - 1) * 100,
        circulating_supply: s.circulating ?? 0,
        ...(s.total !== null ? { total_supply: s.total } : {}),
        ...(s.max !== null ? { max_supply: s.max } : {}),
        max_supply_infinite: false,
        last_updated: iso(close).replace('+00:00', '.000Z'),
      },
      status_updates: [],
      last_updated: iso(close).replace('+00:00', '.000Z'),
    };
  }

  /** `/coins/{id}/market_chart?interval=daily`: 00:00 UTC of each of the last `days` days and today, then now. */
  chartAnswer(coin: CoinDef, days: number, hour: number, nowMs: number) {
    const prices: [number, number][] = [];
    const caps: [number, number][] = [];
    const volumes: [number, number][] = [];
    const point = (t: number, h: number) => {
      const p = this.price(coin.priceSymbol, h);
      const { circulating } = this.supply(coin, h);
      prices.push([t, p]);
      caps.push([t, circulating === null ? 0 : circulating * p]);
      volumes.push([t, this.totalVolumeUsd(coin, h)]);
    };
    const today = Math.floor((hour + HOUR) / 86_400) * 86_400;
    for (let d = today - days * 86_400; d <= today; d += 86_400) {
      // The day's point is the hour closing at its 00:00 UTC, when the stand-in has it.
      if (this.source.facts(d - HOUR) && this.source.hour(d - HOUR)) point(d * 1000, d - HOUR);
    }
    if (nowMs > today * 1000) point(nowMs, hour);
    return { prices, market_caps: caps, total_volumes: volumes };
  }
}
