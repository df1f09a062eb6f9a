import type { Kysely } from 'kysely';
import type { Abi } from 'viem';
import { computeHourlyPrices } from '../../core/prices.js';
import { nowSeconds } from '../../core/time.js';
import { compilePath, documentPath } from '../../http/route-table.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import type { DexSourceDeployment, EvmChainEndpoint, EvmEnvironment } from '../../sources/environment.js';
import { createEvmSource, type EvmSource, ingest } from '../../sources/evm/index.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import { type DatasetDocument, DatasetRepository } from '../../store/datasets.js';
import type { Database } from '../../store/schema.js';
import { publishComputation } from '../publication.js';
import type { AreaEnv } from '../types.js';
import { computeDex, type DexInput } from './compute.js';
import { ERC20_ABI, V2_PAIR_ABI, V3_POOL_ABI } from './events.js';
import type { PoolSnapshotFact, TokenFact } from './facts.js';
import { DexRepository } from './repo.js';
import { dexPaths } from './routes.js';
import { DexSink } from './sink.js';

/**
 * The DEX area's jobs, one pipeline in three steps so each can be run, retried and watched on its own:
 * `dex.ingest` (logs → facts, token metadata, a state snapshot at the ingested head), `prices.hourly` (USD prices
 * per token and hour from the facts) and `dex.compute` (facts + prices → the 9 paths' documents, published at once).
 */

export const DEX_COMPUTATION = 'dex.compute';
/** Swaps read by the computation: two 7-day windows, so the oldest of the 7 daily scores has a full window. */
const HISTORY_SECONDS = 14 * 86_400;
/** Prices are (re)computed for this many hours back: the history plus one day of margin for late facts. */
const PRICE_HOURS = 15 * 24;
/**
 * A published document stays fresh this long after its `as_of`: the pipeline runs every 10–30 s, so half an hour
 * without a newer block means the chain or the RPC stalled and clients should know.
 */
const FRESH_FOR_SECONDS = 1800;
const SOURCE = 'chain logs (eth_getLogs) and state (eth_call multicall)';

function endpointsWithDex(evm: EvmEnvironment): EvmChainEndpoint[] {
  return evm.chains.filter((c) => evm.dex.some((d) => d.chain === c.id));
}

/** One EVM source per chain, made on first use with the first job's logger (retries log through it). */
class Sources {
  private readonly made = new Map<string, EvmSource>();
  constructor(private readonly endpoints: readonly EvmChainEndpoint[]) {}
  get(chain: string, ctx: JobContext): EvmSource {
    let source = this.made.get(chain);
    if (!source) {
      const e = this.endpoints.find((x) => x.id === chain)!;
      source = createEvmSource(
        {
          id: e.id,
          rpcUrl: e.rpcUrl,
          finalityDepth: e.finalityDepth,
          ...(e.maxBlockRange ? { maxBlockRange: e.maxBlockRange } : {}),
          ...(e.timeoutMs ? { timeoutMs: e.timeoutMs } : {}),
        },
        { log: ctx.log },
      );
      this.made.set(chain, source);
    }
    return source;
  }
}

async function readTokenMetadata(source: EvmSource, chain: string, addresses: readonly string[]) {
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

async function readSnapshots(
  source: EvmSource,
  chain: string,
  block: { number: number; timestamp: number },
  pools: Awaited<ReturnType<DexRepository['pools']>>,
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

const compiled = new Map(dexPaths.map((def) => [def.id, compilePath(def)]));
function pathOf(id: string, values: Record<string, string>): string {
  return documentPath(compiled.get(id)!, values);
}

function splitKey(key: string): { chain: string; protocol: string; version: string } {
  const [chain, protocol, version] = key.split('/') as [string, string, string];
  return { chain, protocol, version };
}

/** The checkpoint of the hourly prices computed for a chain: `{ block }`, the DEX snapshot they run up to. */
const pricesKey = (chain: string) => `prices:${chain}`;

/**
 * Per chain, the DEX snapshot block the hourly prices were last computed for (null before the first): areas that
 * read the prices recompute when it moves.
 */
export async function dexPriceBlocks(
  db: Kysely<Database>,
  chains: readonly string[],
): Promise<Record<string, number | null>> {
  const out: Record<string, number | null> = {};
  for (const chain of chains)
    out[chain] = (await readCheckpoint<{ block: number }>(db, pricesKey(chain)))?.block ?? null;
  return out;
}

/** The documents of one computation: every DEX path with data, keyed by canonical path. */
export function dexDocuments(
  output: ReturnType<typeof computeDex>,
  asOf: number,
  methodology: string,
): DatasetDocument[] {
  const docs: DatasetDocument[] = [];
  const add = (path: string, data: unknown, scored = false) =>
    docs.push({
      path,
      data,
      asOf,
      source: SOURCE,
      freshFor: FRESH_FOR_SECONDS,
      ...(scored ? { methodology } : {}),
    });
  add(pathOf('dex.available-dexes', {}), output.availableDexes);
  for (const [key, pools] of output.availablePools) add(pathOf('dex.available-pools', splitKey(key)), pools);
  for (const [pool, data] of output.poolAnalytics) add(pathOf('dex.pool-analytics', { pool_address: pool }), data);
  for (const [key, data] of output.protocolAnalytics) add(pathOf('dex.protocol-analytics', splitKey(key)), data);
  for (const [protocol, data] of output.protocolOverview) add(pathOf('dex.protocol-overview', { protocol }), data);
  for (const [pool, data] of output.poolScores) add(pathOf('dex.pool-score', { pool_address: pool }), data, true);
  for (const [key, data] of output.protocolScores) add(pathOf('dex.protocol-score', splitKey(key)), data, true);
  for (const [protocol, data] of output.protocolOverviewScores) {
    add(pathOf('dex.protocol-overview-score', { protocol }), data, true);
  }
  add(pathOf('dex.all-protocols', {}), output.allProtocols, true);
  return docs;
}

/** Everything the computation reads, from the store, at each chain's newest snapshot. */
export async function loadDexInput(
  repo: DexRepository,
  deployments: readonly DexSourceDeployment[],
  chains: readonly string[],
): Promise<DexInput | undefined> {
  const heads = [];
  for (const chain of chains) {
    const head = await repo.latestSnapshotBlock(chain);
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
  };
  const fromHour = Math.floor((asOf.timestamp - HISTORY_SECONDS) / 3600) * 3600 - 3600;
  for (const head of heads) {
    const tokens = await repo.tokens(head.chain);
    const known = new Set(tokens.map((t) => t.address));
    // A pool whose token answers no `decimals()` cannot be normalised: it is left out rather than guessed.
    input.pools.push(...(await repo.pools(head.chain)).filter((p) => known.has(p.token0) && known.has(p.token1)));
    input.tokens.push(...tokens);
    input.swaps.push(...(await repo.swaps(head.chain, asOf.timestamp - HISTORY_SECONDS, asOf.timestamp)));
    input.snapshots.push(...(await repo.snapshots(head.chain, head.blockNumber)));
    input.prices.push(...(await repo.prices(head.chain, fromHour, asOf.timestamp)));
  }
  return input;
}

export function dexJobs(env: AreaEnv): JobDef[] {
  const endpoints = endpointsWithDex(env.evm);
  if (!endpoints.length) return [];
  const sources = new Sources(endpoints);
  const chains = endpoints.map((e) => e.id);
  const sinks = new Map(chains.map((c) => [c, new DexSink(c, env.evm.dex)]));

  const ingestJob: JobDef = {
    name: 'dex.ingest',
    area: 'dex',
    description: `Reads DEX factory and pool events, token metadata and pool state from ${chains.join(', ')}`,
    everySeconds: 10,
    maxAttempts: 5,
    backoffMs: 2000,
    async run(ctx) {
      const repo = new DexRepository(ctx.store.db);
      const parts: string[] = [];
      for (const chain of chains) {
        const source = sources.get(chain, ctx);
        const sink = sinks.get(chain)!;
        const result = await ingest(source, ctx.store, sink, {
          signal: ctx.signal,
          now: () => nowSeconds(ctx.clock),
          log: ctx.log,
        });
        const missing = await repo.tokensWithoutMetadata(chain);
        if (missing.length) await repo.saveTokens(await readTokenMetadata(source, chain, missing));
        const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, sink.key);
        const latest = await repo.latestSnapshotBlock(chain);
        let snapshot = '';
        if (checkpoint && (!latest || latest.blockNumber < checkpoint.block)) {
          const block = await source.getBlock(checkpoint.block);
          if (block) {
            const pools = await repo.pools(chain);
            const rows = await readSnapshots(source, chain, block, pools);
            await repo.saveSnapshots(rows);
            const depth = endpoints.find((e) => e.id === chain)!.finalityDepth;
            await repo.pruneSnapshots(chain, checkpoint.block - depth);
            snapshot = `, snapshot of ${rows.length} pools at ${block.number}`;
          }
        }
        parts.push(
          `${chain}: blocks ${result.from}–${result.to}, ${result.logs} logs, ${result.facts} facts` +
            (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '') +
            snapshot,
        );
      }
      return parts.join('; ');
    },
  };

  /** Prices for the hours up to the chain's newest snapshot, unless already computed for that snapshot. */
  const updatePrices = async (ctx: JobContext, chain: string): Promise<string | undefined> => {
    const repo = new DexRepository(ctx.store.db);
    const head = await repo.latestSnapshotBlock(chain);
    if (!head) return undefined;
    const key = pricesKey(chain);
    const done = await readCheckpoint<{ block: number }>(ctx.store.db, key);
    if (done?.block === head.blockNumber) return `${chain}: up to date at block ${head.blockNumber}`;
    const lastHour = Math.floor(head.timestamp / 3600) * 3600;
    const firstHour = lastHour - (PRICE_HOURS - 1) * 3600;
    const hours = Array.from({ length: PRICE_HOURS }, (_, i) => firstHour + i * 3600);
    const prices = computeHourlyPrices({
      chain,
      hours,
      tokens: await repo.tokens(chain),
      pools: await repo.pools(chain),
      swaps: await repo.swaps(chain, firstHour - 1, head.timestamp),
      syncs: await repo.syncs(chain, firstHour - 1, head.timestamp),
      anchors: env.evm.anchors.filter((a) => a.chain === chain).map((a) => ({ address: a.address, peg: a.peg })),
    });
    await repo.replacePrices(chain, firstHour, lastHour, prices, {
      key,
      value: { block: head.blockNumber },
      now: nowSeconds(ctx.clock),
    });
    return `${chain}: ${prices.length} prices over ${PRICE_HOURS} hours up to block ${head.blockNumber}`;
  };

  const pricesJob: JobDef = {
    name: 'prices.hourly',
    area: 'dex',
    description: 'USD prices per token and hour from pool prices, anchored on stablecoins',
    everySeconds: 30,
    async run(ctx) {
      const parts: string[] = [];
      for (const chain of chains) {
        const part = await updatePrices(ctx, chain);
        if (part) parts.push(part);
      }
      return parts.join('; ') || 'no snapshot yet';
    },
  };

  const computeJob: JobDef = {
    name: DEX_COMPUTATION,
    area: 'dex',
    description: 'Pool and protocol analytics and volume continuity scores, published for the 9 DEX paths',
    // Often, because a run with nothing new (same snapshot block) only reads one row and returns.
    everySeconds: 10,
    async run(ctx) {
      const repo = new DexRepository(ctx.store.db);
      // The computation needs the prices of its snapshot: make them first if the price job has not yet.
      for (const chain of chains) await updatePrices(ctx, chain);
      const input = await loadDexInput(repo, env.evm.dex, chains);
      if (!input) return 'no snapshot yet';
      const last = await new DatasetRepository(ctx.store.db).latestPublication(DEX_COMPUTATION);
      if (last?.asOf === input.asOf.timestamp) return `up to date at block ${input.asOf.blockNumber}`;
      const output = computeDex(input);
      const methodology = output.allProtocols.length
        ? String((output.allProtocols[0] as { methodology?: string }).methodology ?? '')
        : '';
      const documents = dexDocuments(output, input.asOf.timestamp, methodology);
      const version = await publishComputation(ctx, { computation: DEX_COMPUTATION, area: 'dex', documents });
      return `published ${documents.length} documents (version ${version}) at block ${input.asOf.blockNumber}`;
    },
  };

  return [ingestJob, pricesJob, computeJob];
}
