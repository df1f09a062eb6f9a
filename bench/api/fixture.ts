/** The document the API benchmark serves: analytics of the Uniswap V3 USDC/WETH 0.05 % pool. */

export const POOL_ADDRESS = '0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640';
export const POOL_DOCUMENT_PATH = `/data/liquidity/dex/pool-analytics/${POOL_ADDRESS}`;

/** Deterministic PRNG (mulberry32), so that every run serves the same shape and size of body. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * A realistic pool-analytics payload (≈3 KB as JSON): pool identity, current state, 24 h / 7 d aggregates and
 * `hourly`, the USD volume of each of the last 168 hours (oldest first).
 */
export function poolAnalyticsPayload(nowSeconds: number): unknown {
  const rand = prng(0x88e6);
  const hourStart = Math.floor(nowSeconds / 3600) * 3600;
  const hourly = Array.from({ length: 168 }, (_, i) => {
    const diurnal = 1 + 0.45 * Math.sin(((i % 24) / 24) * 2 * Math.PI);
    return round2(9_500_000 * diurnal * (0.6 + 0.8 * rand()));
  });
  const sum = (xs: number[]) => round2(xs.reduce((a, b) => a + b, 0));
  const volume24h = sum(hourly.slice(-24));
  const volume7d = sum(hourly);
  const tvl = 152_384_917.42;
  return {
    pool_address: POOL_ADDRESS,
    chain: 'ethereum',
    protocol: 'uniswap',
    version: 'V3',
    fee_tier_bps: 5,
    tokens: [
      { symbol: 'USDC', address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6, reserve: 71_204_551.13 },
      { symbol: 'WETH', address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', decimals: 18, reserve: 24_871.0442 },
    ],
    price: { base: 'WETH', quote: 'USDC', value: 3264.18, change_24h_pct: -1.27 },
    tvl_usd: tvl,
    volume_24h_usd: volume24h,
    volume_7d_usd: volume7d,
    fees_24h_usd: round2(volume24h * 0.0005),
    fees_7d_usd: round2(volume7d * 0.0005),
    turnover_24h: round2(volume24h / tvl),
    swaps_24h: 18_734,
    unique_traders_24h: 4_211,
    hourly_start: new Date((hourStart - 168 * 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    hourly_interval_seconds: 3600,
    hourly,
  };
}

export const LARGE_POOL_ADDRESS = '0xcbcdf9626bc03e24f779434178a73a0b4bad62ed';

/**
 * A larger pool-analytics payload (≈21 KB as JSON): the same fields for the WBTC/WETH 0.3 % pool, with the hourly
 * series in full (volume, TVL, fees, swaps, unique traders and closing price of each of the last 168 hours).
 */
export function largePoolAnalyticsPayload(nowSeconds: number): unknown {
  const rand = prng(0xcbcd);
  const hourStart = Math.floor(nowSeconds / 3600) * 3600;
  let price = 21.37;
  const series = Array.from({ length: 168 }, (_, i) => {
    const diurnal = 1 + 0.4 * Math.sin(((i % 24) / 24) * 2 * Math.PI);
    const volume = Math.round(2_100_000 * diurnal * (0.5 + rand()));
    price = round2(price * (0.995 + 0.01 * rand()) * 1000) / 1000;
    return {
      volume_usd: volume,
      tvl_usd: Math.round(281_000_000 * (0.98 + 0.04 * rand())),
      fees_usd: round2(volume * 0.003),
      swaps: Math.round(volume / 9_000),
      unique_traders: Math.round(volume / 41_000),
      price_close: price,
    };
  });
  const sum = (xs: number[]) => round2(xs.reduce((a, b) => a + b, 0));
  const volumes = series.map((h) => h.volume_usd);
  return {
    pool_address: LARGE_POOL_ADDRESS,
    chain: 'ethereum',
    protocol: 'uniswap',
    version: 'V3',
    fee_tier_bps: 30,
    tokens: [
      { symbol: 'WBTC', address: '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599', decimals: 8, reserve: 3_412.7741 },
      { symbol: 'WETH', address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', decimals: 18, reserve: 72_913.2205 },
    ],
    price: { base: 'WBTC', quote: 'WETH', value: price, change_24h_pct: 0.41 },
    tvl_usd: series.at(-1)!.tvl_usd,
    volume_24h_usd: sum(volumes.slice(-24)),
    volume_7d_usd: sum(volumes),
    hourly_start: new Date((hourStart - 168 * 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    hourly_interval_seconds: 3600,
    hourly: series,
  };
}

/** The documents the API benchmark serves: a small (≈3 KB) and a large (≈21 KB) one. */
export const BENCH_DOCUMENTS = [
  { doc: 'small', path: POOL_DOCUMENT_PATH, payload: poolAnalyticsPayload },
  {
    doc: 'large',
    path: `/data/liquidity/dex/pool-analytics/${LARGE_POOL_ADDRESS}`,
    payload: largePoolAnalyticsPayload,
  },
] as const;
