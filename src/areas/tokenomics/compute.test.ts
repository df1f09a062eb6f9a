import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { toFloat } from '../../core/decimal.js';
import { groupRecord, type TokenomicsInput, tokenomicsGapRecord, tokenomicsRecord } from './compute.js';
import { GroupRecords, SUB_PATH_GROUP, TokenomicsRecord } from './schema.js';

if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v));

const DAY = 86_400;
const E18 = 10n ** 18n;
const tok = (n: number) => BigInt(Math.round(n * 2)) * (E18 / 2n); // halves exact
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const ZERO = a(0);
const TREASURY = a(0x7);
const VESTER = a(0x5);
const DISTRIBUTOR = a(0xd);
const BINANCE = a(0xe);
const DEAD = '0x000000000000000000000000000000000000dead';
const ALICE = a(0xa1);
const BOB = a(0xa2);
const CAROL = a(0xa3);
const DUSTY = a(0xa4);
const T0 = 1_700_006_400; // a UTC midnight
const asOf = T0 + 80 * DAY + 3600;

const chart = (f: (i: number) => number) =>
  Array.from({ length: 41 }, (_, i) => [(Math.floor(asOf / DAY) - 40 + i) * DAY * 1000, f(i)] as const);

function input(over: Partial<TokenomicsInput> = {}): TokenomicsInput {
  return {
    token: { address: a(0x70c), chain: 'ethereum', coingeckoId: 'tok', decimals: 18 },
    blockNumber: 1234,
    asOf,
    day: '2023-12-04',
    partial: true,
    dustThresholdRaw: E18,
    totalSupplyRaw: tok(1_000_000),
    replayTotalRaw: tok(1_000_000),
    balances: [
      { address: TREASURY, balance: tok(300_000) },
      { address: VESTER, balance: tok(200_000) },
      { address: DISTRIBUTOR, balance: tok(50_000) },
      { address: BINANCE, balance: tok(100_000) },
      { address: DEAD, balance: tok(10_000) },
      { address: ALICE, balance: tok(250_999) },
      { address: BOB, balance: tok(80_000) },
      { address: CAROL, balance: tok(9_000.5) },
      { address: DUSTY, balance: tok(0.5) },
    ],
    transfers24h: [
      { from: ALICE, to: BINANCE, value: tok(1000), block: 1200, time: asOf - 100 },
      { from: BINANCE, to: BOB, value: tok(400), block: 1201, time: asOf - 90 },
      { from: DISTRIBUTOR, to: CAROL, value: tok(500), block: 1202, time: asOf - 80 },
    ],
    labels: [
      { address: TREASURY, category: 'treasury', label: 'Timelock', source: 'registry' },
      { address: BINANCE, category: 'exchanges', label: 'Binance', source: 'registry' },
    ],
    burnAddresses: [DEAD],
    vesting: [
      {
        address: VESTER,
        kind: 'treasury_vester',
        category: 'team',
        label: 'Team vester',
        held: tok(200_000),
        released: 0n,
        schedule: {
          vestingAmount: tok(200_000),
          vestingBegin: T0,
          vestingCliff: T0 + 100 * DAY,
          vestingEnd: T0 + 400 * DAY,
          lastUpdate: T0,
        },
      },
      {
        address: DISTRIBUTOR,
        kind: 'merkle_distributor',
        category: 'community',
        label: 'Airdrop',
        held: tok(50_000),
        released: tok(50_000),
        schedule: null,
      },
    ],
    allocations: [
      {
        category: 'team',
        label: 'Team',
        amountRaw: tok(200_000),
        schedule: {
          pieces: [{ kind: 'linear', start: T0, cliff: T0 + 100 * DAY, end: T0 + 400 * DAY, amount: tok(200_000) }],
        },
        sources: [{ kind: 'docs', ref: 'https://example.org/tokenomics' }],
        assumptions: [],
      },
      {
        category: 'community',
        label: 'Airdrop',
        amountRaw: tok(100_000),
        schedule: { pieces: [{ kind: 'step', at: T0, amount: tok(100_000) }] },
        sources: [{ kind: 'docs', ref: 'https://example.org/tokenomics' }],
        assumptions: [],
      },
      {
        category: 'investors',
        label: 'Seed',
        amountRaw: tok(150_000),
        schedule: { pieces: [{ kind: 'cliff', at: T0 + 365 * DAY, amount: tok(150_000) }] },
        sources: [{ kind: 'docs', ref: 'https://example.org/tokenomics' }],
        assumptions: ['Held off chain until the cliff'],
      },
    ],
    supply30d: { totalSupplyRaw: tok(1_000_000), burnedRaw: 0n },
    market: {
      priceUsd: 2,
      marketCapUsd: 1_000_000,
      circulatingSupply: 500_000,
      maxSupply: null,
      globalMarketCapUsd: 1e12,
      chart: chart((i) => 2 * (i % 2 === 0 ? 1 : 1.05)),
      ethChart: chart((i) => 3000 * (i % 2 === 0 ? 1 : 1.02)),
      btcChart: null,
    },
    tickers: [
      {
        market: { name: 'Binance', identifier: 'binance' },
        last: 2,
        volume: 500,
        converted_volume: { usd: 1000 },
        converted_last: { usd: 2 },
        bid_ask_spread_percentage: 0.1,
        cost_to_move_up_usd: 5000,
        cost_to_move_down_usd: 4000,
        trust_score: 'green',
        is_anomaly: false,
        is_stale: false,
        timestamp: null,
      },
      {
        market: { name: 'Uniswap V3', identifier: 'uniswap_v3' },
        last: 2,
        volume: 100,
        converted_volume: { usd: 200 },
        converted_last: { usd: 2 },
        trust_score: 'green',
        is_anomaly: false,
        is_stale: false,
        timestamp: null,
      },
      {
        market: { name: 'Shady', identifier: 'shady' },
        last: 9,
        volume: 1e9,
        converted_volume: { usd: 1e9 },
        converted_last: { usd: 9 },
        trust_score: 'red',
        is_anomaly: true,
        is_stale: false,
        timestamp: null,
      },
    ],
    exchanges: [
      { id: 'binance', name: 'Binance', centralized: true },
      { id: 'uniswap_v3', name: 'Uniswap V3 (Ethereum)', centralized: false },
      { id: 'shady', name: 'Shady', centralized: true },
    ],
    dexVolumeOnchainUsd: 190,
    ...over,
  };
}

function giniBrute(xs: readonly number[]): number {
  const n = xs.length;
  const mu = xs.reduce((p, q) => p + q, 0) / n;
  let s = 0;
  for (const x of xs) for (const y of xs) s += Math.abs(x - y);
  return s / (2 * n * n * mu);
}

describe('one day of one token', () => {
  const r = tokenomicsRecord(input());

  it('is a valid record of every group, JSON without bigints', () => {
    expect(Value.Errors(TokenomicsRecord, r).First()).toBeUndefined();
    expect(() => JSON.stringify(r)).not.toThrow();
    expect(r).toMatchObject({
      token_address: a(0x70c),
      chain: 'ethereum',
      coingecko_id: 'tok',
      block_number: 1234,
      dust_threshold: 1,
    });
    for (const [sub, schema] of Object.entries(GroupRecords)) {
      const g = groupRecord(r, SUB_PATH_GROUP[sub as keyof typeof SUB_PATH_GROUP]);
      expect(Value.Errors(schema, g).First(), sub).toBeUndefined();
    }
  });

  it('supply: on-chain circulating with each deduction, reported divergence flagged, locks and unlocks', () => {
    const s = r.supply_metrics!;
    expect(s.circulating_supply_onchain).toBe(440_000);
    expect(s.circulating_supply_onchain_raw).toBe(tok(440_000).toString());
    expect(s.deductions.map((d) => [d.kind, d.addresses, d.amount])).toEqual([
      ['vesting_locked', [VESTER], 200_000],
      ['unclaimed_airdrop', [DISTRIBUTOR], 50_000],
      ['treasury', [TREASURY], 300_000],
      ['burn', [DEAD], 10_000],
    ]);
    expect(s.circulating_supply_reported).toBe(500_000);
    expect(s.circulating_supply_divergence).toBeCloseTo(60_000 / 440_000, 12);
    expect(s.circulating_supply_divergence_flagged).toBe(true);
    expect(s.market_cap).toBe(880_000);
    expect(s.fully_diluted_valuation).toBe(2_000_000);
    expect(s.max_supply).toBeNull();
    expect(s.gap_reasons.max_supply).toBe('not_applicable');
    expect([s.inflation_monthly, s.burn_rate_monthly]).toEqual([0, 0]);
    expect(s.locked_supply).toBe(200_000);
    expect([s.unlocked_7d, s.unlocked_30d]).toEqual([0, 0]);
    // The cliff's 100/400 and 10 days and an hour of the stream, rounded down as the schedule does.
    const ahead = (tok(200_000) * BigInt(110 * DAY + 3600)) / BigInt(400 * DAY);
    expect(s.unlock_next_30d).toBe(toFloat(ahead, 18));
    expect(s.next_unlock).toEqual({
      date: new Date((T0 + 100 * DAY) * 1000).toISOString().replace('.000', ''),
      amount: 50_000,
      category: 'team',
      categories: ['team'],
    });
    expect(s.supply_reconciliation).toEqual({
      replay_total: 1_000_000,
      total_supply: 1_000_000,
      difference: 0,
      agrees: true,
      used: 'total_supply',
    });
  });

  it('metrics: holders above dust, raw and without the labelled addresses, 24 h activity', () => {
    const m = r.tokenomics_metrics!;
    expect(m.num_token_holders).toBe(8);
    expect(m.num_token_holders_ex_infrastructure).toBe(3);
    expect(m.num_token_holders_change_24h).toBe(0);
    expect([m.largest_holder, m.largest_holder_address, m.largest_holder_usd]).toEqual([300_000, TREASURY, 600_000]);
    expect([m.largest_holder_ex_infrastructure, m.largest_holder_ex_infrastructure_address]).toEqual([250_999, ALICE]);
    expect(m.unique_active_wallets_24h).toBe(5);
    expect(m.transfer_volume_24h).toBe(1900);
    expect(m.top5_concentration).toBeCloseTo(93.0999, 10);
    expect(m.top5_concentration_ex_infrastructure).toBeCloseTo((339_999.5 / 340_000) * 100, 10);
    expect([m.nakamoto_coefficient, m.nakamoto_coefficient_ex_infrastructure]).toEqual([2, 1]);
    const held = [300_000, 250_999, 200_000, 100_000, 80_000, 50_000, 10_000, 9_000.5];
    expect(m.gini_coeff).toBeCloseTo(giniBrute(held), 12);
    expect(m.gini_coeff_ex_infrastructure).toBeCloseTo(giniBrute([250_999, 80_000, 9_000.5]), 12);
    const before = [300_000, 251_999, 200_000, 99_400, 79_600, 50_500, 10_000, 8_500.5];
    expect(m.gini_coeff_change).toBeCloseTo(giniBrute(held) - giniBrute(before), 12);
    expect(m.whale_holdings).toEqual({
      '0': 0,
      '1000': 9_000.5 + 80_000 + 100_000 + 50_000 + 10_000,
      '100000': 750_999,
    });
    expect([m.whale_count, m.whale_ratio]).toEqual([3, 37.5]);
    expect(m.whale_movement_indicator).toBeCloseTo(-0.001, 15);
    expect(m.onchain_velocity).toBeCloseTo(1900 / 440_000, 15);
    expect(m.hhi).toBeCloseTo(held.reduce((p, x) => p + (x / 999_999.5) ** 2, 0) * 10_000, 8);
  });

  it('indicators: returns, correlation, Sharpe, dominance, NVT, netflow; a missing reference is null with a reason', () => {
    const i = r.indicators!;
    expect(i.return_days).toBe(30);
    expect(i.volatility).toBeGreaterThan(0);
    expect(i.volatility_annualised).toBeCloseTo(i.volatility! * Math.sqrt(365), 9);
    expect(i.daily_correlation_eth).toBeCloseTo(1, 12);
    expect(i.daily_correlation_btc).toBeNull();
    expect(i.gap_reasons.daily_correlation_btc).toBe('no_data');
    expect(i.sharp_ratio).toBe(i.sharpe_ratio);
    expect(i.risk_free_rate).toBe(0);
    expect(i.market_cap_dominance).toBeCloseTo((880_000 / 1e12) * 100, 15);
    expect(i.nvt).toBeCloseTo(880_000 / 3800, 12);
    expect(i.exchange_netflow).toBe(600);
    expect(i.exchange_netflow_usd).toBe(1200);
    expect(i.holder_growth).toBe(0);
  });

  it('allocations: verified by contracts, unverified from the declared schedule', () => {
    const al = r.allocation_metrics!;
    expect(al.allocation_map).toEqual({ community: 10, investors: 15, team: 20 });
    expect(al.project_percentage).toBe(20);
    const [team, community, investors] = al.allocations;
    expect(team).toMatchObject({ verified: true, unlocked_share: 0, onchain: { held: 200_000, locked_now: 200_000 } });
    expect(team!.onchain!.contracts).toEqual([
      { address: VESTER, kind: 'treasury_vester', held: 200_000, locked_now: 200_000, released: 0 },
    ]);
    expect(community).toMatchObject({ verified: true, unlocked_share: 100, share: 10 });
    expect(investors).toMatchObject({ verified: false, onchain: null, unlocked_share: 0, share: 15 });
    expect(investors!.gap_reasons).toEqual({ onchain: 'no_members' });
    expect(investors!.schedule).toEqual([
      { kind: 'cliff', at: expect.any(String), start: null, cliff: null, end: null, amount: 150_000 },
    ]);
  });

  it('exchanges: CEX and DEX volume, the anomalous ticker excluded and counted, wallets held', () => {
    const e = r.exchange_metrics!;
    expect([e.num_exchanges_listed, e.cex_volume, e.dex_volume, e.anomalous_tickers, e.excluded_tickers]).toEqual([
      2, 1000, 200, 1, 1,
    ]);
    expect(e.dex_volume_onchain_usd).toBe(190);
    const b = e.exchanges![0]!;
    expect(b).toMatchObject({
      exchange_name: 'Binance',
      exchange_type: 'cex',
      held: 100_000,
      market_cap_held_usd: 200_000,
      market_cap_held_percentage: 10,
      wallets: [BINANCE],
    });
    expect(e.exchanges![1]!.depth_up_usd).toBeNull();
    expect(e.exchanges![1]!.gap_reasons.depth_up_usd).toBe('no_data');
  });

  it('breakdown: supply by category over the labels, the unlabelled rest', () => {
    const b = r.breakdown!;
    expect(b.categories.treasury).toMatchObject({ amount: 300_000, share: 30, addresses: 1 });
    expect(b.categories.contracts).toMatchObject({ amount: 250_000, share: 25, addresses: 2 });
    expect(b.categories.exchanges).toMatchObject({ amount: 100_000, share: 10, addresses: 1 });
    expect(b.categories.other).toMatchObject({ amount: 10_000, share: 1, addresses: 1 });
    expect(b.categories.team).toMatchObject({ amount: 0, share: 0, addresses: 0 });
    expect(b.unlabelled).toMatchObject({ amount: 340_000, share: 34, addresses: 3 });
    expect(b.labels.map((l) => [l.address, l.category, l.source])).toEqual([
      [VESTER, 'contracts', 'vesting_contract'],
      [TREASURY, 'treasury', 'registry'],
      [DISTRIBUTOR, 'contracts', 'vesting_contract'],
      [BINANCE, 'exchanges', 'registry'],
      [DEAD, 'other', 'burn_addresses'],
    ]);
  });
});

describe('a day without market data and other gaps (null with a reason, never 0)', () => {
  const r = tokenomicsRecord(
    input({
      market: null,
      marketGapReason: 'source_error',
      tickers: null,
      tickersGapReason: 'source_error',
      supply30d: null,
    }),
  );
  const cases: [string, unknown, string | undefined][] = [
    ['price', r.tokenomics_metrics!.price, r.tokenomics_metrics!.gap_reasons.price],
    [
      'largest_holder_usd',
      r.tokenomics_metrics!.largest_holder_usd,
      r.tokenomics_metrics!.gap_reasons.largest_holder_usd,
    ],
    ['market_cap', r.supply_metrics!.market_cap, r.supply_metrics!.gap_reasons.market_cap],
    [
      'fully_diluted_valuation',
      r.supply_metrics!.fully_diluted_valuation,
      r.supply_metrics!.gap_reasons.fully_diluted_valuation,
    ],
    [
      'circulating_supply_reported',
      r.supply_metrics!.circulating_supply_reported,
      r.supply_metrics!.gap_reasons.circulating_supply_reported,
    ],
    ['volatility', r.indicators!.volatility, r.indicators!.gap_reasons.volatility],
    ['sharpe_ratio', r.indicators!.sharpe_ratio, r.indicators!.gap_reasons.sharpe_ratio],
    ['market_cap_dominance', r.indicators!.market_cap_dominance, r.indicators!.gap_reasons.market_cap_dominance],
    ['nvt', r.indicators!.nvt, r.indicators!.gap_reasons.nvt],
  ];
  for (const [name, value, reason] of cases) {
    it(`${name} is null with source_error`, () => {
      expect(value).toBeNull();
      expect(reason).toBe('source_error');
    });
  }
  it('inflation without the supply 30 days before: no_data; ticker figures null with their reason, the on-chain DEX volume stays', () => {
    expect(r.supply_metrics!.inflation_monthly).toBeNull();
    expect(r.supply_metrics!.gap_reasons.inflation_monthly).toBe('no_data');
    const e = r.exchange_metrics!;
    expect(e.dex_volume_onchain_usd).toBe(190);
    for (const k of ['num_exchanges_listed', 'cex_volume', 'dex_volume', 'tickers_kept', 'exchanges'] as const) {
      expect(e[k], k).toBeNull();
      expect(e.gap_reasons[k], k).toBe('source_error');
    }
    expect(e.gap_reasons.dex_volume_onchain_usd).toBeUndefined();
    expect(r.gap_reasons.exchange_metrics).toBeUndefined();
    expect(Value.Errors(TokenomicsRecord, r).First()).toBeUndefined();
  });
  it('without tickers and without the on-chain DEX volume: the exchanges group null with the tickers’ reason', () => {
    const none = tokenomicsRecord(
      input({
        tickers: null,
        tickersGapReason: 'source_error',
        dexVolumeOnchainUsd: null,
        dexVolumeGapReason: 'no_members',
      }),
    );
    expect(none.exchange_metrics).toBeNull();
    expect(none.gap_reasons.exchange_metrics).toBe('source_error');
    expect(groupRecord(none, 'exchange_metrics').gap_reasons).toEqual({ exchange_metrics: 'source_error' });
    expect(Value.Errors(TokenomicsRecord, none).First()).toBeUndefined();
  });
  it('an on-chain DEX volume null says why (the reason given, else no_data)', () => {
    const priced = tokenomicsRecord(input({ dexVolumeOnchainUsd: null, dexVolumeGapReason: 'no_price' }));
    expect(priced.exchange_metrics!.dex_volume_onchain_usd).toBeNull();
    expect(priced.exchange_metrics!.gap_reasons.dex_volume_onchain_usd).toBe('no_price');
    const plain = tokenomicsRecord(input({ dexVolumeOnchainUsd: null }));
    expect(plain.exchange_metrics!.gap_reasons.dex_volume_onchain_usd).toBe('no_data');
  });
  it('chain figures do not depend on the market', () => {
    expect(r.tokenomics_metrics!.num_token_holders).toBe(8);
    expect(r.supply_metrics!.circulating_supply_onchain).toBe(440_000);
  });
});

describe('mints and burns in the 24 hours', () => {
  it('count as transfers, not as volume or active wallets (the zero address is no wallet)', () => {
    const base = input();
    const r = tokenomicsRecord(
      input({
        transfers24h: [
          ...base.transfers24h,
          { from: ZERO, to: CAROL, value: tok(10), block: 1203, time: asOf - 70 },
          { from: BOB, to: ZERO, value: tok(5), block: 1204, time: asOf - 60 },
        ],
      }),
    );
    const m = r.tokenomics_metrics!;
    expect([m.transfer_count_24h, m.transfer_volume_24h, m.unique_active_wallets_24h]).toEqual([5, 1900, 5]);
  });
});

describe('a revoked vesting schedule', () => {
  it('locks nothing after its revocation: the rest was returned, not locked', () => {
    const revoked = {
      address: a(0x1e),
      kind: 'schedule' as const,
      category: 'investors',
      label: 'Revoked grant',
      held: 0n,
      released: tok(1000),
      schedule: {
        pieces: [{ kind: 'linear' as const, start: T0, end: T0 + 100 * DAY, amount: tok(10_000) }],
        revokedAt: T0 + 10 * DAY,
      },
    };
    const live = { ...revoked, address: a(0x1f), held: tok(9000), schedule: { ...revoked.schedule, revokedAt: null } };
    const r = tokenomicsRecord(input({ vesting: [revoked, live] }));
    const s = r.supply_metrics!;
    // The live one: 80 days and an hour of 100 vested.
    const lockedLive = tok(10_000) - (tok(10_000) * BigInt(80 * DAY + 3600)) / BigInt(100 * DAY);
    expect(s.locked_supply_raw).toBe(lockedLive.toString());
    // The only declared investors allocation: both investors contracts prove it, whatever their labels.
    const seed = r.allocation_metrics!.allocations.find((x) => x.label === 'Seed')!;
    expect(seed.verified).toBe(true);
    expect(seed.onchain!.contracts.map((c) => [c.address, c.locked_now, c.released])).toEqual([
      [a(0x1e), 0, 1000],
      [a(0x1f), toFloat(lockedLive, 18), 1000],
    ]);
    expect(r.allocation_metrics!.allocations.some((x) => x.label === 'Revoked grant')).toBe(false);
  });
});

describe('a replay that disagrees with totalSupply()', () => {
  it('says so with the difference; totalSupply() is used', () => {
    const r = tokenomicsRecord(input({ replayTotalRaw: tok(999_990) }));
    expect(r.supply_metrics!.supply_reconciliation).toEqual({
      replay_total: 999_990,
      total_supply: 1_000_000,
      difference: -10,
      agrees: false,
      used: 'total_supply',
    });
    expect(r.supply_metrics!.total_supply).toBe(1_000_000);
  });
});

describe('a day with nothing to compute', () => {
  it('every group null with the reason', () => {
    const r = tokenomicsGapRecord(
      {
        token: input().token,
        day: '2023-12-01',
        partial: false,
        asOf: T0 + DAY - 1,
        blockNumber: null,
        dustThresholdRaw: E18,
      },
      'not_deployed',
    );
    expect(r.gap_reason).toBe('not_deployed');
    expect(r.supply_metrics).toBeNull();
    expect(r.gap_reasons.breakdown).toBe('not_deployed');
    expect(Value.Errors(TokenomicsRecord, r).First()).toBeUndefined();
  });
});
