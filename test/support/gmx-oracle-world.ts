import type { GmxSection } from '../../src/sandbox/standins/gmx-oracle/world.js';
import type { WorldManifest } from '../../src/sandbox/world/manifest.js';
import type { WorldHour, WorldView } from '../../src/sandbox/world/view.js';

/**
 * A small Arbitrum world for the keeper stand-in's tests (and the sources' that read it): three ERC-20s, a synthetic
 * index token, and a `gmx` section with a two-token market, a single-token market, a synthetic-index market and two
 * markets on one index; hourly reference prices from `GENESIS`.
 */

export const GENESIS = 1_790_000_000 - (1_790_000_000 % 3600);
export const WETH = '0x1000000000000000000000000000000000000001';
export const USDC = '0x1000000000000000000000000000000000000002';
export const WBTC = '0x1000000000000000000000000000000000000003';
/** A synthetic index token: an address with no contract, as GMX names them. */
export const SYNTH_LINK = '0x2000000000000000000000000000000000000004';

export const FIXTURE_SECTION: GmxSection = {
  markets: [
    { marketToken: '0x3000000000000000000000000000000000000001', indexToken: WETH, longToken: WETH, shortToken: USDC },
    { marketToken: '0x3000000000000000000000000000000000000002', indexToken: WETH, longToken: WETH, shortToken: WETH },
    { marketToken: '0x3000000000000000000000000000000000000003', indexToken: WBTC, longToken: WBTC, shortToken: USDC },
    {
      marketToken: '0x3000000000000000000000000000000000000004',
      indexToken: SYNTH_LINK,
      longToken: WETH,
      shortToken: USDC,
      synthetic: true,
    },
  ],
  tokens: [{ address: SYNTH_LINK, symbol: 'LINK', decimals: 18, synthetic: true, priceSymbol: 'LINK' }],
};

const token = (symbol: string, address: string, decimals: number, kind: 'stable' | 'weth' | 'volatile', p: number) =>
  ({ symbol, name: symbol, address, decimals, kind, initialPriceUsd: p, volatility: 0.5 }) as const;

/** The fixture's Arbitrum manifest; `section: false` leaves the `gmx` section out. */
export function fixtureManifest(section: GmxSection | false = FIXTURE_SECTION): WorldManifest {
  return {
    seed: 1,
    chain: 'arbitrum',
    chainId: 42161,
    genesisTimestamp: GENESIS,
    deployer: '0x0000000000000000000000000000000000000009',
    tokens: [
      token('WETH', WETH, 18, 'weth', 3000),
      token('USDC', USDC, 6, 'stable', 1),
      token('WBTC', WBTC, 8, 'volatile', 60000),
    ],
    dex: [],
    pools: [],
    weth: WETH,
    ...(section ? { sections: { gmx: section } } : {}),
  } as WorldManifest;
}

/** `n` closed hours from genesis; hour i prices ETH at 3000 + 10·i, BTC at 60000 − 100·i, LINK at 15.5 + 0.01·i. */
export function fixtureHours(n: number): WorldHour[] {
  return Array.from({ length: n }, (_, i) => ({
    hour: GENESIS + i * 3600,
    prices: { WETH: 3000 + 10 * i, USDC: 1 + (i % 3) * 0.0001, WBTC: 60000 - 100 * i, LINK: 15.5 + 0.01 * i },
    dex: { swaps: 0, liquidityChanges: 0, transactions: 0 },
  }));
}

/** A world view holding only the fixture's Arbitrum manifest and hours. */
export function fixtureView(hours: readonly WorldHour[], manifest = fixtureManifest()): WorldView {
  return {
    manifests: new Map([['arbitrum', manifest]]),
    contracts: () => [],
    contract: () => undefined,
    compilerInput: async () => undefined,
    hours: () => hours,
    hour: (h) => hours.find((x) => x.hour === h),
  };
}
