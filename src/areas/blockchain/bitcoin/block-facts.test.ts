import { describe, expect, it } from 'vitest';
import type { BlockV2, Tx } from '../../../sources/bitcoin/schemas.js';
import { blockFacts } from './ingest.js';

const hash = (n: number) => n.toString(16).padStart(64, '0');
const script = (address: string | undefined, type = 'witness_v0_keyhash') => ({
  hex: '00',
  type,
  ...(address ? { address } : {}),
});

function tx(n: number, spends: (string | undefined)[], pays: (string | undefined)[], coinbase = false): Tx {
  return {
    txid: hash(n),
    hash: hash(n),
    size: 200,
    vsize: 150,
    weight: 600,
    vin: coinbase
      ? [{ coinbase: '03', sequence: 0 }]
      : spends.map((a, i) => ({
          txid: hash(1000 + n * 10 + i),
          vout: 0,
          sequence: 0,
          prevout: { generated: false, height: 1, value: 1, scriptPubKey: script(a) },
        })),
    vout: pays.map((a, i) => ({
      value: a === undefined ? 0 : 0.5,
      n: i,
      scriptPubKey: a === undefined ? script(undefined, 'nulldata') : script(a),
    })),
  };
}

function block(txs: Tx[]): BlockV2 {
  return {
    hash: hash(7),
    confirmations: 1,
    height: 7,
    version: 0x20000000,
    merkleroot: hash(0),
    time: 1_700_000_000,
    mediantime: 1_700_000_000,
    nonce: 0,
    bits: '207fffff',
    difficulty: 1,
    chainwork: '0e',
    nTx: txs.length,
    previousblockhash: hash(6),
    size: 1000,
    strippedsize: 800,
    weight: 4000,
    tx: txs,
  };
}

describe('Bitcoin block facts: addresses spent from and paid', () => {
  it('marks the addresses of the outputs spent as senders and the addresses only paid as recipients', () => {
    const facts = blockFacts(
      block([
        // The coinbase pays the miner (its input spends nothing).
        tx(0, [], ['miner'], true),
        // alice and bob spend; carol is paid, alice gets her change; an OP_RETURN output has no address.
        tx(1, ['alice', 'bob'], ['carol', 'alice', undefined]),
        // carol spends in the same block what she was just paid; dave is paid.
        tx(2, ['carol'], ['dave']),
      ]),
    );
    expect(Object.fromEntries(facts.addresses)).toEqual({
      miner: false,
      alice: true,
      bob: true,
      carol: true,
      dave: false,
    });
    const senders = [...facts.addresses].filter(([, spent]) => spent).map(([a]) => a);
    expect(senders.sort()).toEqual(['alice', 'bob', 'carol']);
    expect(facts.addresses.size).toBe(5);
  });
});
