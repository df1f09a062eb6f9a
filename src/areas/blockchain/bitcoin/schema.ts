import { type Static, Type } from '@sinclair/typebox';
import { GAP_REASON_WORDS } from '../../../core/gaps.js';
import { Count, Fraction, IsoDate, Nullable, Usd } from '../../kit/schema.js';
import { NativePrice, type NativePriceValue } from '../native-price.js';

/**
 * Bitcoin's daily records (l1_chain = bitcoin) and the facts they are computed from. Field names shared with
 * Ethereum's records (`tx_count`, `tps`, `block_count`, `block_interval_seconds`, `active_senders`, `active_addresses`, …) mean the
 * same on both chains; methodology: docs/methodology/blockchain-bitcoin.md.
 */
export const BITCOIN_METHODOLOGY = 'blockchain.bitcoin-counting@1.2.0';

const GapReason = Type.Union(GAP_REASON_WORDS.map((w) => Type.Literal(w)));
const Int = (description: string) => Nullable(Count(description));
const Num = (description: string) => Nullable(Type.Number({ minimum: 0, description }));
const Decimal = (description: string) => Nullable(Type.String({ pattern: '^\\d+$', description }));
const Counts = (description: string) => Type.Record(Type.String(), Count(), { description });

const common = {
  date: IsoDate(),
  partial: Type.Boolean({ description: 'true for the running UTC day (its figures cover it up to as_of)' }),
  gap_reason: Nullable(GapReason),
  gap_reasons: Type.Record(Type.String(), GapReason, {
    description: 'the reason of each null field of a record that is partly known',
  }),
};

export const bitcoinTransactionFields = {
  tx_count: Int('transactions in the day’s blocks, coinbase transactions included (Bitcoin Core’s `txs`)'),
  coinbase_tx_count: Int('coinbase transactions (one per block)'),
  tps: Num('tx_count per second of the day (of its elapsed part for the running day), 6 decimals as on every chain'),
  block_count: Int('blocks whose timestamp falls in the day'),
  block_interval_seconds: Nullable(
    Type.Object({
      mean: Type.Number(),
      median: Type.Number(),
      p95: Type.Number(),
    }),
  ),
  active_senders: Int('distinct addresses of the outputs spent by the day’s transactions (their senders)'),
  active_addresses: Int(
    'distinct senders and recipients: addresses of the outputs spent and of the outputs created by the day’s transactions',
  ),
  fees_total_sat: Decimal('all fees paid in the day’s blocks, satoshis'),
  fees_total_usd: Nullable(Usd('fees_total_sat at the day’s BTC/USD price')),
  median_tx_fee_sat: Int('median fee of the day’s transactions (coinbase excluded), satoshis'),
  fee_rate_sat_vb: Nullable(
    Type.Object(
      { p10: Type.Number(), p25: Type.Number(), p50: Type.Number(), p75: Type.Number(), p90: Type.Number() },
      { description: 'fee-rate percentiles in sat/vB over the day’s transactions, weighted by weight as Core does' },
    ),
  ),
  weight_used: Int('total block weight, weight units'),
  weight_utilisation: Fraction('weight_used over 4,000,000 WU per block'),
  size_bytes: Int('total serialized size of the day’s blocks'),
  tx_type_mix: Nullable(
    Type.Object({
      outputs: Counts('outputs created, by script type'),
      inputs: Counts('outputs spent, by script type'),
    }),
  ),
  new_contracts: Type.Null({ description: 'not applicable to Bitcoin (gap_reasons: not_applicable)' }),
  failed_tx_count: Type.Null({ description: 'not applicable: a Bitcoin block holds no failed transaction' }),
  native_price: NativePrice,
};

export const bitcoinNetworkFields = {
  block_height: Int('height of the day’s last block'),
  difficulty: Num('difficulty at the day’s last block'),
  hashrate_144: Num('hashes per second over the 144 blocks ending at the day’s last block (getnetworkhashps)'),
  hashrate_2016: Num('hashes per second over the 2016 blocks ending at the day’s last block'),
  chain_work: Decimal('total chain work at the day’s last block (decimal)'),
  mempool_tx_count: Int('transactions in the mempool at the day’s last sample'),
  mempool_bytes: Int('virtual bytes in the mempool at the day’s last sample'),
  mempool_fees_sat: Decimal('fees of the mempool’s transactions at the day’s last sample, satoshis'),
  final_confirmations: Count('confirmations this service treats as final (the registry’s finality depth)'),
};

export const BitcoinTransactionRecord = Type.Object({ ...common, ...bitcoinTransactionFields });
export type BitcoinTransactionRecord = Static<typeof BitcoinTransactionRecord>;
export const BitcoinNetworkRecord = Type.Object({ ...common, ...bitcoinNetworkFields });
export type BitcoinNetworkRecord = Static<typeof BitcoinNetworkRecord>;
/** One day with every field, transaction and network (what the computation builds the three documents from). */
export const BitcoinDayRecord = Type.Object({ ...common, ...bitcoinTransactionFields, ...bitcoinNetworkFields });
export type BitcoinDayRecord = Static<typeof BitcoinDayRecord>;
/**
 * `/data/blockchain/bitcoin`: both records of the day in one, the same shape as Ethereum's
 * (`transaction_statistics`, `network_statistics`).
 */
export const BitcoinL1Record = Type.Object({
  date: common.date,
  partial: common.partial,
  gap_reason: common.gap_reason,
  transaction_statistics: BitcoinTransactionRecord,
  network_statistics: BitcoinNetworkRecord,
});
export type BitcoinL1Record = Static<typeof BitcoinL1Record>;

/** One ingested block: what the daily figures need of it. */
export interface BitcoinBlockFact {
  readonly height: number;
  readonly hash: string;
  readonly time: number;
  readonly txCount: number;
  readonly size: number;
  readonly weight: number;
  /** Satoshis (getblockstats `totalfee`). */
  readonly totalFee: bigint;
  readonly difficulty: number;
  /** Hex, as the node reports it. */
  readonly chainwork: string;
  /** Hashes per second (`getnetworkhashps`), read for the blocks that end a day or an ingest batch; else null. */
  readonly hashrate144: number | null;
  readonly hashrate2016: number | null;
  /** Per non-coinbase transaction: fee (sat) and weight (WU). */
  readonly txFees: readonly (readonly [number, number])[];
  readonly typeMix: {
    readonly outputs: Readonly<Record<string, number>>;
    readonly inputs: Readonly<Record<string, number>>;
  };
}

/** A block the node could not give (pruned): its day's figures are unknown. */
export interface BitcoinMissingBlock {
  readonly height: number;
  readonly time: number;
  readonly reason: 'source_error';
}

export interface MempoolSample {
  readonly time: number;
  readonly size: number;
  readonly bytes: number;
  readonly totalFee: bigint | null;
}

/** The BTC/USD price of a day (YYYY-MM-DD), from the shared loader of native-asset prices. */
export type DailyPrices = ReadonlyMap<string, NativePriceValue>;
