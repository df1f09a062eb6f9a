/**
 * The market scenario: advances the deployed world one block per step. Each step
 *   1. moves the reference ("true") USD prices: geometric Brownian motion with a common market factor for volatile
 *      tokens, a mean-reverting peg for stablecoins (stream `prices`, independent of everything else);
 *   2. reads every awake pool's state and lets the arbitrageur trade each pool back to the new reference price when
 *      the gap exceeds the pool's fee and the profit covers its costs (first in the block);
 *   3. draws the step's swaps per pool from the pool's character (rate, clientele, sizes, bursts, dormancy) and the
 *      traders' habits (size, activity, hours of day), and the LPs' adds and removes, in a shuffled order;
 *   4. lets the price feeds' reporter send the rounds the new prices or the heartbeats call for (oracles.ts);
 *   5. mines everything as one block at the step's end and checks the receipts.
 * Everything random comes from the seeded generators saved in the state: same seed and same calls, same chain.
 */
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, maxUint256, toEventSelector } from 'viem';
import {
  erc20Abi,
  mintableErc20Abi,
  v2PairAbi,
  v2RouterAbi,
  v3PoolAbi,
  v3PositionManagerAbi,
  v3SwapRouterAbi,
  weth9Abi,
} from '../chain/artifacts.js';
import { reportStep, transmitData } from '../protocols/feeds/feeds.js';
import { LendingActors } from '../protocols/lending/lending.js';
import { MorphoActors } from '../protocols/morpho/morpho.js';
import { stakedTokenPriceUsd, stakeEthData, underlyingForTokens } from '../protocols/staking/staked-token.js';
import {
  Agent,
  agentPrivateKey,
  ChainSession,
  GAS,
  priceFromSqrtPriceX96,
  Q96,
  RpcClient,
  type RpcReceipt,
  rawPrice,
  received,
  sqrtPriceX96FromPrice,
  TRANSFER_TOPIC,
  tickRange,
  topicAddress,
  toRawAmount,
  v3AmountsForValue,
} from './deploy.js';
import {
  BURSTS,
  CHARACTERS,
  crashFactor,
  DORMANCY,
  isLiquidStakingPool,
  type ManifestDex,
  type ManifestOracle,
  type ManifestPool,
  type ManifestToken,
  type PoolRuntimeState,
  type ScenarioState,
  SINGLE_TRADER,
  type SimulationState,
  TOKEN_PLAN,
  type TokenPlan,
  type V2ShareState,
  V3_TICK_SPACING,
  type V3PositionState,
  type WorldManifest,
} from './manifest.js';
import { Rng } from './random.js';

const SECONDS_PER_YEAR = 365 * 86400;

/** Diurnal activity: ±40 % around the mean, peaking at 15:00 UTC when the European and American sessions overlap. */
const DIURNAL_AMPLITUDE = 0.4;
const DIURNAL_PEAK_HOUR = 15;

/** Weight of a trader outside their daily active window, relative to inside (people sleep; bots are 24 h). */
const OFF_HOURS_WEIGHT = 0.05;

/** Spread of one trader's trade sizes around their own median (log-sd): the same person trades 0.3x–3x. */
const TRADE_SIZE_SIGMA = 0.6;
/** Trades below a dollar are dust nobody sends. */
const MIN_TRADE_USD = 1;

/** A floor for burst intensity in small worlds: a burst must stand out from a near-silent pool. */
const MIN_BURST_SWAPS_PER_HOUR = 15;

/**
 * V3 arbitrage: the amount to move the price to the target within the current range, doubled. The swap carries
 * the target as its price limit, so the pool stops there and the router pulls only what was used; the margin
 * covers the fee and more liquidity met beyond the current range.
 */
const ARB_V3_MARGIN = 2n;
/** When a V3 pool has no in-range liquidity, the arbitrageur offers this share of the pool's depth. */
const ARB_EMPTY_RANGE_SHARE = 0.02;
/** Never more than this share of the pool's depth in one arbitrage (a long-dormant pool converges over steps). */
const ARB_MAX_SHARE = 0.5;
/**
 * The arbitrageur trades only when its estimated profit, size × (gap − fee) / 2, covers its costs: $5, an L2-like
 * gas bill (mainnet's ~$13 at 30 gwei would leave the thin pools several percent off). Since profit grows with
 * depth × gap², deep pools stay within basis points and thin ones drift by a percent or two.
 */
const ARB_MIN_PROFIT_USD = 5;

/**
 * Liquidators sell seized collateral in chunks of at most this share of the chosen pool's depth per block (about
 * 1 % of price impact on a V2 pool), accepting SALE_SLIPPAGE below the block's quote: a large liquidation is sold
 * over several blocks, as searchers split a dump that would cost more than the liquidation bonus.
 */
const SALE_MAX_DEPTH_SHARE = 0.0025;
const SALE_SLIPPAGE = 0.02;

/** Agents mint or wrap this multiple of a missing amount, so top-ups are occasional rather than per trade. */
const TOPUP_MULTIPLE = 4n;

/** LP adds are 1–8 % of the pool's depth; a removal takes 30–100 % of one holding. */
const LP_ADD_SHARE = [0.01, 0.08] as const;
const LP_REMOVE_SHARE = [0.3, 1] as const;
/** An LP who holds something in the pool removes rather than adds this often. */
const LP_REMOVE_PROBABILITY = 0.45;
/** V3 LP ranges: ± these fractions of the price (stable pairs: scaled by STABLE_RANGE_FACTOR). */
const LP_RANGE_WIDTHS = [0.02, 0.05, 0.1, 0.25] as const;
const STABLE_RANGE_FACTOR = 0.05;

/** Deadlines one hour after the block: always satisfied, as a wallet's default would be. */
const DEADLINE_SECONDS = 3600;

const INCREASE_LIQUIDITY_TOPIC = toEventSelector('IncreaseLiquidity(uint256,uint128,uint256,uint256)');
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const UINT128_MAX = 2n ** 128n - 1n;

interface TokenView {
  readonly m: ManifestToken;
  readonly id: string;
  readonly plan: TokenPlan | undefined;
}

interface PoolView {
  readonly m: ManifestPool;
  readonly id: string;
  readonly dex: ManifestDex;
  readonly t0: TokenView;
  readonly t1: TokenView;
  readonly fee: number;
  readonly stablePair: boolean;
  readonly runtime: PoolRuntimeState;
  /** A pool of the liquid staking token (own random stream). */
  readonly lst: boolean;
}

type PoolReading =
  | { readonly kind: 'V2'; readonly reserve0: bigint; readonly reserve1: bigint }
  | { readonly kind: 'V3'; readonly sqrtPriceX96: bigint; readonly liquidity: bigint };

/** What a trader's wallet quotes from: the pool's state at the start of the block (after the queued arbitrage). */
interface Quote {
  /** Raw token1 per raw token0. */
  readonly price: number;
  /** V2: reserves, for the exact constant-product output including price impact. */
  readonly reserves?: readonly [number, number];
}

type Action =
  | {
      readonly type: 'swap';
      readonly pool: PoolView;
      readonly agent: Agent;
      readonly usd: number;
      readonly zeroForOne: boolean;
    }
  | { readonly type: 'lp'; readonly pool: PoolView; readonly agent: Agent };

/** 1 + A·cos(2π(h − peak)/24): the activity multiplier at fractional UTC hour `h`. */
export function diurnalFactor(hourOfDay: number): number {
  return 1 + DIURNAL_AMPLITUDE * Math.cos((2 * Math.PI * (hourOfDay - DIURNAL_PEAK_HOUR)) / 24);
}

function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** Length of the overlap of [a, b) and [c, d). */
function overlap(a: number, b: number, c: number, d: number): number {
  return Math.max(0, Math.min(b, d) - Math.max(a, c));
}

/** The share of [from, to) during which a dormant pool is awake (the first hours of every period after genesis). */
export function awakeShare(genesis: number, from: number, to: number): number {
  const period = DORMANCY.periodDays * 86400;
  const awake = DORMANCY.awakeHours * 3600;
  let covered = 0;
  for (let k = Math.floor((from - genesis) / period); genesis + k * period < to; k++) {
    const start = genesis + k * period;
    covered += overlap(from, to, start, start + awake);
  }
  return to > from ? covered / (to - from) : 0;
}

/**
 * Moves the reference prices over `dt` seconds. Volatile tokens: GBM without drift whose shock is
 * ρ·(market shock) + √(1−ρ²)·(own shock). Stablecoins: exact OU step of the log price toward the peg.
 * Draws exactly 1 + (number of tokens) normals, so the path depends only on the seed and the step grid.
 */
export function advancePrices(
  prices: Record<string, number>,
  tokens: readonly { symbol: string; volatility: number; plan?: TokenPlan | undefined }[],
  dt: number,
  rng: Rng,
): Record<string, number> {
  const years = dt / SECONDS_PER_YEAR;
  const market = rng.normal();
  const next: Record<string, number> = {};
  for (const t of tokens) {
    const previous = prices[t.symbol] ?? 1;
    // A liquid staking token has no walk of its own (see `applyMarketEvents`), and draws nothing.
    if (t.plan?.liquidStaking) {
      next[t.symbol] = previous;
      continue;
    }
    const own = rng.normal();
    const stable = t.plan?.stable;
    if (stable) {
      const theta = Math.LN2 / (stable.halfLifeHours / (365 * 24));
      const decay = Math.exp(-theta * years);
      const sd = stable.deviation * Math.sqrt(1 - decay * decay);
      next[t.symbol] = Math.exp(Math.log(previous) * decay + sd * own);
      continue;
    }
    const rho = t.plan?.marketCorrelation ?? 0.5;
    const z = rho * market + Math.sqrt(1 - rho * rho) * own;
    next[t.symbol] = previous * Math.exp(-0.5 * t.volatility ** 2 * years + t.volatility * Math.sqrt(years) * z);
  }
  return next;
}

/**
 * The scheduled events over (from, to] on top of the walk (`MARKET_EVENTS`): the ETH crash multiplies each volatile
 * token's price by the change of its crash factor, and each liquid staking token is priced from its underlying,
 * its exchange rate and the depeg discount at `to`. Deterministic: no draw.
 */
export function applyMarketEvents(
  prices: Record<string, number>,
  tokens: readonly { symbol: string; plan?: TokenPlan | undefined }[],
  genesis: number,
  from: number,
  to: number,
): Record<string, number> {
  const next = { ...prices };
  const h0 = (from - genesis) / 3600;
  const h1 = (to - genesis) / 3600;
  for (const t of tokens) {
    if (!t.plan || t.plan.stable || t.plan.liquidStaking) continue;
    const rho = t.plan.marketCorrelation;
    next[t.symbol] = next[t.symbol]! * (crashFactor(h1, rho) / crashFactor(h0, rho));
  }
  for (const t of tokens) {
    const lst = t.plan?.liquidStaking;
    if (!lst) continue;
    next[t.symbol] = stakedTokenPriceUsd(lst, next[lst.underlying] ?? 0, genesis, to);
  }
  return next;
}

/** Raw amount of token0 (zeroForOne) or token1 to sell into a V2 pool to bring its price to `target`. */
export function v2ArbitrageAmountIn(
  reserve0: number,
  reserve1: number,
  target: number,
  fee: number,
): { zeroForOne: boolean; amountIn: number } {
  const k = reserve0 * reserve1;
  const gamma = 1 - fee;
  if (reserve1 / reserve0 > target) return { zeroForOne: true, amountIn: (Math.sqrt(k / target) - reserve0) / gamma };
  return { zeroForOne: false, amountIn: (Math.sqrt(k * target) - reserve1) / gamma };
}

/** Raw input that moves a V3 pool from `sqrtPrice` to `sqrtTarget` within liquidity `liquidity` (no fee). */
export function v3AmountToTarget(liquidity: bigint, sqrtPrice: bigint, sqrtTarget: bigint): bigint {
  if (sqrtTarget < sqrtPrice) return (liquidity * Q96 * (sqrtPrice - sqrtTarget)) / sqrtPrice / sqrtTarget;
  return (liquidity * (sqrtTarget - sqrtPrice)) / Q96;
}

class SimulatedWorld {
  private readonly session: ChainSession;
  private readonly rngPrices: Rng;
  /** The agents' stream; swapped for `lstRng` while the liquid staking pools draw (see `step`). */
  private rng: Rng;
  private readonly lstRng: Rng;
  private readonly agents: Agent[];
  private readonly arbitrageur: Agent;
  /** Owner of the price feeds: transmits their rounds. */
  private readonly deployer: Agent;
  private readonly lps: Agent[];
  private readonly tokens: TokenView[];
  private readonly pools: PoolView[];
  private deadline = 0n;
  private readonly quotes = new Map<string, Quote>();
  /** The block being built's timestamp. */
  private now = 0;
  private readonly lending: LendingActors | undefined;
  private readonly morpho: MorphoActors | undefined;
  /** Every feed the reporter runs: the registry pairs, then our own lending feeds (the state's order). */
  private readonly feeds: readonly ManifestOracle[];

  constructor(
    rpcUrl: string,
    private readonly manifest: WorldManifest,
    private readonly s: ScenarioState,
    private readonly scale: number,
  ) {
    this.session = new ChainSession(rpcUrl, manifest.chainId);
    this.rngPrices = new Rng(s.rngPrices);
    this.rng = new Rng(s.rngAgents);
    this.lstRng = new Rng(s.rngLiquidStakingPools ?? s.rngAgents);
    this.agents = s.agents.map((a, i) => new Agent(a, i, agentPrivateKey(s.seed, a.key)));
    const arbitrageur = this.agents.find((a) => a.role === 'arbitrageur');
    if (!arbitrageur) throw new Error('sandbox state: no arbitrageur');
    this.arbitrageur = arbitrageur;
    const deployer = this.agents.find((a) => a.role === 'deployer');
    if (!deployer) throw new Error('sandbox state: no deployer');
    this.deployer = deployer;
    this.lps = this.agents.filter((a) => a.role === 'lp');
    this.tokens = manifest.tokens.map((m) => ({
      m,
      id: m.address.toLowerCase(),
      plan: TOKEN_PLAN.find((p) => p.symbol === m.symbol),
    }));
    const tokenById = new Map(this.tokens.map((t) => [t.id, t]));
    const runtimeById = new Map(s.pools.map((p) => [p.address, p]));
    this.pools = manifest.pools.map((m) => {
      const id = m.address.toLowerCase();
      const dex = manifest.dex.find((d) => d.protocol === m.protocol && d.version === m.version);
      const t0 = tokenById.get(m.token0.toLowerCase());
      const t1 = tokenById.get(m.token1.toLowerCase());
      const runtime = runtimeById.get(id);
      if (!dex || !t0 || !t1 || !runtime) throw new Error(`sandbox state: pool ${m.address} is incomplete`);
      return {
        m,
        id,
        dex,
        t0,
        t1,
        fee: m.fee / 1e6,
        stablePair: t0.m.kind === 'stable' && t1.m.kind === 'stable',
        runtime,
        lst: s.rngLiquidStakingPools !== undefined && isLiquidStakingPool(manifest, m),
      };
    });
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
    const world = this;
    this.lending =
      manifest.lending && s.lending
        ? new LendingActors(manifest, s.lending, {
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
            seized: (agent, collateral, debt, amount) => this.queueSale(agent, collateral, debt, amount),
          })
        : undefined;
    const morpho = manifest.lending?.morpho[0];
    this.morpho =
      morpho && s.lending?.morpho
        ? new MorphoActors(morpho, s.lending.morpho, {
            session: this.session,
            agents: this.agents,
            scale,
            token: (symbol) => tokenOf(symbol).m,
            spend: (agent, symbol, amount) => this.spend(agent, tokenOf(symbol), amount),
            approve: (agent, token, spender) => this.approve(agent, token, spender),
            oracleUsd: (symbol) => this.oracleUsd(symbol),
            seized: (agent, collateral, debt, amount) => this.queueSale(agent, collateral, debt, amount),
          })
        : undefined;
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
  }

  save(): void {
    for (const a of this.agents) a.save();
    this.s.rngPrices = this.rngPrices.state();
    this.s.rngAgents = this.rng.state();
    if (this.s.rngLiquidStakingPools) this.s.rngLiquidStakingPools = this.lstRng.state();
    this.lending?.save();
    this.morpho?.save();
  }

  async step(to: number): Promise<void> {
    const s = this.s;
    const from = s.lastTimestamp;
    const dt = to - from;
    this.deadline = BigInt(to + DEADLINE_SECONDS);
    const tokens = this.tokens.map((t) => ({ symbol: t.m.symbol, volatility: t.m.volatility, plan: t.plan }));
    s.prices = advancePrices(s.prices, tokens, dt, this.rngPrices);
    s.prices = applyMarketEvents(s.prices, tokens, this.manifest.genesisTimestamp, from, to);
    this.now = to;
    this.reportFeeds(from, to);

    const awake = this.pools.map((p) =>
      p.m.character === 'dormant' ? awakeShare(this.manifest.genesisTimestamp, from, to) : 1,
    );
    const live = this.pools.filter((_, i) => awake[i]! > 0);
    const [readings, lendingReading, morphoReading] = await Promise.all([
      this.readPools(live),
      this.lending?.read(to),
      this.morpho?.read(to),
    ]);
    // Lending right after the oracle rounds: liquidations first (as searchers back-run the rounds), then the
    // lenders' and borrowers' own activity; Aave, then Morpho.
    if (this.lending && lendingReading) this.lending.step(lendingReading, from, to);
    if (this.morpho && morphoReading) this.morpho.step(morphoReading, from, to);
    this.quotes.clear();
    live.forEach((pool, i) => {
      this.quotes.set(pool.id, this.arbitrage(pool, readings[i]!));
    });
    // Then the liquidators' sales of what they seized in earlier blocks (no random draws: nothing else changes).
    this.sellSeized(live);

    const hour = ((((from + dt / 2) % 86400) + 86400) % 86400) / 3600;
    const diurnal = diurnalFactor(hour);
    // The other pools first, then the liquid staking token's pools with their own stream (so that adding them
    // changed nothing the others draw).
    const core = this.rng;
    for (const lst of [false, true]) {
      this.rng = lst ? this.lstRng : core;
      const actions: Action[] = [];
      this.pools.forEach((pool, i) => {
        if (awake[i]! <= 0 || pool.lst !== lst) return;
        this.drawSwaps(pool, from, to, awake[i]!, diurnal, hour, actions);
        const lpEvents = this.rng.poisson((CHARACTERS[pool.m.character].lpEventsPerHour * awake[i]! * dt) / 3600);
        for (let k = 0; k < lpEvents; k++) actions.push({ type: 'lp', pool, agent: this.rng.pick(this.lps) });
      });
      for (const action of this.rng.shuffle(actions)) {
        if (action.type === 'swap') this.randomSwap(action.pool, action.agent, action.usd, action.zeroForOne);
        else this.liquidity(action.pool, action.agent);
      }
    }
    this.rng = core;

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
        gas: GAS.oracleRound,
        kind: 'oracle',
      });
    }
  }

  // --- reading --------------------------------------------------------------------------------------------------

  private async readPools(pools: readonly PoolView[]): Promise<PoolReading[]> {
    const call = (to: string, data: Hex) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
    const calls = pools.flatMap((p) =>
      p.m.version === 'V2'
        ? [call(p.m.address, encodeFunctionData({ abi: v2PairAbi, functionName: 'getReserves' }))]
        : [
            call(p.m.address, encodeFunctionData({ abi: v3PoolAbi, functionName: 'slot0' })),
            call(p.m.address, encodeFunctionData({ abi: v3PoolAbi, functionName: 'liquidity' })),
          ],
    );
    const results = await this.session.rpc.batchResults<Hex>(calls);
    let i = 0;
    return pools.map((p): PoolReading => {
      if (p.m.version === 'V2') {
        const [reserve0, reserve1] = decodeFunctionResult({
          abi: v2PairAbi,
          functionName: 'getReserves',
          data: results[i++]!,
        });
        return { kind: 'V2', reserve0, reserve1 };
      }
      const [sqrtPriceX96] = decodeFunctionResult({ abi: v3PoolAbi, functionName: 'slot0', data: results[i++]! });
      const liquidity = decodeFunctionResult({ abi: v3PoolAbi, functionName: 'liquidity', data: results[i++]! });
      return { kind: 'V3', sqrtPriceX96, liquidity };
    });
  }

  // --- prices and sizes -----------------------------------------------------------------------------------------

  private priceUsd(token: TokenView): number {
    return this.s.prices[token.m.symbol] ?? token.m.initialPriceUsd;
  }

  /** Reference price of raw token0 in raw token1. */
  private referencePrice(pool: PoolView): number {
    return rawPrice(this.priceUsd(pool.t0), pool.t0.m.decimals, this.priceUsd(pool.t1), pool.t1.m.decimals);
  }

  private rawFromUsd(token: TokenView, usd: number): bigint {
    return toRawAmount((usd / this.priceUsd(token)) * 10 ** token.m.decimals);
  }

  private usdFromRaw(token: TokenView, amount: bigint): number {
    return (Number(amount) / 10 ** token.m.decimals) * this.priceUsd(token);
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

  private swap(
    agent: Agent,
    pool: PoolView,
    zeroForOne: boolean,
    amountIn: bigint,
    minOut: bigint,
    kind: 'swap' | 'arbitrage',
    sqrtPriceLimitX96 = 0n,
    after?: (ok: boolean, receipt: RpcReceipt) => void,
  ): void {
    const [tokenIn, tokenOut] = zeroForOne ? [pool.t0, pool.t1] : [pool.t1, pool.t0];
    this.spend(agent, tokenIn, amountIn);
    this.approve(agent, tokenIn.m.address, pool.dex.router);
    const data =
      pool.m.version === 'V2'
        ? encodeFunctionData({
            abi: v2RouterAbi,
            functionName: 'swapExactTokensForTokens',
            args: [amountIn, minOut, [tokenIn.m.address, tokenOut.m.address], agent.address, this.deadline],
          })
        : encodeFunctionData({
            abi: v3SwapRouterAbi,
            functionName: 'exactInputSingle',
            args: [
              {
                tokenIn: tokenIn.m.address,
                tokenOut: tokenOut.m.address,
                fee: pool.m.fee,
                recipient: agent.address,
                deadline: this.deadline,
                amountIn,
                amountOutMinimum: minOut,
                sqrtPriceLimitX96,
              },
            ],
          });
    const gas = pool.m.version === 'V2' ? GAS.v2Swap : kind === 'arbitrage' ? GAS.v3Arbitrage : GAS.v3Swap;
    this.session.send(agent, {
      to: pool.dex.router,
      data,
      gas,
      kind,
      onMined: (ok, receipt) => {
        if (ok) this.s.stats.swaps += 1;
        after?.(ok, receipt);
      },
    });
  }

  // --- the arbitrageur ------------------------------------------------------------------------------------------

  /**
   * Trades the pool back to the reference price when it is off by more than the fee and the profit covers gas
   * (first in the block). Returns the pool's expected state after that, which traders quote from.
   */
  private arbitrage(pool: PoolView, reading: PoolReading): Quote {
    const target = this.referencePrice(pool);
    const r0 = reading.kind === 'V2' ? Number(reading.reserve0) : 0;
    const r1 = reading.kind === 'V2' ? Number(reading.reserve1) : 0;
    const current = reading.kind === 'V2' ? r1 / r0 : priceFromSqrtPriceX96(reading.sqrtPriceX96);
    const unchanged: Quote = reading.kind === 'V2' ? { price: current, reserves: [r0, r1] } : { price: current };
    const arbitraged: Quote =
      reading.kind === 'V2'
        ? { price: target, reserves: [Math.sqrt((r0 * r1) / target), Math.sqrt(r0 * r1 * target)] }
        : { price: target };
    const gap = Math.abs(current / target - 1);
    if (!(gap > pool.fee)) return unchanged;
    // In a single-trader pool the bot is its own arbitrageur: nobody else may show up in its volume.
    const agent = pool.runtime.bot !== undefined ? this.agents[pool.runtime.bot]! : this.arbitrageur;
    const capUsd = pool.runtime.depthUsd * ARB_MAX_SHARE;
    const worthIt = (token: TokenView, amount: bigint) =>
      amount > 0n && this.usdFromRaw(token, amount) * ((gap - pool.fee) / 2) >= ARB_MIN_PROFIT_USD;
    if (reading.kind === 'V2') {
      const { zeroForOne, amountIn } = v2ArbitrageAmountIn(
        Number(reading.reserve0),
        Number(reading.reserve1),
        target,
        pool.fee,
      );
      const tokenIn = zeroForOne ? pool.t0 : pool.t1;
      const amount = minBigint(toRawAmount(amountIn), this.rawFromUsd(tokenIn, capUsd));
      if (!worthIt(tokenIn, amount)) return unchanged;
      this.swap(agent, pool, zeroForOne, amount, 0n, 'arbitrage');
      return arbitraged;
    }
    const sqrtTarget = sqrtPriceX96FromPrice(target);
    if (sqrtTarget === reading.sqrtPriceX96) return unchanged;
    const zeroForOne = sqrtTarget < reading.sqrtPriceX96;
    const tokenIn = zeroForOne ? pool.t0 : pool.t1;
    const needed =
      reading.liquidity > 0n
        ? v3AmountToTarget(reading.liquidity, reading.sqrtPriceX96, sqrtTarget)
        : this.rawFromUsd(tokenIn, pool.runtime.depthUsd * ARB_EMPTY_RANGE_SHARE);
    if (!worthIt(tokenIn, needed)) return unchanged;
    const amount = minBigint(needed * ARB_V3_MARGIN + 1n, this.rawFromUsd(tokenIn, capUsd));
    this.swap(agent, pool, zeroForOne, amount, 0n, 'arbitrage', sqrtTarget);
    return arbitraged;
  }

  // --- traders ---------------------------------------------------------------------------------------------------

  /** Swaps per hour for the pool over [from, to), before the diurnal curve. */
  private swapRate(pool: PoolView, from: number, to: number, awake: number): number {
    const profile = CHARACTERS[pool.m.character];
    const base = profile.scaled
      ? Math.max(profile.swapsPerHour * this.scale, profile.minSwapsPerHour)
      : profile.swapsPerHour;
    if (pool.m.character !== 'bursty') return base * awake;
    const r = pool.runtime;
    // Schedule bursts until one ends after this step starts.
    while (r.burstStart !== undefined && r.burstEnd !== undefined && r.burstEnd <= from) {
      r.burstStart = r.burstEnd + Math.round(this.rng.exponential(BURSTS.meanGapHours) * 3600);
      r.burstEnd = r.burstStart + Math.round(this.rng.uniform(BURSTS.minHours, BURSTS.maxHours) * 3600);
    }
    const inBurst =
      r.burstStart !== undefined && r.burstEnd !== undefined
        ? overlap(from, to, r.burstStart, r.burstEnd) / (to - from)
        : 0;
    const burstRate = Math.max(BURSTS.swapsPerHour * this.scale, MIN_BURST_SWAPS_PER_HOUR);
    return (1 - inBurst) * base + inBurst * burstRate;
  }

  private drawSwaps(
    pool: PoolView,
    from: number,
    to: number,
    awake: number,
    diurnal: number,
    hour: number,
    out: Action[],
  ): void {
    const count = this.rng.poisson((this.swapRate(pool, from, to, awake) * diurnal * (to - from)) / 3600);
    if (count === 0) return;
    const profile = CHARACTERS[pool.m.character];
    const clientele = pool.runtime.clientele.map((i) => this.agents[i]!);
    const weights = clientele.map((a) => a.state.activity * this.hourWeight(a, hour));
    const maxUsd = profile.maxTradeShare * pool.runtime.depthUsd;
    for (let k = 0; k < count; k++) {
      let agent: Agent;
      let usd: number;
      const bot = pool.runtime.bot;
      if (bot !== undefined && !(clientele.length > 0 && this.rng.chance(SINGLE_TRADER.otherTraderShare))) {
        agent = this.agents[bot]!;
        usd = this.rng.logNormal(agent.state.medianTradeUsd, TRADE_SIZE_SIGMA) * profile.sizeFactor;
      } else {
        agent = clientele[this.rng.weightedIndex(weights)]!;
        usd = this.rng.logNormal(agent.state.medianTradeUsd, TRADE_SIZE_SIGMA) * profile.sizeFactor;
        if (bot !== undefined) usd = Math.min(usd, SINGLE_TRADER.otherTraderMaxUsd);
      }
      usd = Math.max(MIN_TRADE_USD, Math.min(usd, maxUsd));
      out.push({ type: 'swap', pool, agent, usd, zeroForOne: this.rng.chance(0.5) });
    }
  }

  private hourWeight(agent: Agent, hour: number): number {
    const { activeFromHour, activeHours } = agent.state;
    const sinceStart = (Math.floor(hour) - activeFromHour + 24) % 24;
    return sinceStart < activeHours ? 1 : OFF_HOURS_WEIGHT;
  }

  /**
   * A trader's swap of `usd` worth, with slippage protection as a wallet sets it: quoted from the pool's state at
   * the start of the block (V2 with its exact price impact), less the character's tolerance for what the other
   * transactions of the block do to the price.
   */
  private randomSwap(pool: PoolView, agent: Agent, usd: number, zeroForOne: boolean): void {
    const tokenIn = zeroForOne ? pool.t0 : pool.t1;
    const amountIn = this.rawFromUsd(tokenIn, usd);
    if (amountIn === 0n) return;
    const minOut = toRawAmount(
      this.quoteOut(pool, zeroForOne, amountIn) * (1 - CHARACTERS[pool.m.character].slippageTolerance),
    );
    this.swap(agent, pool, zeroForOne, amountIn, minOut, 'swap');
  }

  /** The raw output a wallet quotes for `amountIn` from the block's quote of the pool (V2: with price impact). */
  private quoteOut(pool: PoolView, zeroForOne: boolean, amountIn: bigint): number {
    const quote = this.quotes.get(pool.id) ?? { price: this.referencePrice(pool) };
    const input = Number(amountIn) * (1 - pool.fee);
    if (quote.reserves) {
      const [reserveIn, reserveOut] = zeroForOne ? quote.reserves : [quote.reserves[1], quote.reserves[0]];
      return (input * reserveOut) / (reserveIn + input);
    }
    return zeroForOne ? input * quote.price : input / quote.price;
  }

  // --- liquidators' sales ---------------------------------------------------------------------------------------

  /** Records collateral a liquidation paid a liquidator, to sell from the next block on. */
  private queueSale(liquidator: Agent, sell: string, buy: string, amount: bigint): void {
    if (sell === buy || amount <= 0n) return;
    this.s.seizedSales ??= [];
    this.s.seizedSales.push({ liquidator: liquidator.index, sell, buy, amount: amount.toString() });
  }

  /**
   * Each liquidator sells what it seized back into the asset it repaid: in the deepest awake pool of the pair, or
   * through WETH when no pool pairs them (the WETH it gets is queued as the next leg), a chunk of at most
   * SALE_MAX_DEPTH_SHARE of the pool's depth per block. A reverted chunk (the price moved past the slippage) is
   * tried again next block; collateral with no pool at all is kept.
   */
  private sellSeized(live: readonly PoolView[]): void {
    const sales = this.s.seizedSales;
    if (!sales?.length) return;
    this.s.seizedSales = sales.filter((x) => BigInt(x.amount) > 0n);
    const weth = this.manifest.weth.toLowerCase();
    const wethSymbol = this.tokens.find((t) => t.id === weth)?.m.symbol;
    const pairs = (pools: readonly PoolView[], a: string, b: string) =>
      pools.filter((p) => (p.t0.m.symbol === a && p.t1.m.symbol === b) || (p.t0.m.symbol === b && p.t1.m.symbol === a));
    const deepest = (a: string, b: string) =>
      pairs(live, a, b).reduce<PoolView | undefined>(
        (best, p) => (best && best.runtime.depthUsd >= p.runtime.depthUsd ? best : p),
        undefined,
      );
    for (const sale of this.s.seizedSales) {
      const agent = this.agents[sale.liquidator]!;
      const sell = this.tokens.find((t) => t.m.symbol === sale.sell);
      if (!sell || !wethSymbol) continue;
      // The direct pair, else through WETH (the WETH received is queued as the next leg).
      const direct = pairs(this.pools, sale.sell, sale.buy).length > 0;
      const viaWeth =
        !direct &&
        sale.sell !== wethSymbol &&
        sale.buy !== wethSymbol &&
        pairs(this.pools, sale.sell, wethSymbol).length > 0;
      const held = agent.available(sell.id);
      if ((!direct && !viaWeth) || held <= 0n) {
        // No pool to sell it in at all, or nothing left of it (spent on a later liquidation's debt): the sale ends.
        sale.amount = '0';
        continue;
      }
      const via = direct ? undefined : wethSymbol;
      const pool = deepest(sale.sell, via ?? sale.buy);
      if (!pool) continue; // its pools are asleep this block (dormant): next block
      const remaining = BigInt(sale.amount);
      const cap = this.rawFromUsd(sell, pool.runtime.depthUsd * SALE_MAX_DEPTH_SHARE);
      const chunk = minBigint(minBigint(remaining, held), cap > 0n ? cap : remaining);
      const zeroForOne = pool.t0.id === sell.id;
      const out = zeroForOne ? pool.t1 : pool.t0;
      const minOut = toRawAmount(this.quoteOut(pool, zeroForOne, chunk) * (1 - SALE_SLIPPAGE));
      this.swap(agent, pool, zeroForOne, chunk, minOut, 'swap', 0n, (ok, receipt) => {
        if (!ok) return;
        sale.amount = (BigInt(sale.amount) - chunk).toString();
        if (via) this.queueSale(agent, via, sale.buy, received(receipt, out.m.address, agent.address));
      });
    }
  }

  // --- liquidity providers --------------------------------------------------------------------------------------

  private liquidity(pool: PoolView, lp: Agent): void {
    if (pool.m.version === 'V2') {
      const share = this.s.v2Shares.find((x) => x.pool === pool.id && x.owner === lp.index);
      if (share && BigInt(share.liquidity) > 0n && this.rng.chance(LP_REMOVE_PROBABILITY))
        this.v2Remove(pool, lp, share);
      else this.v2Add(pool, lp);
      return;
    }
    const held = this.s.v3Positions.filter(
      (x) => x.pool === pool.id && x.owner === lp.index && BigInt(x.liquidity) > 0n,
    );
    if (held.length > 0 && this.rng.chance(LP_REMOVE_PROBABILITY)) this.v3Remove(pool, lp, this.rng.pick(held));
    else this.v3Add(pool, lp);
  }

  private lpAmounts(pool: PoolView): { usd: number; amount0: bigint; amount1: bigint } {
    const usd = pool.runtime.depthUsd * this.rng.uniform(...LP_ADD_SHARE);
    return { usd, amount0: this.rawFromUsd(pool.t0, usd / 2), amount1: this.rawFromUsd(pool.t1, usd / 2) };
  }

  private v2Add(pool: PoolView, lp: Agent): void {
    const { amount0, amount1 } = this.lpAmounts(pool);
    for (const [token, amount] of [
      [pool.t0, amount0],
      [pool.t1, amount1],
    ] as const) {
      this.spend(lp, token, amount);
      this.approve(lp, token.m.address, pool.dex.router);
    }
    this.session.send(lp, {
      to: pool.dex.router,
      data: encodeFunctionData({
        abi: v2RouterAbi,
        functionName: 'addLiquidity',
        args: [pool.t0.m.address, pool.t1.m.address, amount0, amount1, 0n, 0n, lp.address, this.deadline],
      }),
      gas: GAS.v2AddLiquidity,
      kind: 'lp-add',
      onMined: (ok, receipt) => {
        if (!ok) return;
        const minted = receipt.logs.find(
          (l) =>
            l.address.toLowerCase() === pool.id &&
            l.topics[0] === TRANSFER_TOPIC &&
            topicAddress(l.topics[1]) === ZERO_ADDRESS &&
            topicAddress(l.topics[2]) === lp.id,
        );
        if (!minted) return;
        const share = this.s.v2Shares.find((x) => x.pool === pool.id && x.owner === lp.index);
        if (share) share.liquidity = (BigInt(share.liquidity) + BigInt(minted.data)).toString();
        else this.s.v2Shares.push({ pool: pool.id, owner: lp.index, liquidity: BigInt(minted.data).toString() });
        this.s.stats.liquidityChanges += 1;
      },
    });
  }

  private v2Remove(pool: PoolView, lp: Agent, share: V2ShareState): void {
    const held = BigInt(share.liquidity);
    const fraction = this.rng.uniform(...LP_REMOVE_SHARE);
    const amount = fraction > 0.95 ? held : (held * BigInt(Math.round(fraction * 1000))) / 1000n;
    if (amount === 0n) return;
    this.approve(lp, pool.m.address, pool.dex.router);
    // Taken off now so that a second removal in the same block cannot spend it twice; restored on revert.
    share.liquidity = (held - amount).toString();
    this.session.send(lp, {
      to: pool.dex.router,
      data: encodeFunctionData({
        abi: v2RouterAbi,
        functionName: 'removeLiquidity',
        args: [pool.t0.m.address, pool.t1.m.address, amount, 0n, 0n, lp.address, this.deadline],
      }),
      gas: GAS.v2RemoveLiquidity,
      kind: 'lp-remove',
      onMined: (ok) => {
        if (ok) this.s.stats.liquidityChanges += 1;
        else share.liquidity = (BigInt(share.liquidity) + amount).toString();
      },
    });
  }

  private v3Add(pool: PoolView, lp: Agent): void {
    const spacing = V3_TICK_SPACING[pool.m.fee] ?? 60;
    const price = this.referencePrice(pool);
    const width = this.rng.pick(LP_RANGE_WIDTHS) * (pool.stablePair ? STABLE_RANGE_FACTOR : 1);
    const [tickLower, tickUpper] = tickRange(price, width, spacing);
    const usd = pool.runtime.depthUsd * this.rng.uniform(...LP_ADD_SHARE);
    const value = (usd / this.priceUsd(pool.t1)) * 10 ** pool.t1.m.decimals;
    const amounts = v3AmountsForValue(price, tickLower, tickUpper, value);
    const amount0 = toRawAmount(amounts.amount0);
    const amount1 = toRawAmount(amounts.amount1);
    const manager = pool.dex.positionManager!;
    for (const [token, amount] of [
      [pool.t0, amount0],
      [pool.t1, amount1],
    ] as const) {
      this.spend(lp, token, amount);
      this.approve(lp, token.m.address, manager);
    }
    this.session.send(lp, {
      to: manager,
      data: encodeFunctionData({
        abi: v3PositionManagerAbi,
        functionName: 'mint',
        args: [
          {
            token0: pool.t0.m.address,
            token1: pool.t1.m.address,
            fee: pool.m.fee,
            tickLower,
            tickUpper,
            amount0Desired: amount0,
            amount1Desired: amount1,
            amount0Min: 0n,
            amount1Min: 0n,
            recipient: lp.address,
            deadline: this.deadline,
          },
        ],
      }),
      gas: GAS.v3Mint,
      kind: 'lp-add',
      onMined: (ok, receipt) => {
        if (ok) this.recordV3Position(pool, lp, manager, receipt);
      },
    });
  }

  private recordV3Position(pool: PoolView, lp: Agent, manager: Address, receipt: RpcReceipt): void {
    const fromManager = receipt.logs.filter((l) => l.address.toLowerCase() === manager.toLowerCase());
    const nft = fromManager.find(
      (l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 4 && topicAddress(l.topics[1]) === ZERO_ADDRESS,
    );
    const increase = fromManager.find((l) => l.topics[0] === INCREASE_LIQUIDITY_TOPIC);
    if (!nft || !increase) return;
    const liquidity = BigInt(increase.data.slice(0, 66));
    this.s.v3Positions.push({
      tokenId: BigInt(nft.topics[3]!).toString(),
      pool: pool.id,
      owner: lp.index,
      liquidity: liquidity.toString(),
    });
    this.s.stats.liquidityChanges += 1;
  }

  private v3Remove(pool: PoolView, lp: Agent, position: V3PositionState): void {
    const held = BigInt(position.liquidity);
    const fraction = this.rng.uniform(...LP_REMOVE_SHARE);
    const amount = fraction > 0.95 ? held : (held * BigInt(Math.round(fraction * 1000))) / 1000n;
    if (amount === 0n) return;
    const tokenId = BigInt(position.tokenId);
    position.liquidity = (held - amount).toString();
    const decrease = encodeFunctionData({
      abi: v3PositionManagerAbi,
      functionName: 'decreaseLiquidity',
      args: [{ tokenId, liquidity: amount, amount0Min: 0n, amount1Min: 0n, deadline: this.deadline }],
    });
    const collect = encodeFunctionData({
      abi: v3PositionManagerAbi,
      functionName: 'collect',
      args: [{ tokenId, recipient: lp.address, amount0Max: UINT128_MAX, amount1Max: UINT128_MAX }],
    });
    this.session.send(lp, {
      to: pool.dex.positionManager!,
      data: encodeFunctionData({ abi: v3PositionManagerAbi, functionName: 'multicall', args: [[decrease, collect]] }),
      gas: GAS.v3Decrease,
      kind: 'lp-remove',
      onMined: (ok) => {
        if (!ok) {
          position.liquidity = (BigInt(position.liquidity) + amount).toString();
          return;
        }
        this.s.stats.liquidityChanges += 1;
        if (BigInt(position.liquidity) === 0n) this.s.v3Positions = this.s.v3Positions.filter((p) => p !== position);
      },
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

/** Reads every pool's price (raw token1 per raw token0) at a block (default: the latest), for checks and tests. */
export async function readPoolPrices(
  rpcUrl: string,
  manifest: WorldManifest,
  block?: number,
): Promise<Map<string, number>> {
  const tag = block === undefined ? 'latest' : `0x${block.toString(16)}`;
  const rpc = new RpcClient(rpcUrl);
  const results = await rpc.batchResults<Hex>(
    manifest.pools.map((p) => ({
      method: 'eth_call',
      params: [
        {
          to: p.address,
          data:
            p.version === 'V2'
              ? encodeFunctionData({ abi: v2PairAbi, functionName: 'getReserves' })
              : encodeFunctionData({ abi: v3PoolAbi, functionName: 'slot0' }),
        },
        tag,
      ],
    })),
  );
  const prices = new Map<string, number>();
  manifest.pools.forEach((p, i) => {
    if (p.version === 'V2') {
      const [r0, r1] = decodeFunctionResult({ abi: v2PairAbi, functionName: 'getReserves', data: results[i]! });
      prices.set(p.address.toLowerCase(), Number(r1) / Number(r0));
    } else {
      const [sqrtPriceX96] = decodeFunctionResult({ abi: v3PoolAbi, functionName: 'slot0', data: results[i]! });
      prices.set(p.address.toLowerCase(), priceFromSqrtPriceX96(sqrtPriceX96));
    }
  });
  return prices;
}
