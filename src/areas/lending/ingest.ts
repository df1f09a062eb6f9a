import type { Kysely, Transaction } from 'kysely';
import { DAY, dailyHistoryInstants, nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/index.js';
import { ingest } from '../../jobs/evm/index.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import type { EvmLog } from '../../sources/evm/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import { dexPriceBlocks } from '../dex/public.js';
import { ingestStart } from '../kit/ingest-start.js';
import {
  headSnapshotDue as kitHeadSnapshotDue,
  missingDayEnds as kitMissingDayEnds,
  SnapshotSchedule,
  type SnapshotScheduleOptions,
  type SnapshotTime,
} from '../kit/snapshot-schedule.js';
import {
  AAVE_POOL_ABI,
  AAVE_POOL_TOPICS,
  ATOKEN_TOPICS,
  type DecodedLendingEvent,
  decodeAavePoolLog,
  decodeATokenLog,
  decodeMorphoLog,
  MORPHO_TOPICS,
} from './events.js';
import type { MarketSnapshot } from './facts.js';
import { readAaveSnapshot } from './ingest-snapshot.js';
import { readMorphoSnapshot } from './ingest-snapshot-morpho.js';
import { incrementalAccounts, type SnapshotAccounts } from './participants.js';
import { DAILY_TOLERANCE_SECONDS, LendingRepository } from './repo.js';
import type { LendingEventTable, LendingTables } from './tables.js';
import type { LendingMarketTarget } from './targets.js';

/**
 * Every read of the lending area from its chains, turned into facts:
 * - `LendingSink`, the EVM ingest engine's sink for one chain: one stage reading the Aave pools' events, their
 *   aTokens' BalanceTransfer events (positions that change hands) and the Morpho singletons' events. Rows are
 *   inserted with ON CONFLICT DO NOTHING on (chain, block, log index): a re-run of a range writes nothing twice.
 *   Morpho's singleton hosts every market of every loan token; only the markets of the views read are kept, known
 *   from its `CreateMarket` logs (stored as `create_market` rows), in production and in the sandbox alike;
 * - the aTokens of the Aave pools' reserves (`getReservesList`, `getReserveData`), whose transfers the sink reads;
 * - state snapshots of each market (ingest-snapshot.ts): at the ingested head every 5 minutes of chain time, and at
 *   the end of each of the 6 previous UTC days when missing (read from the node's history); older ones are pruned.
 */

/** The engine's checkpoint of a chain's lending events. */
export const lendingCheckpointKey = (chain: string) => `lending:${chain}`;
/** Where ingestion of a chain starts (the kit's `ingestStart`). */
const startKey = (chain: string) => `lending:${chain}:start`;

export interface MorphoParams {
  readonly loanToken: string;
  readonly collateralToken: string;
  readonly oracle: string;
  readonly irm: string;
  readonly lltv: bigint;
}

/** The Morpho markets of a view: loan token = the base asset, collateral among the listed assets. */
export function morphoAccepts(market: LendingMarketTarget): (p: MorphoParams) => boolean {
  const base = market.assets.find((a) => a.symbol.toUpperCase() === market.baseAsset.toUpperCase())?.address;
  const collaterals = new Set(market.assets.map((a) => a.address));
  return (p) => p.loanToken === base && collaterals.has(p.collateralToken);
}

/** Rows per INSERT: 15 columns × 400 stays below SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 400;

export interface LendingSinkTargets {
  /** Lowercase Aave Pool addresses. */
  readonly aavePools: readonly string[];
  /** Lowercase aToken → its pool and reserve. */
  readonly aTokens: ReadonlyMap<string, { pool: string; asset: string }>;
  /** Lowercase Morpho singleton → accepts(market params) for the views on it. */
  readonly morpho: ReadonlyMap<string, (params: MorphoParams) => boolean>;
}

export class LendingSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;
  private targets: LendingSinkTargets = { aavePools: [], aTokens: new Map(), morpho: new Map() };
  /** Morpho market id → params, learnt from CreateMarket logs (read back from the store after a restart). */
  private readonly markets = new Map<string, MorphoParams>();

  constructor(
    readonly chain: string,
    readonly startBlock: number,
  ) {
    this.key = lendingCheckpointKey(chain);
  }

  setTargets(targets: LendingSinkTargets): void {
    this.targets = targets;
  }

  async queries(_stage: number, platform: Kysely<Database>): Promise<LogQuery[]> {
    for (const { id, ...p } of await new LendingRepository(platform).createdMarkets(this.chain)) {
      if (!this.markets.has(id)) this.markets.set(id, { ...p, lltv: BigInt(p.lltv) });
    }
    const queries: LogQuery[] = [];
    const sorted = (xs: Iterable<string>) => [...xs].sort() as `0x${string}`[];
    if (this.targets.aavePools.length) {
      queries.push({ addresses: sorted(this.targets.aavePools), topics: [AAVE_POOL_TOPICS] });
    }
    if (this.targets.aTokens.size) {
      queries.push({ addresses: sorted(this.targets.aTokens.keys()), topics: [ATOKEN_TOPICS] });
    }
    if (this.targets.morpho.size) {
      queries.push({ addresses: sorted(this.targets.morpho.keys()), topics: [MORPHO_TOPICS] });
    }
    return queries;
  }

  /** Places a decoded log in its market, or drops it (another market of the singleton, an unknown aToken). */
  private place(
    log: EvmLog,
  ): { pool: string; event: DecodedLendingEvent; asset: string; data: string | null } | undefined {
    const address = log.address.toLowerCase();
    if (this.targets.aavePools.includes(address)) {
      const event = decodeAavePoolLog(log);
      return event && { pool: address, event, asset: event.asset, data: null };
    }
    const aToken = this.targets.aTokens.get(address);
    if (aToken) {
      const event = decodeATokenLog(log);
      return event && { pool: aToken.pool, event, asset: aToken.asset, data: null };
    }
    const accepts = this.targets.morpho.get(address);
    if (!accepts) return undefined;
    const event = decodeMorphoLog(log);
    if (!event) return undefined;
    if (event.kind === 'create_market') {
      const p = event.params!;
      if (!accepts(p)) return undefined;
      this.markets.set(event.marketId, p);
      return {
        pool: address,
        event,
        asset: p.loanToken,
        data: JSON.stringify({ ...p, lltv: p.lltv.toString() }),
      };
    }
    const params = this.markets.get(event.marketId);
    if (!params || !accepts(params)) return undefined;
    const collateralMove = event.kind === 'supply_collateral' || event.kind === 'withdraw_collateral';
    return {
      pool: address,
      event: event.kind === 'liquidation' ? { ...event, collateralAsset: params.collateralToken } : event,
      asset: collateralMove ? params.collateralToken : params.loanToken,
      data: null,
    };
  }

  async apply(
    platformTrx: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const trx = platformTrx.withTables<LendingTables>();
    const rows: LendingEventTable[] = [];
    for (const log of logs[0] ?? []) {
      const placed = this.place(log);
      if (!placed) continue;
      const timestamp = ctx.blocks.get(log.blockNumber)?.timestamp;
      if (timestamp === undefined) throw new Error(`lending: no header of block ${log.blockNumber}`);
      const e = placed.event;
      rows.push({
        chain: this.chain,
        block_number: log.blockNumber,
        log_index: log.logIndex,
        tx_hash: log.transactionHash.toLowerCase(),
        timestamp,
        pool: placed.pool,
        kind: e.kind,
        market_id: e.marketId,
        asset: placed.asset,
        account: e.account,
        actor: e.actor,
        amount: e.amount.toString(),
        collateral_asset: e.collateralAsset,
        collateral_amount: e.collateralAmount.toString(),
        data: placed.data,
      });
    }
    await inChunks(
      rows,
      (chunk) =>
        trx
          .insertInto('lending_events')
          .values(chunk)
          .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
          .execute(),
      INSERT_CHUNK,
    );
    return rows.length;
  }

  async rollback(platformTrx: Transaction<Database>, afterBlock: number): Promise<void> {
    const trx = platformTrx.withTables<LendingTables>();
    await trx
      .deleteFrom('lending_events')
      .where('chain', '=', this.chain)
      .where('block_number', '>', afterBlock)
      .execute();
    await trx
      .deleteFrom('lending_snapshots')
      .where('chain', '=', this.chain)
      .where('block_number', '>', afterBlock)
      .execute();
    // Markets learnt from the abandoned blocks are forgotten with their rows (re-learnt if they come back).
    this.markets.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// What the sink reads: the aTokens of the Aave pools, the Morpho views
// ---------------------------------------------------------------------------------------------------------------

/** Lowercase aToken → its pool and reserve, for every reserve listed by each Aave pool now. */
export async function readATokens(
  source: EvmSource,
  pools: readonly `0x${string}`[],
): Promise<Map<string, { pool: string; asset: string }>> {
  const aTokens = new Map<string, { pool: string; asset: string }>();
  for (const pool of pools) {
    const [list] = await source.multicall({
      contracts: [{ address: pool, abi: AAVE_POOL_ABI, functionName: 'getReservesList' }],
      allowFailure: false,
    });
    const assets = (list as readonly string[]).map((a) => a.toLowerCase() as `0x${string}`);
    const data = await source.multicall({
      contracts: assets.map((asset) => ({
        address: pool,
        abi: AAVE_POOL_ABI,
        functionName: 'getReserveData' as const,
        args: [asset] as const,
      })),
      allowFailure: false,
    });
    data.forEach((d, i) => {
      aTokens.set(d.aTokenAddress.toLowerCase(), { pool, asset: assets[i]! });
    });
  }
  return aTokens;
}

/** Per Morpho singleton, whether a market belongs to one of the views read on it. */
export function morphoViews(markets: readonly LendingMarketTarget[]): Map<string, (params: MorphoParams) => boolean> {
  const morpho = new Map<string, (p: MorphoParams) => boolean>();
  for (const m of markets.filter((x) => x.design === 'morpho-blue')) {
    const previous = morpho.get(m.pool);
    const accepts = morphoAccepts(m);
    morpho.set(m.pool, previous ? (p) => previous(p) || accepts(p) : accepts);
  }
  return morpho;
}

// ---------------------------------------------------------------------------------------------------------------
// Snapshot scheduling (pure)
// ---------------------------------------------------------------------------------------------------------------

/** A new head snapshot at most this often (chain time): state moves slowly next to the cost of reading it. */
export const SNAPSHOT_EVERY_SECONDS = 300;
/** Snapshots kept besides those standing for days: the newest few. */
const KEEP_NEWEST = 3;
/** Instants whose standing snapshot is kept: the head and the ends of the 7 previous days (one more than read). */
const KEEP_DAYS = 8;

/**
 * The lending area's snapshot schedule (the kit's): the head every `SNAPSHOT_EVERY_SECONDS`, the ends of the 6
 * previous UTC days with no snapshot within `DAILY_TOLERANCE_SECONDS` before them; a day end the node has no state
 * for is not asked again while the process runs.
 */
export const LENDING_SNAPSHOTS: SnapshotScheduleOptions = {
  everySeconds: SNAPSHOT_EVERY_SECONDS,
  days: 6,
  toleranceSeconds: DAILY_TOLERANCE_SECONDS,
  rememberGaps: true,
};

export type { SnapshotTime };

/** Whether the head needs a snapshot (the kit's `headSnapshotDue` on the lending schedule). */
export const headSnapshotDue = (last: SnapshotTime | undefined, head: SnapshotTime): boolean =>
  kitHeadSnapshotDue(last, head, SNAPSHOT_EVERY_SECONDS);

/** The ends of the 6 previous UTC days that need a snapshot (the kit's `missingDayEnds` on the lending schedule). */
export const missingDayEnds = (times: readonly SnapshotTime[], headTimestamp: number, startTimestamp: number) =>
  kitMissingDayEnds(times, headTimestamp, startTimestamp, LENDING_SNAPSHOTS);

/** Snapshot blocks to delete: all but the 3 newest and, per instant kept, the newest at or before it. */
export function snapshotsToPrune(times: readonly SnapshotTime[], headTimestamp: number): number[] {
  const sorted = [...times].sort((a, b) => a.blockNumber - b.blockNumber);
  const keep = new Set(sorted.slice(-KEEP_NEWEST).map((x) => x.blockNumber));
  for (const t of dailyHistoryInstants(headTimestamp, KEEP_DAYS)) {
    const best = sorted.filter((x) => x.timestamp <= t).pop();
    if (best) keep.add(best.blockNumber);
  }
  return sorted.filter((x) => !keep.has(x.blockNumber)).map((x) => x.blockNumber);
}

/**
 * Which accounts a market's snapshot at `block` reads (see `snapshotOf`): incremental from the newest stored snapshot
 * at or below the block when it carries its participants and belongs to the same UTC day, else a full read.
 */
export async function snapshotAccounts(
  repo: LendingRepository,
  m: Pick<LendingMarketTarget, 'chain' | 'pool'>,
  block: { number: number; timestamp: number },
): Promise<SnapshotAccounts> {
  const base = await repo.snapshotAtOrBelow(m.chain, m.pool, block.number);
  if (base?.carry && utcDay(base.timestamp) === utcDay(block.timestamp)) {
    return incrementalAccounts(base.carry, await repo.eventsTouching(m.chain, m.pool, base.blockNumber, block.number));
  }
  return { participants: await repo.participants(m.chain, m.pool, block.number) };
}

const utcDay = (t: number) => Math.floor(t / DAY);

// ---------------------------------------------------------------------------------------------------------------
// The area's ingestion
// ---------------------------------------------------------------------------------------------------------------

/** The lending area's ingestion of its chains: one sink per chain, started at the kit's `ingestStart`. */
export class LendingIngest {
  private readonly sinks = new Map<string, LendingSink>();
  /** Daily snapshots the node could not serve (pruned history): not retried by this process. */
  private readonly schedule = new SnapshotSchedule(LENDING_SNAPSHOTS);

  constructor(
    private readonly evm: EvmChains,
    private readonly targets: readonly LendingMarketTarget[],
    /** Without every market's deployment block: how far below the head ingestion starts. */
    private readonly lookbackSeconds: number,
    /**
     * The chains the DEX area prices (its hourly USD prices): a Morpho market's snapshot values its collateral with
     * them, so on these chains it is taken no later than the block they were computed for (see `snapshots`).
     */
    private readonly dexPricedChains: ReadonlySet<string> = new Set(),
  ) {}

  private marketsOn(chain: string): LendingMarketTarget[] {
    return this.targets.filter((m) => m.chain === chain);
  }

  private start(ctx: JobContext, chain: string) {
    return ingestStart(ctx, this.evm.source(chain), startKey(chain), {
      startBlocks: this.marketsOn(chain).map((m) => m.startBlock),
      lookbackSeconds: this.lookbackSeconds,
    });
  }

  /** One pass of the chain's events: the aTokens listed now, then logs → `lending_events`. */
  async events(ctx: JobContext, chain: string): Promise<string> {
    const source = this.evm.source(chain);
    const markets = this.marketsOn(chain);
    let sink = this.sinks.get(chain);
    if (!sink) {
      sink = new LendingSink(chain, (await this.start(ctx, chain)).block);
      this.sinks.set(chain, sink);
    }
    // aTokens: read from each pool's reserves now (a reserve listed later is picked up by the next run).
    const aave = markets.filter((m) => m.design === 'aave-v3').map((m) => m.pool);
    sink.setTargets({ aavePools: aave, aTokens: await readATokens(source, aave), morpho: morphoViews(markets) });
    const result = await ingest(source, ctx.store, sink, {
      signal: ctx.signal,
      now: () => nowSeconds(ctx.clock),
      log: ctx.log,
    });
    return (
      `${chain}: blocks ${result.from}–${result.to}, ${result.facts} events of ${markets.length} markets` +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '')
    );
  }

  /**
   * A market's state at a block. Incremental (issue 30) when a snapshot of the same UTC day with a carry stands at
   * or below the block: its participants extended by the events since, only the accounts those events touched read
   * again, the others carried forward. Otherwise (the day's first snapshot, or none before) a full read: every
   * participant its events ever named, read from the chain — the daily reconciliation.
   */
  private async snapshotOf(
    ctx: JobContext,
    m: LendingMarketTarget,
    block: { number: number; timestamp: number },
  ): Promise<MarketSnapshot> {
    const repo = new LendingRepository(ctx.store.db);
    const source = this.evm.source(m.chain);
    const accounts = await snapshotAccounts(repo, m, block);
    if (m.design === 'aave-v3') return readAaveSnapshot(source, m, accounts, block);
    const accepts = morphoAccepts(m);
    const markets = (await repo.createdMarkets(m.chain, m.pool)).filter((x) => accepts({ ...x, lltv: BigInt(x.lltv) }));
    const prices = await repo.usdPrices(m.chain, block.timestamp);
    return readMorphoSnapshot(source, m, markets, accounts, block, (token) => prices.get(token) ?? null);
  }

  /**
   * The chain's snapshots, per market: one at the ingested head when due, one at the end of each previous day of
   * the history that has none (when the node still has that state), then the ones no longer read are pruned.
   */
  async snapshots(ctx: JobContext, chain: string): Promise<string[]> {
    const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, lendingCheckpointKey(chain));
    if (!checkpoint) return [];
    const source = this.evm.source(chain);
    const head = await source.getBlock(checkpoint.block);
    if (!head) return [];
    const repo = new LendingRepository(ctx.store.db);
    const start = await this.start(ctx, chain);
    const parts: string[] = [];
    // A Morpho market's snapshot values the loan token (and so every collateral) at the DEX's hourly price of its
    // time, and keeps that value. Taken at a block the DEX has not priced yet, it would keep an older price or none:
    // what it holds would depend on which job ran first (issue 31: two deployments of one world disagreed on
    // Morpho's oracle_price_usd, a value on one side and null on the other). So on a chain the DEX prices, the
    // snapshot's head is the lending head or the DEX's priced block, whichever is older.
    let priced: { number: number; timestamp: number } | null | undefined;
    const pricedHead = async () => {
      if (priced !== undefined) return priced;
      const block = (await dexPriceBlocks(ctx.store.db, [chain]))[chain] ?? null;
      priced = block === null ? null : block >= head.number ? head : ((await source.getBlock(block)) ?? null);
      return priced;
    };
    for (const m of this.marketsOn(chain)) {
      const what = `${m.protocol} ${m.version} ${m.baseAsset}`;
      let at: { number: number; timestamp: number } = head;
      if (m.design === 'morpho-blue' && this.dexPricedChains.has(chain)) {
        const p = await pricedHead();
        if (!p) {
          parts.push(`${what}: waiting for the DEX's first prices`);
          continue;
        }
        at = p;
      }
      const marketStart = m.startBlock ?? start.block;
      const startTimestamp =
        m.startBlock === undefined
          ? start.timestamp
          : ((await source.getBlock(marketStart))?.timestamp ?? head.timestamp);
      const taken = (
        await this.schedule.take({
          log: ctx.log,
          source,
          key: `${chain}:${m.pool}`,
          head: at,
          times: await repo.snapshotTimes(chain, m.pool),
          startBlock: marketStart,
          startTimestamp,
          snapshot: async (block) => repo.saveSnapshot(await this.snapshotOf(ctx, m, block)),
          what: `lending ${m.protocol} ${m.version} ${m.baseAsset}`,
        })
      ).length;
      await repo.deleteSnapshots(
        chain,
        m.pool,
        snapshotsToPrune(await repo.snapshotTimes(chain, m.pool), head.timestamp),
      );
      parts.push(`${what}: ${taken} snapshots${at === head ? '' : ` (up to block ${at.number}, priced by the DEX)`}`);
    }
    return parts;
  }
}
