/**
 * How transactions reach the chain: `ChainSession` signs locally, sends in JSON-RPC batches, mines one block per
 * step and checks the receipts. Deployment and scenario share it.
 */
import { type Address, type Hex, keccak256, serializeTransaction } from 'viem';
import type { Agent } from './agent.js';
import { blobPool, withBlobSidecar } from './blobs.js';
import {
  DEPOSIT_TOPIC,
  type RpcLog,
  type RpcReceipt,
  TRANSFER_TOPIC,
  topicAddress,
  WITHDRAWAL_TOPIC,
} from './receipts.js';
import { type RpcCall, RpcClient, type RpcResponse } from './rpc.js';

/**
 * Block gas limit set on the node: an hour of activity at scale 10+ is a few thousand transactions in one block,
 * far beyond mainnet's 30 M. Far above usage, it also keeps the base fee decaying (blocks stay under the target).
 */
export const BLOCK_GAS_LIMIT = 10_000_000_000n;

/**
 * Every transaction bids `floor + (transactions left in the block)` wei as both max fee and tip: anvil orders its
 * pool by fee, so distinct, decreasing bids make the block's order exactly the order the scenario queued, whatever
 * order the HTTP batches arrive in. With a base-fee schedule (`SessionOptions.baseFee`, the Ethereum world's), the
 * floor is the block's base fee plus `SCHEDULED_TIP`, so every bid is above the base fee and the tip is the
 * remainder; without one, 0 on a node whose base fee is 0, else twice the base fee and at least 2 gwei (above
 * anvil's default 1 gwei).
 */
const MIN_FEE_FLOOR = 2_000_000_000n;

/** The priority fee over the scheduled base fee (0.01 gwei, a typical mainnet tip), before the ordering wei. */
export const SCHEDULED_TIP = 10_000_000n;

/** What a blob transaction bids per blob gas at most (10 gwei: far above the 1 wei the world's blob fee sits at). */
const MAX_FEE_PER_BLOB_GAS = 10_000_000_000n;

/** Transactions per JSON-RPC batch: big enough to amortise the HTTP hop, small enough to start anvil early. */
const SEND_CHUNK = 100;

/**
 * Gas limits of the transactions every protocol sends (generous: a limit costs nothing unused, and no estimation
 * round trip is needed). Each protocol has its own table for its own calls.
 */
export const GAS = {
  deploy: 8_000_000n,
  setup: 200_000n,
  approve: 80_000n,
  mint: 120_000n,
  wrap: 80_000n,
} as const;

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
  | 'liquidation'
  | 'blob';

/**
 * Kinds whose reverts are part of the market (slippage protection, a stale arbitrage, a liquidation of a position
 * the block's oracle rounds made healthy again); any other revert is a bug.
 */
const TOLERATED_REVERTS: ReadonlySet<TxKind> = new Set<TxKind>(['swap', 'arbitrage', 'liquidation']);

export interface TxRequest {
  readonly to: Address | null;
  readonly data: Hex;
  readonly value?: bigint;
  readonly gas: bigint;
  readonly kind: TxKind;
  /** A blob transaction (type 3) carrying these blobs of the pool (chain/blobs.ts), in this order. */
  readonly blobs?: readonly number[];
  /** Called after the block is mined, with whether the transaction succeeded. */
  readonly onMined?: (ok: boolean, receipt: RpcReceipt) => void;
}

export interface QueuedTx extends TxRequest {
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

/**
 * Builds one block at a time: `send` queues transactions (nonces tracked locally, gas given, no estimation),
 * `mine` signs them, sends them in JSON-RPC batches without waiting for receipts, mines one block at the given
 * timestamp (automine off), then reads the block's receipts once: every queued transaction must be in the block,
 * reverts are counted, token balances of watched agents are updated from the Transfer/Deposit logs.
 */
/**
 * How a session's node orders its pool and prices gas.
 * - `fees` (the Ethereum world's anvil): distinct decreasing bids (see `MIN_FEE_FLOOR`) make the block's order the
 *   queue's, whatever order the batches arrive in; the node's block gas limit is raised to `BLOCK_GAS_LIMIT`.
 * - `arrival` (a layer-2 chain's anvil, `--order fifo`, whose blocks open with the chain's system transaction and
 *   carry its generic traffic): transactions are sent one after another in the queue's order and bid `maxFeePerGas`
 *   with no tip; the chain keeps its own gas limit and base fee.
 */
export type SessionOptions =
  | {
      readonly order?: 'fees';
      /**
       * The base fee of the block at a timestamp, set on the node before the block is built
       * (`anvil_setNextBlockBaseFeePerGas`; the Ethereum world's, chain/fees.ts). Absent: the node's own.
       */
      readonly baseFee?: (timestamp: number) => bigint;
    }
  | { readonly order: 'arrival'; readonly maxFeePerGas: bigint };

/** A block's queued transactions once signed and sent (`sendQueued`), before the block is mined. */
export interface SentTransactions {
  readonly queue: readonly QueuedTx[];
  readonly hashes: readonly Hex[];
  /** The signed transactions, in the queue's order. */
  readonly signed: readonly Hex[];
}

/** A gas limit's top-up for what the chain charges on top of execution (Nitro's L1 part), from the unsigned bytes. */
export type GasTopUp = (unsigned: Hex) => bigint;

/**
 * Builds one block at a time: `send` queues transactions (nonces tracked locally, gas given, no estimation),
 * `mine` signs them, sends them in JSON-RPC batches without waiting for receipts, mines one block at the given
 * timestamp (automine off), then reads the block's receipts once: every queued transaction must be in the block,
 * reverts are counted, token balances of watched agents are updated from the Transfer/Deposit logs. A layer-2 chain
 * that hosts protocols mines the block itself, with its own transactions around the session's (`sendQueued`, then
 * `settle` with the block's receipts).
 */
export class ChainSession {
  readonly rpc: RpcClient;
  private queue: QueuedTx[] = [];
  private readonly agentsById = new Map<string, Agent>();
  private readonly tokens = new Set<string>();
  private weth = '';
  private feeFloor = MIN_FEE_FLOOR;
  private readonly options: SessionOptions;

  constructor(
    rpcUrl: string,
    readonly chainId: number,
    options: SessionOptions = {},
  ) {
    this.rpc = new RpcClient(rpcUrl);
    this.options = options;
  }

  /**
   * Manual mining, a block gas limit that fits an hour of trading (node settings, lost on restart: set again by
   * every call), and the fee floor for the node's base fee. On a node ordered by arrival (a layer-2 chain), only
   * manual mining: the chain sets its own gas limit and base fee.
   */
  async prepareNode(): Promise<void> {
    if (this.options.order === 'arrival') {
      await this.rpc.batchResults([{ method: 'evm_setAutomine', params: [false] }]);
      return;
    }
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
    const schedule = this.options.order !== 'arrival' ? this.options.baseFee : undefined;
    if (schedule) {
      const baseFee = schedule(timestamp);
      await this.rpc.request('anvil_setNextBlockBaseFeePerGas', [`0x${baseFee.toString(16)}`]);
      this.feeFloor = baseFee + SCHEDULED_TIP;
    }
    const sent = await this.sendQueued();
    await this.rpc.request('evm_mine', [timestamp]);
    const receipts =
      sent.queue.length > 0 ? await this.rpc.request<RpcReceipt[]>('eth_getBlockReceipts', ['latest']) : [];
    return this.settle(sent, receipts, timestamp);
  }

  /**
   * Signs the queued transactions and sends them to the node's pool (the queue is then empty); the caller mines the
   * block and hands its receipts to `settle`. `topUp` adds to each gas limit (a layer-2 chain's L1 part).
   */
  async sendQueued(topUp?: GasTopUp): Promise<SentTransactions> {
    const queue = this.queue;
    this.queue = [];
    const n = queue.length;
    const hashes: Hex[] = new Array(n);
    const signed: Hex[] = new Array(n);
    const arrival = this.options.order === 'arrival' ? this.options : undefined;
    const sends: Promise<RpcResponse[]>[] = [];
    let chunk: RpcCall[] = [];
    for (let i = 0; i < n; i++) {
      const tx = queue[i]!;
      const fee = this.feeFloor + BigInt(n - i);
      const request = {
        chainId: this.chainId,
        type: 'eip1559' as const,
        to: tx.to,
        data: tx.data,
        value: tx.value ?? 0n,
        nonce: tx.nonce,
        gas: tx.gas,
        maxFeePerGas: arrival ? arrival.maxFeePerGas : fee,
        maxPriorityFeePerGas: arrival ? 0n : fee,
      };
      if (topUp) request.gas += topUp(serializeTransaction(request));
      const blobs = tx.blobs;
      let raw: Hex;
      if (blobs && blobs.length > 0) {
        if (!tx.to) throw new Error('sandbox: a blob transaction cannot create a contract');
        const pool = blobPool();
        const payload = await tx.agent.signer().signTransaction({
          ...request,
          to: tx.to,
          type: 'eip4844',
          maxFeePerBlobGas: MAX_FEE_PER_BLOB_GAS,
          blobVersionedHashes: blobs.map((b) => pool[b]!.versionedHash),
        });
        // The hash is over the signed payload; the node is sent it with the blobs, commitments and proofs.
        hashes[i] = keccak256(payload);
        signed[i] = payload;
        raw = withBlobSidecar(payload, blobs);
      } else {
        raw = await tx.agent.signer().signTransaction(request);
        hashes[i] = keccak256(raw);
        signed[i] = raw;
      }
      if (arrival) {
        // One after another: the node's pool keeps the order they arrive in, which a batch does not promise.
        sends.push(Promise.resolve(await this.rpc.batch([{ method: 'eth_sendRawTransaction', params: [raw] }])));
        continue;
      }
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
    return { queue, hashes, signed };
  }

  /**
   * Checks the mined block against what was sent: `receipts` are the block's receipts of the sent transactions (all
   * of the block's on a chain where the session is alone), which must be every one of them in the queued order.
   * Counts reverts, applies the balance logs and calls each transaction's `onMined`.
   */
  settle(sent: SentTransactions, receipts: readonly RpcReceipt[], timestamp: number): BlockOutcome {
    const { queue, hashes } = sent;
    const n = queue.length;
    const byKind: Partial<Record<TxKind, number>> = {};
    let revertedTolerated = 0;
    let revertedUnexpected = 0;
    const unexpected: { kind: TxKind; hash: Hex; from: string }[] = [];
    if (n > 0) {
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
