/**
 * A world for the contract-source stand-ins' tests without a chain: the view `start` gives them (`worldView`), over a
 * manifest that names one Aave market (its contracts from `@aave/core-v3`'s Hardhat artifacts and build-info), one
 * contract of our own (the feeds' `FeedProxy`, its source beside its artifact) and one token whose artifact ships no
 * source. The addresses are made up: the stand-ins read no chain.
 */
import path from 'node:path';
import { aave } from '../../src/sandbox/protocols/aave/protocol.js';
import { artifactIn, type SandboxProtocol } from '../../src/sandbox/protocols/protocol.js';
import type { WorldManifest } from '../../src/sandbox/world/manifest.js';
import { HourlyHistory, type WorldView, worldView } from '../../src/sandbox/world/view.js';

export const CHAIN_ID = 31337;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;

export const ADDRESSES = {
  addressesProvider: a(0xa1),
  aclManager: a(0xa2),
  pool: a(0xa3),
  poolConfigurator: a(0xa4),
  oracle: a(0xa5),
  dataProvider: a(0xa6),
  aToken: a(0xa7),
  variableDebtToken: a(0xa8),
  stableDebtToken: a(0xa9),
  interestRateStrategy: a(0xaa),
  poolImpl: a(0xb1),
  poolConfiguratorImpl: a(0xb2),
  aTokenImpl: a(0xb3),
  stableDebtTokenImpl: a(0xb4),
  variableDebtTokenImpl: a(0xb5),
  supplyLogic: a(0xb6),
  feedProxy: a(0xf1),
  token: a(0x70),
  /** Nothing deployed here. */
  nothing: a(0xdead),
} as const;

const FEEDS_DIR = path.resolve(__dirname, '../../src/sandbox/protocols/feeds');

/** Our own contract: the feeds protocol's `FeedProxy` (source and settings beside its artifact). */
const ownContracts = {
  name: 'feeds',
  chain: 'ethereum',
  contracts: () => [{ address: ADDRESSES.feedProxy, name: 'FeedProxy', artifact: artifactIn(FEEDS_DIR, 'FeedProxy') }],
} as unknown as SandboxProtocol;

export function contractSourcesManifest(): WorldManifest {
  const A = ADDRESSES;
  return {
    seed: 1,
    chain: 'ethereum',
    chainId: CHAIN_ID,
    genesisTimestamp: 1_700_000_000,
    deployer: a(1),
    tokens: [{ address: A.token, symbol: 'USDC', decimals: 6, kind: 'erc20' }],
    dex: [],
    pools: [],
    weth: a(0x7e),
    lending: {
      aave: [
        {
          protocol: 'aave',
          chain: 'ethereum',
          version: 'V3',
          baseAsset: 'USD',
          marketId: 'Aave Sandbox Market',
          design: 'aave-v3',
          deployer: a(1),
          treasury: a(2),
          addressesProvider: A.addressesProvider,
          aclManager: A.aclManager,
          pool: A.pool,
          poolConfigurator: A.poolConfigurator,
          oracle: A.oracle,
          dataProvider: A.dataProvider,
          reserves: [
            {
              symbol: 'USDC',
              decimals: 6,
              token: A.token,
              aToken: A.aToken,
              variableDebtToken: A.variableDebtToken,
              stableDebtToken: A.stableDebtToken,
              interestRateStrategy: A.interestRateStrategy,
              priceSource: a(3),
            },
          ],
          implementations: {
            pool: A.poolImpl,
            poolConfigurator: A.poolConfiguratorImpl,
            aToken: A.aTokenImpl,
            stableDebtToken: A.stableDebtTokenImpl,
            variableDebtToken: A.variableDebtTokenImpl,
            libraries: { SupplyLogic: A.supplyLogic },
          },
          startBlock: 1,
        },
      ],
      morpho: [],
    },
  } as unknown as WorldManifest;
}

export function contractSourcesView(): WorldView {
  return worldView([contractSourcesManifest()], new HourlyHistory(), [aave, ownContracts]);
}
