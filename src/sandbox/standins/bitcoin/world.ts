import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Transaction } from 'bitcoinjs-lib';
import { DAY, HOUR, startOfUtcDay } from '../../../core/time.js';
import { blockSubsidy } from '../../../sources/bitcoin/blockstats.js';
import { streamRng } from '../base/generate.js';
import { coinbase, mineBlock } from './build.js';
import { BitcoinChain, type BlockEntry, type Coin, REGTEST } from './chain.js';
import { type Key, type KeyType, makeKey, type SpentCoin, signAll } from './wallet.js';

/**
 * The stand-in's Bitcoin world: a regtest chain of real blocks generated from the seed, ending at the clock's "now"
 * and growing as time passes.
 *
 * - Calendar: the genesis block an hour before the start of the UTC day `days` days ago; 110 bootstrap blocks 30 s
 *   apart in that hour mature the first coinbase outputs (100 confirmations); then blocks at exponential intervals
 *   of mean 600 s (seeded per height, clamped to 1 s…2 h), as long as their time is not after "now".
 * - Traffic: `USERS` users (70 % P2WPKH, 25 % P2PKH, 5 % P2TR, key path: Schnorr signing costs five ECDSA ones), a mining pool that pays its matured
 *   coinbase out to 24 users every third block, and user payments: per block a Poisson number of transactions
 *   (mean `TX_PER_BLOCK` × the hour's activity: quiet from 00:00 to 06:00 UTC, busy from 12:00 to 21:00), bursts
 *   (a seeded 15 % of 4-hour windows: ×3 transactions at ×3 fee rates), fee rates lognormal around 4 sat/vB;
 *   each payment spends one or two confirmed coins of its sender to one or two recipients, with change.
 * - Mempool: the next block's transactions, each with an arrival time between the two blocks; those arrived by "now"
 *   are the mempool (`getmempoolinfo`).
 * - Persistence: blocks are appended to `<dataDir>/sandbox/bitcoin/blocks.dat` (length-prefixed raw blocks) with
 *   `meta.json` (seed and calendar); a second start connects the saved blocks (checking them again) and continues
 *   where the clock now is. Block h depends only on the seed and the chain before it, so the continuation is the
 *   one a single run would have made.
 */
export const USERS = 160;
export const TX_PER_BLOCK = 2.5;
const BOOTSTRAP_BLOCKS = 110;
const BOOTSTRAP_SPACING = 30;
const PAYOUTS = 24;

export interface BitcoinWorldOptions {
  readonly seed: number;
  /** Unix seconds: the first start's "now" (the calendar is fixed from it). */
  readonly nowSeconds: number;
  readonly days: number;
  /** Where the chain is kept; none: memory only. */
  readonly dir?: string;
}

interface Meta {
  readonly version: 1;
  readonly seed: number;
  readonly genesisTime: number;
}

export interface MempoolTx {
  readonly tx: Transaction;
  readonly arrival: number;
  readonly fee: number;
  readonly vsize: number;
}

const typeOf = (i: number): KeyType => (i % 20 < 14 ? 'p2wpkh' : i % 20 < 19 ? 'p2pkh' : 'p2tr');

/** Activity of the UTC hour (quiet nights, busy afternoons). */
function hourFactor(time: number): number {
  const hour = Math.floor((time % DAY) / HOUR);
  return hour < 6 ? 0.3 : hour < 12 ? 1 : hour < 21 ? 1.5 : 0.8;
}

export class BitcoinWorld {
  readonly chain = new BitcoinChain(REGTEST);
  readonly pool: Key;
  readonly users: Key[];
  private readonly owner = new Map<string, number>();
  /** Each owner's confirmed coins, in the order they were created (owner -1: the pool). */
  private readonly coins = new Map<number, Map<string, Coin>>();
  private pending: { height: number; time: number; txs: MempoolTx[] } | undefined;
  private readonly file: string | undefined;

  private constructor(
    readonly seed: number,
    readonly genesisTime: number,
    dir: string | undefined,
  ) {
    this.pool = makeKey(seed, 'pool', 'p2wpkh');
    this.users = Array.from({ length: USERS }, (_, i) => makeKey(seed, `user/${i}`, typeOf(i)));
    this.owner.set(hex(this.pool.script), -1);
    for (const [i, u] of this.users.entries()) this.owner.set(hex(u.script), i);
    this.chain.onCoin = (event, key, coin) => {
      const who = this.owner.get(hex(coin.script));
      if (who === undefined) return;
      let mine = this.coins.get(who);
      if (!mine) {
        mine = new Map();
        this.coins.set(who, mine);
      }
      if (event === 'add') mine.set(key, coin);
      else mine.delete(key);
    };
    this.file = dir ? path.join(dir, 'blocks.dat') : undefined;
  }

  /** Opens the saved world in `dir` (if any) or makes a new one, and brings it to `nowSeconds`. */
  static open(options: BitcoinWorldOptions): BitcoinWorld {
    const metaFile = options.dir ? path.join(options.dir, 'meta.json') : undefined;
    let meta: Meta | undefined;
    if (metaFile && existsSync(metaFile)) {
      try {
        meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Meta;
      } catch {
        meta = undefined;
      }
    }
    if (meta?.version !== 1) {
      meta = {
        version: 1,
        seed: options.seed,
        genesisTime: startOfUtcDay(options.nowSeconds) - options.days * DAY - HOUR,
      };
      if (options.dir && metaFile) {
        mkdirSync(options.dir, { recursive: true });
        writeFileSync(path.join(options.dir, 'blocks.dat'), new Uint8Array());
        writeFileSync(metaFile, `${JSON.stringify(meta)}\n`);
      }
    }
    const world = new BitcoinWorld(meta.seed, meta.genesisTime, options.dir);
    if (world.file && existsSync(world.file)) world.load(readFileSync(world.file));
    world.advance(options.nowSeconds);
    return world;
  }

  private load(data: Uint8Array): void {
    let offset = 0;
    while (offset + 4 <= data.length) {
      const length = Buffer.from(data.buffer, data.byteOffset + offset, 4).readUInt32LE(0);
      if (offset + 4 + length > data.length) break; // a block cut short by a crash: made again
      this.chain.connect(data.subarray(offset + 4, offset + 4 + length), true);
      offset += 4 + length;
    }
  }

  /** The time block `height` has on the calendar. */
  blockTime(height: number): number {
    if (height <= BOOTSTRAP_BLOCKS) return this.genesisTime + height * BOOTSTRAP_SPACING;
    const prev = this.chain.entry(height - 1)?.time ?? this.blockTime(height - 1);
    const rng = streamRng(this.seed, 'bitcoin', 'interval', height);
    return prev + Math.min(7200, Math.max(1, Math.round(rng.exponential(600))));
  }

  /** Mines every block whose time has come. Returns the blocks added. */
  advance(nowSeconds: number): BlockEntry[] {
    const added: BlockEntry[] = [];
    const buffers: Uint8Array[] = [];
    for (;;) {
      const height = this.chain.height + 1;
      const time = height === 0 ? this.genesisTime : (this.pending?.time ?? this.blockTime(height));
      if (time > nowSeconds) break;
      const block = this.makeBlock(height, time);
      const raw = block.toBuffer();
      added.push(this.chain.connect(raw));
      this.pending = undefined;
      const prefix = Buffer.alloc(4);
      prefix.writeUInt32LE(raw.length, 0);
      buffers.push(prefix, raw);
    }
    if (this.file && buffers.length) appendFileSync(this.file, Buffer.concat(buffers));
    return added;
  }

  /** Transactions of the next block that have arrived by `nowSeconds`. */
  mempool(nowSeconds: number): MempoolTx[] {
    const next = this.pendingBlock();
    return next.txs.filter((t) => t.arrival <= nowSeconds);
  }

  private pendingBlock() {
    const height = this.chain.height + 1;
    if (this.pending?.height !== height) {
      const time = this.blockTime(height);
      this.pending = { height, time, txs: height > BOOTSTRAP_BLOCKS ? this.traffic(height, time) : [] };
    }
    return this.pending;
  }

  private makeBlock(height: number, time: number) {
    if (height === 0) {
      const cb = coinbase({ height: 0, value: 5_000_000_000, payTo: this.pool.script, extra: GENESIS_TEXT });
      return mineBlock({ prevHash: new Uint8Array(32), time, txs: [cb], version: 1 });
    }
    const txs = this.pendingBlock().txs;
    const fees = txs.reduce((s, t) => s + t.fee, 0);
    const cb = coinbase({
      height,
      value: blockSubsidy(height, this.chain.params.halvingInterval) + fees,
      payTo: this.pool.script,
    });
    return mineBlock({ prevHash: this.chain.tip!.block.getHash(), time, txs: [cb, ...txs.map((t) => t.tx)] });
  }

  private keyOf(owner: number): Key {
    return owner < 0 ? this.pool : this.users[owner]!;
  }

  /** The transactions of block `height` (sent between the previous block and `time`). */
  private traffic(height: number, time: number): MempoolTx[] {
    const rng = streamRng(this.seed, 'bitcoin', 'traffic', height);
    const window = Math.floor(time / (4 * HOUR));
    const burst = streamRng(this.seed, 'bitcoin', 'burst', window).chance(0.15) ? 3 : 1;
    const prevTime = this.chain.tip!.time;
    const used = new Set<string>();
    const out: MempoolTx[] = [];
    const send = (owner: number, picked: [string, Coin][], recipients: { key: Key; share: number }[], rate: number) => {
      const sender = this.keyOf(owner);
      const total = picked.reduce((s, [, c]) => s + c.value, 0);
      const vsize =
        11 +
        picked.length * sender.inputVbytes +
        recipients.reduce((s, r) => s + r.key.outputVbytes, 0) +
        sender.outputVbytes;
      const fee = Math.ceil(rate * vsize);
      const tx = new Transaction();
      tx.version = 2;
      for (const [key] of picked) {
        const [txid, vout] = key.split(':') as [string, string];
        tx.addInput(Uint8Array.from(Buffer.from(txid, 'hex').reverse()), Number(vout), 0xfffffffd);
      }
      let paid = 0;
      for (const r of recipients) {
        const value = Math.floor((total - fee) * r.share);
        if (value < 1000) return;
        tx.addOutput(r.key.script, BigInt(value));
        paid += value;
      }
      const change = total - fee - paid;
      if (change < 0) return;
      if (change >= 1000) tx.addOutput(sender.script, BigInt(change));
      const actualFee = total - paid - (change >= 1000 ? change : 0);
      signAll(
        tx,
        picked.map(([, c]): SpentCoin => ({ key: sender, value: c.value })),
      );
      for (const [key] of picked) used.add(key);
      out.push({ tx, arrival: 0, fee: actualFee, vsize: tx.virtualSize() });
    };

    // The pool pays out a matured coinbase every third block.
    if (height % 3 === 0) {
      let mature: [string, Coin] | undefined;
      for (const entry of this.coins.get(-1) ?? []) {
        const [key, c] = entry;
        if (used.has(key) || (c.coinbase && height - c.height < this.chain.params.coinbaseMaturity)) continue;
        mature = entry;
        break;
      }
      if (mature) {
        const recipients = Array.from({ length: PAYOUTS }, () => ({
          key: this.users[rng.int(USERS)]!,
          share: 0.9 / PAYOUTS,
        }));
        send(-1, [mature], recipients, 2 + rng.int(3));
      }
    }
    const count = rng.poisson(TX_PER_BLOCK * hourFactor(time) * burst);
    for (let n = 0; n < count; n++) {
      const owner = rng.int(USERS);
      const want = rng.chance(0.25) ? 2 : 1;
      const picked: [string, Coin][] = [];
      for (const entry of this.coins.get(owner) ?? []) {
        if (picked.length === want) break;
        if (!used.has(entry[0])) picked.push(entry);
      }
      if (!picked.length) continue;
      const recipients = [{ key: this.users[rng.int(USERS)]!, share: rng.uniform(0.05, 0.6) }];
      if (rng.chance(0.1)) recipients.push({ key: this.users[rng.int(USERS)]!, share: rng.uniform(0.05, 0.3) });
      const rate = Math.max(1, Math.round(rng.logNormal(4, 0.6) * burst * 10) / 10);
      send(owner, picked, recipients, rate);
    }
    const arrivals = out
      .map(() => prevTime + 1 + Math.floor(rng.next() * Math.max(1, time - prevTime)))
      .sort((a, b) => a - b);
    return out.map((t, i) => ({ ...t, arrival: Math.min(arrivals[i]!, time) }));
  }
}

const GENESIS_TEXT = Uint8Array.from([26, ...Buffer.from('protoscore sandbox regtest', 'utf8')]);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
