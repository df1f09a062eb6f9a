import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  serializeTransaction,
  type TransactionSerializableEIP1559,
} from 'viem';
import { type Clock, HOUR, systemClock } from '../../core/time.js';
import { type Anvil, startAnvil } from '../chain/anvil.js';
import { createdAddress, tokenArtifacts } from '../chain/artifacts.js';
import type { RpcReceipt } from '../chain/receipts.js';
import type { BlockOutcome, ChainSession, GasTopUp, SessionOptions } from '../chain/session.js';
import { PROTOCOLS, type SandboxProtocol } from '../protocols/index.js';
import type { SimulationState, WorldManifest } from '../world/manifest.js';
import { Rng, type RngState } from '../world/random.js';
import { loadChain, readSavedChain, removeLeftovers, sha256, toJson, writeAtomic } from '../world/saved.js';
import type { Simulation } from '../world/scenario.js';
import { batch } from './batch.js';
import { l1OriginAt } from './l1.js';
import { ARBITRUM_BASE_FEE, ARBITRUM_CHAIN_ID, ARBOS_ADDRESS, gasUsedForL1, internalTx } from './nitro.js';
import { type NitroSaved, nitroBalanceCredits, planNitroMessages, recordNitroMessages } from './nitro-messages.js';
import {
  applyL1ToL2Alias,
  BASE_FEE_SCALAR,
  BLOB_BASE_FEE_SCALAR,
  DEPOSITOR,
  GAS_PRICE_ORACLE,
  GAS_PRICE_ORACLE_SLOT0,
  gasPriceOracleAbi,
  L1_BLOCK,
  L1_INFO_GAS,
  l1InfoCalldata,
  l1InfoSourceHash,
  OP_CHAIN_ID,
  opPredeploys,
  SEQUENCER_FEE_VAULT,
  userDepositSourceHash,
} from './op-stack.js';
import { type RpcProxy, startRpcProxy } from './proxy.js';
import { nitroShaper, type OpReceiptFields, opShaper } from './shapers.js';
import { accountOf, unsignedOf } from './signing.js';
import { type L2User, l2Cast, type PlannedTx, planBlock, planDeposits, USER_TOKENS } from './traffic.js';

export type L2Kind = 'optimism' | 'arbitrum';

export const L2_FORMAT = 1;
export const L2_FILE = 'l2.json';
const MINUTE = 60;
/** Arbitrum One's block producer, as its blocks name it (`miner`). */
const ARBITRUM_SEQUENCER: Address = '0xA4b000000000000000000073657175656e636572';
/** Block gas limit: an hour of history is one block (as in the Ethereum world). */
const L2_GAS_LIMIT = 1_000_000_000;

/**
 * The contract users deploy: 10 bytes that return 42 (init code 12 bytes). Small on purpose: every signed user
 * transaction stays below the size at which Fjord's FastLZ estimate leaves its 100-byte floor, where
 * `GasPriceOracle.getL1Fee` over the unsigned transaction (+68 bytes for the signature, its convention) equals what
 * the node charges over the signed one. A large signed transaction (a token's creation code) would be charged on
 * its own FastLZ size, which the oracle cannot be asked for: the token therefore comes as a deposit.
 */
const TINY_CONTRACT: Hex = '0x600a600c600039600a6000f3602a60005260206000f3';

const erc20 = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address account, uint256 value) returns (bool)',
]);

interface Stats {
  blocks: number;
  userTxs: number;
  failed: number;
  deposits: number;
  deployments: number;
  /** Receipts whose status differed from the plan (a bug if not 0). */
  unexpected: number;
  /** Transactions of the protocols the chain hosts (absent in chains saved before it hosted any). */
  hosted?: number;
}

export interface L2State {
  lastTimestamp: number;
  rng: RngState;
  nonces: number[];
  deployerNonce: number;
  tokenBalances: bigint[];
  token: Address;
  /** OP: the L1 origin of the previous block and the sequence number within it; the next user-deposit log index. */
  l1Number: number;
  sequenceNumber: number;
  depositIndex: number;
  /** OP: op-geth's receipt fields by transaction hash; Arbitrum: `gasUsedForL1` (hex) by transaction hash. */
  extras: Record<string, OpReceiptFields | string>;
  /** Arbitrum: the block of each transaction the proxy makes up, by hash; the L1 messages (absent in older saves). */
  internal: Record<string, number>;
  nitro?: NitroSaved;
  stats: Stats;
}

interface SavedL2 {
  readonly format: number;
  readonly chain: L2Kind;
  readonly seed: number;
  readonly chain_id: number;
  readonly genesis_timestamp: number;
  readonly node_genesis: { readonly timestamp: number; readonly hash: string };
  readonly saved_at: string;
  readonly head: { readonly number: number; readonly hash: string };
  readonly chain_file: string;
  readonly chain_sha256: string;
  readonly state: L2State;
  /** The world of the protocols the chain hosts (`SandboxProtocol.chain`): absent when it hosts none. */
  readonly hosted?: HostedWorld;
}

/** The manifest and scenario state of the protocols a layer-2 chain hosts, as the Ethereum world keeps its own. */
export interface HostedWorld {
  readonly manifest: WorldManifest;
  readonly state: SimulationState;
}

export interface L2ChainOptions {
  readonly kind: L2Kind;
  readonly dataDir: string;
  readonly seed: number;
  /** The Ethereum world's genesis (its first grid instant): a new chain starts there, a saved one must match it. */
  readonly genesisTimestamp: number;
  readonly blockSeconds: number;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly live?: boolean;
  readonly saveEveryMs?: number;
  /** The protocol list (default protocols/index.ts; a test may pass its own): a new chain hosts those of its kind. */
  readonly protocols?: readonly SandboxProtocol[];
  /** The world's activity multiplier and switches, for the hosted protocols (as the Ethereum world's). */
  readonly scale?: number;
  readonly stablecoins?: boolean;
}

export interface L2Status {
  readonly chain: L2Kind;
  readonly chain_id: number;
  readonly rpc_url: string;
  readonly anvil_pid: number;
  readonly simulated_until: number;
  readonly stats: Stats;
}

export interface L2Chain {
  readonly kind: L2Kind;
  readonly chainId: number;
  /** The proxy's URL: what `RPC_URL_<CHAIN>` is set to. */
  readonly rpcUrl: string;
  /** anvil itself (tests, diagnostics): not Nitro- or op-geth-shaped. */
  readonly anvilUrl: string;
  readonly caughtUp: Promise<void>;
  /** The manifest of the protocols the chain hosts (its section of the address book); undefined when none. */
  readonly manifest: WorldManifest | undefined;
  sync(): Promise<void>;
  status(): L2Status;
  stop(): Promise<void>;
}

type Block = { number: string; hash: string; timestamp: string; baseFeePerGas?: string };
type Receipt = { transactionHash: string; status: string; type: string; gasUsed: string };

export function l2Dir(dataDir: string, kind: L2Kind): string {
  return path.join(dataDir, 'sandbox', 'l2', kind);
}

const hex = (v: bigint | number) => `0x${BigInt(v).toString(16)}`;

/** The fee cap every transaction of the chain bids (traffic and hosted protocols alike): far above its base fee. */
const maxFeeOf = (kind: L2Kind) => (kind === 'optimism' ? 1_000_000_000n : 100_000_000n);

/** How the hosted protocols' session sends: by arrival (the node orders `fifo`), at the chain's fee cap. */
const hostedSession = (kind: L2Kind): SessionOptions => ({ order: 'arrival', maxFeePerGas: maxFeeOf(kind) });

/** The protocols a new chain of `kind` hosts: the list's enabled protocols that declare it. */
function hostedProtocols(options: L2ChainOptions): SandboxProtocol[] {
  const switches = { stablecoins: options.stablecoins ?? false };
  return (options.protocols ?? PROTOCOLS).filter((p) => p.chain === options.kind && p.enabled(switches));
}

/** OP's L2 base fee of an hour: log-normal around 0.001 gwei (log-sd 0.8), from the hash of (seed, hour). */
function opBaseFee(seed: number, timestamp: number): bigint {
  const o = l1OriginAt(seed + 7919, Math.floor(timestamp / HOUR) * HOUR);
  // Reuses the L1 draw's log-normal (median 3 gwei, log-sd 0.6) of another seed, scaled to 1e6 wei.
  return (o.baseFee * 1_000_000n) / 3_000_000_000n + 1n;
}

function newState(kind: L2Kind, seed: number, genesisTimestamp: number, deployer: Address): L2State {
  return {
    lastTimestamp: genesisTimestamp,
    rng: Rng.fromSeed(seed, `l2-traffic-${kind}`).state(),
    nonces: [],
    deployerNonce: 0,
    tokenBalances: [],
    token: kind === 'optimism' ? createdAddress(applyL1ToL2Alias(deployer), 0) : createdAddress(deployer, 0),
    l1Number: -1,
    sequenceNumber: 0,
    depositIndex: 0,
    extras: {},
    internal: {},
    stats: { blocks: 0, userTxs: 0, failed: 0, deposits: 0, deployments: 0, unexpected: 0 },
  };
}

/** Opens (creates or resumes) one L2 chain and starts catching up; resolves once its proxy answers. */
export async function openL2Chain(options: L2ChainOptions): Promise<L2Chain> {
  const { kind, seed, log, blockSeconds } = options;
  const clock = options.clock ?? systemClock;
  const nowSeconds = () => Math.floor(clock.nowMs() / 1000);
  const chainId = kind === 'optimism' ? OP_CHAIN_ID : ARBITRUM_CHAIN_ID;
  const dir = l2Dir(options.dataDir, kind);
  const cacheDir = path.join(dir, 'anvil-cache');
  const extraArgs = [
    '--gas-limit',
    String(L2_GAS_LIMIT),
    ...(kind === 'optimism' ? ['--optimism', '--order', 'fifo'] : ['--order', 'fifo']),
  ];
  const { deployer, users } = l2Cast(kind, seed);
  await mkdir(dir, { recursive: true });
  await rm(cacheDir, { recursive: true, force: true });

  let anvil: Anvil | undefined;
  let state: L2State | undefined;
  let hosted: HostedWorld | undefined;
  let nodeGenesis: SavedL2['node_genesis'] | undefined;
  let lastSaved: string | undefined;
  try {
    const saved = await readSavedL2(dir, kind, seed, options.genesisTimestamp);
    await removeLeftovers(dir, saved?.saved.chain_file, true);
    if (saved) {
      anvil = await loadChain(dir, saved.dump, saved.saved, cacheDir, log, {
        file: L2_FILE,
        anvil: { mining: 'manual', anvilDefaults: true, extraArgs, background: true },
      });
      state = saved.saved.state;
      hosted = saved.saved.hosted;
      nodeGenesis = saved.saved.node_genesis;
      lastSaved = saved.saved.head.hash;
      log.info({ chain: kind, block: saved.saved.head.number }, 'sandbox: saved L2 chain loaded');
    }
  } catch (err) {
    await anvil?.stop();
    anvil = undefined;
    const aside = path.join(dir, `${L2_FILE}.invalid-${Date.now()}`);
    log.warn({ chain: kind, err: (err as Error).message, kept: aside }, 'sandbox: saved L2 chain unusable, a new one');
    await rename(path.join(dir, L2_FILE), aside).catch(() => undefined);
    await removeLeftovers(dir, undefined, true);
  }
  if (!anvil || !state || !nodeGenesis) {
    anvil = await startAnvil({
      chainId,
      genesisTimestamp: options.genesisTimestamp - 1,
      cacheDir,
      mining: 'manual',
      anvilDefaults: true,
      extraArgs,
      // Background: the Ethereum world and the service's threads come first on a machine short of cores.
      background: true,
      log,
    });
    const block0 = await anvil.request<Block>('eth_getBlockByNumber', ['0x0', false]);
    nodeGenesis = { timestamp: Number(block0.timestamp), hash: block0.hash };
    const fresh = newState(kind, seed, options.genesisTimestamp, deployer.address);
    state = fresh;
    hosted = undefined;
    const node = anvil;
    const hosts = hostedProtocols(options);
    try {
      if (hosts.length === 0) await setUp(node, kind, seed, fresh, deployer, users);
      else {
        // The hosted protocols deploy as on Ethereum (world/deploy.ts), their transactions in the chain's setup block
        // after its own; loaded only when the chain hosts any (the artifacts are large).
        const { deployWorld } = await import('../world/deploy.js');
        hosted = await deployWorld(node.rpcUrl, {
          seed,
          startTimestamp: options.genesisTimestamp,
          scale: options.scale ?? 1,
          stablecoins: options.stablecoins ?? false,
          chain: kind,
          protocols: options.protocols ?? PROTOCOLS,
          session: hostedSession(kind),
          mine: async (session) => (await setUp(node, kind, seed, fresh, deployer, users, session))!,
        });
        log.info({ chain: kind, protocols: hosts.map((p) => p.name) }, 'sandbox: L2 chain hosts protocols');
      }
    } catch (err) {
      await anvil.stop();
      throw err;
    }
  }
  const node = anvil;
  const genesis = nodeGenesis;
  let st: L2State = state;
  // The hosted protocols' scenario, stepped in every block of the chain (one writer: `exclusive` below).
  let simulation: Simulation | undefined;
  if (hosted) {
    try {
      const { openSimulation } = await import('../world/scenario.js');
      simulation = await openSimulation(node.rpcUrl, hosted.manifest, hosted.state, {
        protocols: options.protocols ?? PROTOCOLS,
        session: hostedSession(kind),
      });
    } catch (err) {
      await node.stop();
      throw err;
    }
  }
  const hostedManifest = hosted?.manifest;
  await node.request('anvil_setCoinbase', [kind === 'optimism' ? SEQUENCER_FEE_VAULT : ARBITRUM_SEQUENCER]);

  const shaper =
    kind === 'optimism'
      ? opShaper((h) => st.extras[h] as OpReceiptFields | undefined)
      : nitroShaper(
          seed,
          (h) => BigInt((st.extras[h] as string | undefined) ?? '0x0'),
          (h) => st.internal[h],
          (n) => st.nitro?.messages[n] ?? [],
        );
  const proxy: RpcProxy = await startRpcProxy(node.rpcUrl, shaper);

  // ---- one writer -----------------------------------------------------------------------------------------------
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };
  const abort = new AbortController();
  let consistent = true;
  let failed = false;
  const saveEveryMs = options.saveEveryMs ?? 60_000;
  let lastSaveAt = Date.now();

  const save = async (why: string) => {
    if (!consistent) return;
    const head = await node.request<Block>('eth_getBlockByNumber', ['latest', false]);
    if (lastSaved === head.hash) return;
    const dump = await node.dumpState();
    const chainFile = `chain-${Number(head.number)}-${head.hash.slice(2, 10)}.json.gz`;
    await writeAtomic(path.join(dir, chainFile), dump);
    const doc: SavedL2 = {
      format: L2_FORMAT,
      chain: kind,
      seed,
      chain_id: chainId,
      genesis_timestamp: options.genesisTimestamp,
      node_genesis: genesis,
      saved_at: new Date(clock.nowMs()).toISOString(),
      head: { number: Number(head.number), hash: head.hash },
      chain_file: chainFile,
      chain_sha256: sha256(dump),
      state: st,
      ...(simulation && hostedManifest ? { hosted: { manifest: hostedManifest, state: simulationState() } } : {}),
    };
    await writeAtomic(path.join(dir, L2_FILE), toJson(doc));
    await removeLeftovers(dir, chainFile, false);
    lastSaved = head.hash;
    lastSaveAt = Date.now();
    log.debug({ chain: kind, why, block: Number(head.number), bytes: dump.length }, 'sandbox: L2 chain saved');
  };

  const simulationState = () => {
    simulation!.save();
    return simulation!.state;
  };
  /** One block: the chain's own transactions, then (when it hosts protocols) their step's, all in it. */
  const mineStep = async (timestamp: number, stepSeconds: number) => {
    if (!simulation) {
      st = (await mineBlock(node, kind, seed, st, deployer, users, timestamp, stepSeconds)).state;
      return;
    }
    let next: L2State | undefined;
    await simulation.step(timestamp, async (session, at) => {
      const mined = await mineBlock(node, kind, seed, st, deployer, users, at, stepSeconds, undefined, session);
      next = mined.state;
      return mined.hosted!;
    });
    st = next!;
  };
  const stepTo = async (until: number, stepSeconds: number) => {
    while (!abort.signal.aborted && st.lastTimestamp + stepSeconds <= until) {
      consistent = false;
      await mineStep(st.lastTimestamp + stepSeconds, stepSeconds);
      consistent = true;
    }
  };
  const advance = async () => {
    const target = nowSeconds();
    const hours = Math.floor((target - st.lastTimestamp) / HOUR);
    if (hours > 0) await stepTo(st.lastTimestamp + hours * HOUR, HOUR);
    for (const step of blockSeconds < MINUTE ? [MINUTE, blockSeconds] : [blockSeconds]) {
      const steps = Math.floor((target - st.lastTimestamp) / step);
      if (steps > 0) await stepTo(st.lastTimestamp + steps * step, step);
    }
  };

  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    exclusive(async () => {
      await advance();
      if (Date.now() - lastSaveAt >= saveEveryMs) await save('periodic');
    })
      .catch((err: unknown) => {
        if (abort.signal.aborted) return;
        failed = true;
        log.error({ chain: kind, err }, 'sandbox: L2 live step failed; the chain stays where it is until a restart');
      })
      .finally(() => {
        if (abort.signal.aborted || failed) return;
        timer = setTimeout(tick, blockSeconds * 1000);
        timer.unref();
      });
  };
  const started = Date.now();
  const caughtUp = exclusive(async () => {
    await advance();
    if (abort.signal.aborted) return;
    await save('caught up');
    log.info({ chain: kind, blocks: st.stats.blocks, ms: Date.now() - started }, 'sandbox: L2 chain caught up');
    if (options.live ?? true) {
      timer = setTimeout(tick, blockSeconds * 1000);
      timer.unref();
    }
  });
  caughtUp.catch((err: unknown) => {
    if (abort.signal.aborted) return;
    failed = true;
    log.error({ chain: kind, err }, 'sandbox: L2 catch-up failed');
  });

  let stopping: Promise<void> | undefined;
  return {
    kind,
    chainId,
    rpcUrl: proxy.url,
    anvilUrl: node.rpcUrl,
    caughtUp,
    manifest: hostedManifest,
    sync: () =>
      exclusive(async () => {
        if (abort.signal.aborted) throw new Error(`the sandbox's ${kind} chain is stopped`);
        await advance();
      }),
    status: () => ({
      chain: kind,
      chain_id: chainId,
      rpc_url: proxy.url,
      anvil_pid: node.pid,
      simulated_until: st.lastTimestamp,
      stats: { ...st.stats },
    }),
    stop: () => {
      stopping ??= (async () => {
        abort.abort();
        if (timer) clearTimeout(timer);
        await queue;
        try {
          if (!failed) await exclusive(() => save('stop'));
        } catch (err) {
          log.error({ chain: kind, err }, 'sandbox: saving the L2 chain on stop failed');
        }
        await proxy.close();
        await node.stop();
      })();
      return stopping;
    },
  };
}

function readSavedL2(dir: string, kind: L2Kind, seed: number, genesisTimestamp: number) {
  return readSavedChain<SavedL2>(dir, L2_FILE, L2_FORMAT, (saved) => {
    if (saved.chain !== kind || saved.seed !== seed)
      throw new Error(`${L2_FILE} holds ${saved.chain} of seed ${saved.seed}`);
    // The Ethereum world was made anew (another genesis): so is the L2 chain, which shares its history's span.
    if (saved.genesis_timestamp !== genesisTimestamp) {
      throw new Error(`${L2_FILE} starts at ${saved.genesis_timestamp}, the world at ${genesisTimestamp}`);
    }
  });
}

/**
 * Predeploys (OP), balances, and the first block: the token deployed and minted to every user, and the hosted
 * protocols' deployment after it (`hosted`: their session, whose outcome is returned).
 */
async function setUp(
  anvil: Anvil,
  kind: L2Kind,
  seed: number,
  state: L2State,
  deployer: L2User,
  users: L2User[],
  hosted?: ChainSession,
): Promise<BlockOutcome | undefined> {
  const calls: [string, unknown[]][] = [];
  if (kind === 'optimism') {
    for (const p of opPredeploys()) calls.push(['anvil_setCode', [p.address, p.code]]);
    calls.push(['anvil_setStorageAt', [GAS_PRICE_ORACLE, `0x${'0'.repeat(64)}`, GAS_PRICE_ORACLE_SLOT0]]);
    calls.push(['anvil_setBalance', [DEPOSITOR, hex(10n ** 18n)]]);
  }
  const funds = hex(1000n * 10n ** 18n);
  for (const a of [deployer, ...users]) calls.push(['anvil_setBalance', [a.address, funds]]);
  await batch(anvil.rpcUrl, calls);
  state.nonces = users.map(() => 0);
  state.tokenBalances = users.map(() => USER_TOKENS);
  const { mintableErc20 } = tokenArtifacts();
  const setup: Hex[] = [
    encodeDeployData({ abi: mintableErc20.abi, bytecode: mintableErc20.bytecode, args: ['USD Coin', 'USDC', 6] }),
    ...users.map((u) => encodeFunctionData({ abi: erc20, functionName: 'mint', args: [u.address, USER_TOKENS] })),
  ];
  const next = await mineBlock(anvil, kind, seed, state, deployer, users, state.lastTimestamp, 0, setup, hosted);
  Object.assign(state, next.state);
  return next.hosted;
}

/**
 * Mines one block at `timestamp`: the system transaction first (OP: the L1-attributes deposit; Arbitrum: recorded
 * for the proxy, which shows it), OP user deposits, the planned user transactions (or the setup's deployer
 * transactions), then the hosted protocols' transactions (`hosted`: their session's queue, whose outcome is
 * returned); then checks every receipt and records what the proxy adds, for the hosted transactions as for the
 * chain's own.
 */
async function mineBlock(
  anvil: Anvil,
  kind: L2Kind,
  seed: number,
  prev: L2State,
  deployer: L2User,
  users: L2User[],
  timestamp: number,
  stepSeconds: number,
  setup?: Hex[],
  hosted?: ChainSession,
): Promise<{ state: L2State; hosted?: BlockOutcome }> {
  const state: L2State = {
    ...prev,
    nonces: [...prev.nonces],
    tokenBalances: [...prev.tokenBalances],
    stats: { ...prev.stats },
  };
  const rng = new Rng(prev.rng);
  const url = anvil.rpcUrl;
  const chainId = kind === 'optimism' ? OP_CHAIN_ID : ARBITRUM_CHAIN_ID;
  const origin = l1OriginAt(seed, timestamp);
  const baseFee = kind === 'optimism' ? opBaseFee(seed, timestamp) : ARBITRUM_BASE_FEE;
  const pre: [string, unknown[]][] = [['anvil_setNextBlockBaseFeePerGas', [hex(baseFee)]]];
  const expected: { ok: boolean; kind: string }[] = [];

  if (kind === 'optimism') {
    if (Number(origin.number) !== state.l1Number) {
      state.l1Number = Number(origin.number);
      state.sequenceNumber = 0;
    } else state.sequenceNumber++;
    const seq = BigInt(state.sequenceNumber);
    pre.push([
      'eth_sendTransaction',
      [
        {
          from: DEPOSITOR,
          to: L1_BLOCK,
          type: '0x7e',
          sourceHash: l1InfoSourceHash(origin.hash, seq),
          mint: '0x0',
          isSystemTx: false,
          gas: hex(L1_INFO_GAS),
          value: '0x0',
          data: l1InfoCalldata(origin, seq),
        },
      ],
    ]);
    expected.push({ ok: true, kind: 'l1-info' });
    if (setup) {
      // The token comes from L1, as a deposit that creates it: a deposit pays no L1 data fee (see TINY_CONTRACT).
      pre.push([
        'eth_sendTransaction',
        [
          {
            from: applyL1ToL2Alias(deployer.address),
            type: '0x7e',
            sourceHash: userDepositSourceHash(origin.hash, BigInt(state.depositIndex++)),
            mint: '0x0',
            isSystemTx: false,
            gas: hex(5_000_000),
            value: '0x0',
            data: setup[0]!,
          },
        ],
      ]);
      expected.push({ ok: true, kind: 'setup-deposit' });
    }
    const deposits = setup ? 0 : planDeposits(rng, seed, kind, timestamp, stepSeconds);
    for (let i = 0; i < deposits; i++) {
      // Each from its own L1 contract (aliased on L2): never two deposits from one sender in a block.
      const index = BigInt(state.depositIndex++);
      const l1Sender = `0x${(0xb0000000n + index).toString(16).padStart(40, '0')}` as Address;
      const to = users[rng.int(users.length)]!;
      const value = BigInt(Math.round(rng.logNormal(0.2, 1) * 1e9)) * 1_000_000_000n;
      pre.push([
        'eth_sendTransaction',
        [
          {
            from: applyL1ToL2Alias(l1Sender),
            to: to.address,
            type: '0x7e',
            sourceHash: userDepositSourceHash(origin.hash, index),
            mint: hex(value),
            isSystemTx: false,
            gas: hex(100_000),
            value: hex(value),
            data: '0x',
          },
        ],
      ]);
      expected.push({ ok: true, kind: 'deposit' });
      state.stats.deposits++;
    }
  }

  const maxFee = maxFeeOf(kind);
  const l1GasAllowance: GasTopUp = (unsigned) =>
    (gasUsedForL1(`${unsigned}${'ff'.repeat(67)}` as Hex, origin.baseFee, baseFee) * 3n) / 2n + 5000n;
  const sign = async (
    who: L2User,
    nonce: number,
    to: Address | undefined,
    data: Hex,
    value: bigint,
    gas: bigint,
  ): Promise<{ signed: Hex; unsigned: Hex }> => {
    const tip = kind === 'optimism' ? BigInt(1000 + rng.int(1_000_000)) : 0n;
    const base: TransactionSerializableEIP1559 = {
      chainId,
      type: 'eip1559',
      nonce,
      ...(to ? { to } : {}),
      value,
      data,
      gas,
      maxFeePerGas: maxFee,
      maxPriorityFeePerGas: tip,
    };
    // Nitro charges the L1 part as gas: a wallet's limit covers it (estimated from the unsigned bytes, padded).
    if (kind === 'arbitrum') base.gas = gas + l1GasAllowance(serializeTransaction(base));
    const signed = await accountOf(who.key).signTransaction(base);
    return { signed, unsigned: serializeTransaction(base) };
  };

  const txs: { signed: Hex; unsigned: Hex; ok: boolean; kind: string }[] = [];
  if (setup) {
    for (const data of kind === 'optimism' ? setup.slice(1) : setup) {
      const nonce = state.deployerNonce++;
      const to = nonce === 0 && kind !== 'optimism' ? undefined : state.token;
      txs.push({
        ...(await sign(deployer, nonce, to, data, 0n, to ? 100_000n : 3_000_000n)),
        ok: true,
        kind: 'setup',
      });
    }
  } else {
    const plan: PlannedTx[] = planBlock(rng, seed, kind, users, state.tokenBalances, timestamp, stepSeconds);
    for (const p of plan) {
      const from = users[p.from]!;
      const nonce = state.nonces[p.from]!;
      state.nonces[p.from] = nonce + 1;
      const to = users[p.to]!.address;
      let t: { signed: Hex; unsigned: Hex };
      if (p.kind === 'eth') t = await sign(from, nonce, to, '0x', p.amount, 21_000n);
      else if (p.kind === 'deploy') {
        t = await sign(from, nonce, undefined, TINY_CONTRACT, 0n, 100_000n);
        state.stats.deployments++;
      } else {
        const data = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, p.amount] });
        t = await sign(from, nonce, state.token, data, 0n, 80_000n);
        if (p.kind === 'erc20') {
          state.tokenBalances[p.from] = state.tokenBalances[p.from]! - p.amount;
          state.tokenBalances[p.to] = state.tokenBalances[p.to]! + p.amount;
        } else state.stats.failed++;
      }
      txs.push({ ...t, ok: p.kind !== 'fail', kind: p.kind });
      state.stats.userTxs++;
    }
  }
  // The base fee and the system deposit first (so that fifo puts it first), then the user deposits and the user
  // transactions in batches (anvil may take a batch's elements in any order: receipts are matched by hash).
  const [first, ...others] = pre.slice(1);
  const opening = await batch(url, first ? [pre[0]!, first] : [pre[0]!]);
  const sending = [...others, ...txs.map((t) => ['eth_sendRawTransaction', [t.signed]] as [string, unknown[]])];
  const answers: unknown[] = [];
  for (let i = 0; i < sending.length; i += 500) answers.push(...(await batch(url, sending.slice(i, i + 500))));
  // The hosted protocols' transactions after the chain's own (the node orders by arrival).
  const hostedSent = hosted ? await hosted.sendQueued(kind === 'arbitrum' ? l1GasAllowance : undefined) : undefined;
  const depositHashes = [...(first ? [opening[1]] : []), ...answers.slice(0, others.length)] as string[];
  const sent = new Map<string, { ok?: boolean; kind: string; signed?: Hex; unsigned?: Hex }>();
  for (const [i, h] of depositHashes.entries()) sent.set(h.toLowerCase(), expected[i]!);
  for (const t of txs) sent.set(keccak256(t.signed).toLowerCase(), t);
  // Their outcome is the session's to judge (`settle`: reverts the market tolerates, the others).
  const hostedTxs = (hostedSent?.signed ?? []).map((signed) => ({ signed, unsigned: unsignedOf(signed) }));
  for (const t of hostedTxs) sent.set(keccak256(t.signed).toLowerCase(), { kind: 'hosted', ...t });
  // Arbitrum's L1 messages (not in the setup block): the ETH they bring is credited before the block is mined.
  const counters = state.nitro?.counters ?? { delayed: 0, batches: 0 };
  const nitro =
    kind === 'arbitrum' && !setup ? planNitroMessages(seed, timestamp, stepSeconds, origin, counters) : null;
  if (nitro)
    await batch(
      url,
      nitroBalanceCredits(nitro.messages).map(([a, v]) => ['anvil_setBalance', [a, v]]),
    );
  await anvil.request('evm_mine', [timestamp]);
  // op-geth's fields come from the predeploys at this block (the head: its state is the block's). GasPriceOracle
  // takes the unsigned transaction (it adds 68 bytes for the signature): with that, Σ l1Fee is exactly what the
  // node credits to the L1 fee vault (see TINY_CONTRACT).
  const call = (fn: 'getL1Fee' | 'getL1GasUsed', unsigned: Hex): [string, unknown[]] => [
    'eth_call',
    [
      {
        from: DEPOSITOR,
        to: GAS_PRICE_ORACLE,
        data: encodeFunctionData({ abi: gasPriceOracleAbi, functionName: fn, args: [unsigned] }),
      },
      'latest',
    ],
  ];
  const [blockAnswer, receiptsAnswer, ...fees] = await batch(url, [
    ['eth_getBlockByNumber', ['latest', false]],
    ['eth_getBlockReceipts', ['latest']],
    ...(kind === 'optimism'
      ? [...txs, ...hostedTxs].flatMap((t) => [call('getL1Fee', t.unsigned), call('getL1GasUsed', t.unsigned)])
      : []),
  ]);
  const block = blockAnswer as Block;
  const receipts = receiptsAnswer as Receipt[];
  if (Number(block.timestamp) !== timestamp) throw new Error(`${kind}: mined at ${block.timestamp}, not ${timestamp}`);
  if (receipts.length !== sent.size || receipts.some((r) => !sent.has(r.transactionHash.toLowerCase()))) {
    throw new Error(`${kind}: block ${Number(block.number)} holds ${receipts.length} transactions, ${sent.size} sent`);
  }
  if (kind === 'optimism' && receipts[0]?.transactionHash.toLowerCase() !== depositHashes[0]?.toLowerCase()) {
    throw new Error(`${kind}: block ${Number(block.number)} does not start with its L1-attributes deposit`);
  }
  for (const r of receipts) {
    const planned = sent.get(r.transactionHash.toLowerCase())!;
    if (planned.ok !== undefined && (r.status === '0x1') !== planned.ok) state.stats.unexpected++;
  }
  if (kind === 'optimism') {
    for (const [i, t] of [...txs, ...hostedTxs].entries()) {
      state.extras[keccak256(t.signed).toLowerCase()] = {
        l1Fee: hex(BigInt(fees[2 * i] as Hex)),
        l1GasUsed: hex(BigInt(fees[2 * i + 1] as Hex)),
        l1GasPrice: hex(origin.baseFee),
        l1BaseFeeScalar: hex(BASE_FEE_SCALAR),
        l1BlobBaseFee: hex(origin.blobBaseFee),
        l1BlobBaseFeeScalar: hex(BLOB_BASE_FEE_SCALAR),
      };
    }
  }
  const user = receipts.filter((r) => sent.get(r.transactionHash.toLowerCase())!.signed);
  if (kind === 'arbitrum') {
    for (const r of user) {
      const signed = sent.get(r.transactionHash.toLowerCase())!.signed!;
      state.extras[r.transactionHash.toLowerCase()] = hex(gasUsedForL1(signed, origin.baseFee, baseFee));
    }
    const { hash } = internalTx(seed, {
      number: BigInt(block.number),
      hash: block.hash as Hex,
      timestamp,
      baseFee: BigInt(block.baseFeePerGas ?? '0x0'),
      // The setup block follows anvil's block 0, one second before it.
      previousTimestamp: setup ? timestamp - 1 : prev.lastTimestamp,
    });
    state.internal[hash] = Number(block.number);
    if (nitro) recordNitroMessages(state, Number(block.number), nitro, baseFee, ARBOS_ADDRESS, chainId);
  }
  state.rng = rng.state();
  state.lastTimestamp = timestamp;
  state.stats.blocks++;
  if (!hosted || !hostedSent) return { state };
  if (hostedTxs.length) state.stats.hosted = (state.stats.hosted ?? 0) + hostedTxs.length;
  const ours = new Set(hostedSent.hashes.map((h) => h.toLowerCase()));
  const hostedReceipts = (receipts as unknown as RpcReceipt[]).filter((r) => ours.has(r.transactionHash.toLowerCase()));
  return { state, hosted: hosted.settle(hostedSent, hostedReceipts, timestamp) };
}
