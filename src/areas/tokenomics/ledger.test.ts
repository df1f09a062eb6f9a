import { describe, expect, it } from 'vitest';
import {
  balanceDeltas,
  balancesBefore,
  type LedgerTransfer,
  replayedSupply,
  withDeltas,
  ZERO_ADDRESS,
} from './ledger.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const t = (from: string, to: string, value: bigint, blockNumber: number): LedgerTransfer => ({
  from,
  to,
  value,
  blockNumber,
});

describe('holder ledger', () => {
  const history = [
    t(ZERO_ADDRESS, A, 1000n, 1), // mint
    t(A, B, 300n, 2),
    t(B, C, 100n, 3),
    t(C, ZERO_ADDRESS, 40n, 4), // burn
    t(B, A, 200n, 5), // B emptied
  ];

  it.each([
    [0, {}],
    [1, { [A]: 1000n }],
    [2, { [A]: 700n, [B]: 300n }],
    [3, { [A]: 700n, [B]: 200n, [C]: 100n }],
    [4, { [A]: 700n, [B]: 200n, [C]: 60n }],
    [5, { [A]: 900n, [C]: 60n }],
  ])('a replay up to block %i and the ledger turned back to it agree', (block, expected) => {
    const replayed = withDeltas(new Map(), balanceDeltas(history.filter((x) => x.blockNumber <= block)));
    expect(Object.fromEntries(replayed)).toEqual(expected);
    const now = withDeltas(new Map(), balanceDeltas(history));
    const after = history.filter((x) => x.blockNumber > block);
    expect(Object.fromEntries(withDeltas(now, balanceDeltas(after), -1))).toEqual(expected);
    // The moved addresses' earlier balances (0n for one that held nothing), over the unmoved ones.
    const moved = balancesBefore(
      [...now].map(([address, balance]) => ({ address, balance })),
      after,
    );
    const merged = [...new Map([...now, ...moved])].filter(([, v]) => v !== 0n);
    expect(Object.fromEntries(merged)).toEqual(expected);
  });

  it('the zero address is never a holder and the replayed supply is minted less burnt', () => {
    const now = withDeltas(new Map(), balanceDeltas(history));
    expect(now.has(ZERO_ADDRESS)).toBe(false);
    expect(replayedSupply(now)).toBe(960n);
  });

  it('applying a range in pieces equals applying it whole (the ingest applies range by range)', () => {
    const whole = withDeltas(new Map(), balanceDeltas(history));
    let pieces = new Map<string, bigint>();
    for (const x of history) pieces = withDeltas(pieces, balanceDeltas([x]));
    expect(pieces).toEqual(whole);
  });

  it('balancesBefore leaves out what did not move and keeps an address that held nothing at 0', () => {
    const before = balancesBefore(
      [
        { address: A, balance: 10n },
        { address: C, balance: 5n },
      ],
      [t(B, A, 4n, 1)],
    );
    expect(Object.fromEntries(before)).toEqual({ [A]: 6n, [B]: 4n });
    const fresh = balancesBefore([{ address: A, balance: 4n }], [t(ZERO_ADDRESS, A, 4n, 1)]);
    expect(Object.fromEntries(fresh)).toEqual({ [A]: 0n });
  });

  it('a self-transfer and offsetting transfers change nothing', () => {
    expect(balanceDeltas([t(A, A, 5n, 1), t(A, B, 7n, 2), t(B, A, 7n, 3)]).size).toBe(0);
  });
});
