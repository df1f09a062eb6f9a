import { schnorr, secp256k1 } from '@noble/curves/secp256k1';
import { crypto, script, Transaction } from 'bitcoinjs-lib';

/**
 * The sandbox's Bitcoin users: one key each, deterministic from the seed, on one of three script types (P2WPKH,
 * P2PKH, P2TR key path), and how they sign: ECDSA (RFC 6979, low S) over the legacy or BIP143 sighash, Schnorr
 * (BIP340, zero auxiliary randomness so that the same seed gives the same bytes) over the BIP341 sighash with the
 * BIP341 key tweak.
 */
export type KeyType = 'p2wpkh' | 'p2pkh' | 'p2tr';

export interface Key {
  readonly type: KeyType;
  /** The signing key (for P2TR: the tweaked key). */
  readonly priv: Uint8Array;
  readonly pub: Uint8Array;
  readonly script: Uint8Array;
  /** Virtual bytes an input spending this script takes (for fee estimates). */
  readonly inputVbytes: number;
  /** Virtual bytes of an output to this script. */
  readonly outputVbytes: number;
}

const N = secp256k1.CURVE.n;
const toBytes32 = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const toBig = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString('hex')}`);

export function makeKey(seed: number, name: string, type: KeyType): Key {
  const d = toBig(crypto.sha256(Buffer.from(`protoscore/bitcoin/${seed}/${name}`))) % (N - 1n);
  const priv = toBytes32(d + 1n);
  const pub = secp256k1.getPublicKey(priv, true);
  if (type === 'p2wpkh') {
    const script = Uint8Array.from([0x00, 0x14, ...crypto.hash160(pub)]);
    return { type, priv, pub, script, inputVbytes: 68, outputVbytes: 31 };
  }
  if (type === 'p2pkh') {
    const script = Uint8Array.from([0x76, 0xa9, 0x14, ...crypto.hash160(pub), 0x88, 0xac]);
    return { type, priv, pub, script, inputVbytes: 148, outputVbytes: 34 };
  }
  // BIP341 key-path only: Q = P + H_TapTweak(P)·G with P the even-y internal key.
  const internal = secp256k1.ProjectivePoint.fromHex(pub);
  const even = pub[0] === 0x02;
  const dEven = even ? d + 1n : N - (d + 1n);
  const px = pub.subarray(1);
  const t = toBig(schnorr.utils.taggedHash('TapTweak', px)) % N;
  const P = even ? internal : internal.negate();
  const Q = P.add(secp256k1.ProjectivePoint.BASE.multiply(t));
  const qx = Q.toRawBytes(true).subarray(1);
  const tweaked = toBytes32((dEven + t) % N);
  return {
    type,
    priv: tweaked,
    pub: qx,
    script: Uint8Array.from([0x51, 0x20, ...qx]),
    inputVbytes: 58,
    outputVbytes: 43,
  };
}

export interface SpentCoin {
  readonly key: Key;
  readonly value: number;
}

const ZERO32 = new Uint8Array(32);

/** Signs every input of `tx` (input i spends `coins[i]`). */
export function signAll(tx: Transaction, coins: readonly SpentCoin[]): void {
  const taprootScripts = coins.map((c) => c.key.script);
  const values = coins.map((c) => BigInt(c.value));
  for (const [i, coin] of coins.entries()) {
    const key = coin.key;
    if (key.type === 'p2tr') {
      const hash = tx.hashForWitnessV1(i, taprootScripts, values, Transaction.SIGHASH_DEFAULT);
      tx.setWitness(i, [schnorr.sign(hash, key.priv, ZERO32)]);
      continue;
    }
    const pkh = Uint8Array.from([0x76, 0xa9, 0x14, ...crypto.hash160(key.pub), 0x88, 0xac]);
    const hash =
      key.type === 'p2wpkh'
        ? tx.hashForWitnessV0(i, pkh, values[i]!, Transaction.SIGHASH_ALL)
        : tx.hashForSignature(i, pkh, Transaction.SIGHASH_ALL);
    const sig = script.signature.encode(
      secp256k1.sign(hash, key.priv, { lowS: true }).toCompactRawBytes(),
      Transaction.SIGHASH_ALL,
    );
    if (key.type === 'p2wpkh') tx.setWitness(i, [sig, key.pub]);
    else tx.setInputScript(i, script.compile([sig, key.pub]));
  }
}
