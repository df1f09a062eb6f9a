import type { FullBlock, FullReceipt } from '../../../sources/evm/full-blocks.js';
import type { BlockFact, EvmChainKind } from './facts.js';

/**
 * One block's facts from its transactions and receipts, under the counting convention of
 * docs/methodology/blockchain-evm.md. Pure.
 */

/** OP Stack: the L1-attributes deposit's sender (the depositor account) and target (the `L1Block` predeploy). */
export const OP_SYSTEM_FROM = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001';
export const OP_L1_BLOCK = '0x4200000000000000000000000000000000000015';
/** Arbitrum Nitro: ArbOS's internal transactions come from this address. */
export const ARBOS_ADDRESS = '0x00000000000000000000000000000000000a4b05';

export const TX_TYPES: Readonly<Record<number, string>> = {
  0: 'legacy',
  1: 'access_list',
  2: 'eip1559',
  3: 'blob',
  4: 'set_code',
  126: 'deposit',
  100: 'arbitrum_deposit',
  101: 'arbitrum_unsigned',
  102: 'arbitrum_contract',
  104: 'arbitrum_retry',
  105: 'arbitrum_submit_retryable',
  106: 'arbitrum_internal',
  120: 'arbitrum_legacy',
};

export const txTypeName = (type: number): string => TX_TYPES[type] ?? `type_0x${type.toString(16)}`;

/**
 * Nitro's transactions made from L1 messages (go-ethereum fork, `core/types/transaction.go`): ETH deposits (0x64),
 * unsigned and contract transactions sent through the delayed inbox (0x65, 0x66), retryable submissions (0x69) and
 * their redeems (0x68). None is signed on L2.
 */
const NITRO_DEPOSITS = new Set([0x64, 0x65, 0x66, 0x68, 0x69]);
/** Nitro's retryable submission: the gas it reports is the auto-redeem's prepayment, which the redeem reports. */
const NITRO_SUBMIT_RETRYABLE = 0x69;

/**
 * Whether a transaction is a system transaction: OP's L1-attributes deposit; any of ArbOS's internal transactions
 * (the block's `startBlock`, and the batch-posting reports Nitro adds for the batches posted on L1).
 */
export function isSystemTx(kind: EvmChainKind, tx: { type: number; from: string; to: string | null }): boolean {
  if (kind === 'op') return tx.type === 0x7e && tx.from === OP_SYSTEM_FROM && tx.to === OP_L1_BLOCK;
  if (kind === 'nitro') return tx.type === 0x6a && tx.from === ARBOS_ADDRESS;
  return false;
}

/** Whether a (non-system) transaction is an L1→L2 deposit. */
export function isDepositTx(kind: EvmChainKind, type: number): boolean {
  if (kind === 'op') return type === 0x7e;
  if (kind === 'nitro') return NITRO_DEPOSITS.has(type);
  return false;
}

export function blockFact(
  chain: string,
  kind: EvmChainKind,
  block: FullBlock,
  receipts: readonly FullReceipt[],
): BlockFact {
  if (receipts.length !== block.transactionHashes.length) {
    throw new Error(
      `${chain} block ${block.number}: ${receipts.length} receipts for ${block.transactionHashes.length} transactions`,
    );
  }
  const baseFee = block.baseFeePerGas;
  let system = 0;
  let systemAtZero = false;
  let deposits = 0;
  let failed = 0;
  let newContracts = 0;
  let gasFees = 0n;
  let l1DataFees = 0n;
  let burned = 0n;
  let priority = 0n;
  let blobFees = 0n;
  const typeMix: Record<string, number> = {};
  const fees: string[] = [];
  const senders = new Set<string>();
  const addresses = new Set<string>();
  // Sender, target and type come from the receipt (the block is read with transaction hashes only).
  receipts.forEach((r, i) => {
    if (r.transactionHash !== block.transactionHashes[i])
      throw new Error(`${chain} block ${block.number}: receipt ${i} is not transaction ${i}`);
    // Blob gas is paid by every blob transaction, system or not (there are none on the L2s).
    if (r.blobGasUsed !== null && r.blobGasPrice !== null) blobFees += r.blobGasUsed * r.blobGasPrice;
    if (isSystemTx(kind, r)) {
      system++;
      if (i === 0) systemAtZero = true;
      return;
    }
    if (isDepositTx(kind, r.type)) deposits++;
    const name = txTypeName(r.type);
    typeMix[name] = (typeMix[name] ?? 0) + 1;
    if (r.status === 0) failed++;
    if (r.contractAddress !== null) newContracts++;
    // OP deposits buy their gas on L1 and pay no L2 fee, whatever price a node writes in their receipt; a Nitro
    // retryable submission's gas is paid once, by the redeem that uses it (unused gas is refunded).
    const prepaid = (kind === 'op' && r.type === 0x7e) || (kind === 'nitro' && r.type === NITRO_SUBMIT_RETRYABLE);
    const gasFee = prepaid ? 0n : r.gasUsed * r.effectiveGasPrice;
    gasFees += gasFee;
    // OP charges the L1 data fee beside the gas; Nitro buys L1 data with part of the gas (`gasUsedForL1`).
    const l1 = kind === 'op' ? (r.l1Fee ?? 0n) : kind === 'nitro' ? (r.gasUsedForL1 ?? 0n) * r.effectiveGasPrice : 0n;
    l1DataFees += l1;
    fees.push(String(kind === 'op' ? gasFee + l1 : gasFee));
    if (baseFee !== null) {
      burned += r.gasUsed * baseFee;
      priority += r.gasUsed * (r.effectiveGasPrice > baseFee ? r.effectiveGasPrice - baseFee : 0n);
    }
    senders.add(r.from);
    // Senders and recipients: the target, or for a creation the new contract (a creation has no `to`).
    addresses.add(r.from);
    if (r.to !== null) addresses.add(r.to);
    if (r.contractAddress !== null) addresses.add(r.contractAddress);
  });
  // The genesis block holds no transaction on any chain: it is not a violation. OP: exactly one system transaction,
  // at index 0. Nitro: one at index 0 (`startBlock`); more are batch-posting reports, not a violation.
  const expected = kind === 'nitro' ? systemAtZero : system === 1 && systemAtZero;
  const violation = kind === 'l1' || block.number === 0 ? 0 : expected ? 0 : 1;
  return {
    chain,
    number: block.number,
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: block.timestamp,
    txs: block.transactionHashes.length,
    system,
    systemViolation: violation,
    deposits,
    typeMix,
    failed,
    newContracts,
    gasUsed: String(block.gasUsed),
    gasLimit: String(block.gasLimit),
    baseFeePerGas: baseFee === null ? null : String(baseFee),
    blobGasUsed: block.blobGasUsed === null ? null : String(block.blobGasUsed),
    gasFees: String(gasFees),
    l1DataFees: String(l1DataFees),
    burned: String(burned),
    priority: String(priority),
    blobFees: String(blobFees),
    fees,
    senders: [...senders].sort(),
    addresses: [...addresses].sort(),
  };
}
