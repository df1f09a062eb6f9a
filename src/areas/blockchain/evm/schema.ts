import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Count, Fraction, Iso, IsoDate, Nullable } from '../../kit/schema.js';
import { NativePrice, type NativePriceValue } from '../native-price.js';

/**
 * Payloads of the blockchain area's EVM chains (docs/methodology/blockchain-evm.md): the daily records of
 * Ethereum's transaction and network statistics, Ethereum's combined record, and the layer 2 record. Wei amounts
 * are decimal strings (exact); a figure that cannot be computed is null with its reason in `gap_reasons` (or the
 * whole record's in `gap_reason`).
 */

export const EVM_METHODOLOGY = 'blockchain.evm-counting@3.0.0';

const Wei = (description: string) => Nullable(Type.String({ pattern: '^\\d+$', description }));
const Int = (description: string) => Nullable(Count(description));
const Num = (description: string) => Nullable(Type.Number({ minimum: 0, description }));

const dayFields = {
  date: IsoDate(),
  partial: Type.Boolean({ description: 'True for the running day' }),
  gap_reason: Nullable(
    Type.String({ description: 'Why the whole record is null (no_data: no block of the day is known)' }),
  ),
  gap_reasons: Type.Record(Type.String(), Type.String(), {
    description: 'Per-field reasons of the null figures of a partly known record',
  }),
};

export const BlockIntervals = Nullable(
  Type.Object({
    mean: Type.Number({ minimum: 0 }),
    median: Type.Number({ minimum: 0 }),
    p95: Type.Number({ minimum: 0 }),
  }),
);

export { NativePrice } from '../native-price.js';

/** Counting fields shared by Ethereum and the layer 2s (and, by name, Bitcoin). */
const activityFields = {
  tx_count: Int('Transactions of the day (on a layer 2: system transactions excluded)'),
  tps: Num('tx_count / seconds of the day (the running day: seconds elapsed up to as_of)'),
  block_count: Int('Blocks whose timestamp falls in the day'),
  block_interval_seconds: BlockIntervals,
  active_senders: Int('Distinct senders (`from`) of the counted transactions of the day'),
  active_addresses: Int(
    'Distinct senders and recipients of the counted transactions of the day: each one’s `from`, its target (`to`) and, for a creation, the new contract (receipt `contractAddress`)',
  ),
  fees_total_wei: Wei('All fees paid: Σ gasUsed × effectiveGasPrice (plus the L1 data fees on OP)'),
  fees_total_usd: Num('fees_total_wei valued at the day’s native asset price'),
  median_tx_fee_wei: Wei('Median of the counted transactions’ fees'),
  new_contracts: Int('Transactions that created a contract (receipt contractAddress; internal creations not counted)'),
  failed_tx_count: Int('Counted transactions with receipt status 0'),
  tx_type_mix: Nullable(Type.Record(Type.String(), Count(), { description: 'Counted transactions by type' })),
  gas_used: Wei('Σ gasUsed of the day’s blocks'),
  native_price: NativePrice,
};

export const EthereumTxStatsDoc = Type.Object({
  ...dayFields,
  ...activityFields,
  gas_limit: Wei('Σ gasLimit of the day’s blocks'),
  gas_utilisation: Fraction('gas_used / gas_limit'),
  base_fee_burned_wei: Wei('Σ gasUsed × baseFeePerGas'),
  priority_fees_wei: Wei('Σ gasUsed × (effectiveGasPrice − baseFeePerGas)'),
  blob_fees_wei: Wei('Σ blobGasUsed × blobGasPrice of the receipts'),
  blob_gas_used: Wei('Σ blobGasUsed of the day’s blocks'),
  burned_total_wei: Wei(
    'All ETH burned: base_fee_burned_wei + blob_fees_wei (EIP-4844 burns the whole blob fee: blobGasUsed × blob base fee)',
  ),
});

const validatorStatuses = Nullable(Type.Record(Type.String(), Count(), { description: 'Validators by beacon status' }));

const networkFields = {
  sampled_at: Nullable(Iso('The last network sample of the day the figures come from')),
  validators: validatorStatuses,
  validator_count: Int('Validators read, all statuses'),
  active_validator_count: Int('Validators with an active_* status'),
  total_stake_gwei: Wei('Σ effective balance of active validators, gwei'),
  total_balance_gwei: Wei('Σ balance of every validator read, gwei'),
  finalized_epoch: Int('Beacon finalized checkpoint epoch'),
  justified_epoch: Int('Beacon current justified checkpoint epoch'),
  finality_lag_blocks: Int('latest − finalized block number'),
  finality_lag_seconds: Int('latest − finalized block timestamp'),
  safe_lag_blocks: Int('latest − safe block number'),
  safe_lag_seconds: Int('latest − safe block timestamp'),
  mempool_pending: Int('txpool_status pending'),
  mempool_queued: Int('txpool_status queued'),
  gas_limit: Wei('Gas limit of the latest block sampled'),
  blob_base_fee_wei: Wei('Blob base fee of the next block (eth_feeHistory)'),
};

export const EthereumNetworkStatsDoc = Type.Object({ ...dayFields, ...networkFields });

export const EthereumL1Doc = Type.Object({
  date: IsoDate(),
  partial: Type.Boolean({ description: 'True for the running day' }),
  gap_reason: dayFields.gap_reason,
  transaction_statistics: EthereumTxStatsDoc,
  network_statistics: EthereumNetworkStatsDoc,
});

export const L2Doc = Type.Object({
  ...dayFields,
  ...activityFields,
  stack: Type.Union([Type.Literal('op'), Type.Literal('nitro')]),
  user_tx_count: Int('tx_count without L1→L2 deposits: the transactions signed on L2'),
  system_tx_count: Int(
    'System transactions: OP’s L1-attributes deposit (one per block); every ArbOS internal transaction (startBlock, one per block, and the batch-posting reports)',
  ),
  deposit_tx_count: Int(
    'Transactions made from L1 messages (system transactions excluded): OP 0x7e; Nitro 0x64, 0x65, 0x66, 0x68, 0x69',
  ),
  system_tx_violations: Int(
    'Blocks breaking the stack’s convention: OP, not exactly one system transaction at index 0; Nitro, no internal transaction at index 0',
  ),
  l2_execution_fee_wei: Wei('Fees paid for L2 execution'),
  l1_data_fee_wei: Wei(
    'Fees users were charged for L1 data (OP: receipt l1Fee; Nitro: gasUsedForL1 × effectiveGasPrice); not what the chain paid on L1',
  ),
  l1_data_fee_share_of_fees: Fraction(
    'l1_data_fee_wei / fees_total_wei: the share of users’ fees charged for L1 data (not the L1 cost of posting batches)',
  ),
  finality_lag_blocks: networkFields.finality_lag_blocks,
  finality_lag_seconds: networkFields.finality_lag_seconds,
  safe_lag_blocks: networkFields.safe_lag_blocks,
  safe_lag_seconds: networkFields.safe_lag_seconds,
  sampled_at: networkFields.sampled_at,
});

export const daily7 = <T extends TSchema>(record: T) => Type.Array(record, { minItems: 7, maxItems: 7 });

export type EthereumTxStats = Static<typeof EthereumTxStatsDoc>;
export type EthereumNetworkStats = Static<typeof EthereumNetworkStatsDoc>;
export type EthereumL1 = Static<typeof EthereumL1Doc>;
export type L2Record = Static<typeof L2Doc>;
export type { NativePriceValue };
