import type { Kysely, Transaction } from 'kysely';
import type { DexSourceDeployment } from '../../sources/environment.js';
import type { ApplyContext, BlockRange, EvmLog, IngestSink, LogQuery } from '../../sources/evm/index.js';
import type { Database } from '../../store/schema.js';
import { decodePoolCreated, decodePoolEvent, FACTORY_TOPICS, POOL_TOPICS } from './events.js';

/**
 * The DEX area's ingest sink for one chain: stage 0 reads the factories' pool-creation events, stage 1 the events
 * of every known pool plus those created in the same range. Facts are inserted with ON CONFLICT DO NOTHING on
 * their (chain, block, log index) keys, so a re-run of a range writes nothing twice.
 */

/** Rows per INSERT: SQLite allows 32,766 bound parameters; 12 columns × 500 stays far below. */
const INSERT_CHUNK = 500;

async function insertChunked<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await insert(rows.slice(i, i + INSERT_CHUNK));
}

export class DexSink implements IngestSink {
  readonly key: string;
  readonly startBlock: number;
  readonly stages = 2;
  private readonly byFactory: Map<string, DexSourceDeployment>;

  constructor(
    readonly chain: string,
    deployments: readonly DexSourceDeployment[],
  ) {
    const mine = deployments.filter((d) => d.chain === chain);
    this.key = `dex:${chain}`;
    this.startBlock = mine.length ? Math.min(...mine.map((d) => d.startBlock)) : 0;
    this.byFactory = new Map(mine.map((d) => [d.factory.toLowerCase(), d]));
  }

  async queries(stage: number, db: Kysely<Database>, discovered: readonly (readonly EvmLog[])[]): Promise<LogQuery[]> {
    if (stage === 0) {
      const factories = [...this.byFactory.keys()] as `0x${string}`[];
      return factories.length ? [{ addresses: factories, topics: [FACTORY_TOPICS] }] : [];
    }
    const known = await db.selectFrom('dex_pools').select('address').where('chain', '=', this.chain).execute();
    const pools = new Set(known.map((r) => r.address));
    for (const log of discovered[0] ?? []) {
      const created = this.poolCreated(log);
      if (created) pools.add(created.pool);
    }
    return pools.size ? [{ addresses: [...pools] as `0x${string}`[], topics: [POOL_TOPICS] }] : [];
  }

  needsSenders(log: EvmLog): boolean {
    return !FACTORY_TOPICS.includes(log.topics[0] as `0x${string}`);
  }

  private poolCreated(log: EvmLog) {
    if (!this.byFactory.has(log.address.toLowerCase())) return undefined;
    return decodePoolCreated(log);
  }

  async apply(
    trx: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const chain = this.chain;
    const timestampOf = (log: EvmLog) => {
      const block = ctx.blocks.get(Number(log.blockNumber));
      if (!block) throw new Error(`no block info for block ${log.blockNumber}`);
      return block.timestamp;
    };
    const pools: Database['dex_pools'][] = [];
    for (const log of logs[0] ?? []) {
      const created = this.poolCreated(log);
      if (!created) continue;
      const deployment = this.byFactory.get(log.address.toLowerCase())!;
      if ((deployment.design === 'uniswap-v2') !== (created.design === 'uniswap-v2')) continue;
      pools.push({
        chain,
        address: created.pool,
        protocol: deployment.protocol,
        version: deployment.version,
        design: created.design,
        factory: deployment.factory.toLowerCase(),
        token0: created.token0,
        token1: created.token1,
        fee: created.fee,
        tick_spacing: created.tickSpacing,
        created_block: Number(log.blockNumber),
        created_at: timestampOf(log),
      });
    }
    const swaps: Database['dex_swaps'][] = [];
    const liquidity: Database['dex_liquidity'][] = [];
    const syncs: Database['dex_syncs'][] = [];
    for (const log of logs[1] ?? []) {
      const event = decodePoolEvent(log);
      if (!event) continue;
      const base = {
        chain,
        block_number: Number(log.blockNumber),
        log_index: Number(log.logIndex),
        pool: log.address.toLowerCase(),
        timestamp: timestampOf(log),
      };
      const txHash = (log.transactionHash ?? '').toLowerCase();
      const sender = () => {
        const from = ctx.senders.get(txHash);
        if (!from) throw new Error(`no sender for transaction ${txHash}`);
        return from;
      };
      if (event.kind === 'swap') {
        swaps.push({
          ...base,
          tx_hash: txHash,
          trader: sender(),
          amount0: event.amount0.toString(),
          amount1: event.amount1.toString(),
          sqrt_price_x96: event.sqrtPriceX96?.toString() ?? null,
          liquidity: event.liquidity?.toString() ?? null,
          tick: event.tick,
        });
      } else if (event.kind === 'sync') {
        syncs.push({ ...base, reserve0: event.reserve0.toString(), reserve1: event.reserve1.toString() });
      } else {
        liquidity.push({
          ...base,
          tx_hash: txHash,
          kind: event.kind,
          amount0: event.amount0.toString(),
          amount1: event.amount1.toString(),
          owner: sender(),
        });
      }
    }
    await insertChunked(pools, (rows) =>
      trx
        .insertInto('dex_pools')
        .values(rows)
        .onConflict((oc) => oc.columns(['chain', 'address']).doNothing())
        .execute(),
    );
    await insertChunked(swaps, (rows) =>
      trx
        .insertInto('dex_swaps')
        .values(rows)
        .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute(),
    );
    await insertChunked(syncs, (rows) =>
      trx
        .insertInto('dex_syncs')
        .values(rows)
        .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute(),
    );
    await insertChunked(liquidity, (rows) =>
      trx
        .insertInto('dex_liquidity')
        .values(rows)
        .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute(),
    );
    return pools.length + swaps.length + syncs.length + liquidity.length;
  }

  async rollback(trx: Transaction<Database>, afterBlock: number): Promise<void> {
    const chain = this.chain;
    await trx.deleteFrom('dex_swaps').where('chain', '=', chain).where('block_number', '>', afterBlock).execute();
    await trx.deleteFrom('dex_syncs').where('chain', '=', chain).where('block_number', '>', afterBlock).execute();
    await trx.deleteFrom('dex_liquidity').where('chain', '=', chain).where('block_number', '>', afterBlock).execute();
    await trx
      .deleteFrom('dex_pool_snapshots')
      .where('chain', '=', chain)
      .where('block_number', '>', afterBlock)
      .execute();
    await trx.deleteFrom('dex_pools').where('chain', '=', chain).where('created_block', '>', afterBlock).execute();
  }
}
