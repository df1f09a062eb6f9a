/**
 * GMX v2 as a sandbox protocol on the Arbitrum chain (issue 27): contracts of our own with GMX's event ABI and
 * DataStore keys, three markets (ETH/USD backed by WETH and USDC, ETH/USD backed by WETH alone, a synthetic BTC/USD
 * backed by WETH and USDC), the deployer as keeper, traders and a liquidity provider of its own (docs/sandbox.md,
 * "GMX v2 on Arbitrum"). Its manifest section is `sections.gmx` (section.ts); its entry points are the registry's
 * `derivatives/gmx/DataStore` and `derivatives/gmx/EventEmitter` in Arbitrum's address book.
 */
import { bookKey } from '../../../registry/address-book.js';
import { artifactIn, type SandboxProtocol, slot } from '../protocol.js';
import type { GmxReading, GmxRuntimeState } from './actors.js';
import type { GmxSection } from './section.js';

const QUEUED = slot<Omit<GmxSection, 'startBlock'> | undefined>('gmx');

/** Traders at scale 1 (at least 4 at any scale). */
export const GMX_TRADERS = 6;

export const gmxSectionOf = (manifest: { sections?: Record<string, unknown> }): GmxSection | undefined =>
  manifest.sections?.gmx as GmxSection | undefined;

export const gmx: SandboxProtocol = {
  name: 'gmx',
  chain: 'arbitrum',
  after: [],
  phase: 'dex',
  enabled: () => true,
  deploy: async (build) => {
    const { queueGmx } = await import('./deploy.js');
    build.provide(
      QUEUED,
      queueGmx(build.session, build.deployer, build.tokens, build.weth, build.scale, (f) => build.needsEth(f)),
    );
  },
  manifest: (build, manifest) => {
    const queued = build.need(QUEUED);
    if (!queued) return;
    manifest.sections = {
      ...manifest.sections,
      gmx: { ...queued, startBlock: build.deployBlock } satisfies GmxSection,
    };
  },
  cast: async (build) => {
    if (!gmxSectionOf(build.manifest)) return;
    const [{ newAgentState }, { seedState }] = await Promise.all([
      import('../../chain/agent.js'),
      import('../../world/random.js'),
    ]);
    const traders: number[] = [];
    const count = Math.max(4, Math.round(GMX_TRADERS * build.scale));
    for (let i = 0; i < count; i++) {
      traders.push(build.agents.length);
      build.agents.push(newAgentState(build.seed, build.nextKey(), 'trader'));
    }
    const lp = build.agents.length;
    build.agents.push(newAgentState(build.seed, build.nextKey(), 'lp'));
    build.state.gmx = {
      rng: seedState(build.seed, 'gmx'),
      traders,
      lp,
      positions: [],
      stats: { priceUpdates: 0, increases: 0, decreases: 0, liquidations: 0, deposits: 0 },
    } satisfies GmxRuntimeState;
  },
  actors: async (host) => {
    const section = gmxSectionOf(host.manifest);
    const state = host.state.gmx as GmxRuntimeState | undefined;
    if (!section || !state) return undefined;
    const { GmxActors } = await import('./actors.js');
    const actors = new GmxActors(section, state, host);
    return {
      read: () => actors.read(),
      step: (reading, from, to) => actors.step(reading as GmxReading, from, to),
      save: () => actors.save(),
    };
  },
  addressBook: (manifest, book) => {
    const section = gmxSectionOf(manifest);
    if (!section) return;
    const entry = (address: string) => ({ address: address.toLowerCase(), startBlock: section.startBlock });
    book.entries[bookKey.derivatives('gmx', 'DataStore')] = entry(section.dataStore);
    book.entries[bookKey.derivatives('gmx', 'EventEmitter')] = entry(section.eventEmitter);
  },
  contracts: (manifest) => {
    const section = gmxSectionOf(manifest);
    if (!section) return [];
    const named = (address: `0x${string}`, name: string) => ({
      address,
      name,
      artifact: artifactIn(import.meta.dirname, name),
    });
    return [
      named(section.dataStore, 'DataStore'),
      named(section.eventEmitter, 'EventEmitter'),
      named(section.oracle, 'Oracle'),
      named(section.marketEvents, 'MarketEvents'),
      named(section.marketEngine, 'MarketEngine'),
      named(section.marketFactory, 'MarketFactory'),
      ...section.markets.map((m) => named(m.marketToken, 'MarketToken')),
    ];
  },
};
