/**
 * The market scenario: advances the deployed world one block per step. Each step
 *   1. moves the reference ("true") USD prices (market.ts);
 *   2. lets the protocols of the `feeds` phase act (the price feeds' reporter sends the rounds the new prices or
 *      the heartbeats call for), first in the block;
 *   3. lets every other protocol's actors read the chain as the last block left it (in parallel);
 *   4. lets the `lending` phase act, in the list's order (liquidations first, as searchers back-run the rounds;
 *      then lenders and borrowers; the stablecoins' owners and keepers);
 *   5. lets the `dex` phase act (the arbitrageur back to the new reference prices, the liquidators' sales, the
 *      traders and LPs, the closing arbitrage last);
 *   6. mines everything as one block at the step's end and checks the receipts.
 * The world names no protocol: the actors are what the protocols of the manifest's chain declare (protocols/index.ts).
 * Everything random comes from the seeded generators saved in the state: same seed and same calls, same chain.
 */
import { type Address, encodeFunctionData, type Hex, maxUint256 } from 'viem';
import { Agent, agentPrivateKey } from '../chain/agent.js';
import { erc20Abi, mintableErc20Abi, weth9Abi } from '../chain/artifacts.js';
import { ethereumSession } from '../chain/fees.js';
import { type BlockOutcome, ChainSession, GAS, type SessionOptions } from '../chain/session.js';
import {
  PHASES,
  PROTOCOLS,
  type ProtocolActors,
  type ProtocolPhase,
  Provided,
  type SandboxProtocol,
  type WorldHost,
} from '../protocols/index.js';
import type { SimulationState, WorldManifest } from './manifest.js';
import { advancePrices, applyMarketEvents } from './market.js';
import { Rng } from './random.js';
import type { ScenarioState } from './state.js';
import { type TokenView, tokenViews } from './tokens.js';

/** Agents mint or wrap this multiple of a missing amount, so top-ups are occasional rather than per trade. */
const TOPUP_MULTIPLE = 4n;

class SimulatedWorld extends Provided implements WorldHost {
  readonly session: ChainSession;
  private readonly rngPrices: Rng;
  readonly agents: Agent[];
  readonly tokens: TokenView[];
  private readonly bySymbol: Map<string, TokenView>;
  /** The block being built's timestamp. */
  now = 0;
  /** Each protocol's actors with its phase, in the list's order. */
  private readonly actors: { readonly phase: ProtocolPhase; readonly actors: ProtocolActors }[] = [];

  constructor(
    readonly rpcUrl: string,
    readonly manifest: WorldManifest,
    readonly state: ScenarioState,
    readonly scale: number,
    sessionOptions: SessionOptions = {},
  ) {
    super();
    const s = state;
    this.session = new ChainSession(rpcUrl, manifest.chainId, sessionOptions);
    this.rngPrices = new Rng(s.rngPrices);
    this.agents = s.agents.map((a, i) => new Agent(a, i, agentPrivateKey(s.seed, a.key)));
    this.tokens = tokenViews(manifest);
    this.bySymbol = new Map(this.tokens.map((t) => [t.m.symbol, t]));
    this.session.watch(
      this.agents.filter((a) => a.role !== 'deployer'),
      this.tokens.map((t) => t.id),
      manifest.weth,
    );
  }

  /** Each protocol's actors, in the list's order (a protocol loads its actors' module when asked for them). */
  async cast(protocols: readonly SandboxProtocol[]): Promise<void> {
    for (const p of protocols) {
      const actors = await p.actors?.(this);
      if (actors) this.actors.push({ phase: p.phase, actors });
    }
  }

  token(symbol: string): TokenView {
    const t = this.bySymbol.get(symbol);
    if (!t) throw new Error(`sandbox state: no token ${symbol}`);
    return t;
  }

  watch(agents: readonly Agent[], tokens: readonly string[]): void {
    this.session.watch(agents, [...this.tokens.map((t) => t.id), ...tokens], this.manifest.weth);
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
    for (const { actors } of this.actors) await actors.open?.();
  }

  save(): void {
    for (const a of this.agents) a.save();
    this.state.rngPrices = this.rngPrices.state();
    for (const { actors } of this.actors) actors.save();
  }

  async step(to: number, mine: MineBlock = (session, at) => session.mine(at)): Promise<void> {
    const s = this.state;
    const from = s.lastTimestamp;
    const dt = to - from;
    for (const { actors } of this.actors) actors.begin?.(from, to);
    const tokens = this.tokens.map((t) => ({ symbol: t.m.symbol, volatility: t.m.volatility, plan: t.plan }));
    s.prices = advancePrices(s.prices, tokens, dt, this.rngPrices);
    s.prices = applyMarketEvents(s.prices, tokens, this.manifest.genesisTimestamp, from, to);
    this.now = to;
    // The feeds phase acts on the new prices alone; everyone after it reads the chain first.
    const [first, ...later] = PHASES;
    for (const { phase, actors } of this.actors) if (phase === first) actors.step?.(undefined, from, to);
    const readers = this.actors.filter((a) => a.phase !== first);
    const readings = await Promise.all(readers.map(({ actors }) => actors.read?.(from, to)));
    for (const phase of later) {
      readers.forEach(({ phase: p, actors }, i) => {
        if (p === phase) actors.step?.(readings[i], from, to);
      });
    }

    const outcome = await mine(this.session, to);
    s.stats.blocks += 1;
    s.stats.transactions += outcome.transactions;
    s.stats.revertedTolerated += outcome.revertedTolerated;
    s.stats.revertedUnexpected += outcome.revertedUnexpected;
    s.lastTimestamp = to;
    s.step += 1;
  }

  // --- agents' primitives ---------------------------------------------------------------------------------------

  /** Plans spending `amount` of `token`, minting (or wrapping ETH, or a protocol's top-up) first when short. */
  spend(agent: Agent, token: TokenView, amount: bigint): void {
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
      } else if (!this.actors.some(({ actors }) => actors.topUp?.(agent, token, topUp))) {
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

  approve(agent: Agent, token: Address, spender: Address): void {
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
 * Mines a step's block with the session's transactions in it: the session alone on the Ethereum world's node
 * (`session.mine`); a layer-2 chain that hosts protocols mines its own block, its system transaction and generic
 * traffic around the session's transactions (l2/chain.ts).
 */
export type MineBlock = (session: ChainSession, timestamp: number) => Promise<BlockOutcome>;

/** A world's protocols cast and ready to step, one block per `step` (what `simulate` loops over). */
export interface Simulation {
  /** The scenario state the steps advance (the simulation's own copy). */
  readonly state: ScenarioState;
  /** Simulates one step ending at `to` and mines its block (`mine`: default, the session alone). */
  step(to: number, mine?: MineBlock): Promise<void>;
  /** Writes the agents', generators' and actors' states back into `state`. */
  save(): void;
}

/**
 * Casts the protocols of the manifest's chain over a copy of `state` and prepares the node (nonces from the chain).
 * `session`: how the node orders and prices transactions (a layer-2 chain's: by arrival).
 */
export async function openSimulation(
  rpcUrl: string,
  manifest: WorldManifest,
  state: SimulationState,
  opts: { scale?: number; protocols?: readonly SandboxProtocol[]; session?: SessionOptions } = {},
): Promise<Simulation> {
  const s = structuredClone(state) as ScenarioState;
  if (s.format !== 1 || !Array.isArray(s.agents))
    throw new Error('sandbox: the simulation state is not from deployWorld');
  const chain = manifest.chain ?? 'ethereum';
  const protocols = (opts.protocols ?? PROTOCOLS).filter((p) => p.chain === chain);
  const session = opts.session ?? ethereumSession(s.seed);
  const world = new SimulatedWorld(rpcUrl, manifest, s, opts.scale ?? s.scale, session);
  await world.cast(protocols);
  await world.open();
  return { state: s, step: (to, mine) => world.step(to, mine), save: () => world.save() };
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
    /** The protocol list (default protocols/index.ts; a test may pass its own). */
    protocols?: readonly SandboxProtocol[];
    /** Called after every mined step with the state it left (the world records its hours from it). */
    onStep?: (state: SimulationState) => void;
  },
): Promise<SimulationState> {
  const checked = state as ScenarioState;
  if (checked.format !== 1 || !Array.isArray(checked.agents))
    throw new Error('sandbox: the simulation state is not from deployWorld');
  if (!(opts.stepSeconds >= 1)) throw new Error('sandbox: stepSeconds must be at least 1');
  const step = Math.floor(opts.stepSeconds);
  const until = Math.floor(untilTimestamp);
  const total = Math.max(0, Math.ceil((until - checked.lastTimestamp) / step));
  if (total === 0) return structuredClone(state);
  const world = await openSimulation(rpcUrl, manifest, state, {
    ...(opts.scale !== undefined ? { scale: opts.scale } : {}),
    ...(opts.protocols ? { protocols: opts.protocols } : {}),
  });
  const s = world.state;
  try {
    for (let i = 0; i < total; i++) {
      if (opts.signal?.aborted) break;
      await world.step(Math.min(s.lastTimestamp + step, until));
      opts.onStep?.(s);
      opts.onProgress?.(i + 1, total);
    }
  } finally {
    world.save();
  }
  return s;
}
