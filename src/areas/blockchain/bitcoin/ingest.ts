import { StoppedError } from '../../../core/retry.js';
import { DAY, nowSeconds, startOfUtcDay } from '../../../core/time.js';
import type { JobContext } from '../../../jobs/types.js';
import { btcToSats } from '../../../sources/bitcoin/amounts.js';
import { BitcoinPrunedError } from '../../../sources/bitcoin/errors.js';
import type { BlockV2 } from '../../../sources/bitcoin/schemas.js';
import type { BitcoinSource } from '../../../sources/bitcoin/source.js';
import { BITCOIN_INGEST_KEY, BitcoinRepository, type BlockBatch, type IngestCheckpoint } from './repo.js';
import type { BtcBlockTable } from './tables.js';

/**
 * Reads Bitcoin Core into facts: per block (`getblockhash`, `getblock <hash> 3`, `getblockstats`) its counts, fees
 * (Core's `totalfee`; per transaction fee and weight), script types and the addresses of its outputs and of the
 * outputs it spends (each address marked spent or only paid); the hash rate (`getnetworkhashps` over 144 and 2016 blocks) of each block that ends a UTC day
 * or a batch, the only blocks the daily records read it at (two calls a day instead of two a block); and at each
 * pass a mempool sample (`getmempoolinfo`).
 * - Start: the first block of the UTC day `lookbackSeconds` before the tip (found by bisection on header times), kept
 *   in the checkpoint; then in batches of `maxBlocksPerRun` blocks (`concurrency` read at once), each stored with
 *   its checkpoint in one transaction, until the tip or `passBudgetMs`.
 * - Reorganisations: the newest `finalityDepth` stored blocks are compared with the node's chain at every pass; from
 *   the first that differs, facts are removed and read again.
 * - A pruned block (its data gone from the node) is stored as missing: its day's summed figures are unknown
 *   (`source_error`), the others stay.
 * - A failing node: the failure is recorded (checkpoint `blockchain.bitcoin:error`) and the pass fails (the job
 *   runner retries); nothing stored changes.
 */
export interface BitcoinIngestOptions {
  /** A first pass starts at the start of the UTC day this long before the tip (the oldest published day). */
  readonly lookbackSeconds: number;
  readonly finalityDepth: number;
  /** Blocks stored per transaction (each batch commits with its checkpoint). */
  readonly maxBlocksPerRun: number;
  /** A pass goes on with further batches until the tip or this much time (ms) has passed. */
  readonly passBudgetMs: number;
  /** Blocks read at once (requests in flight). */
  readonly concurrency: number;
}

export const DEFAULT_BITCOIN_INGEST: BitcoinIngestOptions = {
  lookbackSeconds: 6 * DAY,
  finalityDepth: 6,
  maxBlocksPerRun: 200,
  passBudgetMs: 20_000,
  concurrency: 4,
};

/** Core's script type names → the mix's names. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  pubkey: 'p2pk',
  pubkeyhash: 'p2pkh',
  scripthash: 'p2sh',
  multisig: 'p2ms',
  nulldata: 'op_return',
  witness_v0_keyhash: 'p2wpkh',
  witness_v0_scripthash: 'p2wsh',
  witness_v1_taproot: 'p2tr',
  anchor: 'p2a',
  witness_unknown: 'witness_unknown',
  nonstandard: 'nonstandard',
};
const typeName = (t: string) => TYPE_NAMES[t] ?? 'nonstandard';

/** The facts of one `getblock 3` reply. */
export function blockFacts(block: BlockV2): {
  txFees: [number, number][];
  typeMix: { outputs: Record<string, number>; inputs: Record<string, number> };
  /** Every address the block's transactions paid or spent from → whether they spent from it. */
  addresses: Map<string, boolean>;
} {
  const txFees: [number, number][] = [];
  const outputs: Record<string, number> = {};
  const inputs: Record<string, number> = {};
  const addresses = new Map<string, boolean>();
  for (const [i, tx] of block.tx.entries()) {
    let valueOut = 0;
    for (const out of tx.vout) {
      valueOut += btcToSats(out.value);
      const t = typeName(out.scriptPubKey.type);
      outputs[t] = (outputs[t] ?? 0) + 1;
      const paid = out.scriptPubKey.address;
      if (paid && !addresses.has(paid)) addresses.set(paid, false);
    }
    if (i === 0) continue;
    let valueIn = 0;
    for (const input of tx.vin) {
      const prev = input.prevout;
      if (!prev) throw new Error(`block ${block.hash}: getblock 3 without prevout (a node without undo data)`);
      valueIn += btcToSats(prev.value);
      const t = typeName(prev.scriptPubKey.type);
      inputs[t] = (inputs[t] ?? 0) + 1;
      if (prev.scriptPubKey.address) addresses.set(prev.scriptPubKey.address, true);
    }
    txFees.push([tx.fee !== undefined ? btcToSats(tx.fee) : valueIn - valueOut, tx.weight]);
  }
  return { txFees, typeMix: { outputs, inputs }, addresses };
}

export class BitcoinIngest {
  constructor(
    private readonly source: BitcoinSource,
    private readonly options: BitcoinIngestOptions = DEFAULT_BITCOIN_INGEST,
  ) {}

  async run(ctx: JobContext): Promise<string> {
    const repo = new BitcoinRepository(ctx.store.db);
    try {
      return await this.pass(ctx, repo);
    } catch (err) {
      if (!(err instanceof StoppedError)) {
        await repo.recordError((err as Error).message, nowSeconds(ctx.clock));
      }
      throw err;
    }
  }

  private async pass(ctx: JobContext, repo: BitcoinRepository): Promise<string> {
    const started = Date.now();
    const parts: string[] = [];
    for (;;) {
      const batch = await this.batch(ctx, repo);
      parts.push(batch.summary);
      if (batch.caughtUp) break;
      if (Date.now() - started > this.options.passBudgetMs) {
        // Behind the tip on the budget: the next pass starts at once (a backfill is not held up by the schedule).
        ctx.moreToDo?.();
        break;
      }
    }
    return parts.length > 1 ? `${parts.length} batches: ${parts[0]} … ${parts[parts.length - 1]}` : parts[0]!;
  }

  /** One batch: reorganisation check, up to `maxBlocksPerRun` blocks, a mempool sample, one transaction. */
  private async batch(ctx: JobContext, repo: BitcoinRepository): Promise<{ summary: string; caughtUp: boolean }> {
    const source = this.source;
    const info = await source.blockchainInfo();
    const tip = info.blocks;
    const saved = await repo.checkpoint<IngestCheckpoint>(BITCOIN_INGEST_KEY);
    let next = saved?.next ?? (await this.startHeight(tip));
    let rewindTo: number | undefined;
    for (const stored of (await repo.recentBlocks(this.options.finalityDepth)).reverse()) {
      if (stored.height > tip || (await source.blockHash(stored.height)) !== stored.hash) {
        rewindTo = stored.height;
        next = Math.min(next, stored.height);
        break;
      }
    }
    const end = Math.min(tip, next + this.options.maxBlocksPerRun - 1);
    const blocks: BtcBlockTable[] = [];
    const addresses: BlockBatch['addresses'][number][] = [];
    const missing: BlockBatch['missing'][number][] = [];
    const heights = Array.from({ length: Math.max(0, end - next + 1) }, (_, i) => next + i);
    for (let i = 0; i < heights.length; i += this.options.concurrency) {
      if (ctx.signal.aborted) throw new StoppedError('bitcoin ingest');
      const read = await Promise.all(heights.slice(i, i + this.options.concurrency).map((h) => this.readBlock(h)));
      for (const r of read) {
        if ('missing' in r) missing.push(r.missing);
        else {
          blocks.push(r.row);
          for (const [address, spent] of r.addresses) {
            addresses.push({ height: r.row.height, address, spent: spent ? 1 : 0 });
          }
        }
      }
    }
    // The hash rate at each block that ends a UTC day in this batch or ends the batch (a later batch's last block of
    // the same day gets its own): what the daily records read (the day's last block).
    const ends = blocks.filter(
      (b, i) => i === blocks.length - 1 || Math.floor(blocks[i + 1]!.time / DAY) !== Math.floor(b.time / DAY),
    );
    for (let i = 0; i < ends.length; i += this.options.concurrency) {
      await Promise.all(
        ends.slice(i, i + this.options.concurrency).map(async (b) => {
          [b.hashrate_144, b.hashrate_2016] = await Promise.all([
            source.networkHashPs(144, b.height),
            source.networkHashPs(2016, b.height),
          ]);
        }),
      );
    }
    const now = nowSeconds(ctx.clock);
    const pool = await source.mempoolInfo();
    await repo.save(
      {
        blocks,
        addresses,
        missing,
        mempool: {
          time: now,
          size: pool.size,
          bytes: pool.bytes,
          totalFee: pool.total_fee === undefined ? null : BigInt(btcToSats(pool.total_fee)),
        },
        checkpoint: { next: end + 1, at: now },
      },
      now,
      rewindTo,
    );
    const read = end - next + 1;
    const summary = `${read > 0 ? `blocks ${next}–${end}` : 'no new block'} (tip ${tip})${
      rewindTo !== undefined ? `, reorganisation from ${rewindTo}` : ''
    }${missing.length ? `, ${missing.length} pruned` : ''}; mempool ${pool.size} transactions`;
    return { summary, caughtUp: end >= tip };
  }

  private async readBlock(
    h: number,
  ): Promise<{ missing: BlockBatch['missing'][number] } | { row: BtcBlockTable; addresses: Map<string, boolean> }> {
    const source = this.source;
    const hash = await source.blockHash(h);
    let block: BlockV2;
    let stats: Awaited<ReturnType<BitcoinSource['blockStats']>>;
    try {
      block = await source.block(hash, 3);
      stats = await source.blockStats(hash);
    } catch (err) {
      if (!(err instanceof BitcoinPrunedError)) throw err;
      const header = await source.blockHeader(hash);
      return { missing: { height: h, hash, time: header.time, reason: 'source_error' } };
    }
    const facts = blockFacts(block);
    return {
      row: {
        height: h,
        hash,
        prev_hash: block.previousblockhash ?? '',
        time: block.time,
        tx_count: block.tx.length,
        size: block.size,
        weight: block.weight,
        total_fee_sat: String(stats.totalfee),
        difficulty: block.difficulty,
        chainwork: block.chainwork,
        // Read for the blocks that end a day or the batch (run).
        hashrate_144: null,
        hashrate_2016: null,
        tx_fees: JSON.stringify(facts.txFees),
        type_mix: JSON.stringify(facts.typeMix),
        stats_from: source.computesBlockStats ? 'getblock' : 'getblockstats',
        address_roles: 1,
      },
      addresses: facts.addresses,
    };
  }

  /**
   * The lowest height whose block is not older than the start of the UTC day `lookbackSeconds` before the tip
   * (bisection on header times), so that the oldest published day is whole.
   */
  private async startHeight(tip: number): Promise<number> {
    const timeOf = async (h: number) => (await this.source.blockHeader(await this.source.blockHash(h))).time;
    const from = startOfUtcDay((await timeOf(tip)) - this.options.lookbackSeconds);
    let lo = 0;
    let hi = tip;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await timeOf(mid)) >= from) hi = mid;
      else lo = mid + 1;
    }
    // One block earlier: the first day's first interval needs its predecessor.
    return Math.max(0, lo - 1);
  }
}
