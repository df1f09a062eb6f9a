import type { Transaction } from 'kysely';
import { hexToString, stringToHex } from 'viem';
import { DAY, nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/ingest.js';
import { ingest } from '../../jobs/evm/ingest.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import { type EvmSource, readCallsAt } from '../../sources/evm/source.js';
import type { EvmLog, Hex } from '../../sources/evm/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import type { Database } from '../../store/schema.js';
import { eachTarget } from '../kit/each-target.js';
import { ingestStart } from '../kit/ingest-start.js';
import { SnapshotSchedule } from '../kit/snapshot-schedule.js';
import { DOG_ABI, decodeStableEvent, decodeVatNote, ILK_REGISTRY_ABI, TOPICS, VAT_NOTE_TOPICS } from './events.js';
import type { StableEventFact } from './facts.js';
import { lower, readSnapshot, required, resolveLiquity, resolveMaker, ZERO } from './ingest-snapshot.js';
import { insertEvents, rollbackStable, StablecoinRepository } from './repo.js';
import type { StablecoinTarget } from './targets.js';

/**
 * Every read of the stablecoin area from the chain, turned into facts:
 * - `StableSink`, the EVM ingest engine's sink for one protocol, in two parts with checkpoints of their own:
 *   - `protocol`, from the entry point's deployment: the logs of the contracts it names (Maker: the Vat's LogNotes,
 *     Spot `Poke`, Dog `Bark`, the Clippers' `Kick`/`Take`/`Redo`; Liquity: `TroveUpdated` of the TroveManager and
 *     BorrowerOperations, `TroveLiquidated`, `Liquidation`, `Redemption`, the Stability Pool's balance, the
 *     PriceFeed's last good price);
 *   - `transfers`, the stablecoin's `Transfer`s, from `TRANSFER_LOOKBACK` before the first ingestion (or the
 *     deployment, when later): the published week's mints and burns need no more, and a complete replay from
 *     mainnet's deployments (DAI 2019, LUSD 2021) is hundreds of millions of logs. Holders, which need the whole
 *     replay, are served only when it explains the whole supply (the sandbox's worlds: it starts with them);
 *   decoded and inserted with ON CONFLICT DO NOTHING on (chain, block, log index). A run ingests the transfers first
 *   and the protocol's logs up to where they reached, so no snapshot is taken above the transfers read;
 * - state snapshots at the ingested head (at most every `SNAPSHOT_EVERY` of chain time) and at the last block of each
 *   of the 6 previous UTC days that has none (from the node's history), read with multicall (the reads:
 *   ingest-snapshot.ts).
 */

type Address = `0x${string}`;

/** A new head snapshot at most this often (chain time): a state read per 10 s job run would be wasted work. */
export const SNAPSHOT_EVERY = 300;
/** The stablecoin's transfers are read from this long before the first ingestion's head (at a UTC day's start): the 7 published days and one more. */
export const TRANSFER_LOOKBACK = 8 * 86_400;
/**
 * The stablecoin area's snapshot schedule (the kit's): the head every `SNAPSHOT_EVERY`, the last block of each of
 * the 6 previous UTC days without a snapshot (the 7-day history); a day the node has no state for is a gap, tried
 * again at the next run.
 */
const STABLECOIN_SNAPSHOTS = { everySeconds: SNAPSHOT_EVERY, days: 6, toleranceSeconds: DAY };

const read = readCallsAt;

// ---- The sink ----

/** The Vat notes the area replays (slip, flux and move move balances no figure reads, and are the most frequent). */
const VAT_NOTES_READ: readonly Hex[] = (
  ['init', 'file', 'fileIlk', 'frob', 'grab', 'fork', 'fold', 'suck', 'heal'] as const
).map((k) => VAT_NOTE_TOPICS[k]);

/** The engine's checkpoint of a protocol's facts on a chain (its `protocol` part). */
export const stableCheckpointKey = (chain: string, protocol: string) => `stablecoin:${chain}:${protocol}`;
/** The checkpoint of its `transfers` part (the stablecoin's `Transfer`s). */
export const stableTransfersKey = (chain: string, protocol: string) => `stablecoin:${chain}:${protocol}:transfers`;

/** The two parts of a protocol's ingestion (see the top of this file). */
export type StablePart = 'protocol' | 'transfers';

/** The contracts whose logs a protocol's sink reads (resolved from the entry point at the head, each run). */
export interface LogSources {
  readonly vat?: Address;
  /** Each of the area's ordinary events, by emitting contract (the stablecoin's token apart). */
  readonly events: readonly Address[];
  /** The stablecoin (its `Transfer`s: the `transfers` part). */
  readonly token: Address;
}

export class StableSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;
  private readonly vat: Address | undefined;

  constructor(
    private readonly target: StablecoinTarget,
    readonly startBlock: number,
    private readonly sources: LogSources,
    private readonly part: StablePart = 'protocol',
  ) {
    this.key = (part === 'protocol' ? stableCheckpointKey : stableTransfersKey)(target.chain, target.protocol);
    this.vat = sources.vat?.toLowerCase() as Address | undefined;
  }

  async queries(): Promise<LogQuery[]> {
    if (this.part === 'transfers') return [{ addresses: [this.token], topics: [[TOPICS.transfer]] }];
    const out: LogQuery[] = [];
    if (this.vat) out.push({ addresses: [this.vat], topics: [VAT_NOTES_READ] });
    const topics = Object.values(TOPICS);
    if (this.sources.events.length) out.push({ addresses: [...new Set(this.sources.events)], topics: [topics] });
    return out;
  }

  async apply(
    trx: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const events: StableEventFact[] = [];
    for (const log of logs[0] ?? []) {
      const block = ctx.blocks.get(Number(log.blockNumber));
      if (!block) throw new Error(`no block info for block ${log.blockNumber}`);
      const base = {
        chain: this.target.chain,
        protocol: this.target.protocol,
        blockNumber: Number(log.blockNumber),
        logIndex: Number(log.logIndex),
        txHash: (log.transactionHash ?? '').toLowerCase(),
        address: log.address.toLowerCase(),
        timestamp: block.timestamp,
      };
      if (this.vat && base.address === this.vat) {
        const note = decodeVatNote(log);
        if (note) events.push({ ...base, event: { source: 'vat_note', ...note } });
        continue;
      }
      const event = decodeStableEvent(log);
      if (event) events.push({ ...base, event: { source: 'event', ...event } });
    }
    await insertEvents(trx, events);
    return events.length;
  }

  /** Each part deletes only its own facts (the protocol's part its snapshots too): the other has a checkpoint of its own. */
  async rollback(trx: Transaction<Database>, afterBlock: number): Promise<void> {
    await rollbackStable(trx, this.target.chain, this.target.protocol, afterBlock, {
      token: this.token,
      part: this.part,
    });
  }

  private get token(): Address {
    return this.sources.token.toLowerCase() as Address;
  }
}

/** The contracts whose logs a Maker sink reads: the Vat, Spot, Dog, each ilk's Clipper and DAI. */
export async function makerLogSources(source: EvmSource, target: StablecoinTarget, block: number): Promise<LogSources> {
  const c = await resolveMaker(source, target.entryPoint, block);
  const [ilkList] = await read(
    source,
    [{ address: c.ilkRegistry, abi: ILK_REGISTRY_ABI, functionName: 'list' }],
    block,
  );
  const ilks = required<readonly Hex[]>(ilkList, 'IlkRegistry.list()');
  const dog = await read(
    source,
    ilks.map((w) => ({ address: c.dog, abi: DOG_ABI, functionName: 'ilks', args: [w] })),
    block,
  );
  const clippers = dog
    .map((d) => (d === undefined ? ZERO : lower((d as readonly unknown[])[0])))
    .filter((a) => a !== ZERO);
  return { vat: c.vat, events: [c.spot, c.dog, ...clippers], token: c.dai };
}

export async function liquityLogSources(
  source: EvmSource,
  target: StablecoinTarget,
  block: number,
): Promise<LogSources> {
  const c = await resolveLiquity(source, target.entryPoint, block);
  return { events: [c.troveManager, c.borrowerOperations, c.stabilityPool, c.priceFeed], token: c.lusdToken };
}

/** The stablecoin area's ingestion: one sink per protocol, started at the kit's `ingestStart`. */
export class StablecoinIngest {
  private readonly starts = new Map<string, number>();
  private readonly resolved = new Map<string, { time: number; sources: LogSources }>();
  private readonly schedule = new SnapshotSchedule(STABLECOIN_SNAPSHOTS);

  constructor(
    private readonly evm: EvmChains,
    private readonly targets: readonly StablecoinTarget[],
    /** Without the entry point's deployment block: how far below the head ingestion starts. */
    private readonly lookbackSeconds: number,
  ) {}

  /** Every protocol in turn; one that fails keeps its facts and fails the run after the others are done. */
  async run(ctx: JobContext): Promise<string> {
    const parts = await eachTarget(
      ctx,
      this.targets,
      (t) => `${t.chain}/${t.protocol}`,
      (t) => this.runOne(ctx, t),
    );
    return parts.join('; ');
  }

  /** The contracts whose logs a protocol's sink reads, resolved again once `SNAPSHOT_EVERY` of chain time passed. */
  private async logSources(source: EvmSource, target: StablecoinTarget, head: number): Promise<LogSources> {
    const key = stableCheckpointKey(target.chain, target.protocol);
    const cached = this.resolved.get(key);
    const time = (await source.getBlock(head))?.timestamp ?? 0;
    if (cached && time - cached.time < SNAPSHOT_EVERY) return cached.sources;
    const sources =
      target.design === 'maker-mcd'
        ? await makerLogSources(source, target, head)
        : await liquityLogSources(source, target, head);
    this.resolved.set(key, { time, sources });
    return sources;
  }

  private async runOne(ctx: JobContext, target: StablecoinTarget): Promise<string> {
    const source = this.evm.source(target.chain);
    const key = stableCheckpointKey(target.chain, target.protocol);
    let start = this.starts.get(key);
    if (start === undefined) {
      start = (
        await ingestStart(ctx, source, `${key}:start`, {
          startBlocks: [target.startBlock],
          lookbackSeconds: this.lookbackSeconds,
        })
      ).block;
      this.starts.set(key, start);
    }
    const transfersKey = stableTransfersKey(target.chain, target.protocol);
    let transfersStart = this.starts.get(transfersKey);
    if (transfersStart === undefined) {
      const back = await ingestStart(ctx, source, `${transfersKey}:start`, {
        startBlocks: [],
        lookbackSeconds: TRANSFER_LOOKBACK,
        fromUtcDayStart: true,
      });
      transfersStart = Math.max(back.block, start);
      this.starts.set(transfersKey, transfersStart);
    }
    const head = await source.blockNumber();
    const logSources = await this.logSources(source, target, head);
    const options = { signal: ctx.signal, now: () => nowSeconds(ctx.clock), log: ctx.log };
    const transfers = await ingest(source, ctx.store, new StableSink(target, transfersStart, logSources, 'transfers'), {
      ...options,
      toBlock: head,
    });
    // The protocol's logs no further than the transfers reached: a snapshot's day then has all its mints and burns.
    const reached = Math.max(transfers.to, transfersStart - 1);
    const result = await ingest(source, ctx.store, new StableSink(target, start, logSources), {
      ...options,
      toBlock: reached,
    });
    const snapshots = await this.snapshots(ctx, source, target, start);
    return (
      `${target.chain}/${target.protocol}: blocks ${result.from}–${result.to}, ${result.logs} logs, ${result.facts} facts` +
      `, transfers ${transfers.from}–${transfers.to} (${transfers.facts})` +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '') +
      (snapshots.length ? `, snapshots at ${snapshots.join(', ')}` : '')
    );
  }

  /** A snapshot at the ingested head when the newest is older than `SNAPSHOT_EVERY`, and the missing daily ones. */
  private async snapshots(ctx: JobContext, source: EvmSource, target: StablecoinTarget, start: number) {
    const repo = new StablecoinRepository(ctx.store.db);
    const checkpoint = await readCheckpoint<{ block: number }>(
      ctx.store.db,
      stableCheckpointKey(target.chain, target.protocol),
    );
    if (!checkpoint) return [];
    const head = await source.getBlock(checkpoint.block);
    if (!head) return [];
    const done = await this.schedule.take({
      log: ctx.log,
      source,
      key: `${target.chain}:${target.protocol}`,
      head,
      times: await repo.snapshotHeads(target.chain, target.protocol),
      startBlock: start,
      snapshot: async (block) => {
        const s = await readSnapshot(source, repo, target, block);
        if (s.design === 'maker-mcd' && s.urnRead?.drift) {
          ctx.log.warn(
            { protocol: target.protocol, block: s.blockNumber, base: s.urnRead.base, drift: s.urnRead.drift },
            `${target.protocol}: the reconciliation found vaults changed without a note since the base snapshot`,
          );
        }
        await repo.saveSnapshot(s);
      },
      what: target.protocol,
    });
    if (done.length) await repo.pruneSnapshots(target.chain, target.protocol);
    return done;
  }
}

/** For tests and the end-to-end check: the bytes32 word of an ilk name, and back. */
export const ilkWord = (name: string) => stringToHex(name, { size: 32 });
export const ilkName = (word: Hex) => hexToString(word, { size: 32 }).replace(/\0+$/, '');
