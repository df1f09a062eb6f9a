import { toFloat } from '../../../core/decimal.js';
import type { GapReason } from '../../../core/gaps.js';
import { roundUsd } from '../../../core/price-policy.js';
import { roundTo } from '../../../core/score.js';
import { meanMedianP95 } from '../../../core/stats.js';
import { DAY, isoSeconds, startOfUtcDay, utcDate } from '../../../core/time.js';
import { TPS_DECIMALS } from '../native-price.js';
import type { BlockFact, EvmChainKind, NetworkSample } from './facts.js';
import type { EthereumL1, EthereumNetworkStats, EthereumTxStats, L2Record, NativePriceValue } from './schema.js';

/**
 * The blockchain area's EVM computation (pure): a chain's stored block facts, distinct senders and addresses per day, network
 * samples and native prices → 7 daily records, newest first, each day from the blocks whose timestamp falls in it
 * (docs/methodology/blockchain-evm.md).
 */

/** One UTC day of a chain: its blocks (timestamp in the day, ascending) and what the store counted for it. */
export interface DayFacts {
  readonly date: string;
  readonly blocks: readonly BlockFact[];
  /** Timestamp of the block just before the day's first block (its first interval), when stored. */
  readonly previousTimestamp: number | null;
  /** Distinct senders of the day's counted transactions (the store counts them exactly). */
  readonly activeSenders: number;
  /**
   * Distinct senders and recipients (targets, created contracts) of the day's counted transactions; null when a
   * block of the day was stored before its recipients were recorded (migration 0015).
   */
  readonly activeAddresses: number | null;
}

export interface ChainInput {
  readonly chain: string;
  readonly kind: EvmChainKind;
  /** Unix seconds: the newest stored block's timestamp (the documents' `as_of`). */
  readonly asOf: number;
  /** Unix seconds from which every block is stored (the ingestion start); days before it are unknown. */
  readonly coveredFrom: number;
  /** The 7 days ending at `asOf`'s day, newest first. */
  readonly days: readonly DayFacts[];
  /** Network samples of those days, oldest first. */
  readonly samples: readonly NetworkSample[];
  /** Native asset USD price by day. */
  readonly prices: ReadonlyMap<string, NativePriceValue>;
}

export interface ChainOutput {
  readonly chain: string;
  readonly asOf: number;
  /** Ethereum (kind `l1`). */
  readonly transactionStatistics?: EthereumTxStats[];
  readonly networkStatistics?: EthereumNetworkStats[];
  readonly l1?: EthereumL1[];
  /** OP and Nitro chains. */
  readonly l2?: L2Record[];
}

/** The 7 UTC days ending at the day of `asOf`, newest first. */
export function historyDays(asOf: number): string[] {
  const today = startOfUtcDay(asOf);
  return Array.from({ length: 7 }, (_, i) => utcDate(today - i * DAY));
}

const big = (s: string | null | undefined) => (s == null ? 0n : BigInt(s));
const sumBig = (blocks: readonly BlockFact[], f: (b: BlockFact) => string | null) =>
  blocks.reduce((s, b) => s + big(f(b)), 0n);

/** a / b for wei amounts, 6 decimals (no float noise). */
function ratio(a: bigint, b: bigint): number | null {
  if (b === 0n) return null;
  return Number((a * 1_000_000n) / b) / 1_000_000;
}

function medianBig(values: readonly bigint[]): bigint | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = s.length >> 1;
  // An even count takes the mean of the two middle fees, rounded down to a whole wei.
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2n;
}

function intervals(day: DayFacts): { mean: number; median: number; p95: number } | null {
  const gaps: number[] = [];
  let previous = day.previousTimestamp;
  for (const b of day.blocks) {
    if (previous !== null) gaps.push(b.timestamp - previous);
    previous = b.timestamp;
  }
  return meanMedianP95(gaps, 3);
}

/** Seconds of the day observed: the whole day, or up to `asOf` for the running day. */
function daySeconds(date: string, asOf: number): number {
  const start = Date.parse(`${date}T00:00:00Z`) / 1000;
  return Math.max(1, Math.min(DAY, asOf - start + 1));
}

interface Activity {
  tx_count: number | null;
  tps: number | null;
  block_count: number | null;
  block_interval_seconds: { mean: number; median: number; p95: number } | null;
  active_senders: number | null;
  active_addresses: number | null;
  fees_total_wei: string | null;
  fees_total_usd: number | null;
  median_tx_fee_wei: string | null;
  new_contracts: number | null;
  failed_tx_count: number | null;
  tx_type_mix: Record<string, number> | null;
  gas_used: string | null;
  native_price: NativePriceValue;
}

/** Why a day has no record: before ingestion began, or no block in it. */
function unknownDay(input: ChainInput, day: DayFacts): GapReason | null {
  const start = Date.parse(`${day.date}T00:00:00Z`) / 1000;
  // A day counts only when every block of it was ingested (the ingestion start's day is incomplete).
  const covered = start >= input.coveredFrom;
  return !covered || day.blocks.length === 0 ? 'no_data' : null;
}

function activity(input: ChainInput, day: DayFacts, fees: bigint, gapReasons: Record<string, string>): Activity {
  const blocks = day.blocks;
  const txCount = blocks.reduce((s, b) => s + b.txs - b.system, 0);
  const typeMix: Record<string, number> = {};
  for (const b of blocks) for (const [k, v] of Object.entries(b.typeMix)) typeMix[k] = (typeMix[k] ?? 0) + v;
  const interval = intervals(day);
  if (!interval) gapReasons.block_interval_seconds = 'no_data';
  const price = input.prices.get(day.date) ?? null;
  if (!price) {
    gapReasons.fees_total_usd = 'no_price';
    gapReasons.native_price = 'no_price';
  }
  // Blocks stored before the recipients were recorded: the day's senders and recipients are not known.
  if (day.activeAddresses === null) gapReasons.active_addresses = 'no_data';
  const medianFee = medianBig(blocks.flatMap((b) => b.fees.map(BigInt)));
  if (medianFee === null) gapReasons.median_tx_fee_wei = 'no_data';
  return {
    tx_count: txCount,
    tps: roundTo(txCount / daySeconds(day.date, input.asOf), TPS_DECIMALS),
    block_count: blocks.length,
    block_interval_seconds: interval,
    active_senders: day.activeSenders,
    active_addresses: day.activeAddresses,
    fees_total_wei: String(fees),
    // wei → ETH at 18 decimals, then USD, to the cent's hundredth (no float noise).
    fees_total_usd: price ? roundUsd(toFloat(fees, 18) * price.usd) : null,
    median_tx_fee_wei: medianFee === null ? null : String(medianFee),
    new_contracts: blocks.reduce((s, b) => s + b.newContracts, 0),
    failed_tx_count: blocks.reduce((s, b) => s + b.failed, 0),
    tx_type_mix: Object.fromEntries(Object.entries(typeMix).sort(([a], [b]) => a.localeCompare(b))),
    gas_used: String(sumBig(blocks, (b) => b.gasUsed)),
    native_price: price,
  };
}

const NULL_ACTIVITY: Activity = {
  tx_count: null,
  tps: null,
  block_count: null,
  block_interval_seconds: null,
  active_senders: null,
  active_addresses: null,
  fees_total_wei: null,
  fees_total_usd: null,
  median_tx_fee_wei: null,
  new_contracts: null,
  failed_tx_count: null,
  tx_type_mix: null,
  gas_used: null,
  native_price: null,
};

function ethereumTx(input: ChainInput, day: DayFacts, partial: boolean): EthereumTxStats {
  const gap = unknownDay(input, day);
  if (gap) {
    return {
      date: day.date,
      partial,
      gap_reason: gap,
      gap_reasons: {},
      ...NULL_ACTIVITY,
      gas_limit: null,
      gas_utilisation: null,
      base_fee_burned_wei: null,
      priority_fees_wei: null,
      blob_fees_wei: null,
      blob_gas_used: null,
      burned_total_wei: null,
    };
  }
  const gapReasons: Record<string, string> = {};
  const blocks = day.blocks;
  const a = activity(
    input,
    day,
    sumBig(blocks, (b) => b.gasFees),
    gapReasons,
  );
  const gasUsed = sumBig(blocks, (b) => b.gasUsed);
  const gasLimit = sumBig(blocks, (b) => b.gasLimit);
  const utilisation = ratio(gasUsed, gasLimit);
  if (utilisation === null) gapReasons.gas_utilisation = 'no_data';
  const baseFeeBurned = sumBig(blocks, (b) => b.burned);
  const blobFees = sumBig(blocks, (b) => b.blobFees);
  return {
    date: day.date,
    partial,
    gap_reason: null,
    gap_reasons: gapReasons,
    ...a,
    gas_limit: String(gasLimit),
    gas_utilisation: utilisation,
    base_fee_burned_wei: String(baseFeeBurned),
    priority_fees_wei: String(sumBig(blocks, (b) => b.priority)),
    blob_fees_wei: String(blobFees),
    blob_gas_used: String(sumBig(blocks, (b) => b.blobGasUsed)),
    // A blob's fee (blobGasUsed × the block's blob base fee) is burned whole, as the execution base fee is.
    burned_total_wei: String(baseFeeBurned + blobFees),
  };
}

/**
 * Whether a sample can stand in a record of the documents: taken within the day and not after `as_of` (the newest
 * block's timestamp), so that no record is newer than the instant its payload holds at.
 */
const usable = (input: ChainInput, s: NetworkSample, date: string) =>
  utcDate(s.takenAt) === date && s.takenAt <= input.asOf;

/** The newest usable sample of the day, if any. */
function lastSample(input: ChainInput, date: string): NetworkSample | undefined {
  let best: NetworkSample | undefined;
  for (const s of input.samples) if (usable(input, s, date) && (!best || s.takenAt > best.takenAt)) best = s;
  return best;
}

/** The day's validator snapshot: the newest usable sample of the day that carries one. */
function validatorSample(input: ChainInput, date: string): NetworkSample | undefined {
  let best: NetworkSample | undefined;
  for (const s of input.samples) {
    if (s.validators && usable(input, s, date) && (!best || s.takenAt > best.takenAt)) best = s;
  }
  return best;
}

const ACTIVE = /^active_/;

/**
 * The reason of a day without a validator snapshot: `source_error` when a read was tried that day and failed (a
 * provider refusing the registry: the sample says why), else `no_data`.
 */
function validatorReadFailed(input: ChainInput, date: string): 'source_error' | 'no_data' {
  return input.samples.some((s) => usable(input, s, date) && s.unavailable.validators !== undefined)
    ? 'source_error'
    : 'no_data';
}

function lags(sample: NetworkSample | undefined) {
  const lag = (tag: 'finalized' | 'safe') =>
    sample?.head && sample[tag]
      ? {
          blocks: Math.max(0, sample.head.number - sample[tag]!.number),
          seconds: Math.max(0, sample.head.timestamp - sample[tag]!.timestamp),
        }
      : null;
  const f = lag('finalized');
  const s = lag('safe');
  return {
    finality_lag_blocks: f?.blocks ?? null,
    finality_lag_seconds: f?.seconds ?? null,
    safe_lag_blocks: s?.blocks ?? null,
    safe_lag_seconds: s?.seconds ?? null,
  };
}

/** The reason of a figure a sample lacks: the sample's own note that the node does not have it, else no data. */
function sampleGap(sample: NetworkSample | undefined, part: string): string {
  return sample?.unavailable[part] !== undefined ? 'source_error' : 'no_data';
}

function ethereumNetwork(input: ChainInput, day: DayFacts, partial: boolean): EthereumNetworkStats {
  const sample = lastSample(input, day.date);
  const vSample = validatorSample(input, day.date);
  const v = vSample?.validators ?? null;
  const gapReasons: Record<string, string> = {};
  const record: EthereumNetworkStats = {
    date: day.date,
    partial,
    gap_reason: sample ? null : 'no_data',
    gap_reasons: gapReasons,
    sampled_at: sample ? isoSeconds(sample.takenAt) : null,
    validators: v ? { ...v.byStatus } : null,
    validator_count: v ? Object.values(v.byStatus).reduce((s, n) => s + n, 0) : null,
    active_validator_count: v
      ? Object.entries(v.byStatus).reduce((s, [k, n]) => s + (ACTIVE.test(k) ? n : 0), 0)
      : null,
    total_stake_gwei: v?.activeStakeGwei ?? null,
    total_balance_gwei: v?.totalBalanceGwei ?? null,
    finalized_epoch: sample?.beacon?.finalizedEpoch ?? null,
    justified_epoch: sample?.beacon?.justifiedEpoch ?? null,
    ...lags(sample),
    mempool_pending: sample?.txpool?.pending ?? null,
    mempool_queued: sample?.txpool?.queued ?? null,
    gas_limit: sample?.head?.gasLimit ?? null,
    blob_base_fee_wei: sample?.blobBaseFeeWei ?? null,
  };
  if (sample) {
    const groups: [string, readonly string[]][] = [
      [
        'validators',
        ['validators', 'validator_count', 'active_validator_count', 'total_stake_gwei', 'total_balance_gwei'],
      ],
      ['beacon', ['finalized_epoch', 'justified_epoch']],
      ['finalized', ['finality_lag_blocks', 'finality_lag_seconds']],
      ['safe', ['safe_lag_blocks', 'safe_lag_seconds']],
      ['txpool', ['mempool_pending', 'mempool_queued']],
      ['head', ['gas_limit']],
      ['blobBaseFee', ['blob_base_fee_wei']],
    ];
    for (const [part, fields] of groups) {
      for (const f of fields) {
        if ((record as Record<string, unknown>)[f] === null) {
          gapReasons[f] =
            part !== 'validators'
              ? sampleGap(sample, part)
              : !vSample
                ? validatorReadFailed(input, day.date)
                : // The counts stand; the sums' list was refused (`validatorSums`).
                  sampleGap(vSample, 'validatorSums');
        }
      }
    }
  }
  return record;
}

function l2(input: ChainInput, day: DayFacts, partial: boolean): L2Record {
  const stack = input.kind === 'op' ? 'op' : 'nitro';
  const sample = lastSample(input, day.date);
  const lagFields = lags(sample);
  const gap = unknownDay(input, day);
  const gapReasons: Record<string, string> = {};
  for (const [f, v] of Object.entries(lagFields)) {
    if (v === null) gapReasons[f] = sample ? sampleGap(sample, f.startsWith('safe') ? 'safe' : 'finalized') : 'no_data';
  }
  const sampled_at = sample ? isoSeconds(sample.takenAt) : null;
  if (gap) {
    return {
      date: day.date,
      partial,
      gap_reason: gap,
      gap_reasons: gapReasons,
      ...NULL_ACTIVITY,
      stack,
      user_tx_count: null,
      system_tx_count: null,
      deposit_tx_count: null,
      system_tx_violations: null,
      l2_execution_fee_wei: null,
      l1_data_fee_wei: null,
      l1_data_fee_share_of_fees: null,
      ...lagFields,
      sampled_at,
    };
  }
  const blocks = day.blocks;
  const gasFees = sumBig(blocks, (b) => b.gasFees);
  const l1 = sumBig(blocks, (b) => b.l1DataFees);
  // OP: the L1 data fee is charged beside the gas; Nitro: it is part of the gas (gasUsedForL1).
  const total = input.kind === 'op' ? gasFees + l1 : gasFees;
  const a = activity(input, day, total, gapReasons);
  const deposits = blocks.reduce((s, b) => s + b.deposits, 0);
  const share = ratio(l1, total);
  if (share === null) gapReasons.l1_data_fee_share_of_fees = 'no_data';
  return {
    date: day.date,
    partial,
    gap_reason: null,
    gap_reasons: gapReasons,
    ...a,
    stack,
    user_tx_count: (a.tx_count ?? 0) - deposits,
    system_tx_count: blocks.reduce((s, b) => s + b.system, 0),
    deposit_tx_count: deposits,
    system_tx_violations: blocks.reduce((s, b) => s + b.systemViolation, 0),
    l2_execution_fee_wei: String(total - l1),
    l1_data_fee_wei: String(l1),
    l1_data_fee_share_of_fees: share,
    ...lagFields,
    sampled_at,
  };
}

export function computeChain(input: ChainInput): ChainOutput {
  const expected = historyDays(input.asOf);
  const got = input.days.map((d) => d.date);
  if (JSON.stringify(expected) !== JSON.stringify(got)) {
    throw new Error(`${input.chain}: days ${got.join(',')} are not the 7 days ending at as_of (${expected.join(',')})`);
  }
  const partial = (i: number) => i === 0;
  if (input.kind === 'l1') {
    const tx = input.days.map((d, i) => ethereumTx(input, d, partial(i)));
    const net = input.days.map((d, i) => ethereumNetwork(input, d, partial(i)));
    const combined: EthereumL1[] = input.days.map((d, i) => ({
      date: d.date,
      partial: partial(i),
      gap_reason: tx[i]!.gap_reason && net[i]!.gap_reason ? 'no_data' : null,
      transaction_statistics: tx[i]!,
      network_statistics: net[i]!,
    }));
    return { chain: input.chain, asOf: input.asOf, transactionStatistics: tx, networkStatistics: net, l1: combined };
  }
  return { chain: input.chain, asOf: input.asOf, l2: input.days.map((d, i) => l2(input, d, partial(i))) };
}

export interface BlockchainInput {
  readonly chains: readonly ChainInput[];
}

export interface BlockchainOutput {
  readonly chains: readonly ChainOutput[];
}

export function computeBlockchain(input: BlockchainInput): BlockchainOutput {
  return { chains: input.chains.map(computeChain) };
}
