/**
 * The market scenario: advances the deployed world one block per step. Each step
 *   1. moves the reference ("true") USD prices (market.ts);
 *   2. lets the price feeds' reporter send the rounds the new prices or the heartbeats call for (protocols/feeds),
 *      first in the block;
 *   3. reads every awake pool's state and the lending positions; the lending actors act right after the oracle
 *      rounds, liquidations first (protocols/aave, protocols/morpho);
 *   4. lets the arbitrageur trade each pool (dormant ones included) back to the new reference price when the gap
 *      exceeds the pool's fee and the profit covers its costs, then the liquidators sell what they seized
 *      (protocols/uniswap);
 *   5. draws the step's swaps per awake pool from the pool's character and the traders' habits, and the LPs' adds
 *      and removes, in a shuffled order (protocols/uniswap);
 *   6. lets the arbitrageur close, last in the block, the gaps those trades opened (protocols/uniswap);
 *   7. mines everything as one block at the step's end and checks the receipts.
 * Everything random comes from the seeded generators saved in the state: same seed and same calls, same chain.
 */
import { type Address, encodeFunctionData, type Hex, maxUint256 } from 'viem';
import { Agent, agentPrivateKey, signerAgent } from '../chain/agent.js';
import { erc20Abi, mintableErc20Abi, weth9Abi } from '../chain/artifacts.js';
import { ChainSession, GAS } from '../chain/session.js';
import { AaveActors } from '../protocols/aave/actors.js';
import { FEED_ROUND_GAS, reportStep, transmitData } from '../protocols/feeds/feeds.js';
import type { LendingHost } from '../protocols/lending/actors.js';
import { type FeedAnswer, LiquityActors } from '../protocols/liquity/actors.js';
import { MakerActors } from '../protocols/maker/actors.js';
import { MAKER_DEPLOYER_KEY } from '../protocols/maker/deploy.js';
import { MorphoActors } from '../protocols/morpho/actors.js';
import { stakeEthData, underlyingForTokens } from '../protocols/staking/staked-token.js';
import { DexActors } from '../protocols/uniswap/actors.js';
import type { ManifestOracle, SimulationState, WorldManifest } from './manifest.js';
import { advancePrices, applyMarketEvents } from './market.js';
import { Rng } from './random.js';
import type { ScenarioState } from './state.js';
import { type TokenView, tokenViews } from './tokens.js';

/** Agents mint or wrap this multiple of a missing amount, so top-ups are occasional rather than per trade. */
const TOPUP_MULTIPLE = 4n;

class SimulatedWorld {
  private readonly session: ChainSession;
  private readonly rngPrices: Rng;
  private readonly agents: Agent[];
  /** Owner of the price feeds: transmits their rounds. */
  private readonly deployer: Agent;
  private readonly tokens: TokenView[];
  private readonly dex: DexActors;
  /** The block being built's timestamp. */
  private now = 0;
  private readonly lending: AaveActors | undefined;
  private readonly morpho: MorphoActors | undefined;
  private readonly liquity: LiquityActors | undefined;
  private readonly maker: MakerActors | undefined;
  /** Every feed the reporter runs: the registry pairs, then our own lending feeds (the state's order). */
  private readonly feeds: readonly ManifestOracle[];

  constructor(
    rpcUrl: string,
    private readonly manifest: WorldManifest,
    private readonly s: ScenarioState,
    scale: number,
  ) {
    this.session = new ChainSession(rpcUrl, manifest.chainId);
    this.rngPrices = new Rng(s.rngPrices);
    this.agents = s.agents.map((a, i) => new Agent(a, i, agentPrivateKey(s.seed, a.key)));
    this.tokens = tokenViews(manifest);
    const world = this;
    this.dex = new DexActors(manifest, this.tokens, {
      session: this.session,
      agents: this.agents,
      scale,
      state: s,
      spend: (agent, token, amount) => this.spend(agent, token, amount),
      approve: (agent, token, spender) => this.approve(agent, token, spender),
    });
    const deployer = this.agents.find((a) => a.role === 'deployer');
    if (!deployer) throw new Error('sandbox state: no deployer');
    this.deployer = deployer;
    this.session.watch(
      this.agents.filter((a) => a.role !== 'deployer'),
      this.tokens.map((t) => t.id),
      manifest.weth,
    );
    this.feeds = [...(manifest.oracles ?? []), ...(manifest.lendingFeeds ?? [])];
    const bySymbol = new Map(this.tokens.map((t) => [t.m.symbol, t]));
    const tokenOf = (symbol: string) => {
      const t = bySymbol.get(symbol);
      if (!t) throw new Error(`sandbox state: no token ${symbol}`);
      return t;
    };
    // One host for every lending protocol's actors: Aave's markets, then Morpho, act on the same world.
    const lendingHost: LendingHost = {
      session: this.session,
      agents: this.agents,
      scale,
      token: (symbol) => tokenOf(symbol).m,
      spend: (agent, symbol, amount) => this.spend(agent, tokenOf(symbol), amount),
      approve: (agent, token, spender) => this.approve(agent, token, spender),
      oracleUsd: (symbol) => this.oracleUsd(symbol),
      get now() {
        return world.now;
      },
      seized: (agent, collateral, debt, amount) => this.dex.queueSale(agent, collateral, debt, amount),
    };
    this.lending = manifest.lending && s.lending ? new AaveActors(manifest, s.lending, lendingHost) : undefined;
    const morpho = manifest.lending?.morpho[0];
    this.morpho = morpho && s.lending?.morpho ? new MorphoActors(morpho, s.lending.morpho, lendingHost) : undefined;
    this.liquity =
      manifest.liquity && s.liquity
        ? new LiquityActors(manifest.liquity, s.liquity, lendingHost, () => this.feedAnswer('WETH'))
        : undefined;
    this.maker = manifest.maker && s.maker ? this.makerActors(manifest.maker, s.maker, scale, tokenOf) : undefined;
  }

  /** A feed's answer as the contracts read it once this block's rounds land (the registry feed of `symbol`). */
  private feedAnswer(symbol: string): FeedAnswer | undefined {
    const i = this.feeds.findIndex((f) => f.token === symbol);
    const feed = i >= 0 ? this.s.oracles?.feeds[i] : undefined;
    if (!feed) return undefined;
    return { answer: BigInt(feed.answer), decimals: this.feeds[i]!.decimals, updatedAt: feed.updatedAt };
  }

  /** MakerDAO's actors, their balances watched like the cast's (the world's tokens and DAI). */
  private makerActors(
    m: NonNullable<WorldManifest['maker']>,
    state: NonNullable<ScenarioState['maker']>,
    scale: number,
    tokenOf: (symbol: string) => TokenView,
  ): MakerActors {
    const world = this;
    const maker = new MakerActors(m, state, {
      session: this.session,
      scale,
      seed: this.s.seed,
      oracleKeeper: signerAgent(MAKER_DEPLOYER_KEY, 0),
      token: (symbol) => tokenOf(symbol).m,
      spend: (agent, symbol, amount) => this.spend(agent, tokenOf(symbol), amount),
      approve: (agent, token, spender) => this.approve(agent, token, spender),
      feedAnswer: (symbol) => this.feedAnswer(symbol)?.answer,
      marketUsd: (symbol) => this.s.prices[symbol] ?? 1,
      get now() {
        return world.now;
      },
    });
    this.session.watch(maker.watched, [...this.tokens.map((t) => t.id), m.dai.toLowerCase()], this.manifest.weth);
    return maker;
  }

  /** A token's USD price as the feeds report it on chain once this block's rounds land (else the reference). */
  private oracleUsd(symbol: string): number {
    const i = this.feeds.findIndex((f) => f.token === symbol);
    const answer = i >= 0 ? this.s.oracles?.feeds[i]?.answer : undefined;
    if (answer === undefined) return this.s.prices[symbol] ?? 1;
    return Number(answer) / 10 ** this.feeds[i]!.decimals;
  }

  /** Node settings and nonces: the chain is the truth (the state file may come from an older run). */
  async open(): Promise<void> {
    await this.session.prepareNode();
    const nonces = await this.session.rpc.batchResults<Hex>(
      this.agents.map((a) => ({ method: 'eth_getTransactionCount', params: [a.address, 'latest'] })),
    );
    this.agents.forEach((a, i) => {
      a.state.nonce = Number(nonces[i]);
    });
    await this.maker?.open();
  }

  save(): void {
    for (const a of this.agents) a.save();
    this.s.rngPrices = this.rngPrices.state();
    this.dex.save();
    this.lending?.save();
    this.morpho?.save();
    this.liquity?.save();
    this.maker?.save();
  }

  async step(to: number): Promise<void> {
    const s = this.s;
    const from = s.lastTimestamp;
    const dt = to - from;
    this.dex.begin(to);
    const tokens = this.tokens.map((t) => ({ symbol: t.m.symbol, volatility: t.m.volatility, plan: t.plan }));
    s.prices = advancePrices(s.prices, tokens, dt, this.rngPrices);
    s.prices = applyMarketEvents(s.prices, tokens, this.manifest.genesisTimestamp, from, to);
    this.now = to;
    this.reportFeeds(from, to);

    const awake = this.dex.awake(from, to);
    const live = this.dex.livePools(awake);
    // Every pool is read and arbitraged, dormant ones included (arbitrage bots do not sleep); only awake pools trade.
    const pools = this.dex.dex.pools;
    const [readings, lendingReading, morphoReading, liquityReading, makerReading] = await Promise.all([
      this.dex.read(pools),
      this.lending?.read(to),
      this.morpho?.read(to),
      this.liquity?.read(),
      this.maker?.read(to),
    ]);
    // Lending right after the oracle rounds: liquidations first (as searchers back-run the rounds), then the
    // lenders' and borrowers' own activity; Aave, then Morpho.
    if (this.lending && lendingReading) this.lending.step(lendingReading, from, to);
    if (this.morpho && morphoReading) this.morpho.step(morphoReading, from, to);
    // Liquity's keeper, redeemer and trove owners, and the flows of the LUSD/USDC pair (protocols/liquity).
    if (this.liquity && liquityReading) this.liquity.step(liquityReading, from, to);
    if (this.maker && makerReading) this.maker.step(makerReading, from, to);
    // Then the DEX: the arbitrageur first, the liquidators' sales, the traders and the LPs.
    this.dex.arbitrage(pools, readings);
    this.dex.sellSeized(live);
    this.dex.trade(from, to, awake);
    this.dex.closeArbitrage(pools);

    const outcome = await this.session.mine(to);
    s.stats.blocks += 1;
    s.stats.transactions += outcome.transactions;
    s.stats.revertedTolerated += outcome.revertedTolerated;
    s.stats.revertedUnexpected += outcome.revertedUnexpected;
    s.lastTimestamp = to;
    s.step += 1;
  }

  // --- price feeds ----------------------------------------------------------------------------------------------

  /** The feeds' rounds that land in this block, first in it (their order does not matter to anyone else). */
  private reportFeeds(from: number, to: number): void {
    const feeds = this.feeds;
    if (!feeds.length || !this.s.oracles) return;
    for (const round of reportStep(this.s.oracles, feeds, this.s.prices, from, to)) {
      this.session.send(this.deployer, {
        to: round.feed.address,
        data: transmitData(round.answer),
        gas: FEED_ROUND_GAS,
        kind: 'oracle',
      });
    }
  }

  // --- agents' primitives ---------------------------------------------------------------------------------------

  /** Plans spending `amount` of `token`, minting (or wrapping ETH) first when the agent does not have it. */
  private spend(agent: Agent, token: TokenView, amount: bigint): void {
    const available = agent.available(token.id);
    if (available < amount) {
      const topUp = amount * TOPUP_MULTIPLE - (available > 0n ? available : 0n);
      if (token.id === this.manifest.weth.toLowerCase()) {
        this.session.send(agent, {
          to: token.m.address,
          data: encodeFunctionData({ abi: weth9Abi, functionName: 'deposit' }),
          value: topUp,
          gas: GAS.wrap,
          kind: 'fund',
        });
      } else if (token.plan?.liquidStaking) {
        // Staked from the agent's ETH at the block's exchange rate (the contract mints at least `topUp`).
        this.session.send(agent, {
          to: token.m.address,
          data: stakeEthData(),
          value: underlyingForTokens(token.plan.liquidStaking, this.manifest.genesisTimestamp, this.now, topUp),
          gas: GAS.wrap * 2n,
          kind: 'fund',
        });
      } else {
        this.session.send(agent, {
          to: token.m.address,
          data: encodeFunctionData({ abi: mintableErc20Abi, functionName: 'mint', args: [topUp] }),
          gas: GAS.mint,
          kind: 'fund',
        });
      }
      agent.plan(token.id, topUp);
    }
    agent.plan(token.id, -amount);
  }

  private approve(agent: Agent, token: Address, spender: Address): void {
    const key = `${token.toLowerCase()}>${spender.toLowerCase()}`;
    if (agent.approvals.has(key)) return;
    agent.approvals.add(key);
    this.session.send(agent, {
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] }),
      gas: GAS.approve,
      kind: 'approve',
    });
  }
}

/**
 * Advances the world from state.lastTimestamp to untilTimestamp in steps of stepSeconds (one block per step,
 * timestamp = step end, automine off, evm_mine([ts])); the last step is shorter when the span is not a multiple
 * of stepSeconds. Expected activity per step scales with stepSeconds/3600 so a 5-second live step has a small
 * fraction of an hour's activity. Deterministic: same seed and same sequence of calls, same chain.
 *
 * The input state is not modified. When `signal` aborts, the state after the last mined step is returned (it
 * matches the chain). `scale` defaults to the scale the world was deployed with.
 */
export async function simulate(
  rpcUrl: string,
  manifest: WorldManifest,
  state: SimulationState,
  untilTimestamp: number,
  opts: {
    stepSeconds: number;
    scale?: number;
    signal?: AbortSignal;
    onProgress?: (doneSteps: number, totalSteps: number) => void;
  },
): Promise<SimulationState> {
  const s = structuredClone(state) as ScenarioState;
  if (s.format !== 1 || !Array.isArray(s.agents))
    throw new Error('sandbox: the simulation state is not from deployWorld');
  if (!(opts.stepSeconds >= 1)) throw new Error('sandbox: stepSeconds must be at least 1');
  const step = Math.floor(opts.stepSeconds);
  const until = Math.floor(untilTimestamp);
  const total = Math.max(0, Math.ceil((until - s.lastTimestamp) / step));
  if (total === 0) return s;
  const world = new SimulatedWorld(rpcUrl, manifest, s, opts.scale ?? s.scale);
  await world.open();
  try {
    for (let i = 0; i < total; i++) {
      if (opts.signal?.aborted) break;
      await world.step(Math.min(s.lastTimestamp + step, until));
      opts.onProgress?.(i + 1, total);
    }
  } finally {
    world.save();
  }
  return s;
}
