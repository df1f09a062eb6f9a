import type { Kysely, Transaction } from 'kysely';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/index.js';
import type { EvmLog } from '../../sources/evm/types.js';
import type { Database } from '../../store/schema.js';
import {
  AAVE_POOL_TOPICS,
  ATOKEN_TOPICS,
  type DecodedLendingEvent,
  decodeAavePoolLog,
  decodeATokenLog,
  decodeMorphoLog,
  MORPHO_TOPICS,
} from './events.js';
import type { LendingEventTable, LendingTables } from './tables.js';

/**
 * The lending area's ingest sink for one chain: one stage reading the Aave pools' events, their aTokens'
 * BalanceTransfer events (positions that change hands) and the Morpho singletons' events. Rows are inserted with
 * ON CONFLICT DO NOTHING on (chain, block, log index): a re-run of a range writes nothing twice.
 *
 * Morpho's singleton hosts every market of every loan token; only the markets of the configured views are kept
 * (their params are known from the environment or from CreateMarket logs, stored as `create_market` rows).
 */

/** Rows per INSERT: 15 columns × 400 stays below SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 400;

export interface MorphoParams {
  readonly loanToken: string;
  readonly collateralToken: string;
  readonly oracle: string;
  readonly irm: string;
  readonly lltv: bigint;
}

export interface LendingTargets {
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
  private targets: LendingTargets = { aavePools: [], aTokens: new Map(), morpho: new Map() };
  /** Morpho market id → params: configured ones (the sandbox's manifest) and those learnt from CreateMarket logs. */
  private readonly configured = new Map<string, MorphoParams>();
  private readonly markets = new Map<string, MorphoParams>();

  constructor(
    readonly chain: string,
    readonly startBlock: number,
  ) {
    this.key = `lending:${chain}`;
  }

  setTargets(targets: LendingTargets): void {
    this.targets = targets;
  }

  /** Morpho markets known in advance (the sandbox's manifest); production ones come from CreateMarket logs. */
  addMorphoMarket(id: string, params: MorphoParams): void {
    this.configured.set(id.toLowerCase(), params);
    this.markets.set(id.toLowerCase(), params);
  }

  async queries(_stage: number, platform: Kysely<Database>): Promise<LogQuery[]> {
    const db = platform.withTables<LendingTables>();
    const created = await db
      .selectFrom('lending_events')
      .select(['market_id', 'data'])
      .where('chain', '=', this.chain)
      .where('kind', '=', 'create_market')
      .execute();
    for (const row of created) {
      if (!row.data || this.markets.has(row.market_id)) continue;
      const p = JSON.parse(row.data) as Omit<MorphoParams, 'lltv'> & { lltv: string };
      this.markets.set(row.market_id, { ...p, lltv: BigInt(p.lltv) });
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
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('lending_events')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute();
    }
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
    for (const [id, params] of this.configured) this.markets.set(id, params);
  }
}
