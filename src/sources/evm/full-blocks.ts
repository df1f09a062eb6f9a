import { ServiceError } from '../../core/errors.js';
import { type RpcClient, RpcError } from './rpc.js';
import { type Hex, toHexQuantity } from './types.js';

/**
 * Whole blocks for chain statistics: blocks with their transaction hashes (`eth_getBlockByNumber(n, false)`), their
 * receipts (`eth_getBlockReceipts`, or one `eth_getTransactionReceipt` per transaction where the node lacks it),
 * `eth_feeHistory`, the `finalized` / `safe` tags and `txpool_status`. Quantities stay exact (bigint) or are
 * numbers where they are far below 2^53 (block numbers, counts, gas per block); addresses and hashes lowercase.
 *
 * Mainnet cost: Ethereum makes ≈7,200 blocks a day of ≈150–200 transactions; a day read in full is ≈7,200 block
 * calls plus ≈7,200 `eth_getBlockReceipts` (≈1.2 M receipts), sent in batches under the source's concurrency limit.
 *
 * A receipt carries everything the statistics need of its transaction (sender, target, type: the execution API's
 * `ReceiptInfo` requires them), so blocks are read with hashes only: on anvil a block with its transaction objects
 * took longer to answer than its receipts (≈1.3 s against ≈0.9 s for 20 busy blocks, docs/benchmarks.md), for fields
 * the receipts repeat.
 */

export interface FullBlock {
  readonly number: number;
  readonly hash: Hex;
  readonly parentHash: Hex;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  /** Null before London. */
  readonly baseFeePerGas: bigint | null;
  /** Null before Cancun. */
  readonly blobGasUsed: bigint | null;
  readonly excessBlobGas: bigint | null;
  /** The block's transactions in order (a node's full transaction objects are accepted too: their hashes are kept). */
  readonly transactionHashes: readonly Hex[];
  /** Arbitrum: the L1 block the sequencer assigned (`l1BlockNumber`); null elsewhere. */
  readonly l1BlockNumber: number | null;
}

export interface FullReceipt {
  readonly transactionHash: Hex;
  readonly transactionIndex: number;
  /** The transaction's sender. */
  readonly from: Hex;
  /** Its target; null for a contract creation. */
  readonly to: Hex | null;
  /** EIP-2718 type byte (0 legacy, 1 access list, 2 EIP-1559, 3 blob, 4 set code, 0x7e OP deposit, 0x64–0x6a Arbitrum). */
  readonly type: number;
  /** 1 success, 0 failure; null before Byzantium (a state root instead). */
  readonly status: 0 | 1 | null;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly contractAddress: Hex | null;
  readonly blobGasUsed: bigint | null;
  readonly blobGasPrice: bigint | null;
  /** OP Stack: the L1 data fee the transaction paid (`l1Fee`); null where absent. */
  readonly l1Fee: bigint | null;
  /** Arbitrum Nitro: the part of `gasUsed` that paid for L1 data (`gasUsedForL1`); null where absent. */
  readonly gasUsedForL1: bigint | null;
}

export interface FeeHistory {
  readonly oldestBlock: number;
  /** One more entry than blocks: the next block's. */
  readonly baseFeePerGas: readonly bigint[];
  /** Empty where the node does not know blobs. */
  readonly baseFeePerBlobGas: readonly bigint[];
  readonly gasUsedRatio: readonly number[];
}

export interface TaggedBlock {
  readonly number: number;
  readonly hash: Hex;
  readonly timestamp: number;
  readonly gasLimit: bigint;
}

export interface TxpoolStatus {
  readonly pending: number;
  readonly queued: number;
}

/** What a node without an optional method answers instead: the caller records it as a gap, never as zero. */
export interface NotAvailable {
  readonly notAvailable: string;
}

export const isNotAvailable = (x: unknown): x is NotAvailable =>
  typeof x === 'object' && x !== null && 'notAvailable' in x;

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x[0-9a-fA-F]+$/;
/** EIP-2718 type of OP Stack deposit transactions. */
const OP_DEPOSIT_TYPE = 0x7e;

function malformed(what: string, detail: string): ServiceError {
  // A malformed answer may come from a lagging or broken node behind a balancer: retryable.
  return new ServiceError(`malformed ${what}: ${detail}`, true);
}

function qty(value: unknown, what: string, field: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== 'string' || !QUANTITY.test(value)) throw malformed(what, `${field} ${JSON.stringify(value)}`);
  return BigInt(value);
}

function optQty(value: unknown, what: string, field: string): bigint | null {
  return value === undefined || value === null ? null : qty(value, what, field);
}

function num(value: unknown, what: string, field: string): number {
  const n = qty(value, what, field);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed(what, `${field} too large`);
  return Number(n);
}

function hash(value: unknown, what: string, field: string): Hex {
  if (typeof value !== 'string' || !HASH.test(value)) throw malformed(what, `${field} ${JSON.stringify(value)}`);
  return value.toLowerCase() as Hex;
}

function address(value: unknown, what: string, field: string): Hex {
  if (typeof value !== 'string' || !ADDRESS.test(value)) throw malformed(what, `${field} ${JSON.stringify(value)}`);
  return value.toLowerCase() as Hex;
}

function optAddress(value: unknown, what: string, field: string): Hex | null {
  return value === undefined || value === null ? null : address(value, what, field);
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(what, 'not an object');
  return value as Record<string, unknown>;
}

export function parseFullBlock(raw: unknown, expected: number): FullBlock {
  const what = `block ${expected}`;
  const b = record(raw, what);
  const number = num(b.number, what, 'number');
  if (number !== expected) throw malformed(what, `the node answered block ${number}`);
  if (!Array.isArray(b.transactions)) throw malformed(what, 'transactions is not a list');
  const transactionHashes = b.transactions.map((t, i) =>
    hash(typeof t === 'string' ? t : record(t, `${what} transaction ${i}`).hash, what, `transaction ${i}`),
  );
  return {
    number,
    hash: hash(b.hash, what, 'hash'),
    parentHash: hash(b.parentHash, what, 'parentHash'),
    timestamp: num(b.timestamp, what, 'timestamp'),
    gasUsed: qty(b.gasUsed, what, 'gasUsed'),
    gasLimit: qty(b.gasLimit, what, 'gasLimit'),
    baseFeePerGas: optQty(b.baseFeePerGas, what, 'baseFeePerGas'),
    blobGasUsed: optQty(b.blobGasUsed, what, 'blobGasUsed'),
    excessBlobGas: optQty(b.excessBlobGas, what, 'excessBlobGas'),
    transactionHashes,
    l1BlockNumber:
      b.l1BlockNumber === undefined || b.l1BlockNumber === null ? null : num(b.l1BlockNumber, what, 'l1BlockNumber'),
  };
}

export function parseReceipt(raw: unknown, what: string): FullReceipt {
  const r = record(raw, what);
  const status = r.status === undefined || r.status === null ? null : num(r.status, what, 'status');
  if (status !== null && status !== 0 && status !== 1) throw malformed(what, `status ${status}`);
  // Pre-EIP-2718 nodes omit `type` for legacy transactions. A quantity's hex digits may be of either case (OP
  // deposits come as `0x7E` from some nodes): types are compared as numbers, never as strings.
  const type = r.type === undefined || r.type === null ? 0 : num(r.type, what, 'type');
  return {
    transactionHash: hash(r.transactionHash, what, 'transactionHash'),
    transactionIndex: num(r.transactionIndex, what, 'transactionIndex'),
    from: address(r.from, what, 'from'),
    to: optAddress(r.to, what, 'to'),
    type,
    status: status as 0 | 1 | null,
    gasUsed: qty(r.gasUsed, what, 'gasUsed'),
    // Pre-London nodes answer without it (the transaction's `gasPrice` is the price paid, some nodes copy it here);
    // OP deposits before Regolith carry none and pay no L2 gas.
    effectiveGasPrice:
      r.effectiveGasPrice === undefined && r.gasPrice === undefined && type === OP_DEPOSIT_TYPE
        ? 0n
        : qty(r.effectiveGasPrice ?? r.gasPrice, what, 'effectiveGasPrice'),
    contractAddress: optAddress(r.contractAddress, what, 'contractAddress'),
    blobGasUsed: optQty(r.blobGasUsed, what, 'blobGasUsed'),
    blobGasPrice: optQty(r.blobGasPrice, what, 'blobGasPrice'),
    l1Fee: optQty(r.l1Fee, what, 'l1Fee'),
    gasUsedForL1: optQty(r.gasUsedForL1, what, 'gasUsedForL1'),
  };
}

/** JSON-RPC "method not found" (-32601) and the phrasings of providers that disable a method. */
export function isMethodMissing(err: unknown): boolean {
  if (!(err instanceof RpcError)) return false;
  if (err.code === -32601) return true;
  return /method .*(not found|not supported|does not exist|not available|is not available|unsupported)|not (supported|implemented)|unknown method|disabled/i.test(
    err.rpcMessage,
  );
}

export class FullBlockReader {
  /** Set once the node refuses `eth_getBlockReceipts`: receipts are then read one transaction at a time. */
  private noBlockReceipts = false;

  constructor(
    private readonly rpc: RpcClient,
    private readonly chain: string,
  ) {}

  get blockReceiptsSupported(): boolean {
    return !this.noBlockReceipts;
  }

  /** Blocks with their transaction hashes; a block the node does not have (past its head) is absent from the map. */
  async getBlocks(numbers: readonly number[]): Promise<Map<number, FullBlock>> {
    const outcomes = await this.rpc.batch(
      numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toHexQuantity(n), false] })),
    );
    const out = new Map<number, FullBlock>();
    outcomes.forEach((o, k) => {
      if (!o.ok) throw o.error;
      if (o.result === null) return;
      out.set(numbers[k]!, parseFullBlock(o.result, numbers[k]!));
    });
    return out;
  }

  /**
   * Every receipt of each block, in transaction order, checked against the block's transactions (count and hashes):
   * a node that answered for another fork or lost receipts fails the call (retryable) instead of corrupting counts.
   */
  async getReceipts(blocks: readonly FullBlock[]): Promise<Map<number, FullReceipt[]>> {
    const out = new Map<number, FullReceipt[]>();
    if (!this.noBlockReceipts) {
      try {
        const outcomes = await this.rpc.batch(
          blocks.map((b) => ({ method: 'eth_getBlockReceipts', params: [toHexQuantity(b.number)] })),
        );
        const missing = outcomes.find((o) => !o.ok && isMethodMissing(o.error));
        if (missing) throw (missing as { error: RpcError }).error;
        outcomes.forEach((o, k) => {
          const b = blocks[k]!;
          if (!o.ok) throw o.error;
          if (!Array.isArray(o.result)) throw malformed(`receipts of block ${b.number}`, 'not a list');
          out.set(
            b.number,
            checked(
              b,
              o.result.map((r, i) => parseReceipt(r, `receipt ${i} of block ${b.number}`)),
            ),
          );
        });
        return out;
      } catch (err) {
        if (!isMethodMissing(err)) throw err;
        this.noBlockReceipts = true;
        out.clear();
      }
    }
    const hashes = blocks.flatMap((b) => b.transactionHashes);
    const outcomes = await this.rpc.batch(hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
    const byHash = new Map<string, FullReceipt>();
    outcomes.forEach((o, k) => {
      if (!o.ok) throw o.error;
      if (o.result === null) throw new ServiceError(`${this.chain}: receipt of ${hashes[k]} not found`, true);
      byHash.set(hashes[k]!, parseReceipt(o.result, `receipt of ${hashes[k]}`));
    });
    for (const b of blocks) {
      out.set(
        b.number,
        checked(
          b,
          b.transactionHashes.map((h) => byHash.get(h)!),
        ),
      );
    }
    return out;
  }

  async feeHistory(blockCount: number, newest: number | 'latest'): Promise<FeeHistory> {
    const raw = await this.rpc.call('eth_feeHistory', [
      toHexQuantity(blockCount),
      newest === 'latest' ? 'latest' : toHexQuantity(newest),
      [],
    ]);
    const what = 'eth_feeHistory';
    const r = record(raw, what);
    const list = (v: unknown, field: string) => {
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v)) throw malformed(what, `${field} is not a list`);
      return v;
    };
    return {
      oldestBlock: num(r.oldestBlock, what, 'oldestBlock'),
      baseFeePerGas: list(r.baseFeePerGas, 'baseFeePerGas').map((x) => qty(x, what, 'baseFeePerGas')),
      baseFeePerBlobGas: list(r.baseFeePerBlobGas, 'baseFeePerBlobGas').map((x) => qty(x, what, 'baseFeePerBlobGas')),
      gasUsedRatio: list(r.gasUsedRatio, 'gasUsedRatio').map((x) => {
        if (typeof x !== 'number' || !Number.isFinite(x)) throw malformed(what, 'gasUsedRatio');
        return x;
      }),
    };
  }

  /**
   * The header of the block a tag names (`finalized`, `safe`, `latest`): number, hash and time; `NotAvailable` when
   * the node does not know the tag (pre-merge nodes, some L2 nodes) or has no such block yet.
   */
  async taggedBlock(tag: 'finalized' | 'safe' | 'latest'): Promise<TaggedBlock | NotAvailable> {
    let raw: unknown;
    try {
      raw = await this.rpc.call('eth_getBlockByNumber', [tag, false]);
    } catch (err) {
      if (err instanceof RpcError && !err.retryable && err.httpStatus === undefined) {
        return { notAvailable: `${this.chain}: the node does not serve the ${tag} tag (${err.rpcMessage})` };
      }
      throw err;
    }
    if (raw === null) return { notAvailable: `${this.chain}: no ${tag} block yet` };
    const what = `${tag} block`;
    const b = record(raw, what);
    return {
      number: num(b.number, what, 'number'),
      hash: hash(b.hash, what, 'hash'),
      timestamp: num(b.timestamp, what, 'timestamp'),
      gasLimit: qty(b.gasLimit, what, 'gasLimit'),
    };
  }

  /** Pending and queued transactions of the node's pool; `NotAvailable` where the node does not expose `txpool`. */
  async txpoolStatus(): Promise<TxpoolStatus | NotAvailable> {
    let raw: unknown;
    try {
      raw = await this.rpc.call('txpool_status');
    } catch (err) {
      if (isMethodMissing(err) || (err instanceof RpcError && err.httpStatus === undefined && !err.retryable)) {
        return { notAvailable: `${this.chain}: txpool_status not available (${(err as RpcError).rpcMessage})` };
      }
      throw err;
    }
    const r = record(raw, 'txpool_status');
    return { pending: num(r.pending, 'txpool_status', 'pending'), queued: num(r.queued, 'txpool_status', 'queued') };
  }
}

function checked(block: FullBlock, receipts: readonly FullReceipt[]): FullReceipt[] {
  if (receipts.length !== block.transactionHashes.length) {
    throw new ServiceError(
      `receipts of block ${block.number}: ${receipts.length} receipts for ${block.transactionHashes.length} transactions`,
      true,
    );
  }
  const sorted = [...receipts].sort((a, b) => a.transactionIndex - b.transactionIndex);
  sorted.forEach((r, i) => {
    if (r.transactionHash !== block.transactionHashes[i]) {
      throw new ServiceError(
        `receipts of block ${block.number}: receipt ${i} is not the block's transaction ${i}`,
        true,
      );
    }
  });
  return sorted;
}
