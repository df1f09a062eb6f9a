import { DAY, nowSeconds } from '../../core/time.js';
import { compilePath, documentPath } from '../../http/route-table.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import { registry } from '../../registry/index.js';
import type { EvmChainEndpoint, EvmEnvironment, OracleFeedSource } from '../../sources/environment.js';
import { createEvmSource, type EvmSource, ingest } from '../../sources/evm/index.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import type { DatasetDocument } from '../../store/datasets.js';
import { dexPriceBlocks } from '../dex/jobs.js';
import { DexRepository } from '../dex/repo.js';
import { ComputedInputs, publishComputation } from '../publication.js';
import type { AreaEnv } from '../types.js';
import { computeOracles, type OracleFeedInput, ROUNDS_HISTORY_SECONDS } from './compute.js';
import { AGGREGATOR_ABI, PROXY_ABI } from './events.js';
import type { OracleFeedState } from './facts.js';
import { OracleRepository } from './repo.js';
import { oraclesPaths } from './routes.js';
import { OracleSink } from './sink.js';

/**
 * The oracle area's jobs: `oracles.ingest` (resolve each feed's aggregator and decimals, then its AnswerUpdated
 * logs → `oracle_rounds`) and `oracles.compute` (rounds + the DEX area's hourly USD prices → the pair listing and
 * the pairs' 7 daily records, published at once).
 */

export const ORACLE_COMPUTATION = 'oracles.compute';
/**
 * Where ingestion starts when the environment names no start block (production feeds): this far below the head
 * at the first run. The records need 14 days of rounds; one more day covers the predecessor of the oldest ones
 * for feeds with a one-day heartbeat.
 */
const LOOKBACK_SECONDS = 15 * DAY;
/** As the DEX area's: the jobs run every 10 s, so half an hour without a newer block means a stalled chain or RPC. */
const FRESH_FOR_SECONDS = 1800;
const SOURCE = 'feed aggregators’ AnswerUpdated logs (eth_getLogs); DEX hourly USD prices for the comparison';

/** Checkpoint keys: the rounds' progress is the sink's own (`oracles:<chain>`). */
const feedsKey = (chain: string) => `oracles:${chain}:feeds`;
const startKey = (chain: string) => `oracles:${chain}:start`;
const COMPUTED_KEY = 'oracles:computed';

interface IngestStart {
  readonly block: number;
  /** Unix seconds of that block: rounds are known from then on. */
  readonly timestamp: number;
}

type FeedStates = Record<string, OracleFeedState>;

function endpointsWithFeeds(evm: EvmEnvironment): EvmChainEndpoint[] {
  return evm.chains.filter((c) => evm.oracleFeeds.some((f) => f.chain === c.id));
}

function makeSource(e: EvmChainEndpoint, ctx: JobContext): EvmSource {
  return createEvmSource(
    {
      id: e.id,
      rpcUrl: e.rpcUrl,
      finalityDepth: e.finalityDepth,
      ...(e.maxBlockRange ? { maxBlockRange: e.maxBlockRange } : {}),
      ...(e.timeoutMs ? { timeoutMs: e.timeoutMs } : {}),
    },
    { log: ctx.log },
  );
}

/**
 * Each feed's aggregator and decimals. A registry feed is an EACAggregatorProxy, which emits nothing: its
 * `aggregator()` names the contract whose logs carry the rounds. A feed without `aggregator()` (the sandbox's) is
 * an aggregator itself. A feed whose `decimals()` fails is left out until it answers.
 */
async function resolveFeeds(source: EvmSource, feeds: readonly OracleFeedSource[]): Promise<FeedStates> {
  const contracts = feeds.flatMap((f) => [
    { address: f.address, abi: PROXY_ABI, functionName: 'aggregator' as const },
    { address: f.address, abi: AGGREGATOR_ABI, functionName: 'decimals' as const },
  ]);
  const results = await source.multicall({ contracts, allowFailure: true });
  const states: FeedStates = {};
  feeds.forEach((f, i) => {
    const [aggregator, decimals] = [results[2 * i], results[2 * i + 1]];
    if (decimals?.status !== 'success') return;
    states[f.address] = {
      aggregator: aggregator?.status === 'success' ? String(aggregator.result).toLowerCase() : f.address,
      decimals: Number(decimals.result),
    };
  });
  return states;
}

const compiled = new Map(oraclesPaths.map((def) => [def.id, compilePath(def)]));
function pathOf(id: string, values: Record<string, string>): string {
  return documentPath(compiled.get(id)!, values);
}

export function oraclesJobs(env: AreaEnv): JobDef[] {
  const endpoints = endpointsWithFeeds(env.evm);
  if (!endpoints.length) return [];
  const chains = endpoints.map((e) => e.id);
  const sources = new Map<string, EvmSource>();
  const sourceOf = (chain: string, ctx: JobContext) => {
    let source = sources.get(chain);
    if (!source) {
      source = makeSource(endpoints.find((e) => e.id === chain)!, ctx);
      sources.set(chain, source);
    }
    return source;
  };
  const sinks = new Map<string, OracleSink>();
  const feedsOn = (chain: string) => env.evm.oracleFeeds.filter((f) => f.chain === chain);

  /** The first block to ingest, chosen once per chain and kept (a later run must not move it). */
  const ingestStart = async (ctx: JobContext, chain: string, source: EvmSource): Promise<IngestStart> => {
    const saved = await readCheckpoint<IngestStart>(ctx.store.db, startKey(chain));
    if (saved) return saved;
    const starts = feedsOn(chain).map((f) => f.startBlock);
    let block: number;
    if (starts.every((s) => s !== undefined)) {
      block = Math.min(...(starts as number[]));
    } else {
      const blockTime = registry.chain(chain)?.blockTimeSeconds ?? 12;
      block = Math.max(0, (await source.blockNumber()) - Math.ceil(LOOKBACK_SECONDS / blockTime));
    }
    const header = await source.getBlock(block);
    if (!header) throw new Error(`${chain}: block ${block} is not on the node`);
    const start = { block, timestamp: header.timestamp };
    await writeCheckpoint(ctx.store.db, startKey(chain), start, nowSeconds(ctx.clock));
    return start;
  };

  const ingestJob: JobDef = {
    name: 'oracles.ingest',
    area: 'oracles',
    description: `Reads price feed rounds (AnswerUpdated) from ${chains.join(', ')}`,
    everySeconds: 10,
    maxAttempts: 5,
    backoffMs: 2000,
    async run(ctx) {
      const parts: string[] = [];
      for (const chain of chains) {
        const source = sourceOf(chain, ctx);
        const feeds = feedsOn(chain);
        const states = await resolveFeeds(source, feeds);
        await writeCheckpoint(ctx.store.db, feedsKey(chain), states, nowSeconds(ctx.clock));
        const start = await ingestStart(ctx, chain, source);
        let sink = sinks.get(chain);
        if (!sink) {
          sink = new OracleSink(chain, start.block);
          sinks.set(chain, sink);
        }
        sink.setEmitters(new Map(Object.entries(states).map(([feed, s]) => [s.aggregator, feed])));
        const result = await ingest(source, ctx.store, sink, {
          signal: ctx.signal,
          now: () => nowSeconds(ctx.clock),
          log: ctx.log,
        });
        const unresolved = feeds.length - Object.keys(states).length;
        parts.push(
          `${chain}: blocks ${result.from}–${result.to}, ${result.facts} rounds of ${Object.keys(states).length} feeds` +
            (unresolved ? ` (${unresolved} without decimals(), skipped)` : '') +
            (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : ''),
        );
      }
      return parts.join('; ');
    },
  };

  const computeJob: JobDef = {
    name: ORACLE_COMPUTATION,
    area: 'oracles',
    description: 'Weekly dynamic parameters of every price feed, published for the 2 oracle paths',
    everySeconds: 10,
    async run(ctx) {
      const db = ctx.store.db;
      const dex = new DexRepository(db);
      const heads: { chain: string; block: number; timestamp: number }[] = [];
      for (const chain of chains) {
        const checkpoint = await readCheckpoint<{ block: number }>(db, `oracles:${chain}`);
        if (!checkpoint) continue;
        const timestamp =
          (await dex.blockTimestamp(chain, checkpoint.block)) ??
          (await sourceOf(chain, ctx).getBlock(checkpoint.block))?.timestamp;
        if (timestamp !== undefined) heads.push({ chain, block: checkpoint.block, timestamp });
      }
      if (!heads.length) return 'no rounds ingested yet';
      // One as_of for the publication: the chain that is furthest behind.
      const asOf = Math.min(...heads.map((h) => h.timestamp));
      // Recompute when the rounds or the DEX prices moved (prices of the same hours may arrive after the rounds).
      const computed = new ComputedInputs(db, COMPUTED_KEY);
      const inputsKey = { asOf, pricesAt: await dexPriceBlocks(db, chains) };
      if (await computed.unchanged(inputsKey)) return `up to date at ${asOf}`;

      const rounds = new OracleRepository(db);
      const feeds: OracleFeedInput[] = [];
      const prices = [];
      const fromHour = Math.floor((asOf - ROUNDS_HISTORY_SECONDS) / 3600) * 3600;
      for (const chain of chains) {
        const states = (await readCheckpoint<FeedStates>(db, feedsKey(chain))) ?? {};
        const start = await readCheckpoint<IngestStart>(db, startKey(chain));
        const chainFeeds = feedsOn(chain);
        for (const f of chainFeeds) {
          feeds.push({
            chain,
            pair: f.pair,
            address: f.address,
            heartbeatSeconds: f.heartbeatSeconds,
            deviationThresholdPct: f.deviationThresholdPct,
            baseToken: f.baseToken,
            state: states[f.address] ?? null,
            rounds: await rounds.rounds(chain, f.address, asOf - ROUNDS_HISTORY_SECONDS, asOf),
            coverageFrom: start?.timestamp ?? null,
          });
        }
        const bases = new Set(chainFeeds.map((f) => f.baseToken).filter((t) => t !== null));
        for (const p of await dex.prices(chain, fromHour, asOf)) {
          if (bases.has(p.token)) prices.push({ token: p.token, hour: p.hour, priceUsd: p.priceUsd });
        }
      }
      const output = computeOracles({ asOf, feeds, prices });
      const documents: DatasetDocument[] = [];
      const add = (path: string, data: unknown) =>
        documents.push({ path, data, asOf, source: SOURCE, freshFor: FRESH_FOR_SECONDS });
      for (const oracle of new Set(env.evm.oracleFeeds.map((f) => f.oracle))) {
        add(pathOf('oracles.pairs', { oracle }), output.pairs);
        for (const [pair, records] of output.records) add(pathOf('oracles.pair', { oracle, pair }), records);
      }
      const version = await publishComputation(ctx, {
        computation: ORACLE_COMPUTATION,
        area: 'oracles',
        documents,
        inputs: { gate: computed, value: inputsKey },
      });
      return `published ${documents.length} documents (version ${version}) as of ${asOf}`;
    },
  };

  return [ingestJob, computeJob];
}
