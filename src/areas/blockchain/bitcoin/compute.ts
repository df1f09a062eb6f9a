import type { GapReason } from '../../../core/gaps.js';
import { roundTo } from '../../../core/score.js';
import { meanMedianP95 } from '../../../core/stats.js';
import { DAY, dailyHistoryInstants, inDayWindow, utcDate, utcDayWindow } from '../../../core/time.js';
import { TPS_DECIMALS } from '../native-price.js';
import {
  type BitcoinBlockFact,
  type BitcoinDayRecord,
  type BitcoinL1Record,
  type BitcoinMissingBlock,
  type BitcoinNetworkRecord,
  type BitcoinTransactionRecord,
  bitcoinNetworkFields,
  bitcoinTransactionFields,
  type DailyPrices,
  type MempoolSample,
} from './schema.js';

/**
 * Bitcoin's 7 daily records (newest first) from ingested blocks: each UTC day from the blocks whose header
 * timestamp falls in it, network figures at the day's last block, the mempool at the day's last sample. Pure.
 * Conventions: docs/methodology/blockchain-bitcoin.md.
 */
export interface BitcoinComputeInput {
  /** The instant the records hold at (the newest of the ingest's observations). */
  readonly asOf: number;
  /** Up to this instant the chain is known; after it the node failed (`sourceError`) or nothing was read yet. */
  readonly knownUntil: number;
  /** The node stopped answering after `knownUntil`. */
  readonly sourceError: boolean;
  /** Ingested blocks, ascending by height (from the block before the first day on). */
  readonly blocks: readonly BitcoinBlockFact[];
  /** Distinct addresses paid or spent from per day (`YYYY-MM-DD`), counted by the store over the day's blocks. */
  readonly activeAddresses: ReadonlyMap<string, number>;
  /**
   * Distinct addresses of the outputs spent per day; null for a day with a block stored before the store recorded
   * which addresses were spent from (migration 0015).
   */
  readonly activeSenders: ReadonlyMap<string, number | null>;
  readonly missing: readonly BitcoinMissingBlock[];
  readonly mempool: readonly MempoolSample[];
  /** BTC/USD per day; a day without a price has USD figures null (`no_price`). */
  readonly prices: DailyPrices;
  /** Confirmations treated as final (the registry's finality depth). */
  readonly finalConfirmations: number;
}

export interface BitcoinOutput {
  /** Each day with every field (the three documents are views of these). */
  readonly days: BitcoinDayRecord[];
  readonly l1: BitcoinL1Record[];
  readonly transactions: BitcoinTransactionRecord[];
  readonly network: BitcoinNetworkRecord[];
}

/** Consensus limit of a block's weight (BIP141). */
export const MAX_BLOCK_WEIGHT = 4_000_000;

const TX_FIELDS = Object.keys(bitcoinTransactionFields) as (keyof typeof bitcoinTransactionFields)[];
const NET_FIELDS = Object.keys(bitcoinNetworkFields) as (keyof typeof bitcoinNetworkFields)[];
const ALWAYS_NA = ['new_contracts', 'failed_tx_count'] as const;

/** At most `digits` significant digits (no float noise on the wire). */
const sig = (x: number, digits = 10) => (x === 0 ? 0 : Number(x.toPrecision(digits)));
/** Core's `CalculateTruncatedMedian` (integers in, integer out). */
export function truncatedMedian(values: readonly number[]): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : Math.floor((s[n / 2 - 1]! + s[n / 2]!) / 2);
}

/**
 * Fee-rate percentiles (10, 25, 50, 75, 90) weighted by transaction weight, Core's `CalculatePercentilesByWeight`
 * over the day's transactions pooled: each transaction's fee rate is ⌊fee × 4 / weight⌋ sat/vB.
 */
export function feeRatePercentiles(txs: readonly (readonly [number, number])[]): number[] | null {
  if (!txs.length) return null;
  const scores = txs.map(([fee, weight]) => [weight ? Math.floor((fee * 4) / weight) : 0, weight] as const);
  scores.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const total = scores.reduce((s, [, w]) => s + w, 0);
  const marks = [total / 10, total / 4, total / 2, (total * 3) / 4, (total * 9) / 10];
  const out: number[] = [];
  let cumulative = 0;
  for (const [rate, weight] of scores) {
    cumulative += weight;
    while (out.length < 5 && cumulative >= marks[out.length]!) out.push(rate);
  }
  while (out.length < 5) out.push(scores[scores.length - 1]![0]);
  return out;
}

function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>) {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

const sorted = (o: Record<string, number>) =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

function nullRecord(date: string, partial: boolean, reason: GapReason, finalConfirmations: number): BitcoinDayRecord {
  const record: Record<string, unknown> = { date, partial };
  for (const f of [...TX_FIELDS, ...NET_FIELDS]) record[f] = null;
  record.final_confirmations = finalConfirmations;
  record.gap_reason = reason;
  const reasons: Record<string, GapReason> = {};
  for (const f of [...TX_FIELDS, ...NET_FIELDS]) if (f !== 'final_confirmations') reasons[f] = reason;
  for (const f of ALWAYS_NA) reasons[f] = 'not_applicable';
  record.gap_reasons = reasons;
  return record as unknown as BitcoinDayRecord;
}

export function computeBitcoin(input: BitcoinComputeInput): BitcoinOutput {
  const byHeight = new Map(input.blocks.map((b) => [b.height, b]));
  const days: BitcoinDayRecord[] = dailyHistoryInstants(input.asOf).map((end, i) => {
    const window = utcDayWindow(end);
    const start = window.from;
    const date = utcDate(start);
    const partial = i === 0;
    const known = Math.min(end, input.knownUntil);
    if (input.sourceError && start > input.knownUntil) {
      return nullRecord(date, partial, 'source_error', input.finalConfirmations);
    }
    const blocks = input.blocks.filter((b) => inDayWindow(b.time, window));
    const missing = input.missing.some((m) => inDayWindow(m.time, window));
    if (!blocks.length) {
      return nullRecord(date, partial, missing ? 'source_error' : 'no_data', input.finalConfirmations);
    }
    const reasons: Record<string, GapReason> = { new_contracts: 'not_applicable', failed_tx_count: 'not_applicable' };
    const txFees = blocks.flatMap((b) => b.txFees);
    const txCount = blocks.reduce((s, b) => s + b.txCount, 0);
    const weight = blocks.reduce((s, b) => s + b.weight, 0);
    const intervals = blocks
      .map((b) => {
        const prev = byHeight.get(b.height - 1);
        return prev ? b.time - prev.time : undefined;
      })
      .filter((x): x is number => x !== undefined);
    const mix = { outputs: {} as Record<string, number>, inputs: {} as Record<string, number> };
    for (const b of blocks) {
      addCounts(mix.outputs, b.typeMix.outputs);
      addCounts(mix.inputs, b.typeMix.inputs);
    }
    const fees = blocks.reduce((s, b) => s + b.totalFee, 0n);
    const price = input.prices.get(date) ?? null;
    const elapsed = partial ? Math.max(1, known - start + 1) : DAY;
    const percentiles = feeRatePercentiles(txFees);
    const last = blocks.reduce((a, b) => (b.height > a.height ? b : a));
    const sample = [...input.mempool]
      .filter((m) => m.time >= start && m.time <= end)
      .sort((a, b) => a.time - b.time)
      .at(-1);

    const record: BitcoinDayRecord = {
      date,
      partial,
      gap_reason: null,
      gap_reasons: reasons,
      tx_count: txCount,
      coinbase_tx_count: blocks.length,
      tps: roundTo(txCount / elapsed, TPS_DECIMALS),
      block_count: blocks.length,
      block_interval_seconds: meanMedianP95(intervals, 1),
      active_senders: input.activeSenders.has(date) ? input.activeSenders.get(date)! : 0,
      active_addresses: input.activeAddresses.get(date) ?? 0,
      fees_total_sat: fees.toString(),
      fees_total_usd: price ? roundTo((Number(fees) / 1e8) * price.usd, 2) : null,
      median_tx_fee_sat: truncatedMedian(txFees.map(([fee]) => fee)),
      fee_rate_sat_vb: percentiles
        ? {
            p10: percentiles[0]!,
            p25: percentiles[1]!,
            p50: percentiles[2]!,
            p75: percentiles[3]!,
            p90: percentiles[4]!,
          }
        : null,
      weight_used: weight,
      weight_utilisation: sig(weight / (blocks.length * MAX_BLOCK_WEIGHT), 6),
      size_bytes: blocks.reduce((s, b) => s + b.size, 0),
      tx_type_mix: { outputs: sorted(mix.outputs), inputs: sorted(mix.inputs) },
      new_contracts: null,
      failed_tx_count: null,
      native_price: price,
      block_height: last.height,
      difficulty: sig(last.difficulty),
      hashrate_144: last.hashrate144 === null ? null : sig(last.hashrate144),
      hashrate_2016: last.hashrate2016 === null ? null : sig(last.hashrate2016),
      chain_work: BigInt(`0x${last.chainwork}`).toString(),
      mempool_tx_count: sample ? sample.size : null,
      mempool_bytes: sample ? sample.bytes : null,
      mempool_fees_sat: sample?.totalFee != null ? sample.totalFee.toString() : null,
      final_confirmations: input.finalConfirmations,
    };
    if (!intervals.length) reasons.block_interval_seconds = 'no_data';
    if (record.active_senders === null) reasons.active_senders = 'no_data';
    if (record.fees_total_usd === null) reasons.fees_total_usd = 'no_price';
    if (record.native_price === null) reasons.native_price = 'no_price';
    if (record.median_tx_fee_sat === null) reasons.median_tx_fee_sat = 'no_data';
    if (!percentiles) reasons.fee_rate_sat_vb = 'no_data';
    if (last.hashrate144 === null) reasons.hashrate_144 = 'no_data';
    if (last.hashrate2016 === null) reasons.hashrate_2016 = 'no_data';
    if (!sample) {
      for (const f of ['mempool_tx_count', 'mempool_bytes', 'mempool_fees_sat'] as const) reasons[f] = 'no_data';
    } else if (sample.totalFee === null) reasons.mempool_fees_sat = 'no_data';
    if (missing) {
      // Blocks of the day the node could not give: every figure summed over the day's blocks is unknown.
      const summed = [
        'tx_count',
        'tps',
        'block_count',
        'coinbase_tx_count',
        'block_interval_seconds',
        'active_senders',
        'active_addresses',
        'fees_total_sat',
        'fees_total_usd',
        'median_tx_fee_sat',
        'fee_rate_sat_vb',
        'weight_used',
        'weight_utilisation',
        'size_bytes',
        'tx_type_mix',
      ] as const;
      const r = record as Record<string, unknown>;
      for (const f of summed) {
        r[f] = null;
        reasons[f] = 'source_error';
      }
    }
    return record;
  });
  const pick = <K extends string>(r: BitcoinDayRecord, fields: readonly K[]) => {
    const out: Record<string, unknown> = { date: r.date, partial: r.partial, gap_reason: r.gap_reason };
    const reasons: Record<string, GapReason> = {};
    for (const f of fields) {
      out[f] = (r as Record<string, unknown>)[f];
      const why = r.gap_reasons[f];
      if (why) reasons[f] = why;
    }
    out.gap_reasons = reasons;
    return out;
  };
  const transactions = days.map((r) => pick(r, TX_FIELDS) as unknown as BitcoinTransactionRecord);
  const network = days.map((r) => pick(r, NET_FIELDS) as unknown as BitcoinNetworkRecord);
  return {
    days,
    l1: days.map((r, i) => ({
      date: r.date,
      partial: r.partial,
      gap_reason: r.gap_reason,
      transaction_statistics: transactions[i]!,
      network_statistics: network[i]!,
    })),
    transactions,
    network,
  };
}
