import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';

/**
 * The EVM ingest engine's table: headers of the blocks an ingest pass touched (hashes detect reorgs by
 * parent-hash mismatch; timestamps are cached here). It was created with the first on-chain tables, by the DEX
 * area's migration `0002_evm_dex` (migration keys never change once released), so the engine declares its row type
 * only.
 */
export interface EvmBlockTable {
  chain: string;
  number: number;
  hash: string;
  parent_hash: string;
  timestamp: number;
}

export type EvmEngineTables = {
  evm_blocks: EvmBlockTable;
};

/** A block's timestamp as an ingest pass stored it, or undefined when no pass touched the block. */
export async function storedBlockTimestamp(
  db: Kysely<Database>,
  chain: string,
  number: number,
): Promise<number | undefined> {
  const row = await db
    .withTables<EvmEngineTables>()
    .selectFrom('evm_blocks')
    .select('timestamp')
    .where('chain', '=', chain)
    .where('number', '=', number)
    .executeTakeFirst();
  return row ? Number(row.timestamp) : undefined;
}
