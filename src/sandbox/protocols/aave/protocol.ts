/**
 * The Aave V3 design markets (Aave and its fork Spark) as a sandbox protocol: queued on the genesis block once every
 * price source exists; suppliers, borrowers, loopers and liquidators act right after the feeds' rounds.
 */
import { createRequire } from 'node:module';
import { bookKey } from '../../../registry/address-book.js';
import type { ManifestAaveMarket } from '../../world/manifest.js';
import { lendingHost } from '../lending/host.js';
import { lendingCastCounts } from '../lending/positions.js';
import { type SandboxProtocol, slot } from '../protocol.js';
import type { AaveActors } from './actors.js';
import type { QueuedWorldAaveMarket } from './markets.js';

const require = createRequire(import.meta.url);

/** The path of `@aave/core-v3`'s Hardhat artifact of `Name` in `contracts/<source>` (resolved, not read). */
export const aaveArtifactPath = (source: string, name: string): string =>
  require.resolve(`@aave/core-v3/artifacts/contracts/${source}/${name}.json`);

/** A proxy's implementation, where the manifest has it. */
const behind = (implementation: `0x${string}` | undefined) => (implementation ? { implementation } : {});

/** The implementations behind a market's proxies and its linked libraries (all in `protocol/libraries/logic/`). */
function implementationContracts(impl: ManifestAaveMarket['implementations']) {
  if (!impl) return [];
  const tokenization = (name: string) => aaveArtifactPath(`protocol/tokenization/${name}.sol`, name);
  return [
    { address: impl.pool, name: 'Pool', artifact: aaveArtifactPath('protocol/pool/Pool.sol', 'Pool') },
    {
      address: impl.poolConfigurator,
      name: 'PoolConfigurator',
      artifact: aaveArtifactPath('protocol/pool/PoolConfigurator.sol', 'PoolConfigurator'),
    },
    { address: impl.aToken, name: 'AToken', artifact: tokenization('AToken') },
    { address: impl.stableDebtToken, name: 'StableDebtToken', artifact: tokenization('StableDebtToken') },
    { address: impl.variableDebtToken, name: 'VariableDebtToken', artifact: tokenization('VariableDebtToken') },
    ...Object.entries(impl.libraries).map(([name, address]) => ({
      address,
      name,
      artifact: aaveArtifactPath(`protocol/libraries/logic/${name}.sol`, name),
    })),
  ];
}

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
  // Aave's Hardhat artifacts (@aave/core-v3) with the build-info the package ships: the compiler input each address
  // was built from. The pool, the configurator and the reserves' tokens are the immutable-admin proxies the addresses
  // provider and the configurator create (named here by their role; their artifact is the proxy's).
  contracts: (manifest) => {
    const artifact = aaveArtifactPath;
    const proxy = artifact(
      'protocol/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol',
      'InitializableImmutableAdminUpgradeabilityProxy',
    );
    return (manifest.lending?.aave ?? []).flatMap((m) => [
      {
        address: m.addressesProvider,
        name: 'PoolAddressesProvider',
        artifact: artifact('protocol/configuration/PoolAddressesProvider.sol', 'PoolAddressesProvider'),
      },
      {
        address: m.aclManager,
        name: 'ACLManager',
        artifact: artifact('protocol/configuration/ACLManager.sol', 'ACLManager'),
      },
      { address: m.pool, name: 'Pool', artifact: proxy, ...behind(m.implementations?.pool) },
      {
        address: m.poolConfigurator,
        name: 'PoolConfigurator',
        artifact: proxy,
        ...behind(m.implementations?.poolConfigurator),
      },
      { address: m.oracle, name: 'AaveOracle', artifact: artifact('misc/AaveOracle.sol', 'AaveOracle') },
      {
        address: m.dataProvider,
        name: 'AaveProtocolDataProvider',
        artifact: artifact('misc/AaveProtocolDataProvider.sol', 'AaveProtocolDataProvider'),
      },
      ...m.reserves.flatMap((r) => [
        { address: r.aToken, name: 'AToken', artifact: proxy, ...behind(m.implementations?.aToken) },
        {
          address: r.variableDebtToken,
          name: 'VariableDebtToken',
          artifact: proxy,
          ...behind(m.implementations?.variableDebtToken),
        },
        {
          address: r.stableDebtToken,
          name: 'StableDebtToken',
          artifact: proxy,
          ...behind(m.implementations?.stableDebtToken),
        },
        {
          address: r.interestRateStrategy,
          name: 'DefaultReserveInterestRateStrategy',
          artifact: artifact(
            'protocol/pool/DefaultReserveInterestRateStrategy.sol',
            'DefaultReserveInterestRateStrategy',
          ),
        },
      ]),
      ...implementationContracts(m.implementations),
    ]);
  },
  addressBook: (manifest, book) => {
    for (const m of manifest.lending?.aave ?? []) {
      book.entries[bookKey.lending(m.protocol, m.version, m.baseAsset)] = { address: m.pool.toLowerCase() };
    }
  },
  revertReason: async (data) => (await import('./revert.js')).describeRevertData(data),
};
