/**
 * Morpho Blue as a sandbox protocol: the singleton, its IRM, an oracle per market and the isolated markets, queued
 * after Aave's; its borrowers come after the rest of the lending cast, and act after Aave's actors.
 */
import { bookKey } from '../../../registry/address-book.js';
import { lendingHost } from '../lending/host.js';
import { artifactIn, type SandboxProtocol, slot } from '../protocol.js';
import type { MorphoActors } from './actors.js';
import type { QueuedMorpho } from './deploy.js';

const MORPHO = slot<QueuedMorpho | undefined>('morpho');

export const morpho: SandboxProtocol = {
  name: 'morpho',
  chain: 'ethereum',
  // Its state sits beside Aave's lending actors (`lending.morpho`), its suppliers are theirs.
  after: ['feeds', 'aave'],
  phase: 'lending',
  enabled: () => true,
  deploy: async (build) => {
    const { queueMorpho } = await import('./deploy.js');
    build.provide(MORPHO, queueMorpho(build.session, build.deployer, build.tokens, build.priceSources));
  },
  manifest: async (build, manifest) => {
    const queued = build.need(MORPHO);
    const { readMorpho } = await import('./deploy.js');
    const morpho = queued ? [await readMorpho(build.rpc, queued, build.deployBlock)] : [];
    manifest.lending = { aave: manifest.lending?.aave ?? [], morpho };
  },
  // Morpho's borrowers after everyone else so far, their positions from its own stream (`morpho`).
  cast: async (build) => {
    const [{ initialMorphoState, morphoBorrowerCount, morphoBorrowerIndices }, { newAgentState }] = await Promise.all([
      import('./positions.js'),
      import('../../chain/agent.js'),
    ]);
    const m = build.manifest.lending?.morpho[0];
    const markets = build.manifest.lending?.aave.length ?? 0;
    const borrowers = m && markets > 0 ? morphoBorrowerCount(build.scale, m.markets.length) : 0;
    for (let i = 0; i < borrowers; i++) build.agents.push(newAgentState(build.seed, build.nextKey(), 'borrower'));
    if (m && build.state.lending && borrowers > 0) {
      build.state.lending.morpho = initialMorphoState(m, build.seed, morphoBorrowerIndices(build.agents, borrowers));
    }
  },
  actors: async (host) => {
    const m = host.manifest.lending?.morpho[0];
    const state = host.state.lending?.morpho;
    if (!m || !state) return undefined;
    const { MorphoActors } = await import('./actors.js');
    const actors = new MorphoActors(m, state, lendingHost(host));
    return {
      read: (_from, to) => actors.read(to),
      step: (reading, from, to) => actors.step(reading as Parameters<MorphoActors['step']>[0], from, to),
      save: () => actors.save(),
    };
  },
  contracts: (manifest) =>
    (manifest.lending?.morpho ?? []).flatMap((m) => [
      { address: m.morpho, name: 'Morpho', artifact: artifactIn(import.meta.dirname, 'Morpho') },
      ...[...new Set(m.markets.map((x) => x.irm))].map((irm) => ({
        address: irm,
        name: 'FixedCurveIrm',
        artifact: artifactIn(import.meta.dirname, 'FixedCurveIrm'),
      })),
      ...m.markets.map((x) => ({
        address: x.oracle,
        name: 'FeedPriceOracle',
        artifact: artifactIn(import.meta.dirname, 'FeedPriceOracle'),
      })),
    ]),
  addressBook: (manifest, book) => {
    for (const m of manifest.lending?.morpho ?? []) {
      book.entries[bookKey.lending(m.protocol, m.version, m.baseAsset)] = { address: m.morpho.toLowerCase() };
    }
  },
};
