import { ServiceError } from '../../../core/errors.js';
import { nowSeconds, utcDate } from '../../../core/time.js';
import type { JobContext } from '../../../jobs/types.js';
import type { BeaconEndpoint } from '../../../sources/beacon/endpoint.js';
import type { EvmChains } from '../../../sources/evm/chains.js';
import { type FullBlock, type FullReceipt, isNotAvailable } from '../../../sources/evm/full-blocks.js';
import type { EvmSource } from '../../../sources/evm/source.js';
import { ingestStart } from '../../kit/ingest-start.js';
import { blockFact } from './block-facts.js';
import type { BlockFact, NetworkSample, ValidatorSnapshot } from './facts.js';
import { BlockchainRepository, HISTORY_SECONDS, START_LOOKBACK_SECONDS, startKey } from './repo.js';
import type { EvmChainTarget } from './targets.js';

/**
 * The blockchain area's reads of an EVM chain:
 * - blocks: every block from the ingestion start (the same look-back on every chain: the start of the oldest
 *   published day, `START_LOOKBACK_SECONDS`) to the head, with transactions and receipts, turned into one `BlockFact` each and committed in batches with the
 *   checkpoint (one transaction per batch). A run reads at most `maxBlocksPerRun` blocks, so a backfill (≈65,000
 *   blocks for 9 days of Ethereum, ≈390,000 for OP, ≈3 M for Arbitrum at 4 blocks a second) spreads over runs.
 *   Reorgs: the stored top block is compared with the node's block of the same number; on a mismatch the stored
 *   blocks are walked back (down to the chain's final block) to the newest one still on the chain, and everything
 *   above it is rolled back and read again. A batch whose first block does not extend the stored top fails the run
 *   (retryable): the next run's check finds the fork;
 * - a network sample (at most once a minute): the `latest`, `safe` and `finalized` blocks, `txpool_status`, the next block's blob base fee
 *   (`eth_feeHistory`) and, for Ethereum with a beacon API, the finality checkpoints and (once per UTC day) the
 *   validators by status (counted with bounded memory; a failed read is tried again an hour later, not at every
 *   sample). A part the node lacks is recorded as unavailable (a gap), never as zero; a node that does
 *   not answer at all stores no sample (the day keeps its earlier ones).
 */
/** Receipts asked in one round of batched calls, at most (whole blocks; bounds the answer's size). */
const RECEIPTS_PER_CALL = 4000;

/** After a failed validator read (a provider refusing the registry), the next try waits this long. */
export const VALIDATOR_RETRY_SECONDS = 3600;

/** A network sample at most this often (a day's record is its last sample; samples are kept for the history). */
export const SAMPLE_SECONDS = 60;

export interface BlockchainIngestOptions {
  /** Blocks per batch (one `eth_getBlockByNumber` and one `eth_getBlockReceipts` per block, batched). Default 20. */
  readonly batchSize?: number;
  /** Blocks read per run at most (default 2,000). */
  readonly maxBlocksPerRun?: number;
  /** Stored facts older than this are pruned (default `HISTORY_SECONDS`). */
  readonly historySeconds?: number;
}

export class BlockchainIngest {
  private readonly batchSize: number;
  private readonly maxBlocksPerRun: number;
  private readonly historySeconds: number;

  constructor(
    private readonly evm: EvmChains,
    private readonly beacon: BeaconEndpoint | undefined,
    options: BlockchainIngestOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 20;
    this.maxBlocksPerRun = options.maxBlocksPerRun ?? 2000;
    this.historySeconds = options.historySeconds ?? HISTORY_SECONDS;
  }

  /** Reads new blocks, then takes a network sample; returns the run's summary. */
  async run(ctx: JobContext, target: EvmChainTarget): Promise<string> {
    const blocks = await this.blocks(ctx, target);
    const sample = await this.sample(ctx, target);
    return `${target.chain}: ${blocks}; ${sample}`;
  }

  private async blocks(ctx: JobContext, target: EvmChainTarget): Promise<string> {
    const source = this.evm.source(target.chain);
    const repo = new BlockchainRepository(ctx.store.db);
    const now = () => nowSeconds(ctx.clock);
    const start = await ingestStart(ctx, source, startKey(target.chain), {
      startBlocks: [],
      lookbackSeconds: START_LOOKBACK_SECONDS,
      fromUtcDayStart: true,
    });
    let reorged = '';
    const rolledBack = await this.checkReorg(source, repo, target, now());
    if (rolledBack !== undefined) reorged = ` (reorg: rolled back from block ${rolledBack})`;
    const head = await source.blockNumber();
    let top = await repo.lastBlock(target.chain);
    const from = top ? top.number + 1 : start.block;
    const to = Math.min(head, from + this.maxBlocksPerRun - 1);
    let stored = 0;
    for (let lo = from; lo <= to; lo += this.batchSize) {
      if (ctx.signal.aborted) break;
      const numbers = Array.from({ length: Math.min(this.batchSize, to - lo + 1) }, (_, i) => lo + i);
      const fetched = await source.full.getBlocks(numbers);
      const list: FullBlock[] = [];
      for (const n of numbers) {
        const b = fetched.get(n);
        if (!b) throw new ServiceError(`${target.chain}: block ${n} is not on the node (head ${head})`, true);
        const parent = list.length ? list[list.length - 1]!.hash : top?.number === n - 1 ? top.hash : undefined;
        if (parent !== undefined && b.parentHash !== parent) {
          throw new ServiceError(
            `${target.chain}: block ${n} does not extend block ${n - 1} (a reorg while reading)`,
            true,
          );
        }
        list.push(b);
      }
      // Receipts in groups of at most RECEIPTS_PER_CALL transactions (one busy block alone may exceed it).
      const receipts = new Map<number, FullReceipt[]>();
      for (let i = 0; i < list.length; ) {
        const group = [list[i]!];
        let txs = list[i]!.transactionHashes.length;
        for (i++; i < list.length && txs + list[i]!.transactionHashes.length <= RECEIPTS_PER_CALL; i++) {
          txs += list[i]!.transactionHashes.length;
          group.push(list[i]!);
        }
        for (const [n, r] of await source.full.getReceipts(group)) receipts.set(n, r);
      }
      const facts: BlockFact[] = list.map((b) => blockFact(target.chain, target.kind, b, receipts.get(b.number)!));
      await repo.saveBlocks(target.chain, facts, now());
      const last = list[list.length - 1]!;
      top = { number: last.number, hash: last.hash, timestamp: last.timestamp };
      stored += list.length;
    }
    if (top) await repo.prune(target.chain, utcDate(top.timestamp - this.historySeconds));
    // Stopped at `maxBlocksPerRun` below the head: the next run starts at once.
    if (to < head && !ctx.signal.aborted) ctx.moreToDo?.();
    return stored
      ? `${stored} blocks ${from}–${from + stored - 1} of ${head}${reorged}`
      : `up to date at block ${top?.number ?? head}${reorged}`;
  }

  /** Rolls back stored blocks that left the chain; returns the first rolled-back block, if any. */
  private async checkReorg(
    source: EvmSource,
    repo: BlockchainRepository,
    target: EvmChainTarget,
    now: number,
  ): Promise<number | undefined> {
    const top = await repo.lastBlock(target.chain);
    if (!top) return undefined;
    const current = await source.getBlock(top.number, { fresh: true });
    if (current?.hash === top.hash) return undefined;
    // Walk back through the stored blocks above the final block (the node's `finalized` block or the finality depth
    // below the head, `EvmSource.finalBlock`) to the newest one still on the chain.
    const final = await source.finalBlock(await source.blockNumber());
    const stored = await repo.blocksFrom(target.chain, Math.max(0, Math.min(final.number, top.number)));
    const onChain = await source.getBlocks(
      stored.map((b) => b.number),
      { fresh: true },
    );
    let from = stored.length ? stored[stored.length - 1]!.number : top.number;
    for (const b of stored) {
      if (onChain.get(b.number)?.hash === b.hash) {
        from = b.number + 1;
        break;
      }
    }
    source.forgetBlocksFrom(from);
    await repo.rollbackFrom(target.chain, from, now);
    return from;
  }

  /** Whether the day's validator snapshot is still to take: none today, and no failed try within the retry wait. */
  private async validatorsDue(repo: BlockchainRepository, chain: string, takenAt: number): Promise<boolean> {
    const last = await repo.validatorRead(chain);
    if (last?.day === utcDate(takenAt)) return false;
    return (
      last?.failedAt === undefined || takenAt - last.failedAt >= VALIDATOR_RETRY_SECONDS || takenAt < last.failedAt
    );
  }

  private async sample(ctx: JobContext, target: EvmChainTarget): Promise<string> {
    const source = this.evm.source(target.chain);
    const repo = new BlockchainRepository(ctx.store.db);
    const takenAt = nowSeconds(ctx.clock);
    const last = await repo.lastSampleAt(target.chain);
    if (last !== null && takenAt >= last && takenAt - last < SAMPLE_SECONDS) return 'sampled less than a minute ago';
    const unavailable: Record<string, string> = {};
    // Without the head the node is not answering: no sample (the day keeps its earlier ones); the error propagates.
    const latest = await source.full.taggedBlock('latest');
    if (isNotAvailable(latest)) throw new ServiceError(latest.notAvailable, true);
    const tag = async (name: 'finalized' | 'safe') => {
      try {
        const b = await source.full.taggedBlock(name);
        if (!isNotAvailable(b)) return { number: b.number, timestamp: b.timestamp };
        unavailable[name] = b.notAvailable;
      } catch (err) {
        unavailable[name] = (err as Error).message;
      }
      return null;
    };
    const finalized = await tag('finalized');
    const safe = await tag('safe');
    let txpool: NetworkSample['txpool'] = null;
    try {
      const t = await source.full.txpoolStatus();
      if (isNotAvailable(t)) unavailable.txpool = t.notAvailable;
      else txpool = t;
    } catch (err) {
      unavailable.txpool = (err as Error).message;
    }
    let blobBaseFeeWei: string | null = null;
    try {
      const h = await source.full.feeHistory(1, 'latest');
      const next = h.baseFeePerBlobGas.at(-1);
      if (next === undefined) unavailable.blobBaseFee = `${target.chain}: eth_feeHistory without baseFeePerBlobGas`;
      else blobBaseFeeWei = String(next);
    } catch (err) {
      unavailable.blobBaseFee = (err as Error).message;
    }
    let beacon: NetworkSample['beacon'] = null;
    let validators: ValidatorSnapshot | null = null;
    let validatorsFailed = false;
    if (target.beacon && this.beacon) {
      const client = this.beacon.client;
      let headSlot: number | null = null;
      try {
        const f = await client.finality('head');
        headSlot = await client.headSlot();
        beacon = { finalizedEpoch: f.finalizedEpoch, justifiedEpoch: f.justifiedEpoch, headSlot };
      } catch (err) {
        unavailable.beacon = (err as Error).message;
        unavailable.validators = (err as Error).message;
      }
      if (headSlot !== null && (await this.validatorsDue(repo, target.chain, takenAt))) {
        // The day's snapshot, at the head slot: counted with bounded memory (BeaconClient.validatorCounts).
        try {
          const stateId = String(headSlot);
          const counts = await client.validatorCounts(stateId);
          validators = {
            stateId,
            slot: headSlot,
            byStatus: counts.byStatus,
            activeStakeGwei: counts.activeStakeGwei === null ? null : String(counts.activeStakeGwei),
            totalBalanceGwei: counts.totalBalanceGwei === null ? null : String(counts.totalBalanceGwei),
            countedBy: counts.countedBy,
          };
          if (counts.sumsUnavailable !== undefined) unavailable.validatorSums = counts.sumsUnavailable;
        } catch (err) {
          // A provider that refuses the registry (413, 429 or 5xx after the retries): the figures are null with
          // this reason, the rest of the sample stands, and the read is tried again after VALIDATOR_RETRY_SECONDS.
          unavailable.validators = (err as Error).message;
          validatorsFailed = true;
        }
      }
    }
    const sample: NetworkSample = {
      chain: target.chain,
      takenAt,
      head: { number: latest.number, timestamp: latest.timestamp, gasLimit: String(latest.gasLimit) },
      finalized,
      safe,
      txpool,
      blobBaseFeeWei,
      beacon,
      validators,
      unavailable,
    };
    await repo.saveSample(sample);
    if (validators) await repo.setValidatorDay(target.chain, utcDate(takenAt), takenAt);
    else if (validatorsFailed) await repo.setValidatorFailure(target.chain, takenAt);
    const gaps = Object.keys(unavailable);
    return `sampled${validators ? ' with validators' : ''}${gaps.length ? ` (unavailable: ${gaps.join(', ')})` : ''}`;
  }
}
