import { describe, expect, it } from 'vitest';
import {
  burnRateMonthly,
  circulatingOnchain,
  divergence,
  fullyDilutedValuation,
  inflationMonthly,
  reconcile,
} from './supply.js';

describe('circulating supply on chain', () => {
  it('total minus locked vesting, unclaimed airdrop, treasury and burn addresses, each listed', () => {
    const c = circulatingOnchain(1000n, {
      vesting: [
        { address: '0xv2', lockedRaw: 100n },
        { address: '0xv1', lockedRaw: 50n },
      ],
      distributors: [{ address: '0xd', balanceRaw: 30n }],
      treasury: [{ address: '0xt', balanceRaw: 200n }],
      burn: [{ address: '0xdead', balanceRaw: 5n }],
    });
    expect(c.circulatingRaw).toBe(615n);
    expect(c.deductions).toEqual([
      { kind: 'vesting_locked', addresses: ['0xv1', '0xv2'], amountRaw: 150n },
      { kind: 'unclaimed_airdrop', addresses: ['0xd'], amountRaw: 30n },
      { kind: 'treasury', addresses: ['0xt'], amountRaw: 200n },
      { kind: 'burn', addresses: ['0xdead'], amountRaw: 5n },
    ]);
  });

  it('an address is deducted once: a treasury-labelled vesting contract only for what it locks', () => {
    const c = circulatingOnchain(1000n, {
      vesting: [{ address: '0xv', lockedRaw: 100n }],
      distributors: [],
      treasury: [
        { address: '0xv', balanceRaw: 400n },
        { address: '0xt', balanceRaw: 10n },
      ],
      burn: [],
    });
    expect(c.circulatingRaw).toBe(890n);
    expect(c.deductions.find((d) => d.kind === 'treasury')).toEqual({
      kind: 'treasury',
      addresses: ['0xt'],
      amountRaw: 10n,
    });
  });

  it('nothing to deduct: circulating = total', () => {
    const c = circulatingOnchain(7n, { vesting: [], distributors: [], treasury: [], burn: [] });
    expect(c.circulatingRaw).toBe(7n);
    expect(c.deductions.every((d) => d.amountRaw === 0n && d.addresses.length === 0)).toBe(true);
  });
});

describe('reported against on-chain circulating supply', () => {
  const table: { onchain: number; reported: number; relative: number | null; flagged?: boolean }[] = [
    { onchain: 100, reported: 105, relative: 0.05, flagged: false },
    { onchain: 100, reported: 105.01, relative: 0.0501, flagged: true },
    { onchain: 100, reported: 90, relative: -0.1, flagged: true },
    { onchain: 0, reported: 5, relative: null },
  ];
  for (const c of table) {
    it(`${c.reported} reported vs ${c.onchain} on chain`, () => {
      const d = divergence(c.onchain, c.reported);
      if (c.relative === null) expect(d).toBeNull();
      else {
        expect(d!.relative).toBeCloseTo(c.relative, 12);
        expect(d!.flagged).toBe(c.flagged);
      }
    });
  }
});

describe('monthly inflation and burn, FDV', () => {
  it('a pure burn: inflation = −burn rate', () => {
    expect(inflationMonthly(900n, 1000n)).toBe(-10);
    expect(burnRateMonthly(100n, 1000n)).toBe(10);
  });
  it('minting: positive inflation, no burn', () => {
    expect(inflationMonthly(1020n, 1000n)).toBe(2);
    expect(burnRateMonthly(0n, 1000n)).toBe(0);
  });
  it('without the supply 30 days before: null', () => {
    expect(inflationMonthly(1n, null)).toBeNull();
    expect(burnRateMonthly(1n, null)).toBeNull();
    expect(burnRateMonthly(null, 5n)).toBeNull();
  });
  it('FDV on the max supply, else the total', () => {
    expect(fullyDilutedValuation(2, 1000, 600)).toBe(2000);
    expect(fullyDilutedValuation(2, null, 600)).toBe(1200);
  });
});

describe('a replay that disagrees with totalSupply()', () => {
  const zero = '0x0000000000000000000000000000000000000000';
  it('agrees: the zero address left out', () => {
    const r = reconcile(
      [
        { address: zero, balance: -100n },
        { address: '0xa', balance: 60n },
        { address: '0xb', balance: 40n },
      ],
      100n,
    );
    expect(r).toEqual({
      replayTotalRaw: 100n,
      totalSupplyRaw: 100n,
      differenceRaw: 0n,
      agrees: true,
      used: 'total_supply',
    });
  });
  it('disagrees (a rebase without Transfer): the difference, totalSupply() used', () => {
    const r = reconcile([{ address: '0xa', balance: 100n }], 103n);
    expect(r.agrees).toBe(false);
    expect(r.differenceRaw).toBe(-3n);
    expect(r.used).toBe('total_supply');
  });
});
