import { describe, expect, it } from 'vitest';
import { DAY } from '../../../core/time.js';
import { type ChainInput, computeChain, type DayFacts, historyDays } from './compute.js';
import type { BlockFact, NetworkSample } from './facts.js';

const T0 = Date.parse('2026-11-24T00:00:00Z') / 1000;
const AS_OF = T0 + 3600;

function fact(number: number, timestamp: number, over: Partial<BlockFact> = {}): BlockFact {
  return {
    chain: 'ethereum',
    number,
    hash: `0x${number}`,
    parentHash: `0x${number - 1}`,
    timestamp,
    txs: 2,
    system: 0,
    systemViolation: 0,
    deposits: 0,
    typeMix: { eip1559: 2 },
    failed: 0,
    newContracts: 0,
    gasUsed: '42000',
    gasLimit: '84000',
    baseFeePerGas: '10',
    blobGasUsed: '131072',
    gasFees: '630000',
    l1DataFees: '0',
    burned: '420000',
    priority: '210000',
    blobFees: '262144',
    fees: ['210000', '420000'],
    senders: ['0xa', '0xb'],
    addresses: ['0xa', '0xb', '0xc'],
    ...over,
  };
}

function days(
  byDay: Record<string, BlockFact[]>,
  active: Record<string, [senders: number, addresses: number | null]> = {},
): DayFacts[] {
  return historyDays(AS_OF).map((date) => ({
    date,
    blocks: byDay[date] ?? [],
    previousTimestamp: null,
    activeSenders: active[date]?.[0] ?? 0,
    activeAddresses: active[date] === undefined ? 0 : active[date][1],
  }));
}

function input(over: Partial<ChainInput> = {}): ChainInput {
  return {
    chain: 'ethereum',
    kind: 'l1',
    asOf: AS_OF,
    coveredFrom: T0 - 10 * DAY,
    days: days(
      {
        '2026-11-24': [fact(10, T0 + 12), fact(11, T0 + 24), fact(12, T0 + 60)],
        '2026-11-23': [fact(5, T0 - 100, { failed: 1, newContracts: 1, fees: ['1', '3'] })],
      },
      { '2026-11-24': [2, 3], '2026-11-23': [2, null] },
    ),
    samples: [],
    prices: new Map([['2026-11-24', { usd: 2000, source: 'oracle', confidence: 0.95 }]]),
    ...over,
  };
}

describe('blockchain EVM computation', () => {
  it('counts each UTC day from its own blocks, newest first, the running day partial', () => {
    const out = computeChain(input());
    const tx = out.transactionStatistics!;
    expect(tx.map((r) => r.date)).toEqual(historyDays(AS_OF));
    expect(tx.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);
    const today = tx[0]!;
    expect(today.tx_count).toBe(6);
    expect(today.block_count).toBe(3);
    expect(today.active_senders).toBe(2);
    expect(today.active_addresses).toBe(3);
    expect(today.gap_reasons).not.toHaveProperty('active_addresses');
    expect(today.fees_total_wei).toBe('1890000');
    expect(today.base_fee_burned_wei).toBe('1260000');
    // The burn counts the blob fees too (EIP-4844 burns them whole): 1,260,000 + 3 × 131,072 × 2.
    expect(today.blob_fees_wei).toBe('786432');
    expect(today.burned_total_wei).toBe(String(1_260_000 + 786_432));
    expect(today.priority_fees_wei).toBe('630000');
    expect(today.gas_utilisation).toBe(0.5);
    expect(today.median_tx_fee_wei).toBe('315000');
    expect(today.block_interval_seconds).toEqual({ mean: 24, median: 24, p95: 34.8 });
    expect(today.tps).toBe(Number((6 / 3601).toFixed(6)));
    // 1,890,000 wei at $2,000: not rounded to 0 beside a non-zero wei amount (6 significant digits below a micro-dollar).
    expect(today.fees_total_usd).toBe(3.78e-9);
    expect(today.native_price).toEqual({ usd: 2000, source: 'oracle', confidence: 0.95 });
    expect(today.tx_type_mix).toEqual({ eip1559: 6 });
    const yesterday = tx[1]!;
    expect(yesterday.failed_tx_count).toBe(1);
    expect(yesterday.new_contracts).toBe(1);
    expect(yesterday.median_tx_fee_wei).toBe('2');
    expect(yesterday.block_interval_seconds).toBeNull();
    expect(yesterday.gap_reasons.block_interval_seconds).toBe('no_data');
    expect(yesterday.fees_total_usd).toBeNull();
    expect(yesterday.gap_reasons.fees_total_usd).toBe('no_price');
    // A day with blocks stored before the recipients were recorded (migration 0015): senders known, addresses not.
    expect(yesterday.active_senders).toBe(2);
    expect(yesterday.active_addresses).toBeNull();
    expect(yesterday.gap_reasons.active_addresses).toBe('no_data');
  });

  it('a day without blocks, or before ingestion began, is null with a gap reason, never zero', () => {
    const out = computeChain(input({ coveredFrom: T0 - 1.5 * DAY }));
    const empty = out.transactionStatistics![2]!;
    expect(empty.gap_reason).toBe('no_data');
    expect(empty.tx_count).toBeNull();
    expect(empty.fees_total_wei).toBeNull();
    expect(out.l1![2]!.gap_reason).toBe('no_data');
  });

  it('network statistics come from the day’s last sample; parts a node lacks say so', () => {
    const sample = (takenAt: number, over: Partial<NetworkSample> = {}): NetworkSample => ({
      chain: 'ethereum',
      takenAt,
      head: { number: 100, timestamp: takenAt, gasLimit: '30000000' },
      finalized: { number: 36, timestamp: takenAt - 768 },
      safe: { number: 68, timestamp: takenAt - 384 },
      txpool: null,
      blobBaseFeeWei: '1',
      beacon: { finalizedEpoch: 9, justifiedEpoch: 10, headSlot: 352 },
      validators: null,
      unavailable: { txpool: 'txpool_status not available' },
      ...over,
    });
    const validators = {
      stateId: 'head',
      slot: 352,
      byStatus: { active_ongoing: 3, pending_queued: 1, exited_unslashed: 2 },
      activeStakeGwei: '96000000000',
      totalBalanceGwei: '160000000000',
    };
    const out = computeChain(
      input({ samples: [sample(T0 + 60, { validators }), sample(T0 + 120, { finalized: null })] }),
    );
    const net = out.networkStatistics![0]!;
    expect(net.sampled_at).toBe('2026-11-24T00:02:00Z');
    expect(net.validator_count).toBe(6);
    expect(net.active_validator_count).toBe(3);
    expect(net.total_stake_gwei).toBe('96000000000');
    expect(net.finalized_epoch).toBe(9);
    expect(net.safe_lag_blocks).toBe(32);
    expect(net.safe_lag_seconds).toBe(384);
    expect(net.finality_lag_blocks).toBeNull();
    expect(net.gap_reasons.finality_lag_blocks).toBe('no_data');
    expect(net.mempool_pending).toBeNull();
    expect(net.gap_reasons.mempool_pending).toBe('source_error');
    const past = out.networkStatistics![1]!;
    expect(past.gap_reason).toBe('no_data');
    expect(past.validators).toBeNull();
    // A sample taken after the newest block (as_of) is not used: no record is newer than its payload's as_of.
    const late = computeChain(
      input({ samples: [sample(T0 + 60, { validators }), sample(AS_OF + 30, { validators: null })] }),
    ).networkStatistics![0]!;
    expect(late.sampled_at).toBe('2026-11-24T00:01:00Z');
    expect(computeChain(input({ samples: [sample(AS_OF + 1)] })).networkStatistics![0]!.gap_reason).toBe('no_data');

    // A provider that refused the registry's list (issue 30): with the counting endpoint's counts, the counts stand
    // and the sums are null as source errors; without any snapshot, every validator figure is a source error.
    const counted = {
      ...validators,
      activeStakeGwei: null,
      totalBalanceGwei: null,
      countedBy: 'validator_count' as const,
    };
    const sums = computeChain(
      input({
        samples: [
          sample(T0 + 60, { validators: counted, unavailable: { validatorSums: 'beacon …: HTTP 413: too large' } }),
          sample(T0 + 120),
        ],
      }),
    ).networkStatistics![0]!;
    expect(sums.validator_count).toBe(6);
    expect(sums.total_stake_gwei).toBeNull();
    expect(sums.gap_reasons.total_stake_gwei).toBe('source_error');
    expect(sums.gap_reasons.total_balance_gwei).toBe('source_error');
    expect(sums.gap_reasons.validator_count).toBeUndefined();
    const refused = computeChain(
      input({
        samples: [
          sample(T0 + 60, { unavailable: { validators: 'beacon …: the validator list refused or failed: HTTP 429' } }),
          sample(T0 + 120),
        ],
      }),
    ).networkStatistics![0]!;
    expect(refused.validator_count).toBeNull();
    expect(refused.gap_reasons.validator_count).toBe('source_error');
    expect(refused.gap_reasons.total_stake_gwei).toBe('source_error');
    // A day on which no read was tried (nor failed) has no data.
    expect(computeChain(input({ samples: [sample(T0 + 60)] })).networkStatistics![0]!.gap_reasons.validators).toBe(
      'no_data',
    );
  });

  it('layer 2: system transactions excluded, deposits counted apart, fees split, violations counted', () => {
    const op = (n: number, t: number, over: Partial<BlockFact> = {}) =>
      fact(n, t, {
        chain: 'optimism',
        txs: 4,
        system: 1,
        deposits: 1,
        gasFees: '1000',
        l1DataFees: '3000',
        typeMix: { deposit: 1, eip1559: 2 },
        ...over,
      });
    const out = computeChain(
      input({
        chain: 'optimism',
        kind: 'op',
        days: days({ '2026-11-24': [op(1, T0 + 2), op(2, T0 + 4, { system: 0, systemViolation: 1, txs: 3 })] }, {}),
      }),
    );
    const r = out.l2![0]!;
    expect(r.stack).toBe('op');
    expect(r.tx_count).toBe(6);
    expect(r.system_tx_count).toBe(1);
    expect(r.system_tx_violations).toBe(1);
    expect(r.deposit_tx_count).toBe(2);
    expect(r.user_tx_count).toBe(4);
    expect(r.fees_total_wei).toBe('8000');
    expect(r.l1_data_fee_wei).toBe('6000');
    expect(r.l2_execution_fee_wei).toBe('2000');
    expect(r.l1_data_fee_share_of_fees).toBe(0.75);
    expect(r).not.toHaveProperty('l1_data_fee_share');
    const nitro = computeChain(
      input({ chain: 'arbitrum', kind: 'nitro', days: days({ '2026-11-24': [op(1, T0, { l1DataFees: '400' })] }) }),
    );
    // On Nitro the L1 part is inside the gas: no double count.
    expect(nitro.l2![0]!.fees_total_wei).toBe('1000');
    expect(nitro.l2![0]!.l2_execution_fee_wei).toBe('600');
    expect(nitro.l2![0]!.stack).toBe('nitro');
  });

  it('values fees at the day’s native price', () => {
    const rich = days({ '2026-11-24': [fact(1, T0 + 5, { gasFees: '1500000000000000000' })] });
    expect(computeChain(input({ days: rich })).transactionStatistics![0]!.fees_total_usd).toBe(3000);
  });

  it('refuses days that are not the 7 ending at as_of', () => {
    expect(() => computeChain(input({ days: input().days.slice(1) }))).toThrow(/not the 7 days/);
  });
});
