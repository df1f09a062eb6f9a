import type { Transaction } from 'kysely';
import { parseAbi } from 'viem';
import { nowSeconds } from '../../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../../jobs/evm/ingest.js';
import { ingest } from '../../../jobs/evm/ingest.js';
import type { JobContext } from '../../../jobs/types.js';
import type { EvmChains } from '../../../sources/evm/chains.js';
import type { EvmSource } from '../../../sources/evm/source.js';
import { readCallsAt, type StateCall } from '../../../sources/evm/source.js';
import type { EvmLog } from '../../../sources/evm/types.js';
import type { GmxOracleEndpoint } from '../../../sources/gmx-oracle/endpoint.js';
import { readCheckpoint } from '../../../store/checkpoints.js';
import { inChunks } from '../../../store/chunks.js';
import type { Database } from '../../../store/schema.js';
import { ingestStart } from '../../kit/ingest-start.js';
import type { SnapshotSchedule } from '../../kit/snapshot-schedule.js';
import {
  decodeEventLogData,
  decodeGmxEvent,
  EVENT_LOG_TOPICS,
  eventNameHash,
  GMX_EVENT_NAME_HASHES,
  type GmxEvent,
} from './events.js';
import { factJson, type GmxMarketFact, type GmxMarketState, type GmxStateSnapshot } from './facts.js';
import {
  DATA_STORE_ABI,
  fundingIncreaseFactorPerSecondKey,
  isMarketDisabledKey,
  KEY,
  marketPropertyKey,
  maxOpenInterestKey,
  openInterestInTokensKey,
  openInterestKey,
  poolAmountKey,
  savedFundingFactorPerSecondKey,
} from './keys.js';
import { GmxRepository } from './repo.js';
import type { GmxTables } from './tables.js';
import type { GmxTarget } from './targets.js';

/**
 * Every read of the GMX part from the chain, turned into facts:
 * - `GmxSink`, the EVM ingest engine's sink for one venue: the EventEmitter's `EventLog`/`EventLog1`/`EventLog2`
 *   logs whose name is one the part reads (topic1 = keccak256 of the name), decoded by key name into `gmx_events`,
 *   and `MarketCreated` into `gmx_markets`; idempotent on (chain, block, log index);
 * - the market list from the DataStore's `MARKET_LIST` and each market's tokens (`MarketStoreUtils` keys), so that
 *   markets created before ingestion started are known too: read on a process's first run and afterwards only when
 *   the stored market count moved (a `MarketCreated` ingested, a reorg), not on every 10-second run;
 * - token symbols and decimals (ERC-20; a synthetic index token has no contract: its symbol and decimals come from
 *   the oracle keeper's `/tokens`, the one place GMX publishes them, when the process reads the keeper);
 * - the DataStore's state at a block (multicall): per market, collateral token and side the open interest (USD cost
 *   basis and tokens), the pool amounts, the saved funding factor, adaptive funding's increase factor, the caps; and
 *   what each market token holds of its pool tokens (ERC-20 `balanceOf`: the TVL).
 */

export const gmxCheckpointKey = (t: Pick<GmxTarget, 'chain' | 'protocol'>) => `derivatives:${t.protocol}:${t.chain}`;

const ZERO = '0x0000000000000000000000000000000000000000';

export class GmxSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;

  constructor(
    readonly target: GmxTarget,
    readonly startBlock: number,
  ) {
    this.key = gmxCheckpointKey(target);
  }

  async queries(): Promise<LogQuery[]> {
    return [{ addresses: [this.target.eventEmitter], topics: [EVENT_LOG_TOPICS, GMX_EVENT_NAME_HASHES] }];
  }

  /** The decoded events of a range with their place (logs of another contract or name are skipped). */
  decode(logs: readonly EvmLog[], ctx: Pick<ApplyContext, 'blocks'>) {
    const out: { log: EvmLog; event: GmxEvent; timestamp: number }[] = [];
    for (const log of logs) {
      if (log.address.toLowerCase() !== this.target.eventEmitter) continue;
      const event = decodeGmxEvent(log);
      if (!event) continue;
      const block = ctx.blocks.get(Number(log.blockNumber));
      if (!block) throw new Error(`no block info for block ${log.blockNumber}`);
      out.push({ log, event, timestamp: block.timestamp });
    }
    return out;
  }

  async apply(
    platform: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const trx = platform.withTables<GmxTables>();
    const chain = this.target.chain;
    const decoded = this.decode(logs[0] ?? [], ctx);
    const events = decoded.map(({ log, event, timestamp }) => ({
      chain,
      block_number: Number(log.blockNumber),
      log_index: Number(log.logIndex),
      tx_hash: log.transactionHash.toLowerCase(),
      timestamp,
      emitter: this.target.eventEmitter,
      name: event.kind,
      market: event.kind === 'MarketCreated' ? event.marketToken : event.market,
      data: factJson(event),
    }));
    const markets = decoded.flatMap(({ log, event }) =>
      event.kind === 'MarketCreated'
        ? [
            {
              chain,
              data_store: this.target.dataStore,
              market: event.marketToken,
              index_token: event.indexToken,
              long_token: event.longToken,
              short_token: event.shortToken,
              created_block: Number(log.blockNumber),
            },
          ]
        : [],
    );
    await inChunks(
      events,
      (rows) =>
        trx
          .insertInto('gmx_events')
          .values(rows)
          .onConflict((oc) => oc.columns(['chain', 'block_number', 'log_index']).doNothing())
          .execute(),
      500,
    );
    await inChunks(
      markets,
      (rows) =>
        trx
          .insertInto('gmx_markets')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['chain', 'market']).doUpdateSet({ created_block: (eb) => eb.ref('excluded.created_block') }),
          )
          .execute(),
      500,
    );
    return events.length;
  }

  async rollback(platform: Transaction<Database>, afterBlock: number): Promise<void> {
    const trx = platform.withTables<GmxTables>();
    const chain = this.target.chain;
    await trx
      .deleteFrom('gmx_events')
      .where('chain', '=', chain)
      .where('emitter', '=', this.target.eventEmitter)
      .where('block_number', '>', afterBlock)
      .execute();
    await trx
      .deleteFrom('gmx_snapshots')
      .where('chain', '=', chain)
      .where('data_store', '=', this.target.dataStore)
      .where('block_number', '>', afterBlock)
      .execute();
    await trx
      .deleteFrom('gmx_markets')
      .where('chain', '=', chain)
      .where('data_store', '=', this.target.dataStore)
      .where('created_block', '>', afterBlock)
      .execute();
  }
}

const call = (target: GmxTarget, functionName: string, args: readonly unknown[]): StateCall => ({
  address: target.dataStore,
  abi: DATA_STORE_ABI,
  functionName,
  args,
});

/** The DataStore's market list (`MARKET_LIST`) and each market's tokens, at a block. */
export async function readMarketList(
  source: Pick<EvmSource, 'multicall'>,
  target: GmxTarget,
  block: number,
  known: ReadonlySet<string>,
): Promise<GmxMarketFact[]> {
  const [count] = await readCallsAt(source, [call(target, 'getAddressCount', [KEY.MARKET_LIST])], block);
  if (typeof count !== 'bigint') throw new Error(`GMX DataStore ${target.dataStore}: MARKET_LIST count reverted`);
  const [list] = count
    ? await readCallsAt(source, [call(target, 'getAddressValuesAt', [KEY.MARKET_LIST, 0n, count])], block)
    : [[]];
  if (!Array.isArray(list)) throw new Error(`GMX DataStore ${target.dataStore}: MARKET_LIST values reverted`);
  const fresh = (list as string[]).map((a) => a.toLowerCase()).filter((a) => !known.has(a));
  const properties = ['INDEX_TOKEN', 'LONG_TOKEN', 'SHORT_TOKEN'] as const;
  const values = await readCallsAt(
    source,
    fresh.flatMap((m) => properties.map((p) => call(target, 'getAddress', [marketPropertyKey(m, p)]))),
    block,
  );
  return fresh.map((market, i) => {
    const [indexToken, longToken, shortToken] = values.slice(i * 3, i * 3 + 3).map((v) => {
      if (typeof v !== 'string') throw new Error(`GMX market ${market}: its tokens could not be read`);
      return v.toLowerCase();
    });
    return {
      chain: target.chain,
      dataStore: target.dataStore,
      market,
      indexToken: indexToken!,
      longToken: longToken!,
      shortToken: shortToken!,
      createdBlock: null,
    };
  });
}

/**
 * Blocks searched before a snapshot's for the oracle's last price of each index token, widening until every token
 * has one: GMX sets prices at every execution (Arbitrum: seconds apart for the main tokens), the sandbox's keeper in
 * every block, so the first window usually answers and a snapshot costs a few logs, not hours of them.
 */
export const ORACLE_PRICE_WINDOWS = [10, 100, 1000] as const;

/** The oracle's last min and max price of each of `tokens` in the blocks up to `block` (`OraclePriceUpdate`). */
export async function readOraclePrices(
  source: Pick<EvmSource, 'getLogs'>,
  target: GmxTarget,
  block: number,
  tokens: ReadonlySet<string>,
): Promise<Map<string, { min: bigint; max: bigint }>> {
  const out = new Map<string, { min: bigint; max: bigint }>();
  for (const window of ORACLE_PRICE_WINDOWS) {
    const logs = await source.getLogs({
      addresses: [target.eventEmitter],
      topics: [EVENT_LOG_TOPICS, [eventNameHash('OraclePriceUpdate')]],
      fromBlock: Math.max(0, block - window + 1),
      toBlock: block,
    });
    const ordered = [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    for (const log of ordered) {
      const items = decodeEventLogData(log);
      if (items?.eventName !== 'OraclePriceUpdate') continue;
      const token = items.address('token');
      if (tokens.has(token)) out.set(token, { min: items.uint('minPrice'), max: items.uint('maxPrice') });
    }
    if (out.size === tokens.size || block - window + 1 <= 0) break;
  }
  return out;
}

/**
 * The state of every market at a block. Open interest is read per collateral token in `[longToken, shortToken]`
 * and side, as GMX's `MarketUtils.getOpenInterest` does: a single-token market reads the same key twice (the
 * compute halves it, as GMX divides by its pool divisor).
 */
export async function readState(
  source: Pick<EvmSource, 'multicall'>,
  target: GmxTarget,
  block: { readonly number: number; readonly timestamp: number },
  markets: readonly GmxMarketFact[],
  oraclePrices: ReadonlyMap<string, { min: bigint; max: bigint }> = new Map(),
): Promise<GmxStateSnapshot> {
  const calls: StateCall[] = [];
  const layout = markets.map((m) => {
    const collaterals = [m.longToken, m.shortToken];
    const poolTokens = [...new Set(collaterals)];
    for (const c of collaterals) {
      for (const isLong of [true, false]) {
        calls.push(call(target, 'getUint', [openInterestKey(m.market, c, isLong)]));
        calls.push(call(target, 'getUint', [openInterestInTokensKey(m.market, c, isLong)]));
      }
    }
    for (const t of poolTokens) calls.push(call(target, 'getUint', [poolAmountKey(m.market, t)]));
    for (const t of poolTokens) calls.push(balanceOf(t, m.market));
    calls.push(call(target, 'getInt', [savedFundingFactorPerSecondKey(m.market)]));
    calls.push(call(target, 'getUint', [fundingIncreaseFactorPerSecondKey(m.market)]));
    calls.push(call(target, 'getUint', [maxOpenInterestKey(m.market, true)]));
    calls.push(call(target, 'getUint', [maxOpenInterestKey(m.market, false)]));
    calls.push(call(target, 'getBool', [isMarketDisabledKey(m.market)]));
    return { m, collaterals, poolTokens };
  });
  const results = await readCallsAt(source, calls, block.number);
  let i = 0;
  const next = <T>(kind: 'bigint' | 'boolean', what: string): T => {
    const v = results[i++];
    if (typeof v !== kind) throw new Error(`GMX DataStore ${target.dataStore} at ${block.number}: ${what} reverted`);
    return v as T;
  };
  const states: GmxMarketState[] = layout.map(({ m, collaterals, poolTokens }) => {
    const openInterest = collaterals.flatMap((collateralToken) =>
      [true, false].map((isLong) => ({
        collateralToken,
        isLong,
        usd: next<bigint>('bigint', `OPEN_INTEREST of ${m.market}`),
        tokens: next<bigint>('bigint', `OPEN_INTEREST_IN_TOKENS of ${m.market}`),
      })),
    );
    const poolAmounts = poolTokens.map((token) => ({
      token,
      amount: next<bigint>('bigint', `POOL_AMOUNT of ${m.market}`),
    }));
    const heldAmounts = poolTokens.map((token) => ({
      token,
      amount: next<bigint>('bigint', `balanceOf(${m.market}) of ${token}`),
    }));
    return {
      market: m.market,
      indexToken: m.indexToken,
      longToken: m.longToken,
      shortToken: m.shortToken,
      openInterest,
      poolAmounts,
      heldAmounts,
      savedFundingFactorPerSecond: next<bigint>('bigint', `SAVED_FUNDING_FACTOR_PER_SECOND of ${m.market}`),
      fundingIncreaseFactorPerSecond: next<bigint>('bigint', `FUNDING_INCREASE_FACTOR_PER_SECOND of ${m.market}`),
      maxOpenInterestLong: next<bigint>('bigint', `MAX_OPEN_INTEREST of ${m.market}`),
      maxOpenInterestShort: next<bigint>('bigint', `MAX_OPEN_INTEREST of ${m.market}`),
      disabled: next<boolean>('boolean', `IS_MARKET_DISABLED of ${m.market}`),
      ...(oraclePrices.has(m.indexToken) ? { oracleIndexPrice: oraclePrices.get(m.indexToken)! } : {}),
    };
  });
  return {
    chain: target.chain,
    dataStore: target.dataStore,
    blockNumber: block.number,
    timestamp: block.timestamp,
    markets: states,
  };
}

const ERC20_ABI = parseAbi([
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
]);

/** What `holder` holds of the ERC-20 `token`. */
const balanceOf = (token: string, holder: string): StateCall => ({
  address: token as `0x${string}`,
  abi: ERC20_ABI,
  functionName: 'balanceOf',
  args: [holder],
});

/** Symbol and decimals of tokens; a token without `decimals()` (a synthetic index token) is left out. */
export async function readTokens(source: Pick<EvmSource, 'multicall'>, addresses: readonly string[], block: number) {
  const results = await readCallsAt(
    source,
    addresses.flatMap((address) =>
      (['symbol', 'decimals'] as const).map((functionName) => ({
        address: address as `0x${string}`,
        abi: ERC20_ABI,
        functionName,
      })),
    ),
    block,
  );
  return addresses.flatMap((address, i) => {
    const [symbol, decimals] = [results[i * 2], results[i * 2 + 1]];
    if (typeof decimals !== 'number' && typeof decimals !== 'bigint') return [];
    return [
      { address, symbol: typeof symbol === 'string' ? symbol : address.slice(0, 10), decimals: Number(decimals) },
    ];
  });
}

/**
 * Symbol and decimals of tokens without a contract (synthetic index tokens) from the oracle keeper's token list
 * (`GET /tokens`); a token the keeper does not list is left out.
 */
export async function readKeeperTokens(
  keeper: Pick<GmxOracleEndpoint['client'], 'tokens'>,
  addresses: readonly string[],
) {
  const wanted = new Set(addresses.map((a) => a.toLowerCase()));
  return (await keeper.tokens())
    .filter((t) => wanted.has(t.address.toLowerCase()))
    .map((t) => ({ address: t.address.toLowerCase(), symbol: t.symbol, decimals: t.decimals }));
}

/** The GMX part's reads of its venues, one sink per venue, started at the kit's `ingestStart`. */
export class GmxIngest {
  private readonly sinks = new Map<string, GmxSink>();
  /** Per venue (checkpoint key), the stored market count after this process last read `MARKET_LIST`. */
  private readonly listed = new Map<string, number>();

  constructor(
    private readonly evm: EvmChains,
    private readonly lookbackSeconds: number,
    private readonly schedule: SnapshotSchedule,
    /** The oracle keeper of the venues' chain, when this process reads it (synthetic index tokens' metadata). */
    private readonly keeper?: GmxOracleEndpoint,
  ) {}

  /**
   * Metadata of the tokens the markets name: ERC-20 at the block, then the keeper for those without a contract. A
   * keeper that fails leaves them for the next run (logged): the events are committed and the snapshots must go on.
   */
  private async tokenMetadata(ctx: JobContext, target: GmxTarget, missing: readonly string[], block: number) {
    const found = await readTokens(this.evm.source(target.chain), missing, block);
    const rest = missing.filter((a) => !found.some((t) => t.address === a));
    if (!rest.length || !this.keeper || this.keeper.chain !== target.chain) return found;
    try {
      return [...found, ...(await readKeeperTokens(this.keeper.client, rest))];
    } catch (err) {
      ctx.log.warn({ err, tokens: rest }, 'GMX oracle keeper /tokens failed; synthetic index tokens stay unnamed');
      return found;
    }
  }

  private async sink(ctx: JobContext, target: GmxTarget): Promise<GmxSink> {
    const key = gmxCheckpointKey(target);
    let sink = this.sinks.get(key);
    if (!sink) {
      const start = await ingestStart(ctx, this.evm.source(target.chain), `${key}:start`, {
        startBlocks: [target.startBlock],
        lookbackSeconds: this.lookbackSeconds,
        fromUtcDayStart: true,
      });
      sink = new GmxSink(target, start.block);
      this.sinks.set(key, sink);
    }
    return sink;
  }

  /**
   * Events from the checkpoint on, then the market list and token metadata at the ingested head. `MARKET_LIST` is
   * read on this process's first run of the venue (a restart reads it again) and afterwards only when the stored
   * market count differs from the one after the last read: a `MarketCreated` this run (or another process) ingested
   * of a market not yet known adds a row, a reorg's rollback removes one. On a real chain the list changes rarely
   * and a read every 10 s is a needless RPC call. Token metadata is read while some token lacks it (a keeper that
   * failed is asked again on the next run).
   */
  async events(ctx: JobContext, target: GmxTarget): Promise<string> {
    const source = this.evm.source(target.chain);
    const sink = await this.sink(ctx, target);
    const result = await ingest(source, ctx.store, sink, {
      signal: ctx.signal,
      now: () => nowSeconds(ctx.clock),
      log: ctx.log,
    });
    const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, sink.key);
    const repo = new GmxRepository(ctx.store.db);
    let added = 0;
    if (checkpoint) {
      const stored = await repo.markets(target.chain, target.dataStore);
      const listed = this.listed.get(sink.key);
      if (listed === undefined || stored.length !== listed) {
        const known = new Set(stored.map((m) => m.market));
        const fresh = await readMarketList(source, target, checkpoint.block, known);
        await repo.saveMarkets(fresh);
        added = fresh.length;
        // The list read holds only markets not stored yet: the stored count is now the two together (a market
        // another process stored meanwhile makes the next run read the list once more, which is harmless).
        this.listed.set(sink.key, stored.length + fresh.length);
      }
      const missing = await repo.tokensWithoutMetadata(target.chain, target.dataStore);
      if (missing.length)
        await repo.saveTokens(target.chain, await this.tokenMetadata(ctx, target, missing, checkpoint.block));
    }
    return (
      `${target.protocol} ${target.chain}: blocks ${result.from}–${result.to}, ${result.logs} logs, ` +
      `${result.facts} events${added ? `, ${added} markets from MARKET_LIST` : ''}` +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '')
    );
  }

  /** The DataStore's state at the ingested head (on the schedule) and at each past day's end without one. */
  async snapshots(ctx: JobContext, target: GmxTarget): Promise<string> {
    const key = gmxCheckpointKey(target);
    const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, key);
    if (!checkpoint) return `${target.protocol}: no events ingested yet`;
    const source = this.evm.source(target.chain);
    const head = await source.getBlock(checkpoint.block);
    if (!head) return `${target.protocol}: head ${checkpoint.block} not on the node`;
    const repo = new GmxRepository(ctx.store.db);
    const markets = (await repo.markets(target.chain, target.dataStore)).filter(
      (m) => m.indexToken !== ZERO || m.longToken !== ZERO,
    );
    const start = await readCheckpoint<{ block: number; timestamp?: number }>(ctx.store.db, `${key}:start`);
    const taken = await this.schedule.take({
      log: ctx.log,
      source,
      key,
      head,
      times: await repo.snapshotTimes(target.chain, target.dataStore),
      startBlock: start?.block ?? 0,
      ...(start?.timestamp === undefined ? {} : { startTimestamp: start.timestamp }),
      snapshot: async (block) => {
        // A market created after this block has no state there yet.
        const existing = markets.filter((m) => m.createdBlock === null || m.createdBlock <= block.number);
        const prices = await readOraclePrices(source, target, block.number, new Set(existing.map((m) => m.indexToken)));
        await repo.saveSnapshot(await readState(source, target, block, existing, prices));
      },
      what: `GMX ${target.protocol} DataStore`,
    });
    const pruned = await repo.pruneSnapshots(target.chain, target.dataStore, head.timestamp - 8 * 86_400);
    return `${target.protocol} ${target.chain}: ${taken.length} snapshots of ${markets.length} markets${pruned ? `, ${pruned} pruned` : ''}`;
  }
}
