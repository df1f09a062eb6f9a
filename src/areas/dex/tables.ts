import type { Kysely, Migration } from 'kysely';

/**
 * Tables of the DEX area: token metadata, pools, swaps, liquidity changes, V2 syncs, pool state snapshots and the
 * hourly USD prices. Big integers (token amounts, sqrtPriceX96, liquidity) are decimal strings; addresses and
 * hashes lowercase hex; times Unix seconds.
 */
export type DexTables = {
  evm_tokens: EvmTokenTable;
  dex_pools: DexPoolTable;
  dex_swaps: DexSwapTable;
  dex_liquidity: DexLiquidityTable;
  dex_syncs: DexSyncTable;
  dex_pool_snapshots: DexPoolSnapshotTable;
  token_prices: TokenPriceTable;
};

export interface EvmTokenTable {
  chain: string;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

export interface DexPoolTable {
  chain: string;
  address: string;
  protocol: string;
  version: string;
  design: string;
  factory: string;
  token0: string;
  token1: string;
  fee: number;
  tick_spacing: number | null;
  created_block: number;
  created_at: number;
}

export interface DexSwapTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  pool: string;
  trader: string;
  amount0: string;
  amount1: string;
  sqrt_price_x96: string | null;
  liquidity: string | null;
  tick: number | null;
  timestamp: number;
}

export interface DexLiquidityTable {
  chain: string;
  block_number: number;
  log_index: number;
  tx_hash: string;
  pool: string;
  kind: string;
  amount0: string;
  amount1: string;
  owner: string;
  timestamp: number;
}

export interface DexSyncTable {
  chain: string;
  block_number: number;
  log_index: number;
  pool: string;
  reserve0: string;
  reserve1: string;
  timestamp: number;
}

export interface DexPoolSnapshotTable {
  chain: string;
  pool: string;
  block_number: number;
  timestamp: number;
  reserve0: string;
  reserve1: string;
  sqrt_price_x96: string | null;
  liquidity: string | null;
  tick: number | null;
}

export interface TokenPriceTable {
  chain: string;
  token: string;
  hour: number;
  price_usd: number;
  source: string;
  confidence: number;
}

/**
 * `0002_evm_dex`, the first on-chain migration: the DEX tables, and `evm_blocks`, the EVM ingest engine's header
 * cache (jobs/evm/tables.ts), which came with them.
 */
export const DEX_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0002_evm_dex': {
    async up(db: Kysely<unknown>) {
      // Blocks an ingest pass touched: hashes detect reorgs (parent-hash mismatch), timestamps are cached here.
      await db.schema
        .createTable('evm_blocks')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('number', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('parent_hash', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('evm_blocks_pk', ['chain', 'number'])
        .execute();
      await db.schema
        .createTable('evm_tokens')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('decimals', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('evm_tokens_pk', ['chain', 'address'])
        .execute();
      await db.schema
        .createTable('dex_pools')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('design', 'text', (c) => c.notNull())
        .addColumn('factory', 'text', (c) => c.notNull())
        .addColumn('token0', 'text', (c) => c.notNull())
        .addColumn('token1', 'text', (c) => c.notNull())
        .addColumn('fee', 'bigint', (c) => c.notNull())
        .addColumn('tick_spacing', 'bigint')
        .addColumn('created_block', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_pools_pk', ['chain', 'address'])
        .execute();
      await db.schema
        .createTable('dex_swaps')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('trader', 'text', (c) => c.notNull())
        .addColumn('amount0', 'text', (c) => c.notNull())
        .addColumn('amount1', 'text', (c) => c.notNull())
        .addColumn('sqrt_price_x96', 'text')
        .addColumn('liquidity', 'text')
        .addColumn('tick', 'bigint')
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_swaps_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('dex_swaps_pool_time')
        .on('dex_swaps')
        .columns(['chain', 'pool', 'timestamp'])
        .execute();
      await db.schema
        .createTable('dex_liquidity')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('amount0', 'text', (c) => c.notNull())
        .addColumn('amount1', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_liquidity_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createTable('dex_syncs')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'bigint', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('reserve0', 'text', (c) => c.notNull())
        .addColumn('reserve1', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dex_syncs_pk', ['chain', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('dex_syncs_pool_time')
        .on('dex_syncs')
        .columns(['chain', 'pool', 'timestamp'])
        .execute();
      await db.schema
        .createTable('dex_pool_snapshots')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('reserve0', 'text', (c) => c.notNull())
        .addColumn('reserve1', 'text', (c) => c.notNull())
        .addColumn('sqrt_price_x96', 'text')
        .addColumn('liquidity', 'text')
        .addColumn('tick', 'bigint')
        .addPrimaryKeyConstraint('dex_pool_snapshots_pk', ['chain', 'pool', 'block_number'])
        .execute();
      await db.schema
        .createTable('token_prices')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('price_usd', 'double precision', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('confidence', 'double precision', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_prices_pk', ['chain', 'token', 'hour'])
        .execute();
    },
  },
  /**
   * Swaps and syncs by time: every reader asks for a window of time (`timestamp > from and ≤ to`), which the primary
   * key (chain, block, log) cannot narrow, so each read scanned the chain's whole history; the hourly prices of a new
   * block read the last hour or two through these.
   */
  '0017_dex_time_indexes': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('dex_swaps_chain_time').on('dex_swaps').columns(['chain', 'timestamp']).execute();
      await db.schema.createIndex('dex_syncs_chain_time').on('dex_syncs').columns(['chain', 'timestamp']).execute();
    },
  },
};
