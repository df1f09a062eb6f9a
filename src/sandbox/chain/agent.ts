/**
 * The sandbox's signing agents: every account of the world (the deployer, the arbitrageur, traders, LPs, lenders,
 * borrowers, liquidators) signs locally with a key derived from the world's seed, tracks its own nonce, and knows its
 * exact token balances from the chain's logs (`ChainSession`).
 */
import { type Address, getAddress, type Hex, keccak256, stringToHex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

/** anvil's account 0 (the well-known test mnemonic): the deployer, and the owner of the permanent seed liquidity. */
export const DEPLOYER_PRIVATE_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export type AgentRole =
  | 'deployer'
  | 'arbitrageur'
  | 'trader'
  | 'bot'
  | 'lp'
  | 'supplier'
  | 'borrower'
  | 'looper'
  | 'liquidator'
  | 'trove-owner'
  | 'keeper'
  | 'redeemer'
  | 'batcher'
  | 'exchange'
  | 'holder';

export interface AgentState {
  /** Index in the key derivation (-1: the deployer, anvil's account 0). */
  readonly key: number;
  readonly address: `0x${string}`;
  readonly role: AgentRole;
  /** Next nonce. */
  nonce: number;
  /** Raw token balances by lowercase token address, as decimal strings (exact, from the chain's logs). */
  balances: Record<string, string>;
  /** `token>spender` pairs (lowercase) already approved for the maximum amount. */
  approvals: string[];
  /** Traders: median trade size in USD. */
  medianTradeUsd: number;
  /** Traders: relative frequency (log-normal across traders: a few very active ones, many occasional). */
  activity: number;
  /** Traders: first UTC hour of the daily active window… */
  activeFromHour: number;
  /** …and its length in hours. */
  activeHours: number;
}

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

/** A new agent's saved state: key `key` of the world with `seed`, no nonce used, no balance, the habits given. */
export function newAgentState(seed: number, key: number, role: AgentRole, habits?: Partial<AgentState>): AgentState {
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

/** A signing agent outside the scenario's cast (a deployer, a test's user): nonce tracked locally from `nonce`. */
export function signerAgent(privateKey: Hex, nonce: number, role: AgentRole = 'deployer'): Agent {
  const address = privateKeyToAccount(privateKey).address;
  return new Agent(
    {
      key: -1,
      address,
      role,
      nonce,
      balances: {},
      approvals: [],
      medianTradeUsd: 0,
      activity: 0,
      activeFromHour: 0,
      activeHours: 24,
    },
    0,
    privateKey,
  );
}
