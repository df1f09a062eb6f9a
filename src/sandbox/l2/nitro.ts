/**
 * What makes the sandbox's Arbitrum chain look like Nitro to a client (docs/sandbox.md, "Layer-2 chains"): the ArbOS
 * internal transaction at index 0 of every block, `l1BlockNumber` on blocks and receipts, `gasUsedForL1` on
 * receipts from a compression model, `gasUsed` including that L1 part as Nitro reports it. The chain underneath is a
 * plain anvil with chain id 42161: these shapes are added by the proxy (proxy.ts), from the functions here.
 */
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { type Address, encodeAbiParameters, type Hex, hexToBytes, keccak256, toHex, toRlp } from 'viem';
import { type L1Origin, l1OriginAt } from './l1.js';
import { type NitroMessage, nitroMessageTxs } from './nitro-messages.js';

export const ARBITRUM_CHAIN_ID = 42161;
/** ArbOS's address: sender and recipient of the internal transaction. */
export const ARBOS_ADDRESS: Address = '0x00000000000000000000000000000000000a4b05';
export const ARBITRUM_INTERNAL_TX_TYPE = 0x6a;
/** Nitro's minimum L2 base fee (0.01 gwei), where Arbitrum One's base fee sits when the chain is not congested. */
export const ARBITRUM_BASE_FEE = 10_000_000n;
/** brotli quality the model compresses with (ArbOS's `brotliCompressionLevel` parameter, here fixed). */
export const BROTLI_QUALITY = 1;
/** L1 gas per compressed byte (calldata's non-zero byte price, EIP-2028), as ArbOS counts "units". */
export const L1_GAS_PER_BYTE = 16n;

/** `startBlock(uint256 l1BaseFee, uint64 l1BlockNumber, uint64 l2BlockNumber, uint64 timePassed)` of ArbosActs. */
const START_BLOCK_SELECTOR = keccak256(toHex('startBlock(uint256,uint64,uint64,uint64)')).slice(0, 10);

/** The L1 values block `number` at `timestamp` (after `previousTimestamp`) refers to. */
export function arbitrumL1(seed: number, timestamp: number): L1Origin {
  return l1OriginAt(seed, timestamp);
}

/** The internal transaction's calldata: ArbOS `startBlock` with the L1 base fee and block and the time passed. */
export function startBlockCalldata(l1: L1Origin, l2BlockNumber: bigint, timePassed: bigint): Hex {
  const args = encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint64' }, { type: 'uint64' }, { type: 'uint64' }],
    [l1.baseFee, l1.number, l2BlockNumber, timePassed],
  );
  return `${START_BLOCK_SELECTOR}${args.slice(2)}` as Hex;
}

/** Nitro's hash of an `ArbitrumInternalTx`: keccak256(0x6a ‖ rlp([chainId, data])). */
export function internalTxHash(data: Hex): Hex {
  const rlp = toRlp([toHex(ARBITRUM_CHAIN_ID), data]);
  return keccak256(`0x6a${rlp.slice(2)}`);
}

/**
 * The L1 data part of a transaction's gas: its signed bytes compressed with brotli at `BROTLI_QUALITY`, × 16 L1 gas
 * per byte, priced at the L1 base fee (ArbOS's L1 price per unit, here taken equal to it), converted into L2 gas at
 * the L2 base fee (rounded down, as ArbOS divides).
 */
export function gasUsedForL1(signedTx: Hex, l1BaseFee: bigint, l2BaseFee: bigint): bigint {
  const size = brotliCompressSync(hexToBytes(signedTx), {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY },
  }).length;
  if (l2BaseFee <= 0n) return 0n;
  return (BigInt(size) * L1_GAS_PER_BYTE * l1BaseFee) / l2BaseFee;
}

const hex = (v: bigint | number) => `0x${BigInt(v).toString(16)}`;
const ZERO_BLOOM = `0x${'0'.repeat(512)}`;

type Json = Record<string, unknown>;

export interface NitroBlockInfo {
  readonly number: bigint;
  readonly hash: Hex;
  readonly timestamp: number;
  readonly baseFee: bigint;
  /** The previous block's timestamp (the genesis block's for block 1). */
  readonly previousTimestamp: number;
  /** The L1 messages the block holds after its `startBlock` (nitro-messages.ts): none when absent. */
  readonly messages?: readonly NitroMessage[];
}

/** The internal transaction of a block, its L1 values and hash. */
export function internalTx(seed: number, block: NitroBlockInfo) {
  const l1 = arbitrumL1(seed, block.timestamp);
  const data = startBlockCalldata(l1, block.number, BigInt(Math.max(0, block.timestamp - block.previousTimestamp)));
  return { l1, data, hash: internalTxHash(data) };
}

/** The internal transaction as `eth_getTransactionByHash` (and full blocks) show it. */
export function internalTxJson(seed: number, block: NitroBlockInfo): Json {
  const { data, hash } = internalTx(seed, block);
  return {
    blockHash: block.hash,
    blockNumber: hex(block.number),
    // Required of every transaction object by the JSON-RPC specification (execution-apis), as anvil's carry it.
    blockTimestamp: hex(BigInt(block.timestamp)),
    from: ARBOS_ADDRESS,
    gas: '0x0',
    gasPrice: '0x0',
    hash,
    input: data,
    nonce: '0x0',
    to: ARBOS_ADDRESS,
    transactionIndex: '0x0',
    value: '0x0',
    type: hex(ARBITRUM_INTERNAL_TX_TYPE),
    chainId: hex(ARBITRUM_CHAIN_ID),
    v: '0x0',
    r: '0x0',
    s: '0x0',
  };
}

/** The internal transaction's receipt: no gas, no logs, success. */
export function internalReceiptJson(seed: number, block: NitroBlockInfo): Json {
  const { l1, hash } = internalTx(seed, block);
  return {
    blockHash: block.hash,
    blockNumber: hex(block.number),
    contractAddress: null,
    cumulativeGasUsed: '0x0',
    effectiveGasPrice: hex(block.baseFee),
    from: ARBOS_ADDRESS,
    gasUsed: '0x0',
    gasUsedForL1: '0x0',
    l1BlockNumber: hex(l1.number),
    logs: [],
    logsBloom: ZERO_BLOOM,
    status: '0x1',
    to: ARBOS_ADDRESS,
    transactionHash: hash,
    transactionIndex: '0x0',
    type: hex(ARBITRUM_INTERNAL_TX_TYPE),
  };
}

/** Shifts a transaction's (or log's) index by `by`: the internal transaction and the block's messages in front. */
export function shiftIndex<T extends Json>(o: T, by = 1): T {
  const out: Json = { ...o };
  if (typeof o.transactionIndex === 'string') out.transactionIndex = hex(BigInt(o.transactionIndex) + BigInt(by));
  return out as T;
}

/**
 * What Nitro puts in front of the block's user transactions: the `startBlock` internal transaction, then the
 * transactions of the block's L1 messages (batch-posting reports, deposits, retryables), with the block's context:
 * their JSON-RPC objects and receipts (`cumulativeGasUsed` from 0), and the gas they use.
 */
export function systemTxs(seed: number, block: NitroBlockInfo) {
  const { l1 } = internalTx(seed, block);
  const shaped = nitroMessageTxs(ARBITRUM_CHAIN_ID, block.messages ?? [], block.baseFee, ARBOS_ADDRESS);
  const txs: Json[] = [internalTxJson(seed, block)];
  const receipts: Json[] = [internalReceiptJson(seed, block)];
  let gas = 0n;
  for (const [i, s] of shaped.entries()) {
    const index = hex(i + 1);
    gas += BigInt(s.receipt.gasUsed as string);
    const at = { blockHash: block.hash, blockNumber: hex(block.number), transactionIndex: index };
    txs.push({ ...at, blockTimestamp: hex(block.timestamp), ...s.tx });
    receipts.push({
      ...at,
      ...s.receipt,
      cumulativeGasUsed: hex(gas),
      effectiveGasPrice: hex(block.baseFee),
      l1BlockNumber: hex(l1.number),
    });
  }
  return { txs, receipts, gas };
}

/**
 * A block's receipts as Nitro shows them: the internal one first, each user receipt with `gasUsedForL1`,
 * `l1BlockNumber`, `gasUsed` including the L1 part, `cumulativeGasUsed` recomputed, indices shifted.
 */
export function nitroReceipts(
  seed: number,
  block: NitroBlockInfo,
  receipts: readonly Json[],
  l1Gas: (txHash: string) => bigint,
): Json[] {
  const l1 = arbitrumL1(seed, block.timestamp);
  const system = systemTxs(seed, block);
  const out: Json[] = [...system.receipts];
  let cumulative = system.gas;
  for (const r of receipts) {
    const forL1 = l1Gas(String(r.transactionHash));
    const gasUsed = BigInt(r.gasUsed as string) + forL1;
    cumulative += gasUsed;
    out.push({
      ...shiftIndex(r, system.txs.length),
      gasUsed: hex(gasUsed),
      cumulativeGasUsed: hex(cumulative),
      gasUsedForL1: hex(forL1),
      l1BlockNumber: hex(l1.number),
      logs: Array.isArray(r.logs) ? (r.logs as Json[]).map((l) => shiftIndex(l, system.txs.length)) : r.logs,
    });
  }
  return out;
}

/**
 * A block as Nitro shows it: the internal transaction and the block's messages first, `l1BlockNumber`, `gasUsed`
 * with the L1 parts and the messages' gas.
 */
export function nitroBlock(
  seed: number,
  block: Json,
  previousTimestamp: number,
  full: boolean,
  l1Gas: (txHash: string) => bigint,
  messages: readonly NitroMessage[] = [],
): Json {
  const info = blockInfo(block, previousTimestamp, messages);
  const txs = (block.transactions as (Json | string)[]) ?? [];
  const { l1 } = internalTx(seed, info);
  const system = systemTxs(seed, info);
  const extra = txs.reduce<bigint>((sum, t) => sum + l1Gas(typeof t === 'string' ? t : String(t.hash)), 0n);
  return {
    ...block,
    gasUsed: hex(BigInt(block.gasUsed as string) + extra + system.gas),
    l1BlockNumber: hex(l1.number),
    transactions: [
      ...(full ? system.txs : system.txs.map((t) => t.hash)),
      ...txs.map((t) => (typeof t === 'string' ? t : shiftIndex(t, system.txs.length))),
    ],
  };
}

export function blockInfo(
  block: Json,
  previousTimestamp: number,
  messages: readonly NitroMessage[] = [],
): NitroBlockInfo {
  return {
    number: BigInt(block.number as string),
    hash: block.hash as Hex,
    timestamp: Number(block.timestamp),
    baseFee: BigInt((block.baseFeePerGas as string | undefined) ?? '0x0'),
    previousTimestamp,
    messages,
  };
}
