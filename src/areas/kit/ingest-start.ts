import { nowSeconds, startOfUtcDay } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import { blockAtOrBefore } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';

/** Where an area's ingestion of one chain starts: a block and its time (facts are complete from then on). */
export interface IngestStart {
  readonly block: number;
  /** Unix seconds of that block. */
  readonly timestamp: number;
}

export interface IngestStartOptions {
  /** Deployment blocks of the contracts read, where the address book knows them. */
  readonly startBlocks: readonly (number | undefined)[];
  /** Without every deployment block: start at the last block this long before the head's time. */
  readonly lookbackSeconds: number;
  /**
   * Reach back further, to the start of the UTC day that look-back falls in: for an area that publishes whole UTC
   * days, the oldest one is then complete without reading a longer look-back.
   */
  readonly fromUtcDayStart?: boolean;
}

/**
 * The first block to ingest, chosen once per (area, chain) and kept in the checkpoint `key`, so that a later run
 * never moves it: the oldest deployment block when every contract read has one, else the same look-back below the
 * head on every chain (production and sandbox alike).
 */
export async function ingestStart(
  ctx: JobContext,
  source: EvmSource,
  key: string,
  options: IngestStartOptions,
): Promise<IngestStart> {
  const saved = await readCheckpoint<{ block: number; timestamp?: number }>(ctx.store.db, key);
  if (saved?.timestamp !== undefined) return { block: saved.block, timestamp: saved.timestamp };
  let block = saved?.block;
  if (block === undefined) {
    const known = options.startBlocks.filter((b): b is number => b !== undefined);
    if (options.startBlocks.length > 0 && known.length === options.startBlocks.length) block = Math.min(...known);
    else {
      const head = await source.blockNumber();
      const headTime = (await source.getBlock(head))?.timestamp;
      if (headTime === undefined) throw new Error(`${source.chain.id}: head block ${head} is not on the node`);
      const from = headTime - options.lookbackSeconds;
      block = (await blockAtOrBefore(source, options.fromUtcDayStart ? startOfUtcDay(from) : from, 0, head)) ?? 0;
    }
  }
  const header = await source.getBlock(block);
  if (!header) throw new Error(`${source.chain.id}: block ${block} is not on the node`);
  const start = { block, timestamp: header.timestamp };
  await writeCheckpoint(ctx.store.db, key, start, nowSeconds(ctx.clock));
  return start;
}
