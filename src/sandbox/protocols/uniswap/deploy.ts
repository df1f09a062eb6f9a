/**
 * Deploys the DEX side of the world on the genesis block: one Uniswap V2 or V3 factory set per DEX deployment the
 * registry lists (uniswap V2/V3, pancakeswap V3, fraxfinance V2, all from the same npm bytecode), and the pools of
 * `POOL_PLAN` with their permanent seed liquidity, owned by the deployer.
 */
import { type Address, encodeDeployData, encodeFunctionData, type Hex, maxUint256 } from 'viem';
import { registry } from '../../../registry/index.js';
import type { Agent } from '../../chain/agent.js';
import {
  fullRange,
  rawPrice,
  sqrtPriceX96FromPrice,
  tickRange,
  toRawAmount,
  v3AmountsForValue,
} from '../../chain/amm.js';
import { erc20Abi, mintableErc20Abi, weth9Abi } from '../../chain/artifacts.js';
import { topicAddress } from '../../chain/receipts.js';
import type { RpcClient } from '../../chain/rpc.js';
import { type ChainSession, GAS } from '../../chain/session.js';
import type { ManifestDex, ManifestPool, ManifestToken } from '../../world/manifest.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import { pow } from '../../world/pow.js';
import type { GenesisFunds } from '../protocol.js';
import { stakeEthData, underlyingForTokens } from '../staking/staked-token.js';
import {
  sortTokens,
  uniswapArtifacts,
  v2FactoryAbi,
  v2PairAddress,
  v2RouterAbi,
  v3FactoryAbi,
  v3PoolAddress,
  v3PositionManagerAbi,
} from './artifacts.js';
import { DEX_GAS } from './dex.js';
import { DEX_PLAN, type PoolPlan, V3_TICK_SPACING } from './plan.js';

/**
 * Seed depth grows with √scale: a world with k times the trades has a net flow per block about √k times bigger
 * (random directions), so √k times the depth keeps the per-block price impact, and the slippage reverts, as at
 * scale 1.
 */
export function depthForScale(depthUsd: number, scale: number): number {
  return depthUsd * Math.sqrt(scale);
}

/** V3 seed: share of the depth in the full-range position (the rest is concentrated around the price). */
const V3_FULL_RANGE_SHARE = 0.3;

/** The (protocol, version) deployments to create: `DEX_PLAN` entries that the registry lists on Ethereum. */
export function plannedDexes(): { protocol: string; version: 'V2' | 'V3'; design: 'uniswap-v2' | 'uniswap-v3' }[] {
  const listed = registry
    .dexDeployments()
    .filter(
      (d) =>
        d.deployment.chain === 'ethereum' &&
        (d.deployment.design === 'uniswap-v2' || d.deployment.design === 'uniswap-v3'),
    );
  return DEX_PLAN.filter((p) =>
    listed.some((d) => d.protocol.id === p.protocol && d.deployment.version === p.version),
  ).map((p) => ({ ...p, design: p.version === 'V2' ? 'uniswap-v2' : 'uniswap-v3' }));
}

export interface PlannedPool {
  readonly plan: PoolPlan;
  readonly dex: ManifestDex;
  readonly token0: ManifestToken;
  readonly token1: ManifestToken;
  readonly address: Address;
}

/**
 * Queues one factory set per planned (protocol, version), each contract created by `deploy` (CREATE from the
 * deployer's nonces), and returns the deployments as the manifest lists them.
 */
export function queueDexes(
  session: ChainSession,
  deployer: Agent,
  deploy: (bytecodeData: Hex) => Address,
  weth: Address,
  startBlock: number,
): ManifestDex[] {
  const a = uniswapArtifacts();
  const deployerAddress = deployer.address;
  const dexes: ManifestDex[] = [];
  for (const d of plannedDexes()) {
    if (d.version === 'V2') {
      const factory = deploy(
        encodeDeployData({ abi: a.v2Factory.abi, bytecode: a.v2Factory.bytecode, args: [deployerAddress] }),
      );
      const router = deploy(
        encodeDeployData({ abi: a.v2Router02.abi, bytecode: a.v2Router02.bytecode, args: [factory, weth] }),
      );
      dexes.push({
        protocol: d.protocol,
        version: 'V2',
        design: 'uniswap-v2',
        factory,
        router,
        startBlock,
      });
    } else {
      const factory = deploy(a.v3Factory.bytecode);
      // The 0.01 % tier (tick spacing 1) came after launch by governance; the npm factory only has 0.05/0.3/1 %.
      session.send(deployer, {
        to: factory,
        data: encodeFunctionData({ abi: v3FactoryAbi, functionName: 'enableFeeAmount', args: [100, 1] }),
        gas: GAS.setup,
        kind: 'setup',
      });
      const positionManager = deploy(
        encodeDeployData({
          abi: a.v3PositionManager.abi,
          bytecode: a.v3PositionManager.bytecode,
          // No token descriptor: tokenURI is not needed by anything the service reads.
          args: [factory, weth, '0x0000000000000000000000000000000000000000'],
        }),
      );
      const router = deploy(
        encodeDeployData({ abi: a.v3SwapRouter.abi, bytecode: a.v3SwapRouter.bytecode, args: [factory, weth] }),
      );
      dexes.push({
        protocol: d.protocol,
        version: 'V3',
        design: 'uniswap-v3',
        factory,
        router,
        positionManager,
        startBlock,
      });
    }
  }
  return dexes;
}

/** The pools of `plans` whose deployment exists, with their tokens sorted and their CREATE2 addresses. */
export function planPools(
  plans: readonly PoolPlan[],
  dexes: readonly ManifestDex[],
  tokenBySymbol: ReadonlyMap<string, ManifestToken>,
): PlannedPool[] {
  const planPool = (plan: PoolPlan): PlannedPool | undefined => {
    const dex = dexes.find((d) => d.protocol === plan.protocol && d.version === plan.version);
    if (!dex) return undefined;
    const [ta, tb] = plan.tokens.map((s) => {
      const t = tokenBySymbol.get(s);
      if (!t) throw new Error(`sandbox plan: unknown token ${s}`);
      return t;
    }) as [ManifestToken, ManifestToken];
    const [a0] = sortTokens(ta.address, tb.address);
    const [token0, token1] = a0 === ta.address ? [ta, tb] : [tb, ta];
    const address =
      plan.version === 'V2'
        ? v2PairAddress(dex.factory, token0.address, token1.address)
        : v3PoolAddress(dex.factory, token0.address, token1.address, plan.fee);
    return { plan, dex, token0, token1, address };
  };
  const planned: PlannedPool[] = [];
  for (const plan of plans) {
    const pool = planPool(plan);
    if (pool) planned.push(pool);
  }
  return planned;
}

/**
 * Seeds pools on the genesis block: half the depth on each side at the initial prices (V3: split into full-range
 * and concentrated); mints, wraps or stakes what the deployer needs, approves the routers and position managers,
 * creates the pools. Called once for the pools of the first tokens, then again for the liquid staking token's.
 */
export class PoolSeeder {
  /** Native ETH the deployer needs: what it wraps or stakes for the seeds (set on the node before mining). */
  ethNeeded = 0n;
  private readonly approved = new Set<string>();

  constructor(
    private readonly session: ChainSession,
    private readonly deployer: Agent,
    private readonly weth: Address,
    private readonly scale: number,
    private readonly startTimestamp: number,
    /** Of the seed liquidity's transactions. */
    private readonly deadline: bigint,
    /** How a token a protocol issues is funded (Maker's DAI: drawn from a vault), instead of minted. */
    private readonly funds?: GenesisFunds,
  ) {}

  /** Queues the seeds of `pools`, funding the deployer in `tokens` (the world's tokens, in their order). */
  seed(pools: readonly PlannedPool[], tokens: readonly ManifestToken[]): void {
    const { session, deployer, weth, scale, deadline } = this;
    const deployerAddress = deployer.address;
    interface Seed {
      pool: PlannedPool;
      positions: { tickLower: number; tickUpper: number; amount0: bigint; amount1: bigint }[];
    }
    const seeds: Seed[] = [];
    const need = new Map<string, bigint>();
    const addNeed = (token: ManifestToken, amount: bigint) =>
      need.set(token.address, (need.get(token.address) ?? 0n) + amount);
    for (const pool of pools) {
      const { token0, token1, plan } = pool;
      const price = rawPrice(token0.initialPriceUsd, token0.decimals, token1.initialPriceUsd, token1.decimals);
      const valueIn1 = (depthForScale(plan.depthUsd, scale) / token1.initialPriceUsd) * pow(10, token1.decimals);
      const positions: Seed['positions'] = [];
      if (plan.version === 'V2') {
        positions.push({
          tickLower: 0,
          tickUpper: 0,
          amount0: toRawAmount(valueIn1 / 2 / price),
          amount1: toRawAmount(valueIn1 / 2),
        });
      } else {
        const spacing = V3_TICK_SPACING[plan.fee];
        if (!spacing) throw new Error(`sandbox plan: no tick spacing for fee ${plan.fee}`);
        const parts: [[number, number], number][] = [
          [fullRange(spacing), V3_FULL_RANGE_SHARE],
          [tickRange(price, plan.rangeWidth ?? 0.2, spacing), 1 - V3_FULL_RANGE_SHARE],
        ];
        for (const [[tickLower, tickUpper], share] of parts) {
          const { amount0, amount1 } = v3AmountsForValue(price, tickLower, tickUpper, valueIn1 * share);
          positions.push({ tickLower, tickUpper, amount0: toRawAmount(amount0), amount1: toRawAmount(amount1) });
        }
      }
      for (const p of positions) {
        addNeed(token0, p.amount0);
        addNeed(token1, p.amount1);
      }
      seeds.push({ pool, positions });
    }

    // Fund the deployer: mint the ERC-20s (a token a protocol issues: its own way), wrap ETH, stake ETH for the
    // liquid staking token.
    for (const token of tokens) {
      const amount = need.get(token.address) ?? 0n;
      if (amount === 0n) continue;
      const lst = TOKEN_PLAN.find((t) => t.symbol === token.symbol)?.liquidStaking;
      if (token.address === weth) {
        this.ethNeeded += amount;
        session.send(deployer, {
          to: weth,
          data: encodeFunctionData({ abi: weth9Abi, functionName: 'deposit' }),
          value: amount,
          gas: GAS.wrap,
          kind: 'fund',
        });
      } else if (lst) {
        const value = underlyingForTokens(lst, this.startTimestamp, this.startTimestamp, amount);
        this.ethNeeded += value;
        session.send(deployer, { to: token.address, data: stakeEthData(), value, gas: GAS.wrap * 2n, kind: 'fund' });
      } else if (!this.funds?.fund(deployer, token, amount)) {
        session.send(deployer, {
          to: token.address,
          data: encodeFunctionData({ abi: mintableErc20Abi, functionName: 'mint', args: [amount] }),
          gas: GAS.mint,
          kind: 'fund',
        });
      }
    }
    // Approve each V2 router / V3 position manager for the tokens of its pools.
    for (const { pool } of seeds) {
      const spender = pool.dex.version === 'V2' ? pool.dex.router : pool.dex.positionManager!;
      for (const token of [pool.token0, pool.token1]) {
        const k = `${token.address}>${spender}`;
        if (this.approved.has(k)) continue;
        this.approved.add(k);
        session.send(deployer, {
          to: token.address,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] }),
          gas: GAS.approve,
          kind: 'approve',
        });
      }
    }
    // Create and seed the pools.
    for (const { pool, positions } of seeds) {
      const { token0, token1, dex, plan } = pool;
      if (plan.version === 'V2') {
        const p = positions[0]!;
        session.send(deployer, {
          to: dex.router,
          // Router02 creates the pair on first liquidity.
          data: encodeFunctionData({
            abi: v2RouterAbi,
            functionName: 'addLiquidity',
            args: [token0.address, token1.address, p.amount0, p.amount1, 0n, 0n, deployerAddress, deadline],
          }),
          gas: DEX_GAS.createPair,
          kind: 'setup',
        });
        continue;
      }
      const price = rawPrice(token0.initialPriceUsd, token0.decimals, token1.initialPriceUsd, token1.decimals);
      session.send(deployer, {
        to: dex.positionManager!,
        data: encodeFunctionData({
          abi: v3PositionManagerAbi,
          functionName: 'createAndInitializePoolIfNecessary',
          args: [token0.address, token1.address, plan.fee, sqrtPriceX96FromPrice(price)],
        }),
        gas: DEX_GAS.createPool,
        kind: 'setup',
      });
      for (const p of positions) {
        session.send(deployer, {
          to: dex.positionManager!,
          data: encodeFunctionData({
            abi: v3PositionManagerAbi,
            functionName: 'mint',
            args: [
              {
                token0: token0.address,
                token1: token1.address,
                fee: plan.fee,
                tickLower: p.tickLower,
                tickUpper: p.tickUpper,
                amount0Desired: p.amount0,
                amount1Desired: p.amount1,
                amount0Min: 0n,
                amount1Min: 0n,
                recipient: deployerAddress,
                deadline,
              },
            ],
          }),
          gas: DEX_GAS.v3Mint,
          kind: 'setup',
        });
      }
    }
  }
}

/**
 * Checks that the factories agree with the CREATE2 addresses computed in advance (they would not if the bytecode
 * differed).
 */
export async function checkPoolAddresses(rpc: RpcClient, planned: readonly PlannedPool[]): Promise<void> {
  const lookups = await rpc.batchResults<Hex>(
    planned.map((p) => ({
      method: 'eth_call',
      params: [
        {
          to: p.dex.factory,
          data:
            p.plan.version === 'V2'
              ? encodeFunctionData({
                  abi: v2FactoryAbi,
                  functionName: 'getPair',
                  args: [p.token0.address, p.token1.address],
                })
              : encodeFunctionData({
                  abi: v3FactoryAbi,
                  functionName: 'getPool',
                  args: [p.token0.address, p.token1.address, p.plan.fee],
                }),
        },
        'latest',
      ],
    })),
  );
  planned.forEach((p, i) => {
    if (topicAddress(lookups[i]) !== p.address.toLowerCase()) {
      throw new Error(`sandbox deployment: pool ${p.plan.tokens.join('/')} is at ${lookups[i]}, expected ${p.address}`);
    }
  });
}

/** The manifest's pools. */
export function manifestPools(planned: readonly PlannedPool[]): ManifestPool[] {
  return planned.map((p) => ({
    address: p.address,
    protocol: p.dex.protocol,
    version: p.dex.version,
    token0: p.token0.address,
    token1: p.token1.address,
    fee: p.plan.fee,
    character: p.plan.character,
  }));
}
