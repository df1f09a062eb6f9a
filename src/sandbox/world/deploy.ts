/**
 * Deploys the sandbox world on a fresh anvil chain, all in its genesis block: tokens and WETH9, the DEX deployments
 * and their seeded pools (protocols/uniswap), the price feeds (protocols/feeds), the liquid staking token and its
 * pools (protocols/staking), the lending markets (protocols/aave, protocols/morpho); then the cast of agents the
 * scenario animates (cast.ts).
 */
import { type Address, encodeDeployData, type Hex, zeroAddress } from 'viem';
import { Agent, DEPLOYER_PRIVATE_KEY, newAgentState } from '../chain/agent.js';
import { createdAddress, tokenArtifacts } from '../chain/artifacts.js';
import { RpcClient } from '../chain/rpc.js';
import { ChainSession, GAS } from '../chain/session.js';
import { readAaveMarket } from '../protocols/aave/deploy.js';
import { type QueuedWorldAaveMarket, queueAaveMarkets } from '../protocols/aave/markets.js';
import { explainRevert } from '../protocols/aave/revert.js';
import {
  FEED_ROUND_GAS,
  feedDeployData,
  feedProxyDeployData,
  genesisAnswers,
  initialOracleState,
  manifestOracles,
  plannedFeeds,
  plannedLendingFeeds,
  transmitData,
} from '../protocols/feeds/feeds.js';
import { type QueuedLiquity, queueLiquity, readLiquity } from '../protocols/liquity/deploy.js';
import { initialMakerState } from '../protocols/maker/actors.js';
import { prepareMaker, queueMaker } from '../protocols/maker/deploy.js';
import { type QueuedMorpho, queueMorpho, readMorpho } from '../protocols/morpho/deploy.js';
import { manifestLiquidStaking, stakedTokenDeployData } from '../protocols/staking/staked-token.js';
import { sortTokens, v2PairAddress } from '../protocols/uniswap/artifacts.js';
import {
  checkPoolAddresses,
  depthForScale,
  manifestPools,
  PoolSeeder,
  planPools,
  queueDexes,
} from '../protocols/uniswap/deploy.js';
import { POOL_PLAN, type PoolPlan } from '../protocols/uniswap/plan.js';
import { createInitialState } from './cast.js';
import type { ManifestDex, ManifestLending, ManifestToken, SimulationState, WorldManifest } from './manifest.js';
import { TOKEN_PLAN } from './plan.js';

/** Native ETH set on every agent (not a transaction: `anvil_setBalance`); pays gas and WETH top-ups for years. */
const AGENT_ETH = 10n ** 24n;

/** Extra ETH for the deployer above what it wraps into seed WETH. */
const DEPLOYER_ETH_HEADROOM = 10n ** 22n;

/** The lending markets queued on the genesis block. */
interface QueuedLending {
  readonly aave: readonly QueuedWorldAaveMarket[];
  readonly morpho: QueuedMorpho | undefined;
}

/** Queues the lending markets on the genesis block (after the tokens and every price source exist). */
function queueLending(
  session: ChainSession,
  deployer: Agent,
  tokens: readonly ManifestToken[],
  priceSources: ReadonlyMap<string, Address>,
): QueuedLending {
  const aave = queueAaveMarkets(session, deployer, tokens, priceSources);
  return { aave, morpho: queueMorpho(session, deployer, tokens, priceSources) };
}

/** Checks the mined markets against their plans and returns the manifest's `lending`. */
async function readLending(rpcUrl: string, queued: QueuedLending, startBlock: number): Promise<ManifestLending> {
  const aave = await Promise.all(queued.aave.map((m) => readAaveMarket(rpcUrl, m.queued, m.specs, startBlock)));
  const morpho = queued.morpho ? [await readMorpho(new RpcClient(rpcUrl), queued.morpho, startBlock)] : [];
  return { aave, morpho };
}

/**
 * Queues Liquity (protocols/liquity) after the lending markets: priced by the ETH/USD feed, its LUSD/USDC pair on
 * Uniswap V2. None without those.
 */
function queueWorldLiquity(
  session: ChainSession,
  deployer: Agent,
  world: {
    tokens: readonly ManifestToken[];
    dexes: readonly ManifestDex[];
    priceSources: ReadonlyMap<string, Address>;
    scale: number;
    deadline: bigint;
  },
): { queued: QueuedLiquity; ethNeeded: bigint } | undefined {
  const usdc = world.tokens.find((t) => t.symbol === 'USDC');
  const weth = world.tokens.find((t) => t.kind === 'weth');
  const dex = world.dexes.find((d) => d.protocol === 'uniswap' && d.version === 'V2');
  const ethUsdFeed = weth && world.priceSources.get(weth.symbol);
  if (!usdc || !weth || !dex || !ethUsdFeed) return undefined;
  return queueLiquity(session, deployer, {
    ethUsdFeed,
    ethUsdPrice: weth.initialPriceUsd,
    usdc,
    dex,
    scale: world.scale,
    deadline: world.deadline,
  });
}

/** The DAI/USDC pair of Maker's DAI on Uniswap V2 (seeded by the Maker actors at their first step). None without those. */
function makerPool(
  dai: Address,
  tokens: readonly ManifestToken[],
  dexes: readonly ManifestDex[],
): Pick<NonNullable<WorldManifest['maker']>, 'pool'> {
  const usdc = tokens.find((t) => t.symbol === 'USDC');
  const dex = dexes.find((d) => d.protocol === 'uniswap' && d.version === 'V2');
  if (!usdc || !dex) return {};
  const [token0, token1] = sortTokens(dai, usdc.address);
  return {
    pool: {
      address: v2PairAddress(dex.factory, dai, usdc.address),
      factory: dex.factory,
      router: dex.router,
      token0,
      token1,
      usdc: usdc.address,
      usdcDecimals: usdc.decimals,
    },
  };
}

/**
 * Deploys everything on a fresh anvil chain at `rpcUrl` (default anvil accounts; account 0 is the deployer),
 * creates and seeds the pools, and mines the blocks at timestamps from `startTimestamp` on. Returns the manifest
 * and the initial simulation state.
 *
 * Everything goes into one block at `startTimestamp` (transactions in a block run in order, and every address is
 * known in advance: CREATE from the deployer's nonces, CREATE2 for pools), so the simulation's step grid starts
 * exactly at `startTimestamp`. `startTimestamp` must be after the chain's genesis block.
 */
export async function deployWorld(
  rpcUrl: string,
  opts: { seed: number; startTimestamp: number; scale?: number; stablecoins?: boolean },
): Promise<{ manifest: WorldManifest; state: SimulationState }> {
  // MakerDAO and Liquity only when asked: the service asks by default (`SANDBOX_STABLECOINS`); tests' worlds when they
  // need them (lighter and faster without).
  const stablecoins = opts.stablecoins ?? false;
  const scale = opts.scale ?? 1;
  const a = tokenArtifacts();
  const probe = new RpcClient(rpcUrl);
  const [chainIdHex, blockNumberHex] = await probe.batchResults<Hex>([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  const chainId = Number(chainIdHex);
  // MakerDAO's snapshot is read (gunzip on zlib's pool) while the world's own transactions are built.
  const makerSnapshot = stablecoins ? prepareMaker() : undefined;
  const deployBlock = Number(blockNumberHex) + 1;
  const session = new ChainSession(rpcUrl, chainId);
  await session.prepareNode();

  const deployerState = newAgentState(opts.seed, -1, 'deployer');
  deployerState.nonce = Number(await probe.request<Hex>('eth_getTransactionCount', [deployerState.address, 'latest']));
  const deployer = new Agent(deployerState, 0, DEPLOYER_PRIVATE_KEY);
  const deployerAddress = deployer.address;
  const deadline = BigInt(opts.startTimestamp + 3600);

  const deploy = (bytecodeData: Hex): Address => {
    const address = createdAddress(deployerAddress, deployer.state.nonce);
    session.send(deployer, { to: null, data: bytecodeData, gas: GAS.deploy, kind: 'deploy' });
    return address;
  };

  // Tokens: WETH9 first (as on mainnet, everything else refers to it), then the mintable ERC-20s. The liquid
  // staking token comes later (after the feeds), so that every address of the world before it stays what it was.
  const weth = deploy(a.weth9.bytecode);
  const tokens: ManifestToken[] = TOKEN_PLAN.map((t) => {
    const address =
      t.kind === 'weth'
        ? weth
        : t.liquidStaking
          ? zeroAddress
          : deploy(
              encodeDeployData({
                abi: a.mintableErc20.abi,
                bytecode: a.mintableErc20.bytecode,
                args: [t.name, t.symbol, t.decimals],
              }),
            );
    return {
      symbol: t.symbol,
      name: t.name,
      address,
      decimals: t.decimals,
      kind: t.kind,
      initialPriceUsd: t.initialPriceUsd,
      volatility: t.volatility,
    };
  });
  const tokenBySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const lateSymbols = new Set(TOKEN_PLAN.filter((t) => t.liquidStaking).map((t) => t.symbol));
  const dexes = queueDexes(session, deployer, deploy, weth, deployBlock);
  const isLate = (plan: PoolPlan) => plan.tokens.some((s) => lateSymbols.has(s));
  const planned = planPools(
    POOL_PLAN.filter((plan) => !isLate(plan)),
    dexes,
    tokenBySymbol,
  );
  const seeder = new PoolSeeder(session, deployer, weth, scale, opts.startTimestamp, deadline);
  seeder.seed(planned, tokens);

  // Price feeds last, so every address above stays what it was before feeds existed; each reports its first round
  // (the token's initial price) in this block.
  const feedPlan = plannedFeeds(tokens);
  const feedAddresses = feedPlan.map((f) => deploy(feedDeployData(f.pair)));
  // As on mainnet, consumers read a proxy that names the aggregator.
  const feedProxies = feedAddresses.map((a) => deploy(feedProxyDeployData(a)));
  const feedAnswers = genesisAnswers(feedPlan, tokens);
  feedAddresses.forEach((address, i) => {
    session.send(deployer, { to: address, data: transmitData(feedAnswers[i]!), gas: FEED_ROUND_GAS, kind: 'oracle' });
  });

  // Then the liquid staking token, its pools, its feed, and the lending markets.
  tokens.forEach((token, i) => {
    const plan = TOKEN_PLAN[i]!;
    if (!plan.liquidStaking) return;
    const underlying = tokenBySymbol.get(plan.liquidStaking.underlying);
    if (!underlying) throw new Error(`sandbox plan: no underlying ${plan.liquidStaking.underlying} for ${plan.symbol}`);
    const address = deploy(stakedTokenDeployData(plan, underlying.address));
    tokens[i] = { ...token, address };
    tokenBySymbol.set(token.symbol, tokens[i]!);
  });
  const latePools = planPools(
    POOL_PLAN.filter((plan) => isLate(plan)),
    dexes,
    tokenBySymbol,
  );
  seeder.seed(latePools, tokens);
  planned.push(...latePools);
  const lendingFeedPlan = plannedLendingFeeds(tokens);
  const lendingFeedAddresses = lendingFeedPlan.map((f) => deploy(feedDeployData(f.pair)));
  const lendingFeedProxies = lendingFeedAddresses.map((a) => deploy(feedProxyDeployData(a)));
  const lendingFeedAnswers = genesisAnswers(lendingFeedPlan, tokens);
  lendingFeedAddresses.forEach((address, i) => {
    session.send(deployer, {
      to: address,
      data: transmitData(lendingFeedAnswers[i]!),
      gas: FEED_ROUND_GAS,
      kind: 'oracle',
    });
  });
  const priceSources = new Map<string, Address>();
  feedPlan.forEach((f, i) => {
    priceSources.set(f.token, feedProxies[i]!);
  });
  lendingFeedPlan.forEach((f, i) => {
    priceSources.set(f.token, lendingFeedProxies[i]!);
  });
  const lending = queueLending(session, deployer, tokens, priceSources);
  const liquity = stablecoins
    ? queueWorldLiquity(session, deployer, { tokens, dexes, priceSources, scale, deadline })
    : undefined;
  // MakerDAO last: its state is loaded under its own addresses, its genesis calls come from its own deployer.
  const answerOf = new Map(feedPlan.map((f, i) => [f.token, feedAnswers[i]!]));
  const maker =
    makerSnapshot &&
    (await queueMaker(
      probe,
      session,
      await makerSnapshot,
      tokens,
      (symbol) => {
        const answer = answerOf.get(symbol);
        if (answer === undefined) throw new Error(`maker: no feed reports ${symbol}`);
        return answer;
      },
      opts.startTimestamp,
    ));

  await probe.batchResults([
    {
      method: 'anvil_setBalance',
      params: [
        deployerAddress,
        `0x${(seeder.ethNeeded + (liquity?.ethNeeded ?? 0n) + DEPLOYER_ETH_HEADROOM).toString(16)}`,
      ],
    },
  ]);
  const outcome = await session.mine(opts.startTimestamp);
  if (outcome.revertedUnexpected + outcome.revertedTolerated > 0) {
    const reasons = await Promise.all(outcome.unexpected.map((u) => explainRevert(rpcUrl, u.hash)));
    throw new Error(
      `sandbox deployment: ${outcome.revertedUnexpected + outcome.revertedTolerated} transactions reverted: ${outcome.unexpected.map((u, i) => `${u.kind} ${u.hash} (${reasons[i]})`).join(', ')}`,
    );
  }

  await checkPoolAddresses(probe, planned);
  const pools = manifestPools(planned);
  const lendingFeeds = manifestOracles(lendingFeedPlan, lendingFeedAddresses, lendingFeedProxies, deployBlock);
  const manifest: WorldManifest = {
    seed: opts.seed,
    chain: 'ethereum',
    chainId,
    genesisTimestamp: opts.startTimestamp,
    deployer: deployerAddress,
    tokens,
    dex: dexes,
    pools,
    weth,
    oracles: manifestOracles(feedPlan, feedAddresses, feedProxies, deployBlock),
    lending: await readLending(rpcUrl, lending, deployBlock),
    liquidStaking: manifestLiquidStaking(tokens, pools, lendingFeeds, deployBlock),
    lendingFeeds,
    ...(liquity ? { liquity: await readLiquity(probe, liquity.queued, deployBlock) } : {}),
    ...(maker
      ? { maker: { ...maker.manifest, ...makerPool(maker.manifest.dai, tokens, dexes), startBlock: deployBlock } }
      : {}),
  };
  const state = createInitialState(manifest, {
    seed: opts.seed,
    startTimestamp: opts.startTimestamp,
    scale,
    depthUsd: new Map(planned.map((p) => [p.address.toLowerCase(), depthForScale(p.plan.depthUsd, scale)])),
  });
  state.agents[0]!.nonce = deployer.state.nonce;
  state.oracles = initialOracleState(opts.seed, [...(manifest.oracles ?? []), ...lendingFeeds], {
    timestamp: opts.startTimestamp,
    answers: [...feedAnswers, ...lendingFeedAnswers],
  });
  state.stats.transactions = outcome.transactions;
  if (maker) {
    state.maker = { ...initialMakerState(opts.seed, scale, opts.startTimestamp), spells: [...maker.spells] };
  }

  // Every agent gets native ETH for gas and WETH top-ups.
  await probe.batchResults(
    [...state.agents, ...(state.maker?.agents ?? []), ...(state.maker?.pairMaker ? [state.maker.pairMaker.agent] : [])]
      .filter((agent) => agent.role !== 'deployer')
      .map((agent) => ({ method: 'anvil_setBalance', params: [agent.address, `0x${AGENT_ETH.toString(16)}`] })),
  );
  return { manifest, state };
}
