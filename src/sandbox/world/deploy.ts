/**
 * Deploys the sandbox world on a fresh anvil chain: tokens, WETH9, one Uniswap V2 or V3 factory set per DEX
 * deployment the registry lists (uniswap V2/V3, pancakeswap V3, fraxfinance V2, all from the same npm bytecode),
 * the pools of `POOL_PLAN` with their permanent seed liquidity, and the cast of agents the scenario animates.
 *
 * Also home to what deployment and scenario share: `ChainSession` (how transactions reach the chain: signed
 * locally, sent in JSON-RPC batches, one block per step, receipts checked) and the AMM price math.
 */
import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  maxUint256,
  stringToHex,
  toEventSelector,
  zeroAddress,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { registry } from '../../registry/index.js';
import {
  artifacts,
  createdAddress,
  erc20Abi,
  mintableErc20Abi,
  sortTokens,
  v2FactoryAbi,
  v2PairAddress,
  v2RouterAbi,
  v3FactoryAbi,
  v3PoolAddress,
  v3PositionManagerAbi,
  weth9Abi,
} from '../chain/artifacts.js';
import { explainRevert } from '../protocols/aave/aave.js';
import {
  feedDeployData,
  genesisAnswers,
  initialOracleState,
  manifestOracles,
  plannedFeeds,
  plannedLendingFeeds,
  transmitData,
} from '../protocols/feeds/feeds.js';
import {
  initialLendingState,
  lendingCastCounts,
  manifestLiquidStaking,
  queueLending,
  readLending,
} from '../protocols/lending/lending.js';
import { initialMorphoState, morphoBorrowerCount, morphoBorrowerIndices } from '../protocols/morpho/morpho.js';
import { stakedTokenDeployData, stakeEthData, underlyingForTokens } from '../protocols/staking/staked-token.js';
import {
  type AgentRole,
  type AgentState,
  BURSTS,
  CHARACTERS,
  DEX_PLAN,
  isLiquidStakingPool,
  type ManifestDex,
  type ManifestPool,
  type ManifestToken,
  POOL_PLAN,
  type PoolPlan,
  type PoolRuntimeState,
  type ScenarioState,
  SINGLE_TRADER,
  type SimulationState,
  TOKEN_PLAN,
  V3_TICK_SPACING,
  type WorldManifest,
} from './manifest.js';
import { Rng, seedState } from './random.js';

// ---------------------------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------------------------

/** anvil's account 0 (the well-known test mnemonic): the deployer, and the owner of the permanent seed liquidity. */
export const DEPLOYER_PRIVATE_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/**
 * Block gas limit set on the node: an hour of activity at scale 10+ is a few thousand transactions in one block,
 * far beyond mainnet's 30 M. Far above usage, it also keeps the base fee decaying (blocks stay under the target).
 */
export const BLOCK_GAS_LIMIT = 10_000_000_000n;

/**
 * Every transaction bids `floor + (transactions left in the block)` wei as both max fee and tip: anvil orders its
 * pool by fee, so distinct, decreasing bids make the block's order exactly the order the scenario queued, whatever
 * order the HTTP batches arrive in. The floor is 0 on a node whose base fee is 0 (the sandbox's: gas is free, so
 * ETH balances move only by trades), else twice the base fee and at least 2 gwei (above anvil's default 1 gwei).
 */
const MIN_FEE_FLOOR = 2_000_000_000n;

/** Transactions per JSON-RPC batch: big enough to amortise the HTTP hop, small enough to start anvil early. */
const SEND_CHUNK = 100;

/** Native ETH set on every agent (not a transaction: `anvil_setBalance`); pays gas and WETH top-ups for years. */
const AGENT_ETH = 10n ** 24n;

/** Extra ETH for the deployer above what it wraps into seed WETH. */
const DEPLOYER_ETH_HEADROOM = 10n ** 22n;

/** Trader population at scale 1, and its floor, so a small test world still has crowds and regulars. */
const TRADERS_AT_SCALE_1 = 100;
const MIN_TRADERS = 12;
/** LP agents at scale 1 and the floor. */
const LPS_AT_SCALE_1 = 6;
const MIN_LPS = 2;

/**
 * Trader size habits: log-normal across traders, median $1,500 with a log-sd of 1.3, so 90 % of traders sit
 * between ~$180 and ~$13k and a few whales trade hundreds of thousands.
 */
const TRADER_MEDIAN_USD = 1500;
const TRADER_SIZE_SIGMA = 1.3;
/** Activity habit: log-normal with log-sd 0.8 (the most active traders trade ~10x more often than the median one). */
const TRADER_ACTIVITY_SIGMA = 0.8;
/** Daily active window: 6 to 18 hours starting at a uniformly random UTC hour. */
const ACTIVE_HOURS_MIN = 6;
const ACTIVE_HOURS_SPAN = 13;

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

/** Gas limits by transaction kind (generous: a limit costs nothing unused, and no estimation round trip is needed). */
export const GAS = {
  deploy: 8_000_000n,
  createPool: 6_000_000n,
  createPair: 4_000_000n,
  setup: 200_000n,
  approve: 80_000n,
  mint: 120_000n,
  wrap: 80_000n,
  v2Swap: 250_000n,
  v3Swap: 500_000n,
  v3Arbitrage: 1_500_000n,
  v2AddLiquidity: 300_000n,
  v2RemoveLiquidity: 300_000n,
  v3Mint: 800_000n,
  v3Decrease: 500_000n,
  /** FeedAggregator.transmit: one new round slot, the round id and two events; generous like the others. */
  oracleRound: 150_000n,
} as const;

// ---------------------------------------------------------------------------------------------------------------
// JSON-RPC
// ---------------------------------------------------------------------------------------------------------------

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

interface RpcResponse {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** A minimal JSON-RPC client over fetch: batches are what make an hour of trading one HTTP round trip. */
export class RpcClient {
  private nextId = 1;

  constructor(readonly url: string) {}

  async request<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    const [response] = await this.post([{ method, params }]);
    if (response?.error) throw new Error(`${method}: ${response.error.message}`);
    return response?.result as T;
  }

  /** Responses in call order; errors are returned, not thrown. */
  async batch(calls: readonly RpcCall[]): Promise<RpcResponse[]> {
    if (calls.length === 0) return [];
    return this.post(calls);
  }

  /** Results in call order; throws on the first error. */
  async batchResults<T>(calls: readonly RpcCall[]): Promise<T[]> {
    const responses = await this.batch(calls);
    return responses.map((r, i) => {
      if (r.error) throw new Error(`${calls[i]!.method}: ${r.error.message}`);
      return r.result as T;
    });
  }

  private async post(calls: readonly RpcCall[]): Promise<RpcResponse[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })),
    );
    const res = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (!res.ok) throw new Error(`RPC ${this.url}: HTTP ${res.status}`);
    const json = (await res.json()) as RpcResponse | RpcResponse[];
    const list = Array.isArray(json) ? json : [json];
    const ordered = new Array<RpcResponse>(calls.length);
    for (const r of list) ordered[r.id - first] = r;
    for (let i = 0; i < ordered.length; i++) {
      ordered[i] ??= { id: first + i, error: { code: -1, message: 'no response in batch' } };
    }
    return ordered;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------------------------

/** The private key of agent `key` of the world with `seed` (-1: the deployer). Deterministic, never stored. */
export function agentPrivateKey(seed: number, key: number): Hex {
  if (key < 0) return DEPLOYER_PRIVATE_KEY;
  return keccak256(stringToHex(`protoscore/sandbox/agent/${seed}/${key}`));
}

/** An agent at run time: the saved `AgentState` plus exact bigint balances and the current block's plan. */
export class Agent {
  readonly address: Address;
  /** Lowercase address, the key of every lookup. */
  readonly id: string;
  readonly balances = new Map<string, bigint>();
  readonly approvals: Set<string>;
  /** Balance changes queued in the block being built (spends negative, top-ups positive). */
  private readonly planned = new Map<string, bigint>();
  private account: PrivateKeyAccount | undefined;

  constructor(
    readonly state: AgentState,
    readonly index: number,
    private readonly privateKey: Hex,
  ) {
    this.address = getAddress(state.address);
    this.id = state.address.toLowerCase();
    for (const [token, amount] of Object.entries(state.balances)) this.balances.set(token, BigInt(amount));
    this.approvals = new Set(state.approvals);
  }

  get role(): AgentRole {
    return this.state.role;
  }

  signer(): PrivateKeyAccount {
    this.account ??= privateKeyToAccount(this.privateKey);
    return this.account;
  }

  /** Balance as of the last mined block plus what this block already plans. */
  available(token: string): bigint {
    return (this.balances.get(token) ?? 0n) + (this.planned.get(token) ?? 0n);
  }

  plan(token: string, delta: bigint): void {
    this.planned.set(token, (this.planned.get(token) ?? 0n) + delta);
  }

  credit(token: string, delta: bigint): void {
    this.balances.set(token, (this.balances.get(token) ?? 0n) + delta);
  }

  clearPlan(): void {
    this.planned.clear();
  }

  /** Writes the run-time fields back into the JSON state. */
  save(): void {
    const balances: Record<string, string> = {};
    for (const [token, amount] of [...this.balances.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (amount !== 0n) balances[token] = amount.toString();
    }
    this.state.balances = balances;
    this.state.approvals = [...this.approvals].sort();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The chain session
// ---------------------------------------------------------------------------------------------------------------

export type TxKind =
  | 'deploy'
  | 'setup'
  | 'fund'
  | 'approve'
  | 'swap'
  | 'arbitrage'
  | 'lp-add'
  | 'lp-remove'
  | 'oracle'
  | 'lend'
  | 'liquidation';

/**
 * Kinds whose reverts are part of the market (slippage protection, a stale arbitrage, a liquidation of a position
 * the block's oracle rounds made healthy again); any other revert is a bug.
 */
const TOLERATED_REVERTS: ReadonlySet<TxKind> = new Set<TxKind>(['swap', 'arbitrage', 'liquidation']);

export interface RpcLog {
  readonly address: string;
  readonly topics: readonly Hex[];
  readonly data: Hex;
}

export interface RpcReceipt {
  readonly transactionHash: Hex;
  readonly status: Hex;
  readonly from: string;
  readonly logs: readonly RpcLog[];
}

export interface TxRequest {
  readonly to: Address | null;
  readonly data: Hex;
  readonly value?: bigint;
  readonly gas: bigint;
  readonly kind: TxKind;
  /** Called after the block is mined, with whether the transaction succeeded. */
  readonly onMined?: (ok: boolean, receipt: RpcReceipt) => void;
}

interface QueuedTx extends TxRequest {
  readonly agent: Agent;
  readonly nonce: number;
}

export interface BlockOutcome {
  readonly transactions: number;
  readonly byKind: Readonly<Partial<Record<TxKind, number>>>;
  readonly revertedTolerated: number;
  readonly revertedUnexpected: number;
  /** Up to a few unexpected reverts, for the error message. */
  readonly unexpected: readonly { kind: TxKind; hash: Hex; from: string }[];
}

const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');
const DEPOSIT_TOPIC = toEventSelector('Deposit(address,uint256)');
const WITHDRAWAL_TOPIC = toEventSelector('Withdrawal(address,uint256)');

export { TRANSFER_TOPIC };

/** The 20-byte address in a 32-byte topic, lowercase. */
export function topicAddress(topic: Hex | undefined): string {
  return topic ? `0x${topic.slice(26)}` : '';
}

/** What `to` received of `token` in a mined transaction: the sum of its ERC-20 `Transfer`s to `to`. */
export function received(receipt: RpcReceipt, token: string, to: string): bigint {
  const [tokenId, toId] = [token.toLowerCase(), to.toLowerCase()];
  let total = 0n;
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== tokenId || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) continue;
    if (topicAddress(log.topics[2]) === toId) total += BigInt(log.data);
  }
  return total;
}

/**
 * Builds one block at a time: `send` queues transactions (nonces tracked locally, gas given, no estimation),
 * `mine` signs them, sends them in JSON-RPC batches without waiting for receipts, mines one block at the given
 * timestamp (automine off), then reads the block's receipts once: every queued transaction must be in the block,
 * reverts are counted, token balances of watched agents are updated from the Transfer/Deposit logs.
 */
export class ChainSession {
  readonly rpc: RpcClient;
  private queue: QueuedTx[] = [];
  private readonly agentsById = new Map<string, Agent>();
  private readonly tokens = new Set<string>();
  private weth = '';
  private feeFloor = MIN_FEE_FLOOR;

  constructor(
    rpcUrl: string,
    readonly chainId: number,
  ) {
    this.rpc = new RpcClient(rpcUrl);
  }

  /**
   * Manual mining, a block gas limit that fits an hour of trading (node settings, lost on restart: set again by
   * every call), and the fee floor for the node's base fee.
   */
  async prepareNode(): Promise<void> {
    const [, , latest] = await this.rpc.batchResults<{ baseFeePerGas?: Hex; gasLimit: Hex } | null>([
      { method: 'evm_setAutomine', params: [false] },
      { method: 'evm_setBlockGasLimit', params: [`0x${BLOCK_GAS_LIMIT.toString(16)}`] },
      { method: 'eth_getBlockByNumber', params: ['latest', false] },
    ]);
    const baseFee = BigInt(latest?.baseFeePerGas ?? '0x0');
    this.feeFloor = baseFee === 0n ? 0n : baseFee * 2n > MIN_FEE_FLOOR ? baseFee * 2n : MIN_FEE_FLOOR;
  }

  /** Agents whose token balances are tracked from logs, and the tokens to track. */
  watch(agents: readonly Agent[], tokens: readonly string[], weth: string): void {
    for (const a of agents) this.agentsById.set(a.id, a);
    for (const t of tokens) this.tokens.add(t.toLowerCase());
    this.weth = weth.toLowerCase();
  }

  get queued(): number {
    return this.queue.length;
  }

  send(agent: Agent, request: TxRequest): void {
    this.queue.push({ ...request, agent, nonce: agent.state.nonce });
    agent.state.nonce += 1;
  }

  async mine(timestamp: number): Promise<BlockOutcome> {
    const queue = this.queue;
    this.queue = [];
    const n = queue.length;
    const hashes: Hex[] = new Array(n);
    const sends: Promise<RpcResponse[]>[] = [];
    let chunk: RpcCall[] = [];
    for (let i = 0; i < n; i++) {
      const tx = queue[i]!;
      const fee = this.feeFloor + BigInt(n - i);
      const raw = await tx.agent.signer().signTransaction({
        chainId: this.chainId,
        type: 'eip1559',
        to: tx.to,
        data: tx.data,
        value: tx.value ?? 0n,
        nonce: tx.nonce,
        gas: tx.gas,
        maxFeePerGas: fee,
        maxPriorityFeePerGas: fee,
      });
      hashes[i] = keccak256(raw);
      chunk.push({ method: 'eth_sendRawTransaction', params: [raw] });
      if (chunk.length === SEND_CHUNK || i === n - 1) {
        // Not awaited: anvil validates this chunk on its own core while the next one is signed here.
        sends.push(this.rpc.batch(chunk));
        chunk = [];
      }
    }
    const responses = (await Promise.all(sends)).flat();
    const rejected = responses.findIndex((r) => r.error);
    if (rejected >= 0) {
      const tx = queue[rejected]!;
      throw new Error(
        `sandbox: the node rejected a ${tx.kind} transaction from ${tx.agent.address} (nonce ${tx.nonce}): ${responses[rejected]!.error!.message}`,
      );
    }
    await this.rpc.request('evm_mine', [timestamp]);

    const byKind: Partial<Record<TxKind, number>> = {};
    let revertedTolerated = 0;
    let revertedUnexpected = 0;
    const unexpected: { kind: TxKind; hash: Hex; from: string }[] = [];
    if (n > 0) {
      const receipts = await this.rpc.request<RpcReceipt[]>('eth_getBlockReceipts', ['latest']);
      if (receipts.length !== n || receipts.some((r, i) => r.transactionHash !== hashes[i])) {
        throw new Error(
          `sandbox: the block at ${timestamp} holds ${receipts.length} of ${n} transactions, or not in the queued order`,
        );
      }
      for (let i = 0; i < n; i++) {
        const tx = queue[i]!;
        const receipt = receipts[i]!;
        const ok = receipt.status === '0x1';
        byKind[tx.kind] = (byKind[tx.kind] ?? 0) + 1;
        if (ok) this.applyBalanceLogs(receipt.logs);
        else if (TOLERATED_REVERTS.has(tx.kind)) revertedTolerated++;
        else {
          revertedUnexpected++;
          if (unexpected.length < 5) unexpected.push({ kind: tx.kind, hash: hashes[i]!, from: tx.agent.id });
        }
        tx.onMined?.(ok, receipt);
      }
    }
    for (const tx of queue) tx.agent.clearPlan();
    return { transactions: n, byKind, revertedTolerated, revertedUnexpected, unexpected };
  }

  private applyBalanceLogs(logs: readonly RpcLog[]): void {
    for (const log of logs) {
      const address = log.address.toLowerCase();
      if (!this.tokens.has(address)) continue;
      const topic0 = log.topics[0];
      if (topic0 === TRANSFER_TOPIC && log.topics.length === 3) {
        const value = BigInt(log.data);
        this.agentsById.get(topicAddress(log.topics[1]))?.credit(address, -value);
        this.agentsById.get(topicAddress(log.topics[2]))?.credit(address, value);
      } else if (address === this.weth && topic0 === DEPOSIT_TOPIC) {
        this.agentsById.get(topicAddress(log.topics[1]))?.credit(address, BigInt(log.data));
      } else if (address === this.weth && topic0 === WITHDRAWAL_TOPIC) {
        this.agentsById.get(topicAddress(log.topics[1]))?.credit(address, -BigInt(log.data));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// AMM math (floats are fine here: these choose trade sizes and seed amounts; the chain does the exact math)
// ---------------------------------------------------------------------------------------------------------------

export const Q96 = 2n ** 96n;
export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
/** Bounds of sqrtPriceX96 (TickMath.MIN_SQRT_RATIO / MAX_SQRT_RATIO). */
export const MIN_SQRT_RATIO = 4295128739n;
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;

/** A non-negative float amount to a bigint (floored); NaN and negatives become 0. */
export function toRawAmount(x: number): bigint {
  if (!(x > 0) || !Number.isFinite(x)) return 0n;
  return BigInt(Math.floor(x));
}

/** The price of raw token0 in raw token1 from two USD prices and the decimals. */
export function rawPrice(price0Usd: number, decimals0: number, price1Usd: number, decimals1: number): number {
  return (price0Usd / price1Usd) * 10 ** (decimals1 - decimals0);
}

export function sqrtPriceX96FromPrice(price: number): bigint {
  const s = BigInt(Math.round(Math.sqrt(price) * 2 ** 96));
  return s < MIN_SQRT_RATIO ? MIN_SQRT_RATIO : s >= MAX_SQRT_RATIO ? MAX_SQRT_RATIO - 1n : s;
}

export function priceFromSqrtPriceX96(sqrtPriceX96: bigint): number {
  const s = Number(sqrtPriceX96) / 2 ** 96;
  return s * s;
}

export function tickFromPrice(price: number): number {
  return Math.floor(Math.log(price) / Math.log(1.0001));
}

/** `tick` rounded to a multiple of `spacing` (down or up), kept inside the usable range. */
export function alignTick(tick: number, spacing: number, direction: 'down' | 'up'): number {
  const aligned = (direction === 'down' ? Math.floor(tick / spacing) : Math.ceil(tick / spacing)) * spacing;
  const lo = Math.ceil(MIN_TICK / spacing) * spacing;
  const hi = Math.floor(MAX_TICK / spacing) * spacing;
  // `+ 0` turns the -0 of Math.ceil(-0.1) * 10 into 0.
  return Math.min(hi, Math.max(lo, aligned)) + 0;
}

/** A tick range around `price` of ±`width` (a fraction), aligned outwards to `spacing`, never empty. */
export function tickRange(price: number, width: number, spacing: number): [number, number] {
  const lower = alignTick(tickFromPrice(price * (1 - width)), spacing, 'down');
  let upper = alignTick(tickFromPrice(price * (1 + width)) + 1, spacing, 'up');
  if (upper <= lower) upper = lower + spacing;
  return [lower, upper];
}

/** The full usable range for a tick spacing. */
export function fullRange(spacing: number): [number, number] {
  return [alignTick(MIN_TICK, spacing, 'up'), alignTick(MAX_TICK, spacing, 'down')];
}

/**
 * Token amounts (raw) of a V3 position over [tickLower, tickUpper] worth `value` (in raw token1) at `price`
 * (raw token1 per raw token0): x = L(1/√p − 1/√pb), y = L(√p − √pa), value = x·p + y.
 */
export function v3AmountsForValue(
  price: number,
  tickLower: number,
  tickUpper: number,
  value: number,
): { amount0: number; amount1: number } {
  const sp = Math.sqrt(price);
  const sa = 1.0001 ** (tickLower / 2);
  const sb = 1.0001 ** (tickUpper / 2);
  if (sp <= sa) return { amount0: value / price, amount1: 0 };
  if (sp >= sb) return { amount0: 0, amount1: value };
  const liquidity = value / (2 * sp - price / sb - sa);
  return { amount0: liquidity * (1 / sp - 1 / sb), amount1: liquidity * (sp - sa) };
}

// ---------------------------------------------------------------------------------------------------------------
// The initial state
// ---------------------------------------------------------------------------------------------------------------

function newAgent(seed: number, key: number, role: AgentRole, habits?: Partial<AgentState>): AgentState {
  return {
    key,
    address: privateKeyToAccount(agentPrivateKey(seed, key)).address,
    role,
    nonce: 0,
    balances: {},
    approvals: [],
    medianTradeUsd: habits?.medianTradeUsd ?? 0,
    activity: habits?.activity ?? 0,
    activeFromHour: habits?.activeFromHour ?? 0,
    activeHours: habits?.activeHours ?? 24,
  };
}

/**
 * The cast and the scenario's starting point. Agents: 0 the deployer, 1 the arbitrageur, then one bot per
 * single-trader pool, the traders, the LPs. Each pool gets its clientele from the traders by its character.
 */
export function createInitialState(
  manifest: WorldManifest,
  opts: { seed: number; startTimestamp: number; scale: number; depthUsd: ReadonlyMap<string, number> },
): ScenarioState {
  const { seed, scale } = opts;
  const rng = Rng.fromSeed(seed, 'agents');
  const coreRng = rng;
  const agents: AgentState[] = [newAgent(seed, -1, 'deployer'), newAgent(seed, 0, 'arbitrageur')];
  let key = 1;
  const botOf = new Map<string, number>();
  for (const pool of manifest.pools) {
    if (pool.character !== 'single-trader') continue;
    botOf.set(pool.address.toLowerCase(), agents.length);
    agents.push(
      newAgent(seed, key++, 'bot', {
        medianTradeUsd: SINGLE_TRADER.medianTradeUsd,
        activity: 1,
        activeFromHour: 0,
        activeHours: 24,
      }),
    );
  }
  const traders: number[] = [];
  const traderCount = Math.max(MIN_TRADERS, Math.round(TRADERS_AT_SCALE_1 * scale));
  for (let i = 0; i < traderCount; i++) {
    traders.push(agents.length);
    agents.push(
      newAgent(seed, key++, 'trader', {
        medianTradeUsd: rng.logNormal(TRADER_MEDIAN_USD, TRADER_SIZE_SIGMA),
        activity: rng.logNormal(1, TRADER_ACTIVITY_SIGMA),
        activeFromHour: rng.int(24),
        activeHours: ACTIVE_HOURS_MIN + rng.int(ACTIVE_HOURS_SPAN),
      }),
    );
  }
  const lpCount = Math.max(MIN_LPS, Math.round(LPS_AT_SCALE_1 * scale));
  for (let i = 0; i < lpCount; i++) agents.push(newAgent(seed, key++, 'lp'));
  // The lending cast comes last (lending.ts draws their positions from its own stream).
  const markets = manifest.lending?.aave.length ?? 0;
  if (markets > 0) {
    const cast = lendingCastCounts(scale, markets);
    for (let i = 0; i < cast.suppliers; i++) agents.push(newAgent(seed, key++, 'supplier'));
    for (let i = 0; i < cast.borrowers; i++) agents.push(newAgent(seed, key++, 'borrower'));
    for (let i = 0; i < cast.loopers; i++) agents.push(newAgent(seed, key++, 'looper'));
    for (let i = 0; i < cast.liquidators; i++) agents.push(newAgent(seed, key++, 'liquidator'));
  }
  // Morpho's borrowers after everyone else (morpho.ts draws their positions from its own stream).
  const morpho = manifest.lending?.morpho[0];
  const morphoBorrowers = morpho && markets > 0 ? morphoBorrowerCount(scale, morpho.markets.length) : 0;
  for (let i = 0; i < morphoBorrowers; i++) agents.push(newAgent(seed, key++, 'borrower'));
  const lending =
    markets > 0 ? initialLendingState(manifest, seed, agents.slice(0, agents.length - morphoBorrowers)) : undefined;
  if (lending && morpho && morphoBorrowers > 0) {
    lending.morpho = initialMorphoState(morpho, seed, morphoBorrowerIndices(agents, morphoBorrowers));
  }

  // Pools of the liquid staking token draw from their own stream (see `ScenarioState.rngLiquidStakingPools`).
  const lstRng = Rng.fromSeed(seed, 'liquid-staking-pools');
  const pools: PoolRuntimeState[] = manifest.pools.map((pool) => {
    const rng = isLiquidStakingPool(manifest, pool) ? lstRng : coreRng;
    const address = pool.address.toLowerCase();
    const profile = CHARACTERS[pool.character];
    const size = Math.min(
      traders.length,
      Math.max(profile.minClientele, Math.round(profile.clienteleShare * traderCount)),
    );
    const runtime: PoolRuntimeState = {
      address,
      character: pool.character,
      depthUsd: opts.depthUsd.get(address) ?? 1e6,
      clientele: rng.sample(traders, size).sort((a, b) => a - b),
    };
    const bot = botOf.get(address);
    if (bot !== undefined) return { ...runtime, bot };
    if (pool.character === 'bursty') {
      const start = opts.startTimestamp + Math.round(rng.uniform(...BURSTS.firstWithinHours) * 3600);
      const end = start + Math.round(rng.uniform(BURSTS.minHours, BURSTS.maxHours) * 3600);
      return { ...runtime, burstStart: start, burstEnd: end };
    }
    return runtime;
  });

  const prices: Record<string, number> = {};
  for (const t of manifest.tokens) prices[t.symbol] = t.initialPriceUsd;
  return {
    format: 1,
    seed,
    scale,
    lastTimestamp: opts.startTimestamp,
    prices,
    step: 0,
    rngPrices: seedState(seed, 'prices'),
    rngAgents: rng.state(),
    rngLiquidStakingPools: lstRng.state(),
    agents,
    pools,
    v3Positions: [],
    v2Shares: [],
    ...(lending ? { lending } : {}),
    stats: {
      blocks: 1,
      transactions: 0,
      swaps: 0,
      liquidityChanges: 0,
      revertedTolerated: 0,
      revertedUnexpected: 0,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Deployment
// ---------------------------------------------------------------------------------------------------------------

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

interface PlannedPool {
  readonly plan: PoolPlan;
  readonly dex: ManifestDex;
  readonly token0: ManifestToken;
  readonly token1: ManifestToken;
  readonly address: Address;
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
  opts: { seed: number; startTimestamp: number; scale?: number },
): Promise<{ manifest: WorldManifest; state: SimulationState }> {
  const scale = opts.scale ?? 1;
  const a = artifacts();
  const probe = new RpcClient(rpcUrl);
  const [chainIdHex, blockNumberHex] = await probe.batchResults<Hex>([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  const chainId = Number(chainIdHex);
  const deployBlock = Number(blockNumberHex) + 1;
  const session = new ChainSession(rpcUrl, chainId);
  await session.prepareNode();

  const deployerState = newAgent(opts.seed, -1, 'deployer');
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
  // One factory set per planned (protocol, version).
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
        startBlock: deployBlock,
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
        startBlock: deployBlock,
      });
    }
  }

  // Pools of the plan whose deployment exists.
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
  const isLate = (plan: PoolPlan) => plan.tokens.some((s) => lateSymbols.has(s));
  const planned: PlannedPool[] = [];
  for (const plan of POOL_PLAN) {
    if (isLate(plan)) continue;
    const pool = planPool(plan);
    if (pool) planned.push(pool);
  }

  // Native ETH the deployer needs: what it wraps or stakes for the seeds (set on the node before mining).
  let ethNeeded = 0n;
  const approved = new Set<string>();
  /**
   * Seeds pools: half the depth on each side at the initial prices (V3: split into full-range and concentrated);
   * mints, wraps or stakes what the deployer needs, approves the routers and position managers, creates the pools.
   */
  const seedPools = (pools: readonly PlannedPool[]) => {
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
      const valueIn1 = (depthForScale(plan.depthUsd, scale) / token1.initialPriceUsd) * 10 ** token1.decimals;
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

    // Fund the deployer: mint the ERC-20s, wrap ETH, stake ETH for the liquid staking token.
    for (const token of tokens) {
      const amount = need.get(token.address) ?? 0n;
      if (amount === 0n) continue;
      const lst = TOKEN_PLAN.find((t) => t.symbol === token.symbol)?.liquidStaking;
      if (token.address === weth) {
        ethNeeded += amount;
        session.send(deployer, {
          to: weth,
          data: encodeFunctionData({ abi: weth9Abi, functionName: 'deposit' }),
          value: amount,
          gas: GAS.wrap,
          kind: 'fund',
        });
      } else if (lst) {
        const value = underlyingForTokens(lst, opts.startTimestamp, opts.startTimestamp, amount);
        ethNeeded += value;
        session.send(deployer, { to: token.address, data: stakeEthData(), value, gas: GAS.wrap * 2n, kind: 'fund' });
      } else {
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
        if (approved.has(k)) continue;
        approved.add(k);
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
          gas: GAS.createPair,
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
        gas: GAS.createPool,
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
          gas: GAS.v3Mint,
          kind: 'setup',
        });
      }
    }
  };
  seedPools(planned);

  // Price feeds last, so every address above stays what it was before feeds existed; each reports its first round
  // (the token's initial price) in this block.
  const feedPlan = plannedFeeds(tokens);
  const feedAddresses = feedPlan.map((f) => deploy(feedDeployData(f.pair)));
  const feedAnswers = genesisAnswers(feedPlan, tokens);
  feedAddresses.forEach((address, i) => {
    session.send(deployer, { to: address, data: transmitData(feedAnswers[i]!), gas: GAS.oracleRound, kind: 'oracle' });
  });

  // Then the liquid staking token, its pools, its feed, and the lending markets (lending.ts).
  tokens.forEach((token, i) => {
    const plan = TOKEN_PLAN[i]!;
    if (!plan.liquidStaking) return;
    const underlying = tokenBySymbol.get(plan.liquidStaking.underlying);
    if (!underlying) throw new Error(`sandbox plan: no underlying ${plan.liquidStaking.underlying} for ${plan.symbol}`);
    const address = deploy(stakedTokenDeployData(plan, underlying.address));
    tokens[i] = { ...token, address };
    tokenBySymbol.set(token.symbol, tokens[i]!);
  });
  const latePools: PlannedPool[] = [];
  for (const plan of POOL_PLAN) {
    if (!isLate(plan)) continue;
    const pool = planPool(plan);
    if (pool) latePools.push(pool);
  }
  seedPools(latePools);
  planned.push(...latePools);
  const lendingFeedPlan = plannedLendingFeeds(tokens);
  const lendingFeedAddresses = lendingFeedPlan.map((f) => deploy(feedDeployData(f.pair)));
  const lendingFeedAnswers = genesisAnswers(lendingFeedPlan, tokens);
  lendingFeedAddresses.forEach((address, i) => {
    session.send(deployer, {
      to: address,
      data: transmitData(lendingFeedAnswers[i]!),
      gas: GAS.oracleRound,
      kind: 'oracle',
    });
  });
  const priceSources = new Map<string, Address>();
  feedPlan.forEach((f, i) => {
    priceSources.set(f.token, feedAddresses[i]!);
  });
  lendingFeedPlan.forEach((f, i) => {
    priceSources.set(f.token, lendingFeedAddresses[i]!);
  });
  const lending = queueLending(session, deployer, tokens, priceSources);

  await probe.batchResults([
    { method: 'anvil_setBalance', params: [deployerAddress, `0x${(ethNeeded + DEPLOYER_ETH_HEADROOM).toString(16)}`] },
  ]);
  const outcome = await session.mine(opts.startTimestamp);
  if (outcome.revertedUnexpected + outcome.revertedTolerated > 0) {
    const reasons = await Promise.all(outcome.unexpected.map((u) => explainRevert(rpcUrl, u.hash)));
    throw new Error(
      `sandbox deployment: ${outcome.revertedUnexpected + outcome.revertedTolerated} transactions reverted: ${outcome.unexpected.map((u, i) => `${u.kind} ${u.hash} (${reasons[i]})`).join(', ')}`,
    );
  }

  // The factories must agree with the CREATE2 addresses computed above (they would not if the bytecode differed).
  const lookups = await probe.batchResults<Hex>(
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

  const pools: ManifestPool[] = planned.map((p) => ({
    address: p.address,
    protocol: p.dex.protocol,
    version: p.dex.version,
    token0: p.token0.address,
    token1: p.token1.address,
    fee: p.plan.fee,
    character: p.plan.character,
  }));
  const lendingFeeds = manifestOracles(lendingFeedPlan, lendingFeedAddresses, deployBlock);
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
    oracles: manifestOracles(feedPlan, feedAddresses, deployBlock),
    lending: await readLending(rpcUrl, lending, deployBlock),
    liquidStaking: manifestLiquidStaking(tokens, pools, lendingFeeds, deployBlock),
    lendingFeeds,
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

  // Every agent gets native ETH for gas and WETH top-ups.
  await probe.batchResults(
    state.agents
      .filter((agent) => agent.role !== 'deployer')
      .map((agent) => ({ method: 'anvil_setBalance', params: [agent.address, `0x${AGENT_ETH.toString(16)}`] })),
  );
  return { manifest, state };
}
