/**
 * The DEX deployments (Uniswap V2 and V3 and their forks) as a sandbox protocol: the factories and routers, the
 * planned pools seeded in the genesis block, the traders, LPs and arbitrageur, last in every block.
 */
import type { Address } from 'viem';
import { bookKey } from '../../../registry/address-book.js';
import type { ManifestDex } from '../../world/manifest.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import {
  GENESIS_FUNDS,
  type GenesisBuild,
  type ProtocolActors,
  type SandboxProtocol,
  SEIZED_SALES,
  slot,
} from '../protocol.js';
import type { DexActors } from './actors.js';
import type { PlannedPool, PoolSeeder } from './deploy.js';
import type { PoolReading, PoolView } from './dex.js';
import { POOL_PLAN, type PoolPlan } from './plan.js';

/** What the DEX hands the protocols after it while the genesis block is built. */
export interface DexBuild {
  readonly dexes: readonly ManifestDex[];
  /** Every pool planned so far, in manifest order (protocols after the DEX add their tokens' pools). */
  readonly planned: PlannedPool[];
  readonly seeder: PoolSeeder;
  /** Plans and seeds the planned pools `include` selects (a protocol's own token's pools, once the token exists). */
  seedPools(include: (plan: PoolPlan) => boolean): void;
}
export const DEX = slot<DexBuild>('dex');

/** Pools of a token a later protocol issues (the liquid staking token): that protocol seeds them. */
const issuedLater = new Set(TOKEN_PLAN.filter((t) => t.liquidStaking).map((t) => t.symbol));
const isLate = (plan: PoolPlan) => plan.tokens.some((s) => issuedLater.has(s));

async function deploy(build: GenesisBuild): Promise<void> {
  const { PoolSeeder, planPools, queueDexes } = await import('./deploy.js');
  const dexes = queueDexes(build.session, build.deployer, (data) => build.deploy(data), build.weth, build.deployBlock);
  const seeder = new PoolSeeder(
    build.session,
    build.deployer,
    build.weth,
    build.scale,
    build.startTimestamp,
    build.deadline,
    build.find(GENESIS_FUNDS),
  );
  const planned: PlannedPool[] = [];
  const seedPools = (include: (plan: PoolPlan) => boolean) => {
    const bySymbol = new Map(build.tokens.map((t) => [t.symbol, t]));
    const pools = planPools(POOL_PLAN.filter(include), dexes, bySymbol);
    seeder.seed(pools, build.tokens);
    planned.push(...pools);
  };
  seedPools((plan) => !isLate(plan));
  build.needsEth(() => seeder.ethNeeded);
  build.provide(DEX, { dexes, planned, seeder, seedPools });
}

class DexProtocolActors implements ProtocolActors {
  private awake: number[] = [];
  private live: PoolView[] = [];
  constructor(private readonly actors: DexActors) {}
  begin(from: number, to: number): void {
    this.actors.begin(to);
    this.awake = this.actors.awake(from, to);
    this.live = this.actors.livePools(this.awake);
  }
  // Every pool is read and arbitraged, dormant ones included (arbitrage bots do not sleep); only awake pools trade.
  read(): Promise<PoolReading[]> {
    return this.actors.read(this.actors.dex.pools);
  }
  /** The arbitrageur first, the liquidators' sales, the traders and the LPs, the closing arbitrage last. */
  step(readings: unknown, from: number, to: number): void {
    const pools = this.actors.dex.pools;
    this.actors.arbitrage(pools, readings as PoolReading[]);
    this.actors.sellSeized(this.live);
    this.actors.trade(from, to, this.awake);
    this.actors.closeArbitrage(pools);
  }
  save(): void {
    this.actors.save();
  }
}

export const uniswap: SandboxProtocol = {
  name: 'uniswap',
  chain: 'ethereum',
  after: [],
  phase: 'dex',
  enabled: () => true,
  deploy,
  manifest: async (build, manifest) => {
    const { checkPoolAddresses, manifestPools } = await import('./deploy.js');
    const { dexes, planned } = build.need(DEX);
    await checkPoolAddresses(build.rpc, planned);
    manifest.dex = [...dexes];
    manifest.pools = manifestPools(planned);
  },
  cast: async (build) => {
    const [{ castDex }, { depthForScale }] = await Promise.all([import('./cast.js'), import('./deploy.js')]);
    const planned = build.genesis.find(DEX)?.planned ?? [];
    castDex(build, new Map(planned.map((p) => [p.address.toLowerCase(), depthForScale(p.plan.depthUsd, build.scale)])));
  },
  actors: async (host) => {
    const { DexActors } = await import('./actors.js');
    const actors = new DexActors(host.manifest, host.tokens, host);
    host.provide(SEIZED_SALES, {
      seized: (agent, collateral, debt, amount) => actors.queueSale(agent, collateral, debt, amount),
    });
    return new DexProtocolActors(actors);
  },
  // The Uniswap packages' artifacts ship no sources: names only.
  contracts: (manifest) => [
    ...manifest.dex.flatMap((d) => {
      const v2 = d.design === 'uniswap-v2';
      return [
        { address: d.factory, name: v2 ? 'UniswapV2Factory' : 'UniswapV3Factory' },
        { address: d.router, name: v2 ? 'UniswapV2Router02' : 'SwapRouter' },
        ...(d.positionManager ? [{ address: d.positionManager, name: 'NonfungiblePositionManager' }] : []),
      ];
    }),
    ...manifest.pools.map((p) => ({
      address: p.address,
      name: p.version === 'V2' ? 'UniswapV2Pair' : 'UniswapV3Pool',
    })),
  ],
  addressBook: (manifest, book) => {
    for (const d of manifest.dex) book.entries[bookKey.dex(d.protocol, d.version)] = { address: lower(d.factory) };
  },
};

const lower = (a: Address) => a.toLowerCase();
