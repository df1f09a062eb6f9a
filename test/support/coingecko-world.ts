import type { MarketChain, SwapAmounts } from '../../src/sandbox/standins/coingecko/chain.js';
import type { WorldManifest } from '../../src/sandbox/world/manifest.js';
import type { WorldHour, WorldView } from '../../src/sandbox/world/view.js';

/**
 * A small Ethereum world for the CoinGecko stand-in's tests (and the source's that read it): UNI and AAVE (fixed
 * supply), WETH, USDC and WBTC; a UNI/WETH V3 pool, a UNI/USDC V2 pair and an AAVE/WETH V2 pair that never trades;
 * hourly reference prices from `GENESIS`; and a chain of 12-second blocks whose every hour moves known amounts
 * (`swappedPerHour`) and whose UNI supply shrinks by a known burn each hour (`uniSupplyAt`).
 */

export const GENESIS = 1_790_000_000 - (1_790_000_000 % 86_400);
export const UNI = '0x1000000000000000000000000000000000000001';
export const WETH = '0x1000000000000000000000000000000000000002';
export const USDC = '0x1000000000000000000000000000000000000003';
export const WBTC = '0x1000000000000000000000000000000000000004';
export const AAVE = '0x1000000000000000000000000000000000000005';
export const UNI_WETH_V3 = '0x2000000000000000000000000000000000000001';
export const UNI_USDC_V2 = '0x2000000000000000000000000000000000000002';
export const AAVE_WETH_V2 = '0x2000000000000000000000000000000000000003';
export const BLOCK_SECONDS = 12;

const token = (symbol: string, address: string, decimals: number, kind: 'stable' | 'weth' | 'volatile', p: number) =>
  ({ symbol, name: symbol, address, decimals, kind, initialPriceUsd: p, volatility: 0.5 }) as const;

export function coingeckoManifest(): WorldManifest {
  return {
    seed: 1,
    chain: 'ethereum',
    chainId: 31337,
    genesisTimestamp: GENESIS,
    deployer: '0x0000000000000000000000000000000000000009',
    tokens: [
      token('UNI', UNI, 18, 'volatile', 8),
      token('WETH', WETH, 18, 'weth', 3000),
      token('USDC', USDC, 6, 'stable', 1),
      token('WBTC', WBTC, 8, 'volatile', 60000),
      token('AAVE', AAVE, 18, 'volatile', 150),
    ],
    dex: [],
    pools: [
      {
        address: UNI_WETH_V3,
        protocol: 'uniswap',
        version: 'V3',
        token0: UNI,
        token1: WETH,
        fee: 3000,
        character: 'ordinary',
      },
      {
        address: UNI_USDC_V2,
        protocol: 'uniswap',
        version: 'V2',
        token0: UNI,
        token1: USDC,
        fee: 3000,
        character: 'ordinary',
      },
      {
        address: AAVE_WETH_V2,
        protocol: 'uniswap',
        version: 'V2',
        token0: AAVE,
        token1: WETH,
        fee: 3000,
        character: 'dormant',
      },
    ],
    weth: WETH,
  } as WorldManifest;
}

/** `n` closed hours from genesis; hour i prices UNI at 8 + 0.01·i, ETH at 3000 + 10·i, BTC at 60000 − 100·i. */
export function coingeckoHours(n: number): WorldHour[] {
  return Array.from({ length: n }, (_, i) => ({
    hour: GENESIS + i * 3600,
    prices: { UNI: 8 + 0.01 * i, WETH: 3000 + 10 * i, USDC: 1, WBTC: 60000 - 100 * i, AAVE: 150 - 0.1 * i },
    dex: { swaps: 2, liquidityChanges: 0, transactions: 2 },
  }));
}

export function coingeckoView(hours: readonly WorldHour[], manifest = coingeckoManifest()): WorldView {
  return {
    manifests: new Map([['ethereum', manifest]]),
    contracts: () => [],
    contract: () => undefined,
    compilerInput: async () => undefined,
    hours: () => hours,
    hour: (h) => hours.find((x) => x.hour === h),
  };
}

const E18 = 10n ** 18n;
/** UNI's `totalSupply()` at a block: a billion, less 10 UNI burnt per block. */
export const uniSupplyAt = (block: number) => 1_000_000_000n * E18 - BigInt(block) * 10n * E18;
/** Whole UNI one pool's swaps move in the hour starting `hour` (the i-th hour from genesis): V3 100·(i+1), V2 40. */
export const swappedPerHour = (pool: string, i: number) => (pool === UNI_WETH_V3 ? 100 * (i + 1) : 40);

/**
 * The fixture chain: block n at GENESIS + 12·n; each hour's swaps are one swap per trading pool in the hour's last
 * block, moving `swappedPerHour` UNI (and WETH or USDC worth the same at the hour's prices, which the stand-in
 * does not read for UNI's volume).
 */
export function coingeckoChain(hours: readonly WorldHour[]): MarketChain & { calls: number } {
  const chain = {
    calls: 0,
    async blockAt(timestamp: number) {
      chain.calls++;
      return timestamp < GENESIS ? undefined : Math.floor((timestamp - GENESIS) / BLOCK_SECONDS);
    },
    async totalSupply(token: string, block: number) {
      chain.calls++;
      if (token === UNI) return uniSupplyAt(block);
      if (token === AAVE) return 16_000_000n * E18;
      if (token === WETH) return 5_000n * E18;
      if (token === USDC) return 2_000_000n * 10n ** 6n;
      return 100n * 10n ** 8n;
    },
    async swaps(_pools: readonly { address: string }[], fromBlock: number, toBlock: number) {
      chain.calls++;
      const out: SwapAmounts[] = [];
      for (const [i, h] of hours.entries()) {
        const last = (h.hour + 3600 - GENESIS) / BLOCK_SECONDS;
        if (last < fromBlock || last > toBlock) continue;
        for (const pool of [UNI_WETH_V3, UNI_USDC_V2]) {
          out.push({ pool, amount0: BigInt(swappedPerHour(pool, i)) * E18, amount1: 1n });
        }
      }
      return out;
    },
  };
  return chain;
}
