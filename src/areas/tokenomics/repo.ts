import { type Kysely, sql, type Transaction } from 'kysely';
import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import type { ContractReading, SampleReading, TokenSnapshotFact, TransferFact } from './facts.js';
import { balanceDeltas, type LedgerTransfer, ZERO_ADDRESS } from './ledger.js';
import { DAY_END_RETENTION_DAYS } from './snapshots.js';
import type { TokenomicsTables, TokLedgerTable } from './tables.js';

/**
 * The tokenomics area's queries: the holder ledger's writes (in the EVM ingest engine's transaction of a range, so a
 * range's transfers, the balances they move and the checkpoint commit together), its retention, the snapshots, and
 * what the computation loads.
 */

const CHUNK = 500;

type Db = Kysely<Database & TokenomicsTables>;

export interface LedgerState {
  readonly startBlock: number;
  readonly blockNumber: number;
  readonly prunedThrough: number;
  readonly transfers: number;
  /** Minted less burnt: Σ of the balances. */
  readonly supply: bigint;
}

const ledgerState = (r: TokLedgerTable): LedgerState => ({
  startBlock: Number(r.start_block),
  blockNumber: Number(r.block_number),
  prunedThrough: Number(r.pruned_through),
  transfers: Number(r.transfers),
  supply: BigInt(r.supply),
});

const toTransfer = (r: TokenomicsTables['tok_transfers']): TransferFact => ({
  blockNumber: Number(r.block_number),
  logIndex: Number(r.log_index),
  txHash: r.tx_hash,
  from: r.from_address,
  to: r.to_address,
  value: BigInt(r.value),
  timestamp: Number(r.timestamp),
});

export class TokenomicsRepository {
  private readonly db: Db;

  constructor(platform: Kysely<Database>) {
    this.db = platform.withTables<TokenomicsTables>();
  }

  async ledger(chain: string, token: string): Promise<LedgerState | undefined> {
    return readLedger(this.db, chain, token);
  }

  /**
   * The ledger's balances with its block, as one consistent view: the block is read before and after the balances
   * and the read is repeated when a range committed in between (each statement sees the newest commit).
   */
  async balances(chain: string, token: string): Promise<{ block: number; balances: Map<string, bigint> } | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await readLedger(this.db, chain, token);
      if (!before) return undefined;
      const rows = await this.db
        .selectFrom('tok_balances')
        .select(['address', 'balance'])
        .where('chain', '=', chain)
        .where('token', '=', token)
        .execute();
      const after = await readLedger(this.db, chain, token);
      if (after?.blockNumber === before.blockNumber && after.transfers === before.transfers) {
        return { block: before.blockNumber, balances: new Map(rows.map((r) => [r.address, BigInt(r.balance)])) };
      }
    }
    throw new Error(`tokenomics: the ledger of ${chain}/${token} kept moving while it was read`);
  }

  /** The ledger's balances of some addresses (0 for an address it has none for). */
  async balancesOf(chain: string, token: string, addresses: readonly string[]): Promise<Map<string, bigint>> {
    return readBalances(this.db, chain, token, addresses);
  }

  /** The `n` largest balances (decimal strings of non-negative integers order by length, then text). */
  async largest(chain: string, token: string, n: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tok_balances')
      .select('address')
      .where('chain', '=', chain)
      .where('token', '=', token)
      .orderBy(sql`length(balance)`, 'desc')
      .orderBy('balance', 'desc')
      .orderBy('address')
      .limit(n)
      .execute();
    return rows.map((r) => r.address);
  }

  /** `n` addresses of the ledger from `pivot` on in address order (a sample that moves with the pivot). */
  async addressesFrom(chain: string, token: string, pivot: string, n: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tok_balances')
      .select('address')
      .where('chain', '=', chain)
      .where('token', '=', token)
      .where('address', '>=', pivot)
      .orderBy('address')
      .limit(n)
      .execute();
    return rows.map((r) => r.address);
  }

  /** Retained transfers in blocks after `afterBlock`, in chain order. */
  async transfersAfter(chain: string, token: string, afterBlock: number): Promise<TransferFact[]> {
    return (await transfersQuery(this.db, chain, token).where('block_number', '>', afterBlock).execute()).map(
      toTransfer,
    );
  }

  /** Retained transfers with a time in (from, to], in chain order. */
  async transfersBetween(chain: string, token: string, from: number, to: number): Promise<TransferFact[]> {
    return (
      await transfersQuery(this.db, chain, token).where('timestamp', '>', from).where('timestamp', '<=', to).execute()
    ).map(toTransfer);
  }

  /**
   * Deletes transfers older than `before` (Unix seconds) and notes the newest block it deleted: the ledger can no
   * longer be turned back below it. Returns how many it deleted.
   */
  async pruneTransfers(chain: string, token: string, before: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const newest = await trx
        .selectFrom('tok_transfers')
        .select((eb) => [eb.fn.max('block_number').as('block'), eb.fn.countAll<number>().as('n')])
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('timestamp', '<', before)
        .executeTakeFirst();
      const n = Number(newest?.n ?? 0);
      if (!n) return 0;
      await trx
        .deleteFrom('tok_transfers')
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('timestamp', '<', before)
        .execute();
      await trx
        .updateTable('tok_ledgers')
        .set({ pruned_through: Number(newest!.block) })
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('pruned_through', '<', Number(newest!.block))
        .execute();
      return n;
    });
  }

  async saveSnapshot(s: TokenSnapshotFact): Promise<void> {
    await this.db
      .insertInto('tok_snapshots')
      .values({
        chain: s.chain,
        token: s.token,
        block_number: s.blockNumber,
        timestamp: s.timestamp,
        total_supply: s.totalSupply.toString(),
        replayed_supply: s.replayedSupply.toString(),
        sample: JSON.stringify(s.sample),
        contracts: JSON.stringify(s.contracts),
      })
      .onConflict((oc) => oc.columns(['chain', 'token', 'block_number']).doNothing())
      .execute();
  }

  async snapshotTimes(chain: string, token: string): Promise<{ blockNumber: number; timestamp: number }[]> {
    const rows = await this.db
      .selectFrom('tok_snapshots')
      .select(['block_number', 'timestamp'])
      .where('chain', '=', chain)
      .where('token', '=', token)
      .execute();
    return rows.map((r) => ({ blockNumber: Number(r.block_number), timestamp: Number(r.timestamp) }));
  }

  /** Snapshots with a time at or after `from`, oldest first. */
  async snapshots(chain: string, token: string, from: number): Promise<TokenSnapshotFact[]> {
    const rows = await this.db
      .selectFrom('tok_snapshots')
      .selectAll()
      .where('chain', '=', chain)
      .where('token', '=', token)
      .where('timestamp', '>=', from)
      .orderBy('block_number')
      .execute();
    return rows.map((r) => ({
      chain: r.chain,
      token: r.token,
      blockNumber: Number(r.block_number),
      timestamp: Number(r.timestamp),
      totalSupply: BigInt(r.total_supply),
      replayedSupply: BigInt(r.replayed_supply),
      sample: JSON.parse(r.sample) as SampleReading[],
      contracts: JSON.parse(r.contracts) as ContractReading[],
    }));
  }

  /** Deletes the snapshots at these blocks (the retention's choice: snapshots.ts `snapshotsToPrune`). */
  async deleteSnapshots(chain: string, token: string, blocks: readonly number[]): Promise<void> {
    await inChunks(
      blocks,
      (chunk) =>
        this.db
          .deleteFrom('tok_snapshots')
          .where('chain', '=', chain)
          .where('token', '=', token)
          .where('block_number', 'in', chunk)
          .execute(),
      CHUNK,
    );
  }
}

/** A token's retained transfers in chain order: the one query the reads of `tok_transfers` narrow down. */
const transfersQuery = (db: Db, chain: string, token: string) =>
  db
    .selectFrom('tok_transfers')
    .selectAll()
    .where('chain', '=', chain)
    .where('token', '=', token)
    .orderBy('block_number')
    .orderBy('log_index');

async function readLedger(db: Db, chain: string, token: string) {
  const row = await db
    .selectFrom('tok_ledgers')
    .selectAll()
    .where('chain', '=', chain)
    .where('token', '=', token)
    .executeTakeFirst();
  return row ? ledgerState(row) : undefined;
}

async function readBalances(
  db: Db,
  chain: string,
  token: string,
  addresses: readonly string[],
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  await inChunks(
    [...new Set(addresses)],
    async (chunk) => {
      const rows = await db
        .selectFrom('tok_balances')
        .select(['address', 'balance'])
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('address', 'in', chunk)
        .execute();
      for (const r of rows) out.set(r.address, BigInt(r.balance));
    },
    CHUNK,
  );
  return out;
}

/** Adds `deltas` to the stored balances (`sign` −1 takes them away); an address reaching zero leaves the table. */
async function moveBalances(
  db: Db,
  chain: string,
  token: string,
  deltas: ReadonlyMap<string, bigint>,
  sign: 1 | -1,
): Promise<void> {
  const old = await readBalances(db, chain, token, [...deltas.keys()]);
  const zero: string[] = [];
  const rows: TokenomicsTables['tok_balances'][] = [];
  for (const [address, d] of deltas) {
    const v = (old.get(address) ?? 0n) + (sign === 1 ? d : -d);
    if (v === 0n) zero.push(address);
    else rows.push({ chain, token, address, balance: v.toString() });
  }
  await inChunks(zero, (chunk) =>
    db
      .deleteFrom('tok_balances')
      .where('chain', '=', chain)
      .where('token', '=', token)
      .where('address', 'in', chunk)
      .execute(),
  );
  await inChunks(rows, (chunk) =>
    db
      .insertInto('tok_balances')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['chain', 'token', 'address']).doUpdateSet((eb) => ({ balance: eb.ref('excluded.balance') })),
      )
      .execute(),
  );
}

/** Minted less burnt by the transfers (from and to the zero address). */
export function netMinted(transfers: readonly Pick<TransferFact, 'from' | 'to' | 'value'>[]): bigint {
  let s = 0n;
  for (const t of transfers) {
    if (t.from === ZERO_ADDRESS) s += t.value;
    if (t.to === ZERO_ADDRESS) s -= t.value;
  }
  return s;
}

const toLedger = (t: TransferFact): LedgerTransfer => ({
  from: t.from,
  to: t.to,
  value: t.value,
  blockNumber: t.blockNumber,
});

/**
 * Writes a range's transfers and moves the ledger to `toBlock`, inside the engine's transaction. Idempotent: a
 * transfer already stored (a range that comes again) is neither inserted nor applied twice. Returns how many
 * transfers it wrote.
 */
export async function applyTransferRange(
  trx: Transaction<Database>,
  args: {
    readonly chain: string;
    readonly token: string;
    readonly startBlock: number;
    readonly from: number;
    readonly toBlock: number;
    readonly transfers: readonly TransferFact[];
  },
): Promise<number> {
  const db = trx.withTables<TokenomicsTables>();
  const { chain, token } = args;
  const stored = new Set(
    (
      await db
        .selectFrom('tok_transfers')
        .select(['block_number', 'log_index'])
        .where('chain', '=', chain)
        .where('token', '=', token)
        .where('block_number', '>=', args.from)
        .where('block_number', '<=', args.toBlock)
        .execute()
    ).map((r) => `${r.block_number}:${r.log_index}`),
  );
  const fresh = args.transfers.filter((t) => !stored.has(`${t.blockNumber}:${t.logIndex}`));
  await inChunks(
    fresh.map((t) => ({
      chain,
      token,
      block_number: t.blockNumber,
      log_index: t.logIndex,
      tx_hash: t.txHash,
      from_address: t.from,
      to_address: t.to,
      value: t.value.toString(),
      timestamp: t.timestamp,
    })),
    (chunk) => db.insertInto('tok_transfers').values(chunk).execute(),
    CHUNK,
  );
  await moveBalances(db, chain, token, balanceDeltas(fresh.map(toLedger)), 1);
  const minted = netMinted(fresh);
  const ledger = await readLedger(db, chain, token);
  if (!ledger) {
    await db
      .insertInto('tok_ledgers')
      .values({
        chain,
        token,
        start_block: args.startBlock,
        block_number: args.toBlock,
        pruned_through: 0,
        transfers: fresh.length,
        supply: minted.toString(),
      })
      .execute();
  } else {
    await db
      .updateTable('tok_ledgers')
      .set({
        block_number: Math.max(ledger.blockNumber, args.toBlock),
        transfers: ledger.transfers + fresh.length,
        supply: (ledger.supply + minted).toString(),
      })
      .where('chain', '=', chain)
      .where('token', '=', token)
      .execute();
  }
  return fresh.length;
}

/**
 * Takes a reorganisation's blocks (> `afterBlock`) out of the ledger, inside the engine's transaction: their
 * transfers are taken away from the balances and deleted, with the snapshots taken at those blocks. Below the
 * replay's start (the engine starts over: a different chain) the token's ledger is emptied. Below what the retention
 * pruned, the ledger cannot be turned back and the rollback fails, naming the fix (a reorganisation that deep does
 * not happen on a live chain; a chain reset starts over from the start block instead).
 */
export async function rollbackTransferRange(
  trx: Transaction<Database>,
  args: { readonly chain: string; readonly token: string; readonly afterBlock: number },
): Promise<void> {
  const db = trx.withTables<TokenomicsTables>();
  const { chain, token, afterBlock } = args;
  const ledger = await readLedger(db, chain, token);
  if (!ledger) return;
  const scoped = <T extends 'tok_transfers' | 'tok_balances' | 'tok_ledgers' | 'tok_snapshots'>(table: T) =>
    db
      .deleteFrom(table as 'tok_transfers')
      .where('chain', '=', chain)
      .where('token', '=', token);
  if (afterBlock < ledger.startBlock) {
    for (const table of ['tok_transfers', 'tok_balances', 'tok_ledgers', 'tok_snapshots'] as const) {
      await scoped(table).execute();
    }
    return;
  }
  if (afterBlock < ledger.prunedThrough) {
    throw new Error(
      `tokenomics: a reorganisation below block ${ledger.prunedThrough} of ${chain}, whose transfers of ${token} the ` +
        'retention pruned; the ledger cannot be turned back that far (delete its tok_ledgers row and checkpoint to replay)',
    );
  }
  const undone = (await transfersQuery(db, chain, token).where('block_number', '>', afterBlock).execute()).map(
    toTransfer,
  );
  await moveBalances(db, chain, token, balanceDeltas(undone.map(toLedger)), -1);
  await scoped('tok_transfers').where('block_number', '>', afterBlock).execute();
  await db
    .deleteFrom('tok_snapshots')
    .where('chain', '=', chain)
    .where('token', '=', token)
    .where('block_number', '>', afterBlock)
    .execute();
  await db
    .updateTable('tok_ledgers')
    .set({
      block_number: Math.min(ledger.blockNumber, afterBlock),
      transfers: ledger.transfers - undone.length,
      supply: (ledger.supply - netMinted(undone)).toString(),
    })
    .where('chain', '=', chain)
    .where('token', '=', token)
    .execute();
}

/**
 * What the computation of one token loads: the ledger, the retained transfers of the week, the week's snapshots and
 * the day-end ones of the 30 days before it.
 */
export interface TokenFacts {
  readonly ledger: { readonly block: number; readonly balances: ReadonlyMap<string, bigint> };
  readonly transfers: readonly TransferFact[];
  readonly snapshots: readonly TokenSnapshotFact[];
}

/**
 * The week of a token (its newest snapshot and the 8 days before it; snapshots back to `DAY_END_RETENTION_DAYS`), or
 * undefined before its first snapshot.
 */
export async function loadTokenFacts(repo: TokenomicsRepository, chain: string, token: string) {
  const newest = (await repo.snapshotTimes(chain, token)).reduce<number | undefined>(
    (a, s) => (a === undefined || s.timestamp > a ? s.timestamp : a),
    undefined,
  );
  if (newest === undefined) return undefined;
  const ledger = await repo.balances(chain, token);
  if (!ledger) return undefined;
  const from = newest - 8 * 86_400;
  const facts: TokenFacts = {
    ledger,
    transfers: (await repo.transfersBetween(chain, token, from, Number.MAX_SAFE_INTEGER)).filter(
      (t) => t.blockNumber <= ledger.block,
    ),
    snapshots: (await repo.snapshots(chain, token, newest - DAY_END_RETENTION_DAYS * 86_400)).filter(
      (s) => s.blockNumber <= ledger.block,
    ),
  };
  return facts;
}
