import { type Kysely, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { getContractAddress, toEventSelector } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import {
  type AnvilLite,
  deployEmitter,
  EMITTER_INIT,
  emitterCalldata,
  receiptOf,
  sendTx,
  startAnvil,
} from '../../../test/support/anvil-lite.js';
import { startFaultyProxy } from '../../../test/support/faulty-proxy.js';
import { seededRandom } from '../../../test/support/random.js';
import { ServiceError } from '../../core/errors.js';
import { createEvmSource, type EvmSource, type EvmSourceOptions } from '../../sources/evm/source.js';
import type { EvmLog, EvmLogger, Hex } from '../../sources/evm/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import type { Dialect, Store } from '../../store/db.js';
import type { Database } from '../../store/schema.js';
import { type EvmCheckpoint, type IngestSink, ingest, MAX_RECENT, thinPoints } from './ingest.js';
import type { EvmEngineTables } from './tables.js';

/**
 * The ingest engine against a real anvil. The chain: a "factory" emitter announces children (`Created(address)`
 * with the child's address as data), children emit `Value(uint256)`; noise (an unannounced emitter, another
 * topic) must not reach the facts. The test sink has two stages (factory → children) and writes to tables the
 * test creates. Every result is compared with the truth read straight from anvil.
 */

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
if (!PG_URL) it.skip('PostgreSQL ingest tests skipped: set TEST_DATABASE_URL or DATABASE_URL to run them', () => {});
/** Same key as the store tests: PostgreSQL test files that migrate schemas take turns. */
const PG_TEST_LOCK = 7_310_512_001;

const CREATED = toEventSelector('Created(address)');
const VALUE = toEventSelector('Value(uint256)');
const OTHER = toEventSelector('Other(uint256)');
const NOW = () => 1_795_000_000;
const noSleep = async () => {};

interface World {
  readonly anvil: AnvilLite;
  readonly accounts: Hex[];
  readonly factory: Hex;
  readonly noise: Hex;
  readonly children: Hex[];
  /** First block the sinks ingest (after the factory's deployment). */
  readonly startBlock: number;
}

async function head(anvil: AnvilLite): Promise<number> {
  return Number.parseInt(await anvil.rpc<string>('eth_blockNumber'), 16);
}

async function buildWorld(anvil: AnvilLite): Promise<World> {
  const accounts = (await anvil.rpc<Hex[]>('eth_accounts')).map((a) => a.toLowerCase() as Hex);
  const factory = await deployEmitter(anvil, accounts[0]!);
  const noise = await deployEmitter(anvil, accounts[0]!);
  return { anvil, accounts, factory, noise, children: [], startBlock: (await head(anvil)) + 1 };
}

/**
 * Mines `blocks` blocks of seeded activity (some empty); returns the hashes of the transactions sent. A child is
 * announced in the block that deploys it, before any of its events, so the facts do not depend on ranges.
 */
async function mine(world: World, blocks: number, seed: number): Promise<Hex[]> {
  const { anvil, accounts } = world;
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sent: Hex[] = [];
  await anvil.rpc('evm_setAutomine', [false]);
  try {
    for (let b = 0; b < blocks; b++) {
      if (random() < 0.2) {
        await anvil.rpc('anvil_mine', ['0x1']);
        continue;
      }
      if (world.children.length === 0 || random() < 0.12) {
        const deployer = accounts[9]!;
        const nonce = await anvil.rpc<string>('eth_getTransactionCount', [deployer, 'pending']);
        const child = getContractAddress({ from: deployer, nonce: BigInt(nonce) }).toLowerCase() as Hex;
        sent.push(await sendTx(anvil, { from: deployer, data: EMITTER_INIT, gas: 200_000 }));
        const announce = emitterCalldata([{ topic: CREATED, word: child }]);
        sent.push(await sendTx(anvil, { from: accounts[0]!, to: world.factory, data: announce }));
        world.children.push(child);
      }
      const txs = 1 + Math.floor(random() * 4);
      for (let t = 0; t < txs; t++) {
        const records = Array.from({ length: 1 + Math.floor(random() * 4) }, () => ({
          topic: random() < 0.85 ? VALUE : OTHER,
          word: BigInt(Math.floor(random() * 1e9)) * 10n ** 18n,
        }));
        const to = random() < 0.1 ? world.noise : pick(world.children);
        sent.push(await sendTx(anvil, { from: pick(accounts.slice(1, 6)), to, data: emitterCalldata(records) }));
      }
      await anvil.rpc('evm_mine', []);
    }
  } finally {
    await anvil.rpc('evm_setAutomine', [true]);
  }
  return sent;
}

// --- the test sink: children and values in tables of its own -------------------------------------------------

async function createSinkTables(store: Store): Promise<void> {
  await sql`create table t_children (address text primary key, created_block bigint not null)`.execute(store.db);
  await sql`create table t_facts (
    block_number bigint not null, log_index bigint not null, tx_hash text not null, address text not null,
    value text not null, timestamp bigint not null, sender text not null, primary key (block_number, log_index)
  )`.execute(store.db);
}

interface SinkHooks {
  afterApply?(range: { from: number; to: number }): void;
  beforeQueries?(stage: number): Promise<void>;
}

function testSink(world: World, hooks: SinkHooks = {}) {
  const sink: IngestSink = {
    key: 'test:anvil',
    startBlock: world.startBlock,
    stages: 2,
    async queries(stage: number, db: Kysely<Database>, discovered: readonly (readonly EvmLog[])[]) {
      await hooks.beforeQueries?.(stage);
      if (stage === 0) return [{ addresses: [world.factory], topics: [CREATED] }];
      const known = await sql<{ address: string }>`select address from t_children`.execute(db);
      const children = new Set(known.rows.map((r) => r.address as Hex));
      for (const log of discovered[0] ?? []) children.add(`0x${log.data.slice(26)}`);
      return [{ addresses: [...children], topics: [VALUE] }];
    },
    async apply(trx: Transaction<Database>, range, logs, ctx) {
      const created = (logs[0] ?? []).map((l) => sql`(${`0x${l.data.slice(26)}`}, ${l.blockNumber})`);
      if (created.length > 0) {
        await sql`insert into t_children (address, created_block) values ${sql.join(created)} on conflict do nothing`.execute(
          trx,
        );
      }
      const values = (logs[1] ?? []).map(
        (l) =>
          sql`(${l.blockNumber}, ${l.logIndex}, ${l.transactionHash}, ${l.address}, ${BigInt(l.data).toString()}, ${
            ctx.blocks.get(l.blockNumber)!.timestamp
          }, ${ctx.senders.get(l.transactionHash)!})`,
      );
      for (let i = 0; i < values.length; i += 200) {
        await sql`insert into t_facts (block_number, log_index, tx_hash, address, value, timestamp, sender)
          values ${sql.join(values.slice(i, i + 200))} on conflict do nothing`.execute(trx);
      }
      hooks.afterApply?.(range);
      return created.length + values.length;
    },
    async rollback(trx, afterBlock) {
      await sql`delete from t_facts where block_number > ${afterBlock}`.execute(trx);
      await sql`delete from t_children where created_block > ${afterBlock}`.execute(trx);
    },
    needsSenders: (log) => log.topics[0] === VALUE,
  };
  return sink;
}

interface Facts {
  children: { address: string; created_block: number }[];
  facts: {
    block_number: number;
    log_index: number;
    tx_hash: string;
    address: string;
    value: string;
    timestamp: number;
    sender: string;
  }[];
}

async function dump(store: Store): Promise<Facts> {
  const children = await sql<Facts['children'][number]>`select * from t_children order by address`.execute(store.db);
  const facts = await sql<Facts['facts'][number]>`select * from t_facts order by block_number, log_index`.execute(
    store.db,
  );
  return {
    children: children.rows.map((r) => ({ address: r.address, created_block: Number(r.created_block) })),
    facts: facts.rows.map((r) => ({
      ...r,
      block_number: Number(r.block_number),
      log_index: Number(r.log_index),
      timestamp: Number(r.timestamp),
    })),
  };
}

/** The facts the sink should hold for [startBlock, to], read straight from anvil with one unsplit query each. */
async function truth(world: World, to: number): Promise<Facts> {
  const { anvil } = world;
  const range = { fromBlock: `0x${world.startBlock.toString(16)}`, toBlock: `0x${to.toString(16)}` };
  type RawLog = { address: Hex; data: Hex; blockNumber: Hex; logIndex: Hex; transactionHash: Hex };
  const created = await anvil.rpc<RawLog[]>('eth_getLogs', [{ ...range, address: world.factory, topics: [CREATED] }]);
  const children = created
    .map((l) => ({ address: `0x${l.data.slice(26)}`, created_block: Number(l.blockNumber) }))
    .sort((a, b) => (a.address < b.address ? -1 : 1));
  const logs =
    children.length === 0
      ? []
      : await anvil.rpc<RawLog[]>('eth_getLogs', [
          { ...range, address: children.map((c) => c.address), topics: [VALUE] },
        ]);
  const facts: Facts['facts'] = [];
  for (const l of logs) {
    const block = await anvil.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', [l.blockNumber, false]);
    const tx = await anvil.rpc<{ from: Hex }>('eth_getTransactionByHash', [l.transactionHash]);
    facts.push({
      block_number: Number(l.blockNumber),
      log_index: Number(l.logIndex),
      tx_hash: l.transactionHash.toLowerCase(),
      address: l.address.toLowerCase(),
      value: BigInt(l.data).toString(),
      timestamp: Number(block.timestamp),
      sender: tx.from.toLowerCase(),
    });
  }
  facts.sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index);
  return { children, facts };
}

function sourceFor(
  url: string,
  overrides: Partial<Parameters<typeof createEvmSource>[0]> = {},
  options: EvmSourceOptions = {},
) {
  return createEvmSource(
    { id: 'anvil', rpcUrl: url, finalityDepth: 8, maxBlockRange: 32, timeoutMs: 2000, ...overrides },
    { sleep: noSleep, ...options },
  );
}

function usePgLock(dialect: Dialect): void {
  if (dialect !== 'postgres') return;
  let lock: pg.Client | undefined;
  beforeAll(async () => {
    // Test files migrating PostgreSQL schemas take turns, to keep their load apart (migrating is unaffected by
    // other schemas: the store introspects only its own, src/store/introspector.ts).
    lock = new pg.Client({ connectionString: PG_URL });
    await lock.connect();
    await lock.query('select pg_advisory_lock($1)', [PG_TEST_LOCK]);
  });
  afterAll(async () => {
    await lock?.end();
  });
}

/** A store with the sink's tables; cleaned up after the test. */
function useStores(dialect: Dialect) {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  return async () => {
    const { store, cleanup } = testStore(dialect);
    cleanups.push(cleanup);
    await store.migrate();
    await createSinkTables(store);
    return store;
  };
}

async function checkpointOf(store: Store, key = 'test:anvil'): Promise<EvmCheckpoint | undefined> {
  return readCheckpoint<EvmCheckpoint>(store.db, key);
}

async function blockHash(anvil: AnvilLite, n: number): Promise<string | undefined> {
  const b = await anvil.rpc<{ hash: string } | null>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
  return b?.hash.toLowerCase();
}

/** Every stored `evm_blocks` row of the chain is on the current chain. */
async function expectBlocksOnChain(store: Store, anvil: AnvilLite): Promise<void> {
  const rows = await store.db
    .withTables<EvmEngineTables>()
    .selectFrom('evm_blocks')
    .selectAll()
    .where('chain', '=', 'anvil')
    .execute();
  for (const row of rows) expect(row.hash, `evm_blocks ${row.number}`).toBe(await blockHash(anvil, Number(row.number)));
}

// --- a static chain: direct, faulty, split, interrupted ---------------------------------------------------------

describe('ingest on a static chain', () => {
  let anvil: AnvilLite;
  let world: World;
  let end: number;
  let expected: Facts;

  beforeAll(async () => {
    anvil = await startAnvil({ timestamp: 1_790_000_000 });
    world = await buildWorld(anvil);
    await mine(world, 160, 1);
    end = await head(anvil);
    expected = await truth(world, end);
    // The world must exercise what it claims to: several children, announced over time, many values.
    expect(expected.children.length).toBeGreaterThan(5);
    expect(expected.facts.length).toBeGreaterThan(300);
  }, 120_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  describe.each(dialects)('on %s', (dialect) => {
    usePgLock(dialect);
    const newStore = useStores(dialect);

    it('writes exactly the chain’s facts; a second run at the head changes nothing', async () => {
      const store = await newStore();
      const source = sourceFor(anvil.url);
      const result = await ingest(source, store, testSink(world), { now: NOW, toBlock: end });
      expect(result).toMatchObject({ from: world.startBlock, to: end, aborted: false });
      expect(result.facts).toBe(expected.children.length + expected.facts.length);
      expect(await dump(store)).toEqual(expected);
      const cp = await checkpointOf(store);
      expect(cp?.block).toBe(end);
      expect(cp?.hash).toBe(await blockHash(anvil, end));
      await expectBlocksOnChain(store, anvil);

      const again = await ingest(source, store, testSink(world), { now: NOW, toBlock: end });
      expect(again).toMatchObject({ from: end + 1, to: end, facts: 0, ranges: 0 });
      expect(await dump(store)).toEqual(expected);
    });

    it('through a faulty proxy (500s, 429s, hangs, truncated and result-less bodies, refused ranges) yields the same facts', async () => {
      const store = await newStore();
      const proxy = await startFaultyProxy(anvil.url, {
        seed: 42,
        rates: { error500: 0.08, rateLimit: 0.05, timeout: 0.03, truncate: 0.05, missingResult: 0.05 },
        maxLogRange: 12,
      });
      try {
        const source = sourceFor(proxy.url, { timeoutMs: 200, maxRetries: 12 });
        const result = await ingest(source, store, testSink(world), { now: NOW, toBlock: end });
        expect(result.to).toBe(end);
        expect(await dump(store)).toEqual(expected);
        const s = proxy.stats;
        for (const fault of [s.error500, s.rateLimited, s.timeouts, s.truncated, s.missingResult, s.tooManyResults]) {
          expect(fault).toBeGreaterThan(0);
        }
        expect(source.stats.rpc.retries).toBeGreaterThanOrEqual(
          s.error500 + s.rateLimited + s.timeouts + s.truncated + s.missingResult,
        );
      } finally {
        await proxy.close();
      }
    });

    it('splits refused log ranges, and grows them back once the provider accepts larger ones', async () => {
      const store = await newStore();
      const proxy = await startFaultyProxy(anvil.url, { seed: 7, maxLogRange: 5 });
      try {
        const source = sourceFor(proxy.url, { maxBlockRange: 20 });
        const middle = world.startBlock + 20;
        await ingest(source, store, testSink(world), { now: NOW, toBlock: middle });
        expect(proxy.stats.tooManyResults).toBeGreaterThan(0);
        expect(source.stats.logs.splits).toBe(proxy.stats.tooManyResults);
        expect(Math.max(...proxy.stats.getLogsSpans)).toBeLessThanOrEqual(5);
        expect(source.window('test:anvil').size).toBeLessThan(8);

        proxy.setMaxLogRange(undefined);
        const before = proxy.stats.getLogsSpans.length;
        await ingest(source, store, testSink(world), { now: NOW, toBlock: end });
        const after = proxy.stats.getLogsSpans.slice(before);
        // Grown by a quarter per full-size success, up to maxBlockRange.
        expect(Math.max(...after)).toBe(20);
        expect(source.window('test:anvil').size).toBe(20);
        expect(await dump(store)).toEqual(expected);
      } finally {
        await proxy.close();
      }
    });

    it('stops at a range boundary when aborted and resumes without re-applying a committed range', async () => {
      const store = await newStore();
      const applied: { from: number; to: number }[] = [];
      const controller = new AbortController();
      const source = sourceFor(anvil.url, { maxBlockRange: 16 });
      const sink = testSink(world, {
        afterApply: (range) => {
          applied.push(range);
          if (applied.length === 2) controller.abort();
        },
      });
      const first = await ingest(source, store, sink, { now: NOW, toBlock: end, signal: controller.signal });
      expect(first.aborted).toBe(true);
      expect(first.ranges).toBe(2);
      expect((await checkpointOf(store))?.block).toBe(applied[1]!.to);
      expect(first.to).toBe(applied[1]!.to);

      const second = await ingest(source, store, sink, { now: NOW, toBlock: end });
      expect(second.aborted).toBe(false);
      expect(second.from).toBe(applied[1]!.to + 1);
      expect(await dump(store)).toEqual(expected);
      // Ranges are contiguous and disjoint across both runs.
      let next = world.startBlock;
      for (const r of applied) {
        expect(r.from).toBe(next);
        next = r.to + 1;
      }
      expect(next).toBe(end + 1);
    });

    it('commits nothing of a range whose apply fails; the re-run gives identical facts', async () => {
      const store = await newStore();
      let calls = 0;
      const source = sourceFor(anvil.url, { maxBlockRange: 16 });
      const failing = testSink(world, {
        afterApply: () => {
          if (++calls === 3) throw new Error('crash inside apply');
        },
      });
      await expect(ingest(source, store, failing, { now: NOW, toBlock: end })).rejects.toThrow('crash inside apply');
      const cp = await checkpointOf(store);
      const partial = await dump(store);
      // Two ranges committed; the third one's rows were rolled back with its transaction.
      expect(cp!.block).toBe(world.startBlock + 31);
      expect(partial.facts.every((f) => f.block_number <= cp!.block)).toBe(true);
      expect(partial.facts).toEqual(expected.facts.filter((f) => f.block_number <= cp!.block));

      await ingest(source, store, testSink(world), { now: NOW, toBlock: end });
      expect(await dump(store)).toEqual(expected);
    });

    it('throws a retryable ServiceError when the RPC stays down, leaving the checkpoint where it was', async () => {
      const store = await newStore();
      const proxy = await startFaultyProxy(anvil.url, { seed: 1 });
      try {
        const source = sourceFor(proxy.url, { maxRetries: 2 });
        await ingest(source, store, testSink(world), { now: NOW, toBlock: world.startBlock + 40 });
        const cp = await checkpointOf(store);
        proxy.setRates({ error500: 1 });
        const err = await ingest(source, store, testSink(world), { now: NOW, toBlock: end }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ServiceError);
        expect((err as ServiceError).retryable).toBe(true);
        expect(String((err as Error).message)).toMatch(/RPC unavailable after 3 attempts/);
        expect(await checkpointOf(store)).toEqual(cp);
      } finally {
        await proxy.close();
      }
    });
  });
});

// --- reorgs: anvil snapshots and reverts ---------------------------------------------------------------------

describe.each(dialects)('ingest across reorgs on %s', (dialect) => {
  usePgLock(dialect);
  const newStore = useStores(dialect);
  let anvil: AnvilLite;
  let world: World;

  beforeAll(async () => {
    anvil = await startAnvil({ timestamp: 1_790_000_000 });
    world = await buildWorld(anvil);
    await mine(world, 30, 11);
  }, 60_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  function warnings(): { logger: EvmLogger; lines: { level: string; msg: string; obj: Record<string, unknown> }[] } {
    const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
    const at = (level: string) => (obj: Record<string, unknown>, msg: string) => lines.push({ level, msg, obj });
    return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
  }

  /** Snapshot, mine `abandoned` blocks, ingest, revert, mine `replacement` blocks, ingest again. */
  async function reorg(
    store: Store,
    source: EvmSource,
    abandoned: number,
    replacement: number,
    seed: number,
  ): Promise<{ fork: number; lost: Hex[]; result: Awaited<ReturnType<typeof ingest>> }> {
    const fork = await head(anvil);
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const childrenBefore = world.children.length;
    const lost = await mine(world, abandoned, seed);
    const first = await ingest(source, store, testSink(world), { now: NOW });
    expect(first.to).toBe(fork + abandoned);
    expect(await anvil.rpc('evm_revert', [snapshot])).toBe(true);
    world.children.splice(childrenBefore);
    await mine(world, replacement, seed + 1000);
    const result = await ingest(source, store, testSink(world), { now: NOW });
    return { fork, lost, result };
  }

  async function expectOnCurrentChain(store: Store, lost: readonly Hex[]): Promise<void> {
    const now = await head(anvil);
    const facts = await dump(store);
    expect(facts).toEqual(await truth(world, now));
    const lostSet = new Set(lost.map((h) => h.toLowerCase()));
    expect(facts.facts.filter((f) => lostSet.has(f.tx_hash))).toEqual([]);
    const cp = await checkpointOf(store);
    expect(cp?.block).toBe(now);
    expect(cp?.hash).toBe(await blockHash(anvil, now));
    await expectBlocksOnChain(store, anvil);
  }

  it('rolls back the facts of abandoned blocks and follows the new chain', async () => {
    const store = await newStore();
    const { logger, lines } = warnings();
    const source = sourceFor(anvil.url, { finalityDepth: 10, maxBlockRange: 4 }, { log: logger });
    await ingest(source, store, testSink(world), { now: NOW });
    const { fork, lost, result } = await reorg(store, source, 6, 8, 21);
    expect(result.reorgedFrom).toBeDefined();
    expect(result.reorgedFrom!).toBeGreaterThan(fork - 4);
    expect(result.reorgedFrom!).toBeLessThanOrEqual(fork + 1);
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'reorg: rolled back')).toBe(true);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    await expectOnCurrentChain(store, lost);
  });

  it('fetches a range again when the chain reorganises while the range is being fetched', async () => {
    const store = await newStore();
    const { logger, lines } = warnings();
    const source = sourceFor(anvil.url, { finalityDepth: 10, maxBlockRange: 32 }, { log: logger });
    await ingest(source, store, testSink(world), { now: NOW });
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const childrenBefore = world.children.length;
    // An announcement right after the checkpoint, so stage 0 of the next range has a log from the doomed chain.
    const deployer = world.accounts[9]!;
    const nonce = await anvil.rpc<string>('eth_getTransactionCount', [deployer, 'pending']);
    const child = getContractAddress({ from: deployer, nonce: BigInt(nonce) }).toLowerCase() as Hex;
    await receiptOf(anvil, await sendTx(anvil, { from: deployer, data: EMITTER_INIT, gas: 200_000 }));
    const announce = emitterCalldata([{ topic: CREATED, word: child }]);
    await receiptOf(anvil, await sendTx(anvil, { from: world.accounts[0]!, to: world.factory, data: announce }));
    world.children.push(child);
    await mine(world, 3, 51);
    let reorged = false;
    const sink = testSink(world, {
      async beforeQueries(stage) {
        if (stage !== 1 || reorged) return;
        // Between stage 0 (already fetched from the old chain) and stage 1: the chain switches.
        reorged = true;
        expect(await anvil.rpc('evm_revert', [snapshot])).toBe(true);
        world.children.splice(childrenBefore);
        // As many blocks as the old chain had, so the run's target (taken at its start) is the new head.
        await mine(world, 5, 52);
      },
    });
    await ingest(source, store, sink, { now: NOW });
    expect(reorged).toBe(true);
    expect(lines.some((l) => l.msg === 'chain moved while fetching: range fetched again')).toBe(true);
    await expectOnCurrentChain(store, []);
  });

  it('follows a chain that became shorter than the checkpoint', async () => {
    const store = await newStore();
    const source = sourceFor(anvil.url, { finalityDepth: 10, maxBlockRange: 4 });
    await ingest(source, store, testSink(world), { now: NOW });
    const { fork, lost, result } = await reorg(store, source, 7, 2, 31);
    expect(result.reorgedFrom!).toBeLessThanOrEqual(fork + 1);
    await expectOnCurrentChain(store, lost);
  });

  it('recovers from a reorg deeper than the finality depth through the stored block hashes', async () => {
    const store = await newStore();
    const { logger, lines } = warnings();
    const source = sourceFor(anvil.url, { finalityDepth: 2, maxBlockRange: 3 }, { log: logger });
    await ingest(source, store, testSink(world), { now: NOW });
    const { fork, lost, result } = await reorg(store, source, 9, 10, 41);
    expect(result.reorgedFrom!).toBeLessThanOrEqual(fork + 1);
    expect(lines.some((l) => l.level === 'error' && /deeper than the finality depth/.test(l.msg))).toBe(true);
    await expectOnCurrentChain(store, lost);
  });
});

describe.each(dialects)("ingest with the node's finalized tag on %s", (dialect) => {
  usePgLock(dialect);
  const newStore = useStores(dialect);
  let anvil: AnvilLite;
  let world: World;

  beforeAll(async () => {
    anvil = await startAnvil({ timestamp: 1_790_000_000 });
    world = await buildWorld(anvil);
    await mine(world, 20, 61);
    // anvil's `finalized` block is the head − 64 (checked 2026-11-29, anvil 1.x): empty blocks put it above the start.
    await anvil.rpc('anvil_mine', ['0x50']);
  }, 60_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  const finalized = async () =>
    Number.parseInt((await anvil.rpc<{ number: string }>('eth_getBlockByNumber', ['finalized', false])).number, 16);

  it('caches only headers at or below the finalized block, and rolls back a reorg above it that a fixed depth would call final', async () => {
    const store = await newStore();
    const lines: { level: string; msg: string }[] = [];
    const at = (level: string) => (_: Record<string, unknown>, msg: string) => lines.push({ level, msg });
    const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    // The fallback depth (2) would treat a 6-block reorg as deeper than finality: the tag must decide instead.
    const source = sourceFor(anvil.url, { finality: 'tag', finalityDepth: 2, maxBlockRange: 3 }, { log: logger });
    const asked: { numbers: number[]; fresh: boolean }[] = [];
    const getBlocks = source.getBlocks.bind(source);
    source.getBlocks = (numbers, options = {}) => {
      asked.push({ numbers: [...numbers], fresh: options.fresh === true });
      return getBlocks(numbers, options);
    };

    const tagAtStart = await finalized();
    const first = await ingest(source, store, testSink(world), { now: NOW });
    expect(first.final).toEqual({ number: tagAtStart, by: 'tag' });
    expect(tagAtStart).toBeGreaterThan(world.startBlock);
    const cached = asked.filter((a) => !a.fresh).flatMap((a) => a.numbers);
    const fresh = asked.filter((a) => a.fresh).flatMap((a) => a.numbers);
    expect(cached.length).toBeGreaterThan(0);
    expect(cached.every((n) => n <= tagAtStart)).toBe(true);
    expect(fresh.some((n) => n > tagAtStart)).toBe(true);
    expect(fresh.every((n) => n > tagAtStart)).toBe(true);
    // Walk-back points cover the unfinalized span, and none is at or below the finalized block.
    const cp = (await checkpointOf(store))!;
    expect(cp.recent.every(([n]) => n > tagAtStart)).toBe(true);
    expect(Math.min(...cp.recent.map(([n]) => n))).toBeLessThanOrEqual(tagAtStart + 3);

    // A reorg of 6 blocks, far above the finalized block (64 deep).
    const fork = await head(anvil);
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const childrenBefore = world.children.length;
    const lost = await mine(world, 6, 62);
    expect((await ingest(source, store, testSink(world), { now: NOW })).to).toBe(fork + 6);
    expect(await anvil.rpc('evm_revert', [snapshot])).toBe(true);
    world.children.splice(childrenBefore);
    await mine(world, 8, 63);
    const result = await ingest(source, store, testSink(world), { now: NOW });
    expect(result.final).toEqual({ number: await finalized(), by: 'tag' });
    expect(result.reorgedFrom!).toBeLessThanOrEqual(fork + 1);
    expect(result.reorgedFrom!).toBeGreaterThan(fork - 4);
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'reorg: rolled back')).toBe(true);
    // Found by a walk-back point, not by the stored-hash walk of a reorg "deeper than the finality depth".
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    const now = await head(anvil);
    expect(await dump(store)).toEqual(await truth(world, now));
    const lostSet = new Set(lost.map((h) => h.toLowerCase()));
    expect((await dump(store)).facts.filter((f) => lostSet.has(f.tx_hash))).toEqual([]);
    expect((await checkpointOf(store))?.hash).toBe(await blockHash(anvil, now));
    await expectBlocksOnChain(store, anvil);
  }, 60_000);
});

describe('walk-back points beyond the bound', () => {
  it('keeps the newest densely and the older ones sparsely, down to the oldest', () => {
    const points = Array.from({ length: 5000 }, (_, i) => 10_000 - i);
    const kept = thinPoints(points);
    expect(kept).toHaveLength(MAX_RECENT);
    expect(kept.slice(0, 128)).toEqual(points.slice(0, 128));
    expect(kept[kept.length - 1]).toBe(points[points.length - 1]);
    for (let i = 1; i < kept.length; i++) expect(kept[i]!).toBeLessThan(kept[i - 1]!);
    // Sparse gaps are even: a reorg anywhere in the span rolls back at most one gap too far.
    const gaps = kept
      .slice(128)
      .map((n, i, xs) => (i ? xs[i - 1]! - n : 0))
      .slice(1);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
    expect(thinPoints(points.slice(0, 200))).toEqual(points.slice(0, 200));
  });
});
