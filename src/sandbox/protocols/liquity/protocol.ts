/**
 * Liquity v1 (contracts of our own) as a sandbox protocol, with the stablecoins (`SANDBOX_STABLECOINS`): priced by
 * the ETH/USD feed, its LUSD/USDC pair on Uniswap V2; trove owners, keeper and redeemer after the other lenders.
 */
import { bookKey } from '../../../registry/address-book.js';
import { FEEDS } from '../feeds/protocol.js';
import { lendingHost } from '../lending/host.js';
import { artifactIn, FEED_ANSWERS, type SandboxProtocol, slot } from '../protocol.js';
import { DEX } from '../uniswap/protocol.js';
import type { LiquityActors } from './actors.js';
import type { QueuedLiquity } from './deploy.js';

const LIQUITY = slot<QueuedLiquity | undefined>('liquity');

export const liquity: SandboxProtocol = {
  name: 'liquity',
  chain: 'ethereum',
  after: ['uniswap', 'feeds', 'morpho'],
  phase: 'lending',
  enabled: (switches) => switches.stablecoins,
  deploy: async (build) => {
    // None without USDC, WETH with its ETH/USD feed, and Uniswap V2.
    const usdc = build.tokens.find((t) => t.symbol === 'USDC');
    const weth = build.tokens.find((t) => t.kind === 'weth');
    const dex = build.need(DEX).dexes.find((d) => d.protocol === 'uniswap' && d.version === 'V2');
    const ethUsdFeed = weth && build.priceSources.get(weth.symbol);
    build.need(FEEDS);
    if (!usdc || !weth || !dex || !ethUsdFeed) {
      build.provide(LIQUITY, undefined);
      return;
    }
    const { queueLiquity } = await import('./deploy.js');
    const queued = queueLiquity(build.session, build.deployer, {
      ethUsdFeed,
      ethUsdPrice: weth.initialPriceUsd,
      usdc,
      dex,
      scale: build.scale,
      deadline: build.deadline,
    });
    build.needsEth(() => queued.ethNeeded);
    build.provide(LIQUITY, queued.queued);
  },
  manifest: async (build, manifest) => {
    const queued = build.need(LIQUITY);
    const { readLiquity } = await import('./deploy.js');
    if (queued) manifest.liquity = await readLiquity(build.rpc, queued, build.deployBlock);
  },
  // After everyone else so far, from its own stream (`liquity`).
  cast: async (build) => {
    if (!build.manifest.liquity) return;
    const { castLiquity } = await import('./actors.js');
    const first = build.nextKey();
    const cast = castLiquity(build.seed, build.scale, first, build.agents.length);
    for (let i = 1; i < cast.agents.length; i++) build.nextKey();
    build.agents.push(...cast.agents);
    build.state.liquity = cast.state;
  },
  actors: async (host) => {
    const { manifest, state } = host;
    if (!manifest.liquity || !state.liquity) return undefined;
    const { LiquityActors } = await import('./actors.js');
    const actors = new LiquityActors(manifest.liquity, state.liquity, lendingHost(host), () =>
      host.find(FEED_ANSWERS)?.feedAnswer('WETH'),
    );
    return {
      read: () => actors.read(),
      step: (reading, from, to) => actors.step(reading as Parameters<LiquityActors['step']>[0], from, to),
      save: () => actors.save(),
    };
  },
  contracts: (manifest) => {
    const m = manifest.liquity;
    if (!m) return [];
    const named: [`0x${string}`, string][] = [
      [m.troveManager, 'TroveManager'],
      [m.borrowerOperations, 'BorrowerOperations'],
      [m.stabilityPool, 'StabilityPool'],
      [m.activePool, 'ActivePool'],
      [m.defaultPool, 'DefaultPool'],
      [m.collSurplusPool, 'CollSurplusPool'],
      [m.gasPool, 'GasPool'],
      [m.sortedTroves, 'SortedTroves'],
      [m.priceFeed, 'PriceFeed'],
      [m.hintHelpers, 'HintHelpers'],
      [m.reader, 'LiquitySandboxReader'],
      [m.lusd, 'LUSDToken'],
    ];
    return named.map(([address, name]) => ({ address, name, artifact: artifactIn(import.meta.dirname, name) }));
  },
  addressBook: (manifest, book) => {
    if (!manifest.liquity) return;
    book.entries[bookKey.stablecoin(manifest.liquity.protocol)] = {
      address: manifest.liquity.troveManager.toLowerCase(),
    };
    book.tokens.LUSD = { address: manifest.liquity.lusd.toLowerCase(), decimals: 18 };
  },
};
