import type { BlockStats } from './schemas.js';

/**
 * Bitcoin Core's `getblockstats` (src/rpc/blockchain.cpp), computed from a block and the outputs its inputs spend:
 * the same integer arithmetic (C++ division truncates), the same truncated median, the same weight-weighted fee-rate
 * percentiles (`CalculatePercentilesByWeight`), the same per-output size (serialized output + 41 bytes of
 * `PER_UTXO_OVERHEAD`). Used by the sandbox's stand-in to answer `getblockstats`, and by the source when a provider
 * disables it (from `getblock <hash> 3`). Pure.
 */
export interface StatsOutput {
  /** Satoshis. */
  readonly value: number;
  readonly scriptLength: number;
  /** OP_RETURN or longer than 10,000 bytes (`CScript::IsUnspendable`). */
  readonly unspendable: boolean;
}

export interface StatsTx {
  readonly coinbase: boolean;
  /** Serialized size with witness data (`GetTotalSize`). */
  readonly totalSize: number;
  readonly weight: number;
  readonly hasWitness: boolean;
  readonly outputs: readonly StatsOutput[];
  /** The outputs spent by the inputs (none for the coinbase). */
  readonly prevouts: readonly Omit<StatsOutput, 'unspendable'>[];
}

export interface StatsBlock {
  readonly hash: string;
  readonly height: number;
  readonly time: number;
  readonly mediantime: number;
  /** Satoshis (`GetBlockSubsidy`). */
  readonly subsidy: number;
  readonly txs: readonly StatsTx[];
}

/** `sizeof(COutPoint) + sizeof(uint32_t) + sizeof(bool)`: what Core adds per UTXO. */
export const PER_UTXO_OVERHEAD = 41;
const WITNESS_SCALE_FACTOR = 4;

/** Length of a CompactSize integer. */
export function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

const outputSize = (o: { scriptLength: number }) => 8 + compactSizeLength(o.scriptLength) + o.scriptLength;

/** C++ integer division of non-negative (or truncating toward zero) 64-bit values, exact beyond 2^53. */
export function idiv(a: number, b: number): number {
  return Number(BigInt(a) / BigInt(b));
}

/** Core's `CalculateTruncatedMedian`. */
export function truncatedMedian(values: readonly number[]): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 === 0 ? idiv(s[n / 2 - 1]! + s[n / 2]!, 2) : s[(n - 1) / 2]!;
}

/** Core's `CalculatePercentilesByWeight`: fee rates at 10/25/50/75/90 % of the block's weight. */
export function percentilesByWeight(scores: readonly (readonly [number, number])[], totalWeight: number): number[] {
  const result = [0, 0, 0, 0, 0];
  if (!scores.length) return result;
  const s = [...scores].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const marks = [totalWeight / 10, totalWeight / 4, totalWeight / 2, (totalWeight * 3) / 4, (totalWeight * 9) / 10];
  let next = 0;
  let cumulative = 0;
  for (const [rate, weight] of s) {
    cumulative += weight;
    while (next < 5 && cumulative >= marks[next]!) result[next++] = rate;
  }
  for (let i = next; i < 5; i++) result[i] = s[s.length - 1]![0];
  return result;
}

/** The block subsidy in satoshis at `height` (`GetBlockSubsidy`). */
export function blockSubsidy(height: number, halvingInterval: number): number {
  const halvings = Math.floor(height / halvingInterval);
  if (halvings >= 64) return 0;
  return Number(5_000_000_000n >> BigInt(halvings));
}

export function computeBlockStats(block: StatsBlock): BlockStats {
  let inputs = 0;
  let outputs = 0;
  let utxos = 0;
  let totalOut = 0;
  let totalSize = 0;
  let totalWeight = 0;
  let totalFee = 0;
  let swtxs = 0;
  let swTotalSize = 0;
  let swTotalWeight = 0;
  let utxoSizeInc = 0;
  let utxoSizeIncActual = 0;
  let maxFee = 0;
  let minFee: number | undefined;
  let maxFeeRate = 0;
  let minFeeRate: number | undefined;
  let maxTxSize = 0;
  let minTxSize: number | undefined;
  const fees: number[] = [];
  const sizes: number[] = [];
  const feeRates: [number, number][] = [];

  for (const tx of block.txs) {
    outputs += tx.outputs.length;
    let txTotalOut = 0;
    for (const out of tx.outputs) {
      txTotalOut += out.value;
      const size = outputSize(out) + PER_UTXO_OVERHEAD;
      utxoSizeInc += size;
      if (out.unspendable) continue;
      utxos++;
      utxoSizeIncActual += size;
    }
    if (tx.coinbase) continue;
    inputs += tx.prevouts.length;
    totalOut += txTotalOut;
    const txSize = tx.totalSize;
    sizes.push(txSize);
    maxTxSize = Math.max(maxTxSize, txSize);
    minTxSize = Math.min(minTxSize ?? txSize, txSize);
    totalSize += txSize;
    const weight = tx.weight;
    totalWeight += weight;
    if (tx.hasWitness) {
      swtxs++;
      swTotalSize += txSize;
      swTotalWeight += weight;
    }
    let txTotalIn = 0;
    for (const prev of tx.prevouts) {
      txTotalIn += prev.value;
      const size = outputSize(prev) + PER_UTXO_OVERHEAD;
      utxoSizeInc -= size;
      utxoSizeIncActual -= size;
    }
    const fee = txTotalIn - txTotalOut;
    if (fee < 0) throw new RangeError(`block ${block.hash}: a transaction spends less than it creates`);
    fees.push(fee);
    maxFee = Math.max(maxFee, fee);
    minFee = Math.min(minFee ?? fee, fee);
    totalFee += fee;
    const feeRate = weight ? idiv(fee * WITNESS_SCALE_FACTOR, weight) : 0;
    feeRates.push([feeRate, weight]);
    maxFeeRate = Math.max(maxFeeRate, feeRate);
    minFeeRate = Math.min(minFeeRate ?? feeRate, feeRate);
  }
  const paying = block.txs.length - 1;
  return {
    avgfee: paying > 0 ? idiv(totalFee, paying) : 0,
    avgfeerate: totalWeight ? idiv(totalFee * WITNESS_SCALE_FACTOR, totalWeight) : 0,
    avgtxsize: paying > 0 ? idiv(totalSize, paying) : 0,
    blockhash: block.hash,
    feerate_percentiles: percentilesByWeight(feeRates, totalWeight),
    height: block.height,
    ins: inputs,
    maxfee: maxFee,
    maxfeerate: maxFeeRate,
    maxtxsize: maxTxSize,
    medianfee: truncatedMedian(fees),
    mediantime: block.mediantime,
    mediantxsize: truncatedMedian(sizes),
    minfee: minFee ?? 0,
    minfeerate: minFeeRate ?? 0,
    mintxsize: minTxSize ?? 0,
    outs: outputs,
    subsidy: block.subsidy,
    swtotal_size: swTotalSize,
    swtotal_weight: swTotalWeight,
    swtxs,
    time: block.time,
    total_out: totalOut,
    total_size: totalSize,
    total_weight: totalWeight,
    totalfee: totalFee,
    txs: block.txs.length,
    utxo_increase: outputs - inputs,
    utxo_size_inc: utxoSizeInc,
    utxo_increase_actual: utxos - inputs,
    utxo_size_inc_actual: utxoSizeIncActual,
  };
}

/** Whether a script is provably unspendable (`CScript::IsUnspendable`: OP_RETURN first, or over 10,000 bytes). */
export function isUnspendable(scriptHex: string): boolean {
  return scriptHex.startsWith('6a') || scriptHex.length / 2 > 10_000;
}
