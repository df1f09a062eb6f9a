/**
 * The Aave V3 design markets (Aave and its fork Spark) as a sandbox protocol: queued on the genesis block once every
 * price source exists; suppliers, borrowers, loopers and liquidators act right after the feeds' rounds.
 */
import { bookKey } from '../../../registry/address-book.js';
import { lendingHost } from '../lending/host.js';
import { lendingCastCounts } from '../lending/positions.js';
import { type SandboxProtocol, slot } from '../protocol.js';
import type { AaveActors } from './actors.js';
import type { QueuedWorldAaveMarket } from './markets.js';

const AAVE = slot<readonly QueuedWorldAaveMarket[]>('aave');

export const aave: SandboxProtocol = {
  name: 'aave',
  chain: 'ethereum',
  after: ['feeds', 'staking'],
  phase: 'lending',
  enabled: () => true,
  deploy: async (build) => {
    const { queueAaveMarkets } = await import('./markets.js');
    build.provide(AAVE, queueAaveMarkets(build.session, build.deployer, build.tokens, build.priceSources));
  },
  manifest: async (build, manifest) => {
    const { readAaveMarket } = await import('./deploy.js');
    const queued = build.need(AAVE);
    const markets = await Promise.all(
      queued.map((m) => readAaveMarket(build.rpcUrl, m.queued, m.specs, build.deployBlock)),
    );
    manifest.lending = { aave: markets, morpho: manifest.lending?.morpho ?? [] };
  },
  // The lending cast after the DEX's, and its positions drawn from its own stream (`lending`).
  cast: async (build) => {
    const [{ initialAaveState }, { newAgentState }] = await Promise.all([
      import('./positions.js'),
      import('../../chain/agent.js'),
    ]);
    const { seed, agents } = build;
    const markets = build.manifest.lending?.aave.length ?? 0;
    if (markets === 0) return;
    const cast = lendingCastCounts(build.scale, markets);
    for (let i = 0; i < cast.suppliers; i++) agents.push(newAgentState(seed, build.nextKey(), 'supplier'));
    for (let i = 0; i < cast.borrowers; i++) agents.push(newAgentState(seed, build.nextKey(), 'borrower'));
    for (let i = 0; i < cast.loopers; i++) agents.push(newAgentState(seed, build.nextKey(), 'looper'));
    for (let i = 0; i < cast.liquidators; i++) agents.push(newAgentState(seed, build.nextKey(), 'liquidator'));
    build.state.lending = initialAaveState(build.manifest, seed, agents);
  },
  actors: async (host) => {
    const { manifest, state } = host;
    if (!manifest.lending || !state.lending) return undefined;
    const { AaveActors } = await import('./actors.js');
    const actors = new AaveActors(manifest, state.lending, lendingHost(host));
    return {
      read: (_from, to) => actors.read(to),
      step: (reading, from, to) => actors.step(reading as Parameters<AaveActors['step']>[0], from, to),
      save: () => actors.save(),
    };
  },
  // Aave's own artifacts (@aave/core-v3) ship no sources: names only.
  contracts: (manifest) =>
    (manifest.lending?.aave ?? []).flatMap((m) => [
      { address: m.addressesProvider, name: 'PoolAddressesProvider' },
      { address: m.aclManager, name: 'ACLManager' },
      { address: m.pool, name: 'Pool' },
      { address: m.poolConfigurator, name: 'PoolConfigurator' },
      { address: m.oracle, name: 'AaveOracle' },
      { address: m.dataProvider, name: 'AaveProtocolDataProvider' },
      ...m.reserves.flatMap((r) => [
        { address: r.aToken, name: 'AToken' },
        { address: r.variableDebtToken, name: 'VariableDebtToken' },
        { address: r.stableDebtToken, name: 'StableDebtToken' },
        { address: r.interestRateStrategy, name: 'DefaultReserveInterestRateStrategy' },
      ]),
    ]),
  addressBook: (manifest, book) => {
    for (const m of manifest.lending?.aave ?? []) {
      book.entries[bookKey.lending(m.protocol, m.version, m.baseAsset)] = { address: m.pool.toLowerCase() };
    }
  },
  revertReason: async (data) => (await import('./revert.js')).describeRevertData(data),
};
