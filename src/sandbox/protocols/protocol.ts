/**
 * What a sandbox protocol declares (issue 25): one folder under `protocols/` with a `protocol.ts` that exports a
 * `SandboxProtocol`, and one line in `protocols/index.ts`. The world (`world/`) deploys, casts, animates and
 * describes whatever the list holds, in its order, and names no protocol itself.
 *
 * - `chain`: the sandbox chain the protocol lives on. The world of a chain deploys the protocols of that chain.
 * - `after`: the protocols it needs deployed first (checked against the list's order: the list is the deployment
 *   order, and moving an entry moves every address after it).
 * - `enabled`: whether a new world deploys it (a saved world keeps what it has).
 * - `deploy`: queues its contracts on the genesis block (one block at the world's first instant, every transaction
 *   in list order), and hands what later protocols need to the build (`provide`/`need`).
 * - `manifest`: once the genesis block is mined, writes its section(s) of the manifest.
 * - `addressBook`: its entry points under the registry's names (what the service is given, as on mainnet).
 * - `cast`: its agents and its section of the scenario state.
 * The hooks that deploy, cast and animate load their modules when called (`await import`): the list itself, which
 * the address book, `sandbox info` and every start read, stays free of the contracts' artifacts.
 * - `actors` and `phase`: what acts in each block, and when: `feeds` first (they only send), then every actor
 *   reads the chain as the last block left it (in parallel), then `lending`, then `dex`.
 */
import path from 'node:path';
import type { Address, Hex } from 'viem';
import type { BookEntry, BookToken } from '../../registry/address-book.js';
import type { TokenDeclaration } from '../../registry/types.js';
import type { Agent, AgentState } from '../chain/agent.js';
import type { RpcClient } from '../chain/rpc.js';
import type { ChainSession } from '../chain/session.js';
import type { ManifestToken, SimulationState, WorldManifest } from '../world/manifest.js';
import type { TokenPlan } from '../world/plan.js';
import type { ScenarioState } from '../world/state.js';
import type { TokenView } from '../world/tokens.js';

/** The sandbox's chains: the Ethereum world and the two layer-2 chains that share its genesis. */
export type SandboxChain = 'ethereum' | 'optimism' | 'arbitrum';

/** The switches a new world is deployed with (`SANDBOX_STABLECOINS` is `stablecoins`). */
export interface WorldSwitches {
  readonly stablecoins: boolean;
}

/** When a protocol's actors act in a block. */
export type ProtocolPhase = 'feeds' | 'lending' | 'dex';
export const PHASES: readonly ProtocolPhase[] = ['feeds', 'lending', 'dex'];

/** A typed slot through which a protocol hands something to the protocols after it (`provide`/`need`). */
export interface Slot<T> {
  readonly name: string;
  /** Type carrier only. */
  readonly _type?: T;
}
export const slot = <T>(name: string): Slot<T> => ({ name });

/** What is handed around while a world is built: `provide` once, `need` (throws when absent) or `find`. */
export class Provided {
  private readonly values = new Map<string, unknown>();
  provide<T>(s: Slot<T>, value: T): void {
    if (this.values.has(s.name)) throw new Error(`sandbox: ${s.name} is provided twice`);
    this.values.set(s.name, value);
  }
  find<T>(s: Slot<T>): T | undefined {
    return this.values.get(s.name) as T | undefined;
  }
  need<T>(s: Slot<T>): T {
    if (!this.values.has(s.name)) throw new Error(`sandbox: nothing provides ${s.name} (check the protocols' order)`);
    return this.values.get(s.name) as T;
  }
}

/** How the genesis block funds an agent in a token a protocol issues (`issue`); false for the others' tokens. */
export interface GenesisFunds {
  fund(agent: Agent, token: ManifestToken, amount: bigint): boolean;
}
export const GENESIS_FUNDS = slot<GenesisFunds>('genesis-funds');
const GENESIS_FUNDERS = slot<GenesisFunds[]>('genesis-funders');
/** Adds an issuer's `GenesisFunds` beside the others' (`GENESIS_FUNDS` asks each in turn; the first that funds wins). */
export function addGenesisFunds(build: Provided, funds: GenesisFunds): void {
  let funders = build.find(GENESIS_FUNDERS);
  if (!funders) {
    const list: GenesisFunds[] = [];
    build.provide(GENESIS_FUNDERS, list);
    build.provide(GENESIS_FUNDS, { fund: (agent, token, amount) => list.some((f) => f.fund(agent, token, amount)) });
    funders = list;
  }
  funders.push(funds);
}

/** The genesis block being built. */
export interface GenesisBuild extends Provided {
  readonly rpcUrl: string;
  readonly rpc: RpcClient;
  readonly session: ChainSession;
  readonly chainId: number;
  readonly seed: number;
  readonly scale: number;
  /** The genesis block's timestamp (the world's first instant) and number. */
  readonly startTimestamp: number;
  readonly deployBlock: number;
  /** Deadline of the genesis block's DEX transactions. */
  readonly deadline: bigint;
  /** The world's deployer (agent 0): every `deploy` is a CREATE from its nonces. */
  readonly deployer: Agent;
  deploy(bytecodeData: Hex): Address;
  /** The world's tokens, in the plan's order (a protocol may fill in the address of a token it deploys). */
  readonly tokens: ManifestToken[];
  readonly weth: Address;
  /** Price source (a feed proxy) per token symbol, as protocols deploy them. */
  readonly priceSources: Map<string, Address>;
  /** Native ETH the deployer needs on top of its headroom, read after every protocol queued its part. */
  needsEth(amount: () => bigint): void;
}

/** The cast being created (after the manifest is complete). */
export interface CastBuild extends Provided {
  readonly manifest: WorldManifest;
  readonly seed: number;
  readonly scale: number;
  readonly startTimestamp: number;
  /** The scenario's agents, the deployer first: a protocol appends its own. */
  readonly agents: AgentState[];
  /** The next agent key (keys make the agents' addresses: same key, same address). */
  nextKey(): number;
  /** Agents outside `agents` (a protocol's own cast) that need native ETH for gas like the others. */
  fund(agent: AgentState): void;
  /** The scenario state being created: a protocol writes its own section. */
  readonly state: ScenarioState;
  /** The genesis build (what protocols provided while deploying). */
  readonly genesis: GenesisBuild;
}

/** A feed's answer as contracts read it. */
export interface FeedAnswer {
  readonly answer: bigint;
  readonly decimals: number;
  readonly updatedAt: number;
}

/** What the world offers every protocol's actors in a block. */
export interface WorldHost extends Provided {
  readonly rpcUrl: string;
  readonly session: ChainSession;
  readonly manifest: WorldManifest;
  readonly state: ScenarioState;
  readonly agents: readonly Agent[];
  readonly tokens: readonly TokenView[];
  readonly scale: number;
  /** The block being built's timestamp. */
  readonly now: number;
  token(symbol: string): TokenView;
  /** Plans spending `amount` of `token`, topping the agent up first (mint, wrap, or a protocol's `topUp`). */
  spend(agent: Agent, token: TokenView, amount: bigint): void;
  approve(agent: Agent, token: Address, spender: Address): void;
  /** Watches agents' balances of `tokens` (lowercase addresses) and WETH, beside the world's cast. */
  watch(agents: readonly Agent[], tokens: readonly string[]): void;
}

/** Services a protocol's actors offer the others (through `WorldHost.need`/`find`). */
export const FEED_ANSWERS = slot<{
  /** A feed's answer as the contracts read it once this block's rounds land. */
  feedAnswer(symbol: string): FeedAnswer | undefined;
  /** A token's USD price as the feeds report it once this block's rounds land (else the reference price). */
  oracleUsd(symbol: string): number;
}>('feed answers');
export const SEIZED_SALES = slot<{
  /** A liquidation paid `liquidator` this much collateral: it sells it back into the debt asset it repaid. */
  seized(liquidator: Agent, collateral: string, debt: string, amount: bigint): void;
}>('seized sales');

/** One protocol's actors in the scenario. */
export interface ProtocolActors {
  /** Before anything in the block (the step from `from` to `to`). */
  begin?(from: number, to: number): void;
  /** Node-side preparation when a simulation call starts (nonces of its own agents). */
  open?(): Promise<void>;
  /** Reads what it needs of the chain as the previous block left it. */
  read?(from: number, to: number): Promise<unknown>;
  /** Queues its transactions of the block (`reading`: what `read` returned). */
  step?(reading: unknown, from: number, to: number): void;
  /** Writes its generators' and agents' states back into the scenario state. */
  save(): void;
  /**
   * Tops an agent up in a token this protocol issues (e.g. staking ETH into a liquid staking token); false when the
   * token is not its own.
   */
  topUp?(agent: Agent, token: TokenView, amount: bigint): boolean;
}

export interface SandboxProtocol {
  /** The folder's name. */
  readonly name: string;
  readonly chain: SandboxChain;
  /** Protocols that must be deployed first (by name). */
  readonly after: readonly string[];
  readonly phase: ProtocolPhase;
  enabled(switches: WorldSwitches): boolean;
  /** Starts work the deployment needs (read a snapshot) before the genesis block is built. */
  prepare?(): Promise<unknown>;
  /**
   * Symbols of the world's tokens this protocol issues where it is enabled (MakerDAO: DAI): the world deploys no
   * mintable token for them, and the protocol's `issue` fills in their address.
   */
  readonly issues?: readonly string[];
  /**
   * Queues, before any protocol's `deploy`, what the others' genesis needs of it: the tokens it issues, their
   * address in `build.tokens`, and `GENESIS_FUNDS` for them (the pools' seeds are drawn, not minted).
   */
  issue?(build: GenesisBuild, prepared: unknown): void | Promise<void>;
  /** Queues its part of the genesis block (`prepared`: what `prepare` resolved to). */
  deploy?(build: GenesisBuild, prepared: unknown): void | Promise<void>;
  /** Adds its sections to the manifest once the genesis block is mined (and checked: nothing reverted). */
  manifest?(build: GenesisBuild, manifest: WorldManifest): void | Promise<void>;
  /**
   * The reference USD price at `to` of a token this protocol issues (undefined for the others), from the other
   * tokens' new prices: applied by the market after it moves them (world/market.ts).
   */
  referencePriceUsd?(
    token: TokenPlan,
    prices: Readonly<Record<string, number>>,
    genesis: number,
    to: number,
  ): number | undefined;
  /** Its agents and its scenario state section. */
  cast?(build: CastBuild): void | Promise<void>;
  /** Its actors, or none when the manifest or the state has no section of it (a world saved before it existed). */
  actors?(host: WorldHost): ProtocolActors | undefined | Promise<ProtocolActors | undefined>;
  /** Its entry points and tokens in the address book of its chain, and the declared allocations of its tokens. */
  addressBook?(
    manifest: WorldManifest,
    book: {
      entries: Record<string, BookEntry>;
      tokens: Record<string, BookToken>;
      declarations: Record<string, TokenDeclaration>;
    },
  ): void;
  /**
   * The contracts it deployed, by address, with their names and (where the artifact ships its source and settings)
   * the artifact's path: what a contract-source stand-in serves (`WorldView`).
   */
  contracts?(manifest: WorldManifest): readonly DeployedContract[];
  /** A revert reason in this protocol's own encoding (Aave's numeric codes), to explain a failed deployment. */
  revertReason?(data: Hex): string | undefined | Promise<string | undefined>;
}

/** A contract a protocol deployed. */
export interface DeployedContract {
  readonly address: `0x${string}`;
  /** The contract's name (`FeedAggregator`, `UniswapV2Factory`). */
  readonly name: string;
  /**
   * Absolute path of its artifact, where one ships its compiler input: ours (`{ contractName, source, compiler,
   * settings, abi, bytecode }`) or a package's Hardhat artifact whose `.dbg.json` names a shipped build-info.
   */
  readonly artifact?: string;
  /** A proxy's implementation as deployed (what an explorer's proxy detection reports), where the protocol knows it. */
  readonly implementation?: `0x${string}`;
}

/** The artifact `contracts/<name>.json` of the protocol folder `dir` (its `import.meta.dirname`). */
export const artifactIn = (dir: string, name: string): string => path.join(dir, 'contracts', `${name}.json`);

/** Checks the list: unique names, and every `after` earlier in the list on the same chain. */
export function checkProtocols(list: readonly SandboxProtocol[]): void {
  const seen = new Map<string, SandboxProtocol>();
  for (const p of list) {
    if (seen.has(p.name)) throw new Error(`sandbox protocols: ${p.name} is listed twice`);
    for (const dep of p.after) {
      const d = seen.get(dep);
      if (!d) throw new Error(`sandbox protocols: ${p.name} needs ${dep} deployed first (list it earlier)`);
      if (d.chain !== p.chain) throw new Error(`sandbox protocols: ${p.name} (${p.chain}) needs ${dep} on ${d.chain}`);
    }
    seen.set(p.name, p);
  }
}

/** The world's initial simulation state once protocols cast (re-exported for the world's types). */
export type { SimulationState };
