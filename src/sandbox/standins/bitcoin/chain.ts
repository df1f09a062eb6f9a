import { Block, type Transaction } from 'bitcoinjs-lib';
import { satsToBtc } from '../../../sources/bitcoin/amounts.js';
import {
  blockSubsidy,
  computeBlockStats,
  isUnspendable,
  type StatsBlock,
} from '../../../sources/bitcoin/blockstats.js';
import type { BlockStats } from '../../../sources/bitcoin/schemas.js';
import { addressOf, classify } from './script.js';

/**
 * A Bitcoin block chain in memory, as a node keeps it: blocks connected in order (linked by hash, merkle roots and
 * witness commitments checked, proof of work checked against the header's bits), the UTXO set, and per block the
 * outputs its inputs spent (Core's undo data), which `getblock 3` and `getblockstats` need. The stand-in generates
 * its chain into it; the conformance test loads Bitcoin Core's own test blocks into it.
 */
export interface Coin {
  readonly value: number;
  readonly script: Uint8Array;
  readonly height: number;
  readonly coinbase: boolean;
}

export interface BlockEntry {
  readonly block: Block;
  readonly raw: Uint8Array;
  readonly hash: string;
  readonly height: number;
  readonly time: number;
  readonly mediantime: number;
  readonly chainwork: bigint;
  /** Per transaction, the coins its inputs spent (empty for the coinbase). */
  readonly undo: readonly (readonly Coin[])[];
}

export interface ChainParams {
  /** `getblockchaininfo.chain`. */
  readonly name: string;
  readonly halvingInterval: number;
  readonly coinbaseMaturity: number;
  /** Check each header's SHA-256d proof of work (off only for test data of forks with another PoW hash). */
  readonly checkProofOfWork: boolean;
}

export const REGTEST: ChainParams = {
  name: 'regtest',
  halvingInterval: 150,
  coinbaseMaturity: 100,
  checkProofOfWork: true,
};

export class ChainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainError';
  }
}

const outpoint = (txid: string, vout: number) => `${txid}:${vout}`;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** Hash bytes (internal order) → the hex a node prints (reversed). */
export const idOf = (hash: Uint8Array) => hex(Uint8Array.from(hash).reverse());

/** The work a header's target represents: 2^256 / (target + 1). */
export function workOf(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  const target = exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
  return (1n << 256n) / (target + 1n);
}

/** Difficulty as Core computes it from the bits (`GetDifficulty`). */
export function difficultyOf(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256.0;
    shift++;
  }
  while (shift > 29) {
    diff /= 256.0;
    shift--;
  }
  return diff;
}

export class BitcoinChain {
  readonly entries: BlockEntry[] = [];
  private readonly byHash = new Map<string, BlockEntry>();
  readonly utxos = new Map<string, Coin>();
  private readonly statsCache = new Map<string, BlockStats>();
  /** Called for every output added to and removed from the UTXO set (wallets follow their coins). */
  onCoin?: (event: 'add' | 'spend', key: string, coin: Coin) => void;

  constructor(readonly params: ChainParams = REGTEST) {}

  get height(): number {
    return this.entries.length - 1;
  }

  get tip(): BlockEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  entry(hashOrHeight: string | number): BlockEntry | undefined {
    return typeof hashOrHeight === 'number' ? this.entries[hashOrHeight] : this.byHash.get(hashOrHeight);
  }

  coin(txid: string, vout: number): Coin | undefined {
    return this.utxos.get(outpoint(txid, vout));
  }

  /**
   * Connects a block on the tip; throws `ChainError` for one a node would reject (as far as checked here).
   * `trusted`: blocks this process wrote itself (reloading them skips the proof of work and merkle checks).
   */
  connect(raw: Uint8Array, trusted = false): BlockEntry {
    const block = Block.fromBuffer(raw);
    const hash = block.getId();
    const height = this.entries.length;
    const tip = this.tip;
    const prev = idOf(block.prevHash!);
    if (tip ? prev !== tip.hash : prev !== '0'.repeat(64)) {
      throw new ChainError(`block ${hash}: previous block ${prev} is not the tip ${tip?.hash ?? '(none)'}`);
    }
    if (!trusted && this.params.checkProofOfWork && !block.checkProofOfWork())
      throw new ChainError(`block ${hash}: proof of work below its target`);
    const txs = block.transactions ?? [];
    if (!txs.length || !txs[0]!.isCoinbase()) throw new ChainError(`block ${hash}: no coinbase`);
    if (!trusted && !block.checkTxRoots())
      throw new ChainError(`block ${hash}: merkle root or witness commitment mismatch`);
    const times = this.entries.slice(-10).map((e) => e.time);
    times.push(block.timestamp);
    const mediantime = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    if (tip && block.timestamp <= tip.mediantime) throw new ChainError(`block ${hash}: time-too-old`);

    const undo: Coin[][] = [];
    let fees = 0;
    const added: [string, Coin][] = [];
    const spent: [string, Coin][] = [];
    for (const [i, tx] of txs.entries()) {
      const txid = tx.getId();
      if (i > 0) {
        const coins: Coin[] = [];
        let valueIn = 0;
        for (const input of tx.ins) {
          const key = outpoint(idOf(input.hash), input.index);
          const coin = this.utxos.get(key) ?? added.find(([k]) => k === key)?.[1];
          if (!coin) throw new ChainError(`block ${hash}: tx ${txid} spends missing ${key}`);
          if (coin.coinbase && height - coin.height < this.params.coinbaseMaturity) {
            throw new ChainError(`block ${hash}: tx ${txid} spends immature coinbase ${key}`);
          }
          if (spent.some(([k]) => k === key)) throw new ChainError(`block ${hash}: double spend of ${key}`);
          coins.push(coin);
          spent.push([key, coin]);
          valueIn += coin.value;
        }
        const valueOut = tx.outs.reduce((s, o) => s + Number(o.value), 0);
        if (valueOut > valueIn) throw new ChainError(`block ${hash}: tx ${txid} creates more than it spends`);
        fees += valueIn - valueOut;
        undo.push(coins);
      } else {
        undo.push([]);
      }
      // The genesis block's outputs are not spendable (Core never adds them to the UTXO set).
      if (height === 0) continue;
      for (const [n, out] of tx.outs.entries()) {
        if (isUnspendable(hex(out.script))) continue;
        added.push([outpoint(txid, n), { value: Number(out.value), script: out.script, height, coinbase: i === 0 }]);
      }
    }
    if (height > 0) {
      const claimed = txs[0]!.outs.reduce((s, o) => s + Number(o.value), 0);
      const allowed = blockSubsidy(height, this.params.halvingInterval) + fees;
      if (claimed > allowed) throw new ChainError(`block ${hash}: coinbase claims ${claimed} > ${allowed}`);
    }
    for (const [key, coin] of spent) {
      if (this.utxos.delete(key)) this.onCoin?.('spend', key, coin);
      else {
        // Spent in the block that created it: never reaches the set.
        const j = added.findIndex(([k]) => k === key);
        if (j >= 0) added.splice(j, 1);
      }
    }
    for (const [key, coin] of added) {
      this.utxos.set(key, coin);
      this.onCoin?.('add', key, coin);
    }
    const entry: BlockEntry = {
      block,
      raw,
      hash,
      height,
      time: block.timestamp,
      mediantime,
      chainwork: (tip?.chainwork ?? 0n) + workOf(block.bits),
      undo,
    };
    this.entries.push(entry);
    this.byHash.set(hash, entry);
    return entry;
  }

  statsInput(entry: BlockEntry): StatsBlock {
    const txs = entry.block.transactions ?? [];
    return {
      hash: entry.hash,
      height: entry.height,
      time: entry.time,
      mediantime: entry.mediantime,
      subsidy: blockSubsidy(entry.height, this.params.halvingInterval),
      txs: txs.map((tx, i) => ({
        coinbase: i === 0,
        totalSize: tx.byteLength(),
        weight: tx.weight(),
        hasWitness: tx.hasWitnesses(),
        outputs: tx.outs.map((o) => ({
          value: Number(o.value),
          scriptLength: o.script.length,
          unspendable: isUnspendable(hex(o.script)),
        })),
        prevouts: entry.undo[i]!.map((c) => ({ value: c.value, scriptLength: c.script.length })),
      })),
    };
  }

  /** `getblockstats` of a block (cached: blocks never change once connected). */
  stats(entry: BlockEntry): BlockStats {
    let stats = this.statsCache.get(entry.hash);
    if (!stats) {
      stats = computeBlockStats(this.statsInput(entry));
      this.statsCache.set(entry.hash, stats);
    }
    return stats;
  }

  /** Core's `GetNetworkHashPS`: chain work over the span of block times in the last `lookup` blocks. */
  networkHashPs(lookup: number, height: number): number {
    const tip = this.entries[height < 0 || height > this.height ? this.height : height];
    if (!tip) return 0;
    let n = lookup <= 0 ? (tip.height % 2016) + 1 : lookup;
    if (n > tip.height) n = tip.height;
    let minTime = tip.time;
    let maxTime = tip.time;
    let first = tip;
    for (let i = 0; i < n; i++) {
      first = this.entries[first.height - 1]!;
      minTime = Math.min(minTime, first.time);
      maxTime = Math.max(maxTime, first.time);
    }
    if (minTime === maxTime) return 0;
    return Number(tip.chainwork - first.chainwork) / (maxTime - minTime);
  }

  /** A transaction as `getblock 2/3` shows it (`prevouts`: verbosity 3). */
  txJson(tx: Transaction, undo: readonly Coin[], coinbase: boolean, prevouts: boolean): Record<string, unknown> {
    const vin = tx.ins.map((input, n) => {
      const witness = input.witness.length ? { txinwitness: input.witness.map(hex) } : {};
      if (coinbase) return { coinbase: hex(input.script), ...witness, sequence: input.sequence };
      const coin = undo[n]!;
      return {
        txid: idOf(input.hash),
        vout: input.index,
        scriptSig: { hex: hex(input.script) },
        ...witness,
        ...(prevouts
          ? {
              prevout: {
                generated: coin.coinbase,
                height: coin.height,
                value: satsToBtc(coin.value),
                scriptPubKey: scriptJson(coin.script),
              },
            }
          : {}),
        sequence: input.sequence,
      };
    });
    const fee = coinbase
      ? undefined
      : undo.reduce((s, c) => s + c.value, 0) - tx.outs.reduce((s, o) => s + Number(o.value), 0);
    return {
      txid: tx.getId(),
      hash: idOf(tx.getHash(true)),
      version: tx.version,
      size: tx.byteLength(),
      vsize: tx.virtualSize(),
      weight: tx.weight(),
      locktime: tx.locktime,
      vin,
      vout: tx.outs.map((o, n) => ({ value: satsToBtc(Number(o.value)), n, scriptPubKey: scriptJson(o.script) })),
      ...(fee === undefined ? {} : { fee: satsToBtc(fee) }),
      hex: hex(tx.toBuffer()),
    };
  }

  headerJson(entry: BlockEntry): Record<string, unknown> {
    const b = entry.block;
    const next = this.entries[entry.height + 1];
    return {
      hash: entry.hash,
      confirmations: this.height - entry.height + 1,
      height: entry.height,
      version: b.version,
      versionHex: (b.version >>> 0).toString(16).padStart(8, '0'),
      merkleroot: idOf(b.merkleRoot!),
      time: entry.time,
      mediantime: entry.mediantime,
      nonce: b.nonce,
      bits: (b.bits >>> 0).toString(16).padStart(8, '0'),
      difficulty: difficultyOf(b.bits),
      chainwork: entry.chainwork.toString(16).padStart(64, '0'),
      nTx: b.transactions?.length ?? 0,
      ...(entry.height > 0 ? { previousblockhash: idOf(b.prevHash!) } : {}),
      ...(next ? { nextblockhash: next.hash } : {}),
    };
  }

  blockJson(entry: BlockEntry, verbosity: 1 | 2 | 3): Record<string, unknown> {
    const b = entry.block;
    const txs = b.transactions ?? [];
    const { nextblockhash, previousblockhash, ...header } = this.headerJson(entry);
    return {
      ...header,
      strippedsize: b.byteLength(false, false),
      size: b.byteLength(false, true),
      weight: b.weight(),
      tx:
        verbosity === 1
          ? txs.map((t) => t.getId())
          : txs.map((t, i) => this.txJson(t, entry.undo[i]!, i === 0, verbosity === 3)),
      ...(previousblockhash ? { previousblockhash } : {}),
      ...(nextblockhash ? { nextblockhash } : {}),
    };
  }
}

export function scriptJson(script: Uint8Array): Record<string, unknown> {
  const type = classify(script);
  const address = addressOf(script, type);
  return { hex: hex(script), ...(address ? { address } : {}), type };
}
