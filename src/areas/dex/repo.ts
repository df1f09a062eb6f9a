import type { Kysely, Selectable } from 'kysely';

import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import type { Database } from '../../store/schema.js';
import type { DexInput } from './compute.js';
import type {
  DexPoolDesign,
  PoolFact,
  PoolSnapshotFact,
  SwapFact,
  SyncFact,
  TokenFact,
  TokenPriceFact,
} from './facts.js';
import type { DexTables } from './tables.js';
import type { DexTarget } from './targets.js';

/** Swaps read by the computation: two 7-day windows, so the oldest of the 7 daily scores has a full window. */
export const HISTORY_SECONDS = 14 * 86_400;

/** The checkpoint of a chain's hourly prices: `{ block }`, the DEX snapshot they were computed for. */
export const pricesKey = (chain: string) => `prices:${chain}`;

/** Reads and writes the DEX area's facts; rows become typed facts (big integers back to bigint) here only. */
export class DexRepository {
  private readonly db: Kysely<Database & DexTables>;

  constructor(private readonly platform: Kysely<Database>) {
    this.db = platform.withTables<DexTables>();
  }

  /** Per chain, the DEX snapshot block the hourly prices were computed for (null before the first). */
  async priceBlocks(chains: readonly string[]): Promise<Record<string, number | null>> {
    const out: Record<string, number | null> = {};
    for (const chain of chains)
      out[chain] = (await this.checkpoint<{ block: number }>(pricesKey(chain)))?.block ?? null;
    return out;
  }

  /** A checkpoint of the area's own (e.g. `prices:<chain>`). */
  checkpoint<T>(key: string): Promise<T | undefined> {
    return readCheckpoint<T>(this.platform, key);
  }

  async pools(chain: string): Promise<PoolFact[]> {
    const rows = await this.db.selectFrom('dex_pools').selectAll().where('chain', '=', chain).execute();
    return rows.map((r) => ({
      chain: r.chain,
      address: r.address,
      protocol: r.protocol,
      version: r.version,
      design: r.design as DexPoolDesign,
      factory: r.factory,
      token0: r.token0,
      token1: r.token1,
      fee: Number(r.fee),
      tickSpacing: r.tick_spacing === null ? null : Number(r.tick_spacing),
      createdBlock: Number(r.created_block),
      createdAt: Number(r.created_at),
    }));
  }

  async tokens(chain: string): Promise<TokenFact[]> {
    const rows = await this.db.selectFrom('evm_tokens').selectAll().where('chain', '=', chain).execute();
    return rows.map((r) => ({
      chain: r.chain,
      address: r.address,
      symbol: r.symbol,
      name: r.name,
      decimals: Number(r.decimals),
    }));
  }

  /** Token addresses of pools whose metadata is not stored yet. */
  async tokensWithoutMetadata(chain: string): Promise<string[]> {
    const known = new Set((await this.tokens(chain)).map((t) => t.address));
    const wanted = new Set<string>();
    for (const p of await this.pools(chain)) {
      if (!known.has(p.token0)) wanted.add(p.token0);
      if (!known.has(p.token1)) wanted.add(p.token1);
    }
    return [...wanted].sort();
  }

  async saveTokens(tokens: readonly TokenFact[]): Promise<void> {
    if (!tokens.length) return;
    await this.db
      .insertInto('evm_tokens')
      .values(tokens.map((t) => ({ ...t })))
      .onConflict((oc) => oc.columns(['chain', 'address']).doNothing())
      .execute();
  }

  /** Swaps with `from < timestamp ≤ to`, in chain order. */
  async swaps(chain: string, from: number, to: number): Promise<SwapFact[]> {
    const rows = await this.db
      .selectFrom('dex_swaps')
      .selectAll()
      .where('chain', '=', chain)
      .where('timestamp', '>', from)
      .where('timestamp', '<=', to)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return rows.map(swapOfRow);
  }

  /**
   * V2 syncs with `from < timestamp ≤ to`, and before them the newest one at or before `from` of each pool of the
   * chain (so prices start known), in chain order. The newest ones come from the `(chain, pool, timestamp)` index, a
   * read per V2 pool: the cost grows with the pools, not with the chain's history.
   */
  async syncs(chain: string, from: number, to: number): Promise<SyncFact[]> {
    const rows = await this.db
      .selectFrom('dex_syncs')
      .selectAll()
      .where('chain', '=', chain)
      .where('timestamp', '>', from)
      .where('timestamp', '<=', to)
      .orderBy('block_number')
      .orderBy('log_index')
      .execute();
    return [...(await this.lastSyncs(chain, from)), ...rows.map(syncOfRow)];
  }

  /** Each V2 pool's newest sync at or before `at`, in chain order. */
  async lastSyncs(chain: string, at: number): Promise<SyncFact[]> {
    return this.newestPerPool(chain, 'uniswap-v2', async (pool) => {
      const row = await this.db
        .selectFrom('dex_syncs')
        .selectAll()
        .where('chain', '=', chain)
        .where('pool', '=', pool)
        .where('timestamp', '<=', at)
        .orderBy('timestamp', 'desc')
        .orderBy('block_number', 'desc')
        .orderBy('log_index', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && syncOfRow(row);
    });
  }

  /**
   * Each V3 pool's newest swap with a price and liquidity in `from < timestamp ≤ to` (the state a pool carries into
   * the hours after `to`), in chain order: a read per V3 pool through the `(chain, pool, timestamp)` index.
   */
  async lastPricedSwaps(chain: string, from: number, to: number): Promise<SwapFact[]> {
    return this.newestPerPool(chain, 'uniswap-v3', async (pool) => {
      const row = await this.db
        .selectFrom('dex_swaps')
        .selectAll()
        .where('chain', '=', chain)
        .where('pool', '=', pool)
        .where('timestamp', '>', from)
        .where('timestamp', '<=', to)
        .where('sqrt_price_x96', 'is not', null)
        .where('liquidity', 'is not', null)
        .orderBy('timestamp', 'desc')
        .orderBy('block_number', 'desc')
        .orderBy('log_index', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && swapOfRow(row);
    });
  }

  /** Each pool of a design's one fact (`newest(pool)`, or none), in chain order. */
  private async newestPerPool<T extends { blockNumber: number; logIndex: number }>(
    chain: string,
    design: DexPoolDesign,
    newest: (pool: string) => Promise<T | undefined>,
  ): Promise<T[]> {
    const out: T[] = [];
    for (const pool of await this.poolAddresses(chain, design)) {
      const fact = await newest(pool);
      if (fact) out.push(fact);
    }
    return out.sort(byChainOrder);
  }

  private async poolAddresses(chain: string, design: DexPoolDesign): Promise<string[]> {
    const rows = await this.db
      .selectFrom('dex_pools')
      .select('address')
      .where('chain', '=', chain)
      .where('design', '=', design)
      .orderBy('address')
      .execute();
    return rows.map((r) => r.address);
  }

  /** The newest block with snapshots on the chain, and its timestamp. */
  async latestSnapshotBlock(chain: string): Promise<{ blockNumber: number; timestamp: number } | undefined> {
    const row = await this.db
      .selectFrom('dex_pool_snapshots')
      .select(['block_number', 'timestamp'])
      .where('chain', '=', chain)
      .orderBy('block_number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { blockNumber: Number(row.block_number), timestamp: Number(row.timestamp) } : undefined;
  }

  async snapshots(chain: string, blockNumber: number): Promise<PoolSnapshotFact[]> {
    const rows = await this.db
      .selectFrom('dex_pool_snapshots')
      .selectAll()
      .where('chain', '=', chain)
      .where('block_number', '=', blockNumber)
      .orderBy('pool')
      .execute();
    return rows.map((r) => ({
      chain: r.chain,
      pool: r.pool,
      blockNumber: Number(r.block_number),
      timestamp: Number(r.timestamp),
      reserve0: BigInt(r.reserve0),
      reserve1: BigInt(r.reserve1),
      sqrtPriceX96: r.sqrt_price_x96 === null ? null : BigInt(r.sqrt_price_x96),
      liquidity: r.liquidity === null ? null : BigInt(r.liquidity),
      tick: r.tick === null ? null : Number(r.tick),
    }));
  }

  async saveSnapshots(rows: readonly PoolSnapshotFact[]): Promise<void> {
    if (!rows.length) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) {
        await trx
          .insertInto('dex_pool_snapshots')
          .values(
            rows.slice(i, i + 500).map((s) => ({
              chain: s.chain,
              pool: s.pool,
              block_number: s.blockNumber,
              timestamp: s.timestamp,
              reserve0: s.reserve0.toString(),
              reserve1: s.reserve1.toString(),
              sqrt_price_x96: s.sqrtPriceX96?.toString() ?? null,
              liquidity: s.liquidity?.toString() ?? null,
              tick: s.tick,
            })),
          )
          .onConflict((oc) => oc.columns(['chain', 'pool', 'block_number']).doNothing())
          .execute();
      }
    });
  }

  /** Keeps the newest `keep` snapshot blocks per chain (older ones are never read). */
  async pruneSnapshots(chain: string, keepFromBlock: number): Promise<void> {
    await this.db
      .deleteFrom('dex_pool_snapshots')
      .where('chain', '=', chain)
      .where('block_number', '<', keepFromBlock)
      .execute();
  }

  async prices(chain: string, fromHour: number, toHour: number): Promise<TokenPriceFact[]> {
    const rows = await this.db
      .selectFrom('token_prices')
      .selectAll()
      .where('chain', '=', chain)
      .where('hour', '>=', fromHour)
      .where('hour', '<=', toHour)
      .orderBy('hour')
      .orderBy('token')
      .execute();
    return rows.map((r) => ({
      chain: r.chain,
      token: r.token,
      hour: Number(r.hour),
      priceUsd: Number(r.price_usd),
      source: r.source,
      confidence: Number(r.confidence),
    }));
  }

  /**
   * Replaces the prices of the hours on the chain in one transaction (a recomputed hour may lose a price), with
   * the checkpoint that says which snapshot they were computed for.
   */
  async replacePrices(
    chain: string,
    fromHour: number,
    toHour: number,
    prices: readonly TokenPriceFact[],
    checkpoint: { key: string; value: unknown; now: number },
  ) {
    await this.platform.transaction().execute(async (platformTrx) => {
      await writeCheckpoint(platformTrx, checkpoint.key, checkpoint.value, checkpoint.now);
      const trx = platformTrx.withTables<DexTables>();
      await trx
        .deleteFrom('token_prices')
        .where('chain', '=', chain)
        .where('hour', '>=', fromHour)
        .where('hour', '<=', toHour)
        .execute();
      for (let i = 0; i < prices.length; i += 500) {
        await trx
          .insertInto('token_prices')
          .values(
            prices.slice(i, i + 500).map((p) => ({
              chain: p.chain,
              token: p.token,
              hour: p.hour,
              price_usd: p.priceUsd,
              source: p.source,
              confidence: p.confidence,
            })),
          )
          .execute();
      }
    });
  }

  /** Everything the computation reads, from the store, at each chain's newest snapshot. */
  async computeInput(deployments: readonly DexTarget[], chains: readonly string[]): Promise<DexInput | undefined> {
    const heads = [];
    for (const chain of chains) {
      const head = await this.latestSnapshotBlock(chain);
      if (head) heads.push({ chain, ...head });
    }
    if (!heads.length) return undefined;
    // One as_of for the publication: the chain that is furthest behind (with one chain, its snapshot block).
    const asOf = heads.reduce((a, b) => (b.timestamp < a.timestamp ? b : a));
    const input: {
      -readonly [K in keyof DexInput]: DexInput[K] extends readonly (infer T)[] ? T[] : DexInput[K];
    } = {
      asOf: { blockNumber: asOf.blockNumber, timestamp: asOf.timestamp },
      deployments: deployments
        .filter((d) => chains.includes(d.chain))
        .map((d) => ({
          chain: d.chain,
          protocol: d.protocol,
          version: d.version,
          exchangeName: d.exchangeName,
          design: d.design,
        })),
      pools: [],
      tokens: [],
      swaps: [],
      snapshots: [],
      prices: [],
      syncs: [],
    };
    const fromHour = Math.floor((asOf.timestamp - HISTORY_SECONDS) / 3600) * 3600 - 3600;
    for (const head of heads) {
      const tokens = await this.tokens(head.chain);
      const known = new Set(tokens.map((t) => t.address));
      // A pool whose token answers no `decimals()` cannot be normalised: it is left out rather than guessed.
      input.pools.push(...(await this.pools(head.chain)).filter((p) => known.has(p.token0) && known.has(p.token1)));
      input.tokens.push(...tokens);
      input.swaps.push(...(await this.swaps(head.chain, asOf.timestamp - HISTORY_SECONDS, asOf.timestamp)));
      input.snapshots.push(...(await this.snapshots(head.chain, head.blockNumber)));
      // The daily records' V2 TVL: the Syncs of the 7 history days (and the newest before them per pool).
      input.syncs!.push(...(await this.syncs(head.chain, asOf.timestamp - 8 * 86_400, asOf.timestamp)));
      input.prices.push(...(await this.prices(head.chain, fromHour, asOf.timestamp)));
    }
    return input;
  }
}

/** Per chain, the DEX snapshot block the hourly prices were computed for: areas that read them recompute when it moves. */
export function dexPriceBlocks(
  db: Kysely<Database>,
  chains: readonly string[],
): Promise<Record<string, number | null>> {
  return new DexRepository(db).priceBlocks(chains);
}

type SwapRow = Selectable<DexTables['dex_swaps']>;
type SyncRow = Selectable<DexTables['dex_syncs']>;

function swapOfRow(r: SwapRow): SwapFact {
  return {
    chain: r.chain,
    pool: r.pool,
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
    txHash: r.tx_hash,
    trader: r.trader,
    amount0: BigInt(r.amount0),
    amount1: BigInt(r.amount1),
    sqrtPriceX96: r.sqrt_price_x96 === null ? null : BigInt(r.sqrt_price_x96),
    liquidity: r.liquidity === null ? null : BigInt(r.liquidity),
    tick: r.tick === null ? null : Number(r.tick),
    timestamp: Number(r.timestamp),
  };
}

function syncOfRow(r: SyncRow): SyncFact {
  return {
    chain: r.chain,
    pool: r.pool,
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
    reserve0: BigInt(r.reserve0),
    reserve1: BigInt(r.reserve1),
    timestamp: Number(r.timestamp),
  };
}

const byChainOrder = (a: { blockNumber: number; logIndex: number }, b: { blockNumber: number; logIndex: number }) =>
  a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
