import type { Kysely, Transaction } from 'kysely';
import type { Abi } from 'viem';
import { nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/ingest.js';
import { ingest } from '../../jobs/evm/ingest.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import type { EvmLog } from '../../sources/evm/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import { ingestStart } from '../kit/ingest-start.js';
import {
  decodePoolCreated,
  decodePoolEvent,
  ERC20_ABI,
  FACTORY_TOPICS,
  POOL_TOPICS,
  V2_PAIR_ABI,
  V3_POOL_ABI,
} from './events.js';
import type { PoolFact, PoolSnapshotFact, TokenFact } from './facts.js';
import { DexRepository } from './repo.js';
import type { DexTables } from './tables.js';
import type { DexTarget } from './targets.js';

/**
 * Every read of the DEX area from the chain, turned into facts:
 * - `DexSink`, the EVM ingest engine's sink for one chain: stage 0 reads the factories' pool-creation events,
 *   stage 1 the events of every known pool plus those created in the same range. Facts are inserted with ON
 *   CONFLICT DO NOTHING on their (chain, block, log index) keys, so a re-run of a range writes nothing twice;
 * - token metadata (`symbol`, `name`, `decimals`) of the pools' tokens;
 * - pool state snapshots at the ingested head.
 */

/** The engine's checkpoint of a chain's DEX facts. */
export const dexCheckpointKey = (chain: string) => `dex:${chain}`;

/** Rows per INSERT: SQLite allows 32,766 bound parameters; 12 columns × 500 stays far below. */
const INSERT_CHUNK = 500;

const insertChunked = <T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>) => inChunks(rows, insert, INSERT_CHUNK);

export class DexSink implements IngestSink {
  readonly key: string;
  readonly startBlock: number;
  readonly stages = 2;
  private readonly byFactory: Map<string, DexTarget>;

  constructor(
    readonly chain: string,
    deployments: readonly DexTarget[],
    startBlock: number,
  ) {
    const mine = deployments.filter((d) => d.chain === chain);
    this.key = dexCheckpointKey(chain);
    this.startBlock = startBlock;
    this.byFactory = new Map(mine.map((d) => [d.factory.toLowerCase(), d]));
  }

  async queries(
    stage: number,
    platform: Kysely<Database>,
    discovered: readonly (readonly EvmLog[])[],
  ): Promise<LogQuery[]> {
    if (stage === 0) {
      const factories = [...this.byFactory.keys()] as `0x${string}`[];
      return factories.length ? [{ addresses: factories, topics: [FACTORY_TOPICS] }] : [];
    }
    const db = platform.withTables<DexTables>();
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
    platform: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const trx = platform.withTables<DexTables>();
    const chain = this.chain;
    const timestampOf = (log: EvmLog) => {
      const block = ctx.blocks.get(Number(log.blockNumber));
      if (!block) throw new Error(`no block info for block ${log.blockNumber}`);
      return block.timestamp;
    };
    const pools: DexTables['dex_pools'][] = [];
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
    const swaps: DexTables['dex_swaps'][] = [];
    const liquidity: DexTables['dex_liquidity'][] = [];
    const syncs: DexTables['dex_syncs'][] = [];
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

  async rollback(platform: Transaction<Database>, afterBlock: number): Promise<void> {
    const trx = platform.withTables<DexTables>();
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

/** Symbol, name and decimals of tokens; a token without `decimals()` is left out (its pools' figures say so). */
export async function readTokenMetadata(source: EvmSource, chain: string, addresses: readonly string[]) {
  const calls = addresses.flatMap((address) =>
    (['symbol', 'name', 'decimals'] as const).map((functionName) => ({
      address: address as `0x${string}`,
      abi: ERC20_ABI,
      functionName,
    })),
  );
  const results = await source.multicall({ contracts: calls, allowFailure: true });
  const tokens: TokenFact[] = [];
  addresses.forEach((address, i) => {
    const [symbol, name, decimals] = results.slice(i * 3, i * 3 + 3);
    // Without decimals no amount of the token can be normalised: leave it out (its pools' figures say so).
    if (decimals?.status !== 'success') return;
    tokens.push({
      chain,
      address,
      symbol: symbol?.status === 'success' ? String(symbol.result) : address.slice(0, 10),
      name: name?.status === 'success' ? String(name.result) : '',
      decimals: Number(decimals.result),
    });
  });
  return tokens;
}

interface Call {
  readonly address: `0x${string}`;
  readonly abi: Abi;
  readonly functionName: string;
  readonly args?: readonly unknown[];
}

/** Every pool's state at a block (V2 reserves; V3 slot0, liquidity and balances) through multicall. */
export async function readPoolSnapshots(
  source: EvmSource,
  chain: string,
  block: { number: number; timestamp: number },
  pools: readonly PoolFact[],
): Promise<PoolSnapshotFact[]> {
  const blockNumber = BigInt(block.number);
  const calls: Call[] = pools.flatMap((p): Call[] => {
    const address = p.address as `0x${string}`;
    const balances = [p.token0, p.token1].map((t) => ({
      address: t as `0x${string}`,
      abi: ERC20_ABI,
      functionName: 'balanceOf' as const,
      args: [address] as const,
    }));
    return p.design === 'uniswap-v2'
      ? [{ address, abi: V2_PAIR_ABI, functionName: 'getReserves' as const }, ...balances]
      : [
          { address, abi: V3_POOL_ABI, functionName: 'slot0' as const },
          { address, abi: V3_POOL_ABI, functionName: 'liquidity' as const },
          ...balances,
        ];
  });
  const results = await source.multicall({ contracts: calls, allowFailure: true, blockNumber });
  const out: PoolSnapshotFact[] = [];
  let i = 0;
  for (const p of pools) {
    const base = { chain, pool: p.address, blockNumber: block.number, timestamp: block.timestamp };
    if (p.design === 'uniswap-v2') {
      const [reserves] = results.slice(i, i + 3);
      i += 3;
      if (reserves?.status !== 'success') continue;
      const [r0, r1] = reserves.result as readonly [bigint, bigint, number];
      out.push({ ...base, reserve0: r0, reserve1: r1, sqrtPriceX96: null, liquidity: null, tick: null });
    } else {
      const [slot0, liquidity, b0, b1] = results.slice(i, i + 4);
      i += 4;
      if (slot0?.status !== 'success' || liquidity?.status !== 'success') continue;
      if (b0?.status !== 'success' || b1?.status !== 'success') continue;
      const [sqrtPriceX96, tick] = slot0.result as readonly [bigint, number];
      out.push({
        ...base,
        reserve0: b0.result as bigint,
        reserve1: b1.result as bigint,
        sqrtPriceX96,
        liquidity: liquidity.result as bigint,
        tick,
      });
    }
  }
  return out;
}

/** The DEX area's ingestion of its chains, one sink per chain, started at the kit's `ingestStart`. */
export class DexIngest {
  private readonly sinks = new Map<string, DexSink>();

  constructor(
    private readonly evm: EvmChains,
    private readonly deployments: readonly DexTarget[],
    /** Without every factory's deployment block: how far below the head ingestion starts. */
    private readonly lookbackSeconds: number,
  ) {}

  /** One pass over a chain: logs → facts, metadata of new tokens, a snapshot of every pool at the new head. */
  async run(ctx: JobContext, chain: string): Promise<string> {
    const evm = this.evm;
    const deployments = this.deployments;
    const sinks = this.sinks;
    const source = evm.source(chain);
    const repo = new DexRepository(ctx.store.db);
    let sink = sinks.get(chain);
    if (!sink) {
      const start = await ingestStart(ctx, source, `dex:${chain}:start`, {
        startBlocks: deployments.filter((d) => d.chain === chain).map((d) => d.startBlock),
        lookbackSeconds: this.lookbackSeconds,
      });
      sink = new DexSink(chain, deployments, start.block);
      sinks.set(chain, sink);
    }
    const result = await ingest(source, ctx.store, sink, {
      signal: ctx.signal,
      now: () => nowSeconds(ctx.clock),
      log: ctx.log,
    });
    const missing = await repo.tokensWithoutMetadata(chain);
    if (missing.length) await repo.saveTokens(await readTokenMetadata(source, chain, missing));
    const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, dexCheckpointKey(chain));
    const latest = await repo.latestSnapshotBlock(chain);
    let snapshot = '';
    const block =
      checkpoint && (!latest || latest.blockNumber < checkpoint.block) ? await source.getBlock(checkpoint.block) : null;
    if (block) {
      const rows = await readPoolSnapshots(source, chain, block, await repo.pools(chain));
      await repo.saveSnapshots(rows);
      // Snapshots above the run's final block stay (a reorg may remove the newer ones); older ones are never read.
      await repo.pruneSnapshots(chain, Math.min(result.final.number, block.number));
      snapshot = `, snapshot of ${rows.length} pools at ${block.number}`;
    }
    return (
      `${chain}: blocks ${result.from}–${result.to}, ${result.logs} logs, ${result.facts} facts` +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '') +
      snapshot
    );
  }
}
