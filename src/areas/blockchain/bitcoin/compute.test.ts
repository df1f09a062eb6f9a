import { describe, expect, it } from 'vitest';
import type { BitcoinComputeInput } from './compute.js';
import { computeBitcoin, feeRatePercentiles, truncatedMedian } from './compute.js';
import type { BitcoinBlockFact } from './schema.js';

const T = Date.UTC(2026, 10, 20, 12, 0, 0) / 1000; // 2026-11-20 12:00 UTC
const DAY = 86_400;

let height = 100;
function block(time: number, over: Partial<BitcoinBlockFact> = {}): BitcoinBlockFact {
  height++;
  return {
    height,
    hash: height.toString(16).padStart(64, '0'),
    time,
    txCount: 3,
    size: 1000,
    weight: 4000,
    totalFee: 3000n,
    difficulty: 4.656542373906925e-10,
    chainwork: (height * 2 + 2).toString(16).padStart(64, '0'),
    hashrate144: 0.0033333333333,
    hashrate2016: 0.002,
    txFees: [
      [1000, 400],
      [2000, 600],
    ],
    typeMix: { outputs: { p2wpkh: 4, op_return: 1 }, inputs: { p2pkh: 2 } },
    ...over,
  };
}

function input(over: Partial<BitcoinComputeInput> = {}): BitcoinComputeInput {
  height = 100;
  const blocks = [block(T - DAY - 600), block(T - DAY), block(T - 3600), block(T - 3000)];
  return {
    asOf: T,
    knownUntil: T,
    sourceError: false,
    blocks,
    activeAddresses: new Map([
      ['2026-11-20', 7],
      ['2026-11-19', 5],
    ]),
    activeSenders: new Map([
      ['2026-11-20', 3],
      ['2026-11-19', null],
    ]),
    missing: [],
    mempool: [{ time: T - 60, size: 4, bytes: 900, totalFee: 12_345n }],
    prices: new Map(),
    finalConfirmations: 6,
    ...over,
  };
}

describe('Core-style statistics', () => {
  it('truncated median and weight-weighted fee-rate percentiles', () => {
    expect(truncatedMedian([])).toBeNull();
    expect(truncatedMedian([5, 1, 3])).toBe(3);
    expect(truncatedMedian([1, 2])).toBe(1);
    expect(feeRatePercentiles([])).toBeNull();
    // Rates ⌊fee·4/weight⌋: 10 (weight 400), 13 (weight 600): 10 % and 25 % fall in the first, 50 % on in the second.
    expect(
      feeRatePercentiles([
        [1000, 400],
        [2000, 600],
      ]),
    ).toEqual([10, 10, 13, 13, 13]);
    // Core's block 103 of rpc_getblockstats.json: rates 20 (748 WU), 20 (661 WU), 301 (661 WU) → [20,20,20,301,301].
    expect(
      feeRatePercentiles([
        [3740, 748],
        [3320, 661],
        [49800, 661],
      ]),
    ).toEqual([20, 20, 20, 301, 301]);
  });
});

describe('computeBitcoin', () => {
  it('makes 7 records newest first, each day from its own blocks', () => {
    const out = computeBitcoin(input());
    expect(out.days.map((r) => r.date)).toEqual([
      '2026-11-20',
      '2026-11-19',
      '2026-11-18',
      '2026-11-17',
      '2026-11-16',
      '2026-11-15',
      '2026-11-14',
    ]);
    const [today, yesterday] = out.days;
    expect(today).toMatchObject({
      partial: true,
      tx_count: 6,
      coinbase_tx_count: 2,
      block_count: 2,
      // 23 h from yesterday's last block, then 10 minutes.
      block_interval_seconds: { mean: 41700, median: 41700, p95: 78690 },
      active_senders: 3,
      active_addresses: 7,
      fees_total_sat: '6000',
      median_tx_fee_sat: 1500,
      weight_used: 8000,
      weight_utilisation: 0.001,
      size_bytes: 2000,
      tx_type_mix: { outputs: { op_return: 2, p2wpkh: 8 }, inputs: { p2pkh: 4 } },
      mempool_tx_count: 4,
      mempool_bytes: 900,
      mempool_fees_sat: '12345',
      final_confirmations: 6,
      block_height: 104,
      chain_work: '210',
      hashrate_144: 0.003333333333,
      gap_reason: null,
    });
    // 6 transactions over the 12 elapsed hours (and one second) of the running day, 6 decimals as on EVM chains.
    expect(today!.tps).toBe(0.000139);
    expect(yesterday).toMatchObject({
      partial: false,
      tx_count: 6,
      block_count: 2,
      tps: 0.000069,
      native_price: null,
    });
    // The first block ingested has no predecessor: only the second's interval counts.
    expect(yesterday!.block_interval_seconds).toEqual({ mean: 600, median: 600, p95: 600 });
    expect(yesterday!.gap_reasons).toMatchObject({
      mempool_tx_count: 'no_data',
      fees_total_usd: 'no_price',
      native_price: 'no_price',
      new_contracts: 'not_applicable',
      failed_tx_count: 'not_applicable',
    });
    // A day with blocks stored before the store marked the addresses spent from (migration 0015): senders unknown.
    expect(yesterday).toMatchObject({ active_senders: null, active_addresses: 5 });
    expect(yesterday!.gap_reasons.active_senders).toBe('no_data');
    expect(today!.gap_reasons).not.toHaveProperty('active_senders');
    for (const r of out.days.slice(3))
      expect(r).toMatchObject({ gap_reason: 'no_data', tx_count: null, block_count: null });
    // The three documents are views of the same records.
    expect(out.transactions[0]).not.toHaveProperty('difficulty');
    expect(out.network[0]).not.toHaveProperty('tx_count');
    expect(out.network[0]!.mempool_tx_count).toBe(4);
  });

  it('prices fees where a BTC/USD price exists', () => {
    const prices = new Map([['2026-11-20', { usd: 50_000, source: 'test', confidence: 1 }]]);
    const out = (p: typeof prices) => computeBitcoin(input({ prices: p }));
    const [today, yesterday] = out(prices).days;
    expect(today!.fees_total_usd).toBe(3);
    // The price used, in the shape EVM records carry it (usd, source, confidence).
    expect(today!.native_price).toEqual({ usd: 50_000, source: 'test', confidence: 1 });
    expect(today!.gap_reasons).not.toHaveProperty('native_price');
    expect(out(prices).transactions[0]!.native_price).toEqual(today!.native_price);
    expect(yesterday!.fees_total_usd).toBeNull();
  });

  it('leaves a day with a pruned block unknown where it sums over blocks, and keeps its network figures', () => {
    const missing = [{ height: 999, time: T - 1800, reason: 'source_error' as const }];
    const [today] = computeBitcoin(input({ missing })).days;
    expect(today).toMatchObject({ tx_count: null, fees_total_sat: null, block_height: 104, mempool_tx_count: 4 });
    expect(today!.gap_reasons).toMatchObject({ tx_count: 'source_error', fees_total_sat: 'source_error' });
  });

  it('marks the days after a node stopped answering with source_error', () => {
    const out = computeBitcoin(input({ asOf: T + DAY, knownUntil: T, sourceError: true }));
    expect(out.days[0]).toMatchObject({
      date: '2026-11-21',
      partial: true,
      gap_reason: 'source_error',
      tx_count: null,
    });
    expect(out.days[1]).toMatchObject({ date: '2026-11-20', partial: false, tx_count: 6 });
  });
});
