import { encodeAbiParameters, encodeEventTopics, type Hex, pad, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeStableEvent, decodeVatNote, noteWords, TOPICS, TROVE_MANAGER_ABI, VAT_NOTE_TOPICS } from './events.js';

/**
 * A Vat LogNote exactly as the mainnet Vat writes it (vat.sol's `note` modifier: log4 of 288 bytes = the ABI
 * encoding of a `bytes` of 224 calldata bytes; topics: selector left-aligned, then calldata words 0–2).
 */
function vatNote(selector: string, words: readonly string[]): { topics: Hex[]; data: Hex } {
  const calldata = selector + words.join('');
  const padded = calldata.padEnd(224 * 2, '0').slice(0, 224 * 2);
  const data = `0x${'20'.padStart(64, '0')}${'e0'.padStart(64, '0')}${padded}` as Hex;
  const topic = (i: number) => `0x${(words[i] ?? '').padEnd(64, '0')}` as Hex;
  return { topics: [`0x${selector}${'0'.repeat(56)}` as Hex, topic(0), topic(1), topic(2)], data };
}

const ETH_A = '4554482d41000000000000000000000000000000000000000000000000000000';
const URN = '0000000000000000000000001a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
const GEM_OWNER = '000000000000000000000000ffffffffffffffffffffffffffffffffffffff01';
const uint = (x: bigint) => (x < 0n ? (1n << 256n) + x : x).toString(16).padStart(64, '0');

describe('Vat LogNote selectors', () => {
  it.each([
    ['frob', '0x76088703'],
    ['grab', '0x7bab3f40'],
    ['fork', '0x870c616d'],
    ['fold', '0xb65337df'],
    ['slip', '0x7cdd3fde'],
    ['flux', '0x6111be2e'],
    ['move', '0xbb35783b'],
    ['suck', '0xf24e23eb'],
    ['heal', '0xf37ac61c'],
    ['init', '0x3b663195'],
    ['fileIlk', '0x1a0b287e'],
    ['file', '0x29ae8114'],
  ] as const)('%s is topic0 %s…', (kind, selector) => {
    expect(VAT_NOTE_TOPICS[kind]).toBe(`${selector}${'0'.repeat(56)}`);
  });
});

describe('decodeVatNote', () => {
  it('frob with a positive dink and dart (open a vault: 10 ETH locked, 5,000 DAI drawn)', () => {
    const log = vatNote('76088703', [
      ETH_A,
      URN,
      URN,
      URN,
      uint(10n * 10n ** 18n),
      uint(4_878_048_780_487_804_878_048n),
    ]);
    expect(log.data.length).toBe(2 + 288 * 2);
    expect(decodeVatNote(log)).toEqual({
      kind: 'frob',
      ilk: 'ETH-A',
      u: '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
      v: '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
      w: '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
      dink: 10n * 10n ** 18n,
      dart: 4_878_048_780_487_804_878_048n,
    });
  });

  it('frob with negative dink and dart (two’s complement words: withdraw and repay)', () => {
    const log = vatNote('76088703', [ETH_A, URN, GEM_OWNER, URN, uint(-(3n * 10n ** 18n)), uint(-1n)]);
    const note = decodeVatNote(log);
    expect(note).toMatchObject({ kind: 'frob', v: '0xffffffffffffffffffffffffffffffffffffff01' });
    expect(note && 'dink' in note && note.dink).toBe(-(3n * 10n ** 18n));
    expect(note && 'dart' in note && note.dart).toBe(-1n);
  });

  it('grab (a liquidation: the Dog moves the vault’s ink and art to the Clipper and the Vow)', () => {
    const log = vatNote('7bab3f40', [ETH_A, URN, GEM_OWNER, GEM_OWNER, uint(-(10n ** 18n)), uint(-(2n * 10n ** 21n))]);
    expect(decodeVatNote(log)).toMatchObject({
      kind: 'grab',
      ilk: 'ETH-A',
      dink: -(10n ** 18n),
      dart: -(2n * 10n ** 21n),
    });
  });

  it('fork moves ink and art between two vaults', () => {
    const log = vatNote('870c616d', [ETH_A, URN, GEM_OWNER, uint(5n), uint(7n)]);
    expect(decodeVatNote(log)).toEqual({
      kind: 'fork',
      ilk: 'ETH-A',
      src: '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
      dst: '0xffffffffffffffffffffffffffffffffffffff01',
      dink: 5n,
      dart: 7n,
    });
  });

  it('fold (Jug.drip: the rate grows), suck and heal (system debt), init and file', () => {
    expect(decodeVatNote(vatNote('b65337df', [ETH_A, URN, uint(123_456_789n)]))).toMatchObject({
      kind: 'fold',
      rate: 123_456_789n,
    });
    expect(decodeVatNote(vatNote('f24e23eb', [URN, GEM_OWNER, uint(10n ** 45n)]))).toMatchObject({
      kind: 'suck',
      rad: 10n ** 45n,
    });
    expect(decodeVatNote(vatNote('f37ac61c', [uint(42n)]))).toEqual({ kind: 'heal', rad: 42n });
    expect(decodeVatNote(vatNote('3b663195', [ETH_A]))).toEqual({ kind: 'init', ilk: 'ETH-A' });
    const spot = stringToHex('spot', { size: 32 }).slice(2);
    expect(decodeVatNote(vatNote('1a0b287e', [ETH_A, spot, uint(10n ** 27n)]))).toEqual({
      kind: 'fileIlk',
      ilk: 'ETH-A',
      what: 'spot',
      data: 10n ** 27n,
    });
  });

  it('ignores other selectors (hope, rely…) and rejects data that is not a note', () => {
    expect(decodeVatNote(vatNote('a3b22fc4', [URN]))).toBeUndefined();
    expect(() => decodeVatNote({ topics: [VAT_NOTE_TOPICS.frob], data: '0x1234' })).toThrow(/too short/);
    const truncated = vatNote('76088703', [ETH_A, URN]);
    const short =
      `0x${'20'.padStart(64, '0')}${'44'.padStart(64, '0')}${truncated.data.slice(130, 130 + 0x44 * 2)}` as Hex;
    expect(() => decodeVatNote({ topics: truncated.topics, data: short })).toThrow(/argument words/);
    expect(() => noteWords(`0x${'40'.padStart(64, '0')}${'e0'.padStart(64, '0')}` as Hex)).toThrow(/not an ABI bytes/);
  });
});

describe('decodeStableEvent', () => {
  it('TroveUpdated as TroveManager and BorrowerOperations emit it (the operation is a uint8 enum)', () => {
    const borrower = '0x00000000000000000000000000000000000000aa';
    const topics = encodeEventTopics({
      abi: TROVE_MANAGER_ABI,
      eventName: 'TroveUpdated',
      args: { _borrower: borrower },
    });
    const data = encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint8' }],
      [2000n * 10n ** 18n, 3n * 10n ** 18n, 3n * 10n ** 18n, 0],
    );
    expect(topics[0]).toBe(TOPICS.troveUpdated);
    expect(decodeStableEvent({ topics: topics as Hex[], data })).toEqual({
      kind: 'trove_updated',
      borrower,
      debt: 2000n * 10n ** 18n,
      coll: 3n * 10n ** 18n,
      stake: 3n * 10n ** 18n,
      operation: 0,
    });
  });

  it('Spot Poke names the ilk as text; an unknown log is undefined', () => {
    const data = encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }],
      [`0x${ETH_A}`, pad('0x6c6b935b8bbd400000', { size: 32 }), 1n],
    );
    expect(decodeStableEvent({ topics: [TOPICS.poke], data })).toEqual({
      kind: 'poke',
      ilk: 'ETH-A',
      val: 2000n * 10n ** 18n,
      spot: 1n,
    });
    expect(decodeStableEvent({ topics: [VAT_NOTE_TOPICS.frob], data })).toBeUndefined();
  });
});
