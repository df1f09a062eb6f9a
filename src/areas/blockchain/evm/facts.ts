/**
 * The facts the blockchain area's EVM ingestion stores and its computation reads: plain data, no I/O. Wei amounts
 * are decimal strings (exact), counts numbers.
 */

/** How a chain marks its system transactions and deposits (docs/methodology/blockchain-evm.md). */
export type EvmChainKind = 'l1' | 'op' | 'nitro';

/** One block's counted facts. "Counted" transactions are all but the chain's system transactions. */
export interface BlockFact {
  readonly chain: string;
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  /** Unix seconds. */
  readonly timestamp: number;
  /** Every transaction of the block, system ones included. */
  readonly txs: number;
  /** Transactions matching the chain's system convention (OP L1-attributes deposit, ArbOS internal). */
  readonly system: number;
  /** 1 when the block breaks the one-system-transaction-at-index-0 assumption (none, several, elsewhere). */
  readonly systemViolation: 0 | 1;
  /** L1→L2 deposits other than the system transaction (OP 0x7e; Nitro 0x64, 0x68, 0x69). */
  readonly deposits: number;
  /** Counted transactions by type name (system transactions excluded). */
  readonly typeMix: Readonly<Record<string, number>>;
  /** Counted transactions whose receipt says failure (status 0). */
  readonly failed: number;
  /** Counted transactions that created a contract (receipt `contractAddress`). */
  readonly newContracts: number;
  readonly gasUsed: string;
  readonly gasLimit: string;
  /** Null before London (or on a chain without it). */
  readonly baseFeePerGas: string | null;
  readonly blobGasUsed: string | null;
  /** Σ gasUsed × effectiveGasPrice of the counted transactions. */
  readonly gasFees: string;
  /** Σ of the L1 data fees of counted transactions (OP `l1Fee`; Nitro `gasUsedForL1` × effectiveGasPrice). */
  readonly l1DataFees: string;
  /** Σ gasUsed × baseFeePerGas (burned); "0" without a base fee. */
  readonly burned: string;
  /** Σ gasUsed × (effectiveGasPrice − baseFeePerGas). */
  readonly priority: string;
  /** Σ blobGasUsed × blobGasPrice of the receipts. */
  readonly blobFees: string;
  /** Each counted transaction's total fee (what it paid, L1 data fee included on OP), decimal strings. */
  readonly fees: readonly string[];
  /** Distinct senders of counted transactions, lowercase. */
  readonly senders: readonly string[];
  /**
   * Distinct addresses of counted transactions, lowercase: their senders, their targets (`to`) and the contracts
   * they created (receipt `contractAddress`).
   */
  readonly addresses: readonly string[];
}

/** Validators by beacon status (`/eth/v1/beacon/states/{id}/validators`), their count and stake. */
export interface ValidatorSnapshot {
  /** Beacon state the snapshot was read at (`head`, a slot). */
  readonly stateId: string;
  readonly slot: number;
  /** Count by status (`active_ongoing`, `exited_unslashed`, …). */
  readonly byStatus: Readonly<Record<string, number>>;
  /**
   * Σ effective balance of active validators, gwei, decimal string; null when the counts came from the node's
   * counting endpoint and the list (which the sums need) was refused (the sample's `unavailable.validatorSums`).
   */
  readonly activeStakeGwei: string | null;
  /** Σ balance of every validator read, gwei, decimal string; null likewise. */
  readonly totalBalanceGwei: string | null;
  /** Where the counts come from (`validator_count`: the node's counting endpoint; `validators`: the list); older snapshots lack it. */
  readonly countedBy?: 'validator_count' | 'validators';
}

/** What the ingest job observed of a chain's network at one instant; a part it could not observe says why. */
export interface NetworkSample {
  readonly chain: string;
  /** Unix seconds (the job's clock). */
  readonly takenAt: number;
  readonly head: { readonly number: number; readonly timestamp: number; readonly gasLimit: string } | null;
  readonly finalized: { readonly number: number; readonly timestamp: number } | null;
  readonly safe: { readonly number: number; readonly timestamp: number } | null;
  readonly txpool: { readonly pending: number; readonly queued: number } | null;
  /** Blob base fee of the next block (`eth_feeHistory`), wei; null where the chain has no blobs. */
  readonly blobBaseFeeWei: string | null;
  /** Beacon finality (Ethereum with a beacon API). */
  readonly beacon: {
    readonly finalizedEpoch: number;
    readonly justifiedEpoch: number;
    readonly headSlot: number;
  } | null;
  /** Taken at most once per UTC day (`validators` is a large read on mainnet). */
  readonly validators: ValidatorSnapshot | null;
  /** Why a part is null (`txpool`: "txpool_status not available", …). */
  readonly unavailable: Readonly<Record<string, string>>;
}
