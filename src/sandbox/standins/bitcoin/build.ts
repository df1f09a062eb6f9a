import { Block, crypto, script, Transaction } from 'bitcoinjs-lib';

/**
 * Assembling real blocks: a coinbase with the BIP34 height and the segwit witness commitment (BIP141: an OP_RETURN
 * output `aa21a9ed` + hash256(witness merkle root ‖ reserved value), the reserved value as the coinbase input's
 * witness), the merkle root, and proof of work: the nonce is counted up from 0 until the header's hash meets the
 * target of its bits, as Bitcoin Core's `generateblock` does on regtest.
 */
export const REGTEST_BITS = 0x207fffff;
const ZERO32 = new Uint8Array(32);
const WITNESS_HEADER = Uint8Array.from([0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]);

/** The BIP34 height push of a coinbase script (OP_1…OP_16 for 1–16, as Core's `CScript() << nHeight`). */
export function heightPush(height: number): Uint8Array {
  if (height === 0) return Uint8Array.of(0x00);
  if (height <= 16) return Uint8Array.of(0x50 + height);
  const n = script.number.encode(height);
  return Uint8Array.from([n.length, ...n]);
}

export interface CoinbaseSpec {
  readonly height: number;
  /** Satoshis: subsidy + fees. */
  readonly value: number;
  readonly payTo: Uint8Array;
  /** Extra bytes after the height in the coinbase script (default `01 01`, an extra-nonce push as Core's miner). */
  readonly extra?: Uint8Array;
}

export function coinbase(spec: CoinbaseSpec): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  const scriptSig = Uint8Array.from([...heightPush(spec.height), ...(spec.extra ?? Uint8Array.of(0x01, 0x01))]);
  tx.addInput(ZERO32, 0xffffffff, 0xffffffff, scriptSig);
  tx.addOutput(spec.payTo, BigInt(spec.value));
  tx.setWitness(0, [ZERO32]);
  return tx;
}

/** A mined block of `txs` (coinbase first, without its commitment output yet) on `prevHash` (internal byte order). */
export function mineBlock(options: {
  readonly prevHash: Uint8Array;
  readonly time: number;
  readonly txs: Transaction[];
  readonly bits?: number;
  readonly version?: number;
  /** A given nonce instead of mining (rebuilding recorded blocks). */
  readonly nonce?: number;
}): Block {
  const txs = options.txs;
  const cb = txs[0]!;
  // Witness commitment: the witness merkle root (the coinbase's wtxid counts as zero) with the reserved value.
  const witnessRoot = merkleRoot(txs.map((t, i) => (i === 0 ? ZERO32 : t.getHash(true))));
  const commitment = crypto.hash256(Uint8Array.from([...witnessRoot, ...ZERO32]));
  cb.addOutput(Uint8Array.from([...WITNESS_HEADER, ...commitment]), 0n);
  const block = new Block();
  block.version = options.version ?? 0x20000000;
  block.prevHash = options.prevHash;
  block.timestamp = options.time;
  block.bits = options.bits ?? REGTEST_BITS;
  block.transactions = txs;
  block.merkleRoot = Block.calculateMerkleRoot(txs);
  block.witnessCommit = commitment;
  block.nonce = options.nonce ?? 0;
  if (options.nonce === undefined) while (!block.checkProofOfWork()) block.nonce++;
  return block;
}

/** Bitcoin's merkle root of hashes (internal byte order; an odd level repeats its last hash). */
export function merkleRoot(hashes: readonly Uint8Array[]): Uint8Array {
  if (!hashes.length) throw new Error('merkle root of nothing');
  let level = [...hashes];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i]!;
      const b = level[i + 1] ?? a;
      next.push(crypto.hash256(Uint8Array.from([...a, ...b])));
    }
    level = next;
  }
  return level[0]!;
}
