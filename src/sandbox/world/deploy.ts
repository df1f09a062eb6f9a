/**
 * Deploys the sandbox world of a chain on a fresh anvil node, all in its genesis block: the world's tokens (WETH9
 * and the mintable ERC-20s, but for a token a protocol issues), then the issuers' part (MakerDAO's DAI: its setup and
 * the vault draws that fund the pools' seeds), then every enabled protocol of the chain in the list's order
 * (protocols/index.ts), then the cast of agents the scenario animates (cast.ts). The world names no protocol: each one queues its contracts,
 * writes its manifest sections and casts its agents through the hooks it declares (protocols/protocol.ts).
 */
import { type Address, decodeErrorResult, encodeDeployData, type Hex, zeroAddress } from 'viem';
import { Agent, DEPLOYER_PRIVATE_KEY, newAgentState } from '../chain/agent.js';
import { createdAddress, tokenArtifacts } from '../chain/artifacts.js';
import { ethereumSession } from '../chain/fees.js';
import { RpcClient } from '../chain/rpc.js';
import { ChainSession, GAS, type SessionOptions } from '../chain/session.js';
import {
  type GenesisBuild,
  PROTOCOLS,
  Provided,
  type SandboxChain,
  type SandboxProtocol,
  type WorldSwitches,
} from '../protocols/index.js';
import { createInitialState } from './cast.js';
import type { ManifestToken, SimulationState, WorldManifest } from './manifest.js';
import { TOKEN_PLAN } from './plan.js';
import type { MineBlock } from './scenario.js';

/** Native ETH set on every agent (not a transaction: `anvil_setBalance`); pays gas and WETH top-ups for years. */
const AGENT_ETH = 10n ** 24n;

/** Extra ETH for the deployer above what it wraps into seed WETH. */
const DEPLOYER_ETH_HEADROOM = 10n ** 22n;

export interface DeployOptions {
  readonly seed: number;
  readonly startTimestamp: number;
  readonly scale?: number;
  /** MakerDAO and Liquity (`SANDBOX_STABLECOINS`): the service asks by default; tests' worlds when they need them. */
  readonly stablecoins?: boolean;
  /** The chain whose protocols are deployed (default Ethereum). */
  readonly chain?: SandboxChain;
  /** The protocol list (default protocols/index.ts; a test may pass its own). */
  readonly protocols?: readonly SandboxProtocol[];
  /** How the node orders and prices transactions (a layer-2 chain's: by arrival; default by fee). */
  readonly session?: SessionOptions;
  /**
   * Mines the genesis block with the session's transactions in it (a layer-2 chain: its own setup block, the
   * protocols' transactions after its own). Default: the session alone.
   */
  readonly mine?: MineBlock;
}

/** The protocols a new world of `chain` deploys, in the list's order. */
export function enabledProtocols(
  chain: SandboxChain,
  switches: WorldSwitches,
  protocols: readonly SandboxProtocol[] = PROTOCOLS,
): SandboxProtocol[] {
  return protocols.filter((p) => p.chain === chain && p.enabled(switches));
}

/** Why a mined transaction reverted, from the node's call trace, in the words of the protocols that know its codes. */
async function explainRevert(rpc: RpcClient, hash: Hex, protocols: readonly SandboxProtocol[]): Promise<string> {
  try {
    const trace = await rpc.request<{ output?: Hex; error?: string }>('debug_traceTransaction', [
      hash,
      { tracer: 'callTracer' },
    ]);
    for (const p of protocols) {
      const reason = trace.output && (await p.revertReason?.(trace.output));
      if (reason) return reason;
    }
    if (trace.output && trace.output.length >= 10) {
      try {
        const decoded = decodeErrorResult({
          abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }],
          data: trace.output,
        });
        return String(decoded.args[0]);
      } catch {
        // not an Error(string)
      }
    }
    return trace.error ?? 'no reason';
  } catch (err) {
    return `no trace: ${(err as Error).message}`;
  }
}

/**
 * Deploys everything on a fresh anvil chain at `rpcUrl` (default anvil accounts; account 0 is the deployer) and
 * mines the genesis block at `startTimestamp`. Returns the manifest and the initial simulation state.
 *
 * Everything goes into one block at `startTimestamp` (transactions in a block run in order, and every address is
 * known in advance: CREATE from the deployer's nonces, CREATE2 for pools), so the simulation's step grid starts
 * exactly at `startTimestamp`. `startTimestamp` must be after the chain's genesis block.
 */
export async function deployWorld(
  rpcUrl: string,
  opts: DeployOptions,
): Promise<{ manifest: WorldManifest; state: SimulationState }> {
  const chain = opts.chain ?? 'ethereum';
  const scale = opts.scale ?? 1;
  const protocols = enabledProtocols(chain, { stablecoins: opts.stablecoins ?? false }, opts.protocols);
  const a = tokenArtifacts();
  const probe = new RpcClient(rpcUrl);
  const [chainIdHex, blockNumberHex] = await probe.batchResults<Hex>([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  const chainId = Number(chainIdHex);
  // Work a protocol can start before the block is built (MakerDAO's snapshot, read on zlib's pool).
  const prepared = protocols.map((p) => p.prepare?.());
  for (const p of prepared) p?.catch(() => undefined);
  const deployBlock = Number(blockNumberHex) + 1;
  const session = new ChainSession(rpcUrl, chainId, opts.session ?? ethereumSession(opts.seed));
  await session.prepareNode();

  const deployerState = newAgentState(opts.seed, -1, 'deployer');
  deployerState.nonce = Number(await probe.request<Hex>('eth_getTransactionCount', [deployerState.address, 'latest']));
  const deployer = new Agent(deployerState, 0, DEPLOYER_PRIVATE_KEY);
  const deployerAddress = deployer.address;

  const deploy = (bytecodeData: Hex): Address => {
    const address = createdAddress(deployerAddress, deployer.state.nonce);
    session.send(deployer, { to: null, data: bytecodeData, gas: GAS.deploy, kind: 'deploy' });
    return address;
  };

  // Tokens: WETH9 first (as on mainnet, everything else refers to it), then the mintable ERC-20s. A token a
  // protocol issues (the liquid staking token) is deployed by that protocol, in its turn.
  const weth = deploy(a.weth9.bytecode);
  // A token a protocol issues (Maker's DAI) is that protocol's, never a faucet token beside it: its `issue` fills it in.
  const issued = new Set(protocols.flatMap((p) => p.issues ?? []));
  const tokens: ManifestToken[] = TOKEN_PLAN.map((t) => {
    const address =
      t.kind === 'weth'
        ? weth
        : t.liquidStaking || issued.has(t.symbol)
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
  const ethNeeded: (() => bigint)[] = [];
  const build: GenesisBuild = Object.assign(new Provided(), {
    rpcUrl,
    rpc: probe,
    session,
    chainId,
    seed: opts.seed,
    scale,
    startTimestamp: opts.startTimestamp,
    deployBlock,
    deadline: BigInt(opts.startTimestamp + 3600),
    deployer,
    deploy,
    tokens,
    weth,
    priceSources: new Map<string, Address>(),
    needsEth: (amount: () => bigint) => {
      ethNeeded.push(amount);
    },
  });
  // The issuers first (their tokens fund the others' genesis), then every protocol's deployment, in the list's order.
  for (const [i, p] of protocols.entries()) await p.issue?.(build, prepared[i]);
  for (const t of tokens)
    if (issued.has(t.symbol) && t.address === zeroAddress) throw new Error(`sandbox: nothing issued ${t.symbol}`);
  for (const [i, p] of protocols.entries()) await p.deploy?.(build, prepared[i]);

  const deployerEth = ethNeeded.reduce((sum, f) => sum + f(), DEPLOYER_ETH_HEADROOM);
  await probe.batchResults([
    { method: 'anvil_setBalance', params: [deployerAddress, `0x${deployerEth.toString(16)}`] },
  ]);
  const outcome = await (opts.mine ?? ((s, at) => s.mine(at)))(session, opts.startTimestamp);
  if (outcome.revertedUnexpected + outcome.revertedTolerated > 0) {
    const reasons = await Promise.all(outcome.unexpected.map((u) => explainRevert(probe, u.hash, protocols)));
    throw new Error(
      `sandbox deployment: ${outcome.revertedUnexpected + outcome.revertedTolerated} transactions reverted: ${outcome.unexpected.map((u, i) => `${u.kind} ${u.hash} (${reasons[i]})`).join(', ')}`,
    );
  }

  const manifest: WorldManifest = {
    seed: opts.seed,
    chain,
    chainId,
    genesisTimestamp: opts.startTimestamp,
    deployer: deployerAddress,
    // A token a protocol issues is the world's only where that protocol is (a layer-2 chain's world may lack it).
    tokens: tokens.filter((t) => t.address !== zeroAddress),
    dex: [],
    pools: [],
    weth,
  };
  for (const p of protocols) await p.manifest?.(build, manifest);
  const { state, funded } = await createInitialState(manifest, {
    seed: opts.seed,
    startTimestamp: opts.startTimestamp,
    scale,
    genesis: build,
    protocols,
  });
  state.agents[0]!.nonce = deployer.state.nonce;
  state.stats.transactions = outcome.transactions;

  // Every agent gets native ETH for gas and WETH top-ups.
  await probe.batchResults(
    [...state.agents, ...funded]
      .filter((agent) => agent.role !== 'deployer')
      .map((agent) => ({ method: 'anvil_setBalance', params: [agent.address, `0x${AGENT_ETH.toString(16)}`] })),
  );
  return { manifest, state };
}
