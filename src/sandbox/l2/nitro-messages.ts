/**
 * The transactions Nitro makes from L1 messages, besides the `startBlock` internal transaction (docs/sandbox.md,
 * "Arbitrum"): batch-posting reports (an `ArbitrumInternalTx`, type 0x6a, calling ArbosActs `batchPostingReportV2`),
 * ETH deposits (`ArbitrumDepositTx`, 0x64), retryable submissions (`ArbitrumSubmitRetryableTx`, 0x69) and their
 * auto-redeems (`ArbitrumRetryTx`, 0x68). Their fields, type numbers, hashes (keccak256(type ‖ rlp(fields in the
 * struct's order))), JSON-RPC objects and receipts are those of Nitro's go-ethereum fork
 * (OffchainLabs/go-ethereum `core/types/arb_types.go`, `internal/ethapi/api.go`, commit
 * 49b38a638a91f91f0fdb8be5f740c69f8d6abefc, the one OffchainLabs/nitro 6dce8d13 pins) and Nitro's ArbOS
 * (`arbos/parse_l2.go`, `arbos/tx_processor.go`: the retry's `maxRefund` and `submissionFeeRefund`).
 *
 * The driver (chain.ts) plans a block's messages (`planNitroMessages`), credits the ETH they bring on anvil
 * (`nitroBalanceCredits`) and saves them; the proxy (shapers.ts) shows them after the internal transaction.
 */
import { type Address, encodeAbiParameters, type Hex, keccak256, toHex, toRlp } from 'viem';
import { Rng } from '../world/random.js';
import type { L1Origin } from './l1.js';
import { applyL1ToL2Alias } from './op-stack.js';

/** Nitro's transaction types (go-ethereum fork, `core/types/transaction.go`). */
export const NITRO_TX_TYPES = {
  deposit: 0x64,
  unsigned: 0x65,
  contract: 0x66,
  retry: 0x68,
  submitRetryable: 0x69,
  internal: 0x6a,
  legacy: 0x78,
} as const;

/** ArbOS's precompile `ArbRetryableTx`: the `to` of every retryable submission. */
export const ARB_RETRYABLE_TX: Address = '0x000000000000000000000000000000000000006e';
/** Arbitrum One's batch poster (the `SequencerInbox`'s batch-posting address the reports name). */
export const BATCH_POSTER: Address = '0xC1b634853Cb333D3aD8663715b08f41A3Aec47cc';

/** ArbosActs `batchPostingReportV2`, the report ArbOS 50 and later make (`batchPostingReport` before). */
export const BATCH_POSTING_REPORT_V2 =
  'batchPostingReportV2(uint256,address,uint64,uint64,uint64,uint64,uint256)' as const;
/** ArbRetryableTx `submitRetryable`: what a retryable submission's `input` encodes (`ArbitrumSubmitRetryableTx.data()`). */
export const SUBMIT_RETRYABLE =
  'submitRetryable(bytes32,uint256,uint256,uint256,uint256,uint64,uint256,address,address,address,bytes)' as const;
const selector = (signature: string) => keccak256(toHex(signature)).slice(0, 10);

/** Mean messages per hour: batch-posting reports, ETH deposits, retryable submissions (each auto-redeemed). */
export const REPORTS_PER_HOUR = 3;
export const NITRO_DEPOSITS_PER_HOUR = 1;
export const RETRYABLES_PER_HOUR = 1;
/** The gas an auto-redeem that sends ETH to an account uses (a plain transfer). */
const RETRY_GAS_USED = 21_000n;

/** A batch-posting report (hex quantities, as saved). */
export interface BatchReport {
  readonly kind: 'report';
  readonly batchTimestamp: string;
  readonly batchPoster: Address;
  readonly batchNumber: string;
  readonly batchCalldataLength: string;
  readonly batchCalldataNonZeros: string;
  readonly batchExtraGas: string;
  readonly l1BaseFeeWei: string;
}

/** An ETH deposit: `from` the aliased L1 sender, `to` the L1 account itself (Inbox.depositEth for an EOA). */
export interface EthDeposit {
  readonly kind: 'deposit';
  readonly requestId: Hex;
  readonly from: Address;
  readonly to: Address;
  readonly value: string;
}

/** A retryable submission that sends `retryValue` to `retryTo` (no calldata), auto-redeemed in the same block. */
export interface RetryableSubmission {
  readonly kind: 'retryable';
  readonly requestId: Hex;
  readonly from: Address;
  readonly l1BaseFee: string;
  readonly depositValue: string;
  readonly maxFeePerGas: string;
  readonly gas: string;
  readonly retryTo: Address;
  readonly retryValue: string;
  readonly beneficiary: Address;
  readonly maxSubmissionFee: string;
  readonly feeRefundAddr: Address;
  readonly retryData: Hex;
}

export type NitroMessage = BatchReport | EthDeposit | RetryableSubmission;

/** Counters the chain keeps across blocks: the delayed inbox's message count and the batches posted. */
export interface NitroCounters {
  readonly delayed: number;
  readonly batches: number;
}

const q = (v: bigint | number) => `0x${BigInt(v).toString(16)}`;
/** An RLP integer: big-endian without leading zeros, 0 as the empty string. */
const rlpInt = (v: bigint | string) => {
  const n = BigInt(v);
  if (n === 0n) return '0x' as Hex;
  const h = n.toString(16);
  return `0x${h.length % 2 ? '0' : ''}${h}` as Hex;
};
const typedHash = (type: number, fields: (Hex | Hex[])[]) =>
  keccak256(`0x${type.toString(16)}${toRlp(fields).slice(2)}`);
const word = (i: number) => `0x${BigInt(i).toString(16).padStart(64, '0')}` as Hex;
/** A fresh L1 account of the sandbox (never an L2 user): its address from the seed and an index. */
const l1Account = (seed: number, label: string, i: number): Address =>
  `0x${keccak256(toHex(`protoscore/sandbox/l1/arbitrum/${seed}/${label}/${i}`)).slice(26)}` as Address;

/**
 * A block's L1 messages, drawn from the block's own stream (seed, timestamp): Poisson counts over the block's
 * `stepSeconds` at the hourly means above. The delayed messages (deposits, retryables) take the next delayed-inbox
 * indices as request ids (Nitro's `RequestId` is the message's index), reports the next batch numbers.
 */
export function planNitroMessages(
  seed: number,
  timestamp: number,
  stepSeconds: number,
  origin: L1Origin,
  counters: NitroCounters,
): { messages: NitroMessage[]; counters: NitroCounters } {
  const rng = Rng.fromSeed(seed, `l2-nitro-messages-${timestamp}`);
  const count = (perHour: number) => Math.min(20, rng.poisson((perHour * stepSeconds) / 3600));
  let { delayed, batches } = counters;
  const messages: NitroMessage[] = [];
  for (let i = count(REPORTS_PER_HOUR); i > 0; i--) {
    const length = Math.round(rng.logNormal(90_000, 0.5));
    messages.push({
      kind: 'report',
      // The batch's L1 block time: a few minutes before the report reaches L2.
      batchTimestamp: q(Number(origin.timestamp) - 60 * (1 + rng.int(10))),
      batchPoster: BATCH_POSTER,
      batchNumber: q(batches++),
      batchCalldataLength: q(length),
      batchCalldataNonZeros: q(Math.round(length * (0.9 + 0.09 * rng.next()))),
      batchExtraGas: q(0),
      l1BaseFeeWei: q(origin.baseFee),
    });
  }
  for (let i = count(NITRO_DEPOSITS_PER_HOUR); i > 0; i--) {
    const index = delayed++;
    const l1 = l1Account(seed, 'depositor', index);
    messages.push({
      kind: 'deposit',
      requestId: word(index),
      from: applyL1ToL2Alias(l1),
      to: l1,
      value: q(BigInt(Math.round(rng.logNormal(0.2, 1) * 1e9)) * 1_000_000_000n),
    });
  }
  for (let i = count(RETRYABLES_PER_HOUR); i > 0; i--) {
    const index = delayed++;
    const l1 = l1Account(seed, 'retryable-sender', index);
    const gas = 100_000n;
    const maxFeePerGas = 60_000_000n;
    const retryValue = BigInt(Math.round(rng.logNormal(0.05, 1) * 1e9)) * 1_000_000_000n;
    const maxSubmissionFee = submissionFee(0, origin.baseFee) * 2n;
    messages.push({
      kind: 'retryable',
      requestId: word(index),
      from: applyL1ToL2Alias(l1),
      l1BaseFee: q(origin.baseFee),
      // What the L1 sender paid in: the call value, the submission fee and the gas at its fee cap.
      depositValue: q(retryValue + maxSubmissionFee + gas * maxFeePerGas),
      maxFeePerGas: q(maxFeePerGas),
      gas: q(gas),
      retryTo: l1Account(seed, 'retryable-recipient', index),
      retryValue: q(retryValue),
      beneficiary: l1,
      maxSubmissionFee: q(maxSubmissionFee),
      feeRefundAddr: l1,
      retryData: '0x',
    });
  }
  return { messages, counters: { delayed, batches } };
}

/** ArbOS's retryable submission fee: the L1 base fee × (1400 + 6 × calldata bytes) (`RetryableSubmissionFee`). */
export function submissionFee(calldataBytes: number, l1BaseFee: bigint): bigint {
  return l1BaseFee * (1400n + 6n * BigInt(calldataBytes));
}

/** The ETH the messages bring to accounts that held none (anvil_setBalance): deposits' and auto-redeems' values. */
export function nitroBalanceCredits(messages: readonly NitroMessage[]): [Address, string][] {
  return messages.flatMap((m): [Address, string][] =>
    m.kind === 'deposit' ? [[m.to, m.value]] : m.kind === 'retryable' ? [[m.retryTo, m.retryValue]] : [],
  );
}

/** One synthesised transaction: its JSON-RPC object and receipt, without the block's context (added by `place`). */
interface Shaped {
  readonly hash: Hex;
  readonly tx: Record<string, unknown>;
  readonly receipt: Record<string, unknown>;
}

const baseTx = (chainId: number, type: number, hash: Hex) => ({
  hash,
  type: q(type),
  chainId: q(chainId),
  nonce: '0x0',
  v: '0x0',
  r: '0x0',
  s: '0x0',
});
const baseReceipt = (type: number, hash: Hex, from: Address, to: Address | null, gasUsed: bigint) => ({
  transactionHash: hash,
  type: q(type),
  from,
  to,
  gasUsed: q(gasUsed),
  gasUsedForL1: '0x0',
  contractAddress: null,
  logs: [],
  logsBloom: `0x${'0'.repeat(512)}`,
  status: '0x1',
});

function reportTx(chainId: number, m: BatchReport, arbos: Address): Shaped {
  const args = encodeAbiParameters(
    [
      { type: 'uint256' },
      { type: 'address' },
      { type: 'uint64' },
      { type: 'uint64' },
      { type: 'uint64' },
      { type: 'uint64' },
      { type: 'uint256' },
    ],
    [
      BigInt(m.batchTimestamp),
      m.batchPoster,
      BigInt(m.batchNumber),
      BigInt(m.batchCalldataLength),
      BigInt(m.batchCalldataNonZeros),
      BigInt(m.batchExtraGas),
      BigInt(m.l1BaseFeeWei),
    ],
  );
  const data = `${selector(BATCH_POSTING_REPORT_V2)}${args.slice(2)}` as Hex;
  // ArbitrumInternalTx{ChainId, Data}
  const hash = typedHash(NITRO_TX_TYPES.internal, [rlpInt(BigInt(chainId)), data]);
  return {
    hash,
    tx: {
      ...baseTx(chainId, NITRO_TX_TYPES.internal, hash),
      from: arbos,
      to: arbos,
      gas: '0x0',
      gasPrice: '0x0',
      value: '0x0',
      input: data,
    },
    receipt: baseReceipt(NITRO_TX_TYPES.internal, hash, arbos, arbos, 0n),
  };
}

function depositTx(chainId: number, m: EthDeposit): Shaped {
  // ArbitrumDepositTx{ChainId, L1RequestId, From, To, Value}
  const hash = typedHash(NITRO_TX_TYPES.deposit, [rlpInt(BigInt(chainId)), m.requestId, m.from, m.to, rlpInt(m.value)]);
  return {
    hash,
    tx: {
      ...baseTx(chainId, NITRO_TX_TYPES.deposit, hash),
      from: m.from,
      to: m.to,
      gas: '0x0',
      gasPrice: '0x0',
      value: m.value,
      input: '0x',
      requestId: m.requestId,
    },
    receipt: baseReceipt(NITRO_TX_TYPES.deposit, hash, m.from, m.to, 0n),
  };
}

function submitRetryableData(m: RetryableSubmission): Hex {
  const args = encodeAbiParameters(
    [
      { type: 'bytes32' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'uint64' },
      { type: 'uint256' },
      { type: 'address' },
      { type: 'address' },
      { type: 'address' },
      { type: 'bytes' },
    ],
    [
      m.requestId,
      BigInt(m.l1BaseFee),
      BigInt(m.depositValue),
      BigInt(m.retryValue),
      BigInt(m.maxFeePerGas),
      BigInt(m.gas),
      BigInt(m.maxSubmissionFee),
      m.feeRefundAddr,
      m.beneficiary,
      m.retryTo,
      m.retryData,
    ],
  );
  return `${selector(SUBMIT_RETRYABLE)}${args.slice(2)}` as Hex;
}

/** ArbOS's `takeFunds`: takes up to `amount` from the pool, returns what it took. */
function takeFunds(pool: { v: bigint }, amount: bigint): bigint {
  const took = pool.v < amount ? pool.v : amount;
  pool.v -= took;
  return took;
}

/** The submission and its auto-redeem (`tx_processor.go`: the refunds as ArbOS computes them, at `baseFee`). */
function retryableTxs(chainId: number, m: RetryableSubmission, baseFee: bigint): [Shaped, Shaped] {
  const gas = BigInt(m.gas);
  const maxFeePerGas = BigInt(m.maxFeePerGas);
  // ArbitrumSubmitRetryableTx{ChainId, RequestId, From, L1BaseFee, DepositValue, GasFeeCap, Gas, RetryTo,
  // RetryValue, Beneficiary, MaxSubmissionFee, FeeRefundAddr, RetryData}
  const ticketId = typedHash(NITRO_TX_TYPES.submitRetryable, [
    rlpInt(BigInt(chainId)),
    m.requestId,
    m.from,
    rlpInt(m.l1BaseFee),
    rlpInt(m.depositValue),
    rlpInt(maxFeePerGas),
    rlpInt(gas),
    m.retryTo,
    rlpInt(m.retryValue),
    m.beneficiary,
    rlpInt(m.maxSubmissionFee),
    m.feeRefundAddr,
    m.retryData,
  ]);
  const fee = submissionFee((m.retryData.length - 2) / 2, BigInt(m.l1BaseFee));
  const available = { v: BigInt(m.depositValue) };
  takeFunds(available, BigInt(m.retryValue));
  const withheldSubmissionFee = takeFunds(available, fee);
  takeFunds(available, BigInt(m.maxSubmissionFee) - fee);
  const withheldGasFunds = takeFunds(available, baseFee * gas);
  takeFunds(available, (maxFeePerGas - baseFee) * gas);
  const maxRefund = available.v + withheldGasFunds + withheldSubmissionFee;
  const submit: Shaped = {
    hash: ticketId,
    tx: {
      ...baseTx(chainId, NITRO_TX_TYPES.submitRetryable, ticketId),
      from: m.from,
      to: ARB_RETRYABLE_TX,
      gas: q(gas),
      gasPrice: q(maxFeePerGas),
      maxFeePerGas: q(maxFeePerGas),
      value: '0x0',
      input: submitRetryableData(m),
      requestId: m.requestId,
      l1BaseFee: m.l1BaseFee,
      depositValue: m.depositValue,
      retryTo: m.retryTo,
      retryValue: m.retryValue,
      retryData: m.retryData,
      beneficiary: m.beneficiary,
      refundTo: m.feeRefundAddr,
      maxSubmissionFee: m.maxSubmissionFee,
    },
    // The whole gas limit is charged here (ArbOS returns `usergas` as the gas used): the auto-redeem's prepayment.
    receipt: baseReceipt(NITRO_TX_TYPES.submitRetryable, ticketId, m.from, ARB_RETRYABLE_TX, gas),
  };
  // ArbitrumRetryTx{ChainId, Nonce, From, GasFeeCap, Gas, To, Value, Data, TicketId, RefundTo, MaxRefund,
  // SubmissionFeeRefund}: the first try (nonce 0) at the block's base fee.
  const retryHash = typedHash(NITRO_TX_TYPES.retry, [
    rlpInt(BigInt(chainId)),
    rlpInt(0n),
    m.from,
    rlpInt(baseFee),
    rlpInt(gas),
    m.retryTo,
    rlpInt(m.retryValue),
    m.retryData,
    ticketId,
    m.feeRefundAddr,
    rlpInt(maxRefund),
    rlpInt(fee),
  ]);
  const retry: Shaped = {
    hash: retryHash,
    tx: {
      ...baseTx(chainId, NITRO_TX_TYPES.retry, retryHash),
      from: m.from,
      to: m.retryTo,
      gas: q(gas),
      gasPrice: q(baseFee),
      maxFeePerGas: q(baseFee),
      value: m.retryValue,
      input: m.retryData,
      ticketId,
      refundTo: m.feeRefundAddr,
      maxRefund: q(maxRefund),
      submissionFeeRefund: q(fee),
    },
    receipt: baseReceipt(NITRO_TX_TYPES.retry, retryHash, m.from, m.retryTo, RETRY_GAS_USED),
  };
  return [submit, retry];
}

/** The transactions a block's messages make, in Nitro's order (a submission's auto-redeem right after it). */
export function nitroMessageTxs(chainId: number, messages: readonly NitroMessage[], baseFee: bigint, arbos: Address) {
  return messages.flatMap((m): Shaped[] =>
    m.kind === 'report'
      ? [reportTx(chainId, m, arbos)]
      : m.kind === 'deposit'
        ? [depositTx(chainId, m)]
        : retryableTxs(chainId, m, baseFee),
  );
}

/** How many transactions the messages make (a retryable two: its submission and its auto-redeem). */
export const messageTxCount = (messages: readonly NitroMessage[]) =>
  messages.reduce((n, m) => n + (m.kind === 'retryable' ? 2 : 1), 0);

/** What an Arbitrum chain saves of its L1 messages: each block's (by number) and the counters after the last. */
export interface NitroSaved {
  readonly counters: NitroCounters;
  readonly messages: Record<string, NitroMessage[]>;
}

/**
 * Records a mined block's messages in the driver's state: the block of each transaction they make (by hash, for the
 * proxy's look-ups, beside the internal transactions') and the messages and counters (`nitro`).
 */
export function recordNitroMessages(
  state: { internal: Record<string, number>; nitro?: NitroSaved },
  blockNumber: number,
  planned: { messages: NitroMessage[]; counters: NitroCounters },
  baseFee: bigint,
  arbos: Address,
  chainId: number,
): void {
  const messages = state.nitro?.messages ?? {};
  if (planned.messages.length) {
    messages[blockNumber] = planned.messages;
    for (const t of nitroMessageTxs(chainId, planned.messages, baseFee, arbos)) state.internal[t.hash] = blockNumber;
  }
  state.nitro = { counters: planned.counters, messages };
}
