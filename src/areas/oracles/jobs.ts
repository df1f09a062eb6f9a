import { DAY, nowSeconds } from '../../core/time.js';
import { ingest } from '../../jobs/evm/ingest.js';
import { storedBlockTimestamp } from '../../jobs/evm/tables.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { readCheckpoint, writeCheckpoint } from '../../store/checkpoints.js';
import { DexRepository, dexPriceBlocks } from '../dex/public.js';
import { computeJob, DocumentSet, type IngestStart, ingestStart, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { computeOracles, type OracleFeedInput, ROUNDS_HISTORY_SECONDS } from './compute.js';
import { AGGREGATOR_ABI, PROXY_ABI } from './events.js';
import type { OracleFeedState } from './facts.js';
import { OracleRepository } from './repo.js';
import { oraclesPaths } from './routes.js';
import { OracleSink } from './sink.js';
import { type OracleFeedTarget, oracleTargets } from './targets.js';

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

type FeedStates = Record<string, OracleFeedState>;

/**
 * Each feed's aggregator and decimals. A registry feed is an EACAggregatorProxy, which emits nothing: its
 * `aggregator()` names the contract whose logs carry the rounds. A feed without `aggregator()` (the sandbox's) is
 * an aggregator itself. A feed whose `decimals()` fails is left out until it answers.
 */
async function resolveFeeds(source: EvmSource, feeds: readonly OracleFeedTarget[]): Promise<FeedStates> {
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

export function oraclesJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = oracleTargets(env);
  if (!evm || !targets.length) return [];
  const chains = [...new Set(targets.map((f) => f.chain))];
  const sourceOf = (chain: string): EvmSource => evm.source(chain);
  const sinks = new Map<string, OracleSink>();
  const feedsOn = (chain: string) => targets.filter((f) => f.chain === chain);

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
        const source = sourceOf(chain);
        const feeds = feedsOn(chain);
        const states = await resolveFeeds(source, feeds);
        await writeCheckpoint(ctx.store.db, feedsKey(chain), states, nowSeconds(ctx.clock));
        const start = await ingestStart(ctx, source, startKey(chain), {
          startBlocks: feeds.map((f) => f.startBlock),
          lookbackSeconds: LOOKBACK_SECONDS,
        });
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

  const heads = async (ctx: JobContext) => {
    const out: { chain: string; block: number; timestamp: number }[] = [];
    for (const chain of chains) {
      const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, `oracles:${chain}`);
      if (!checkpoint) continue;
      const timestamp =
        (await storedBlockTimestamp(ctx.store.db, chain, checkpoint.block)) ??
        (await sourceOf(chain).getBlock(checkpoint.block))?.timestamp;
      if (timestamp !== undefined) out.push({ chain, block: checkpoint.block, timestamp });
    }
    return out;
  };

  const computeOraclesJob = computeJob({
    name: ORACLE_COMPUTATION,
    area: 'oracles',
    description: 'Weekly dynamic parameters of every price feed, published for the 2 oracle paths',
    // Recompute when the rounds or the DEX prices moved (prices of the same hours may arrive after the rounds).
    inputs: async (ctx) => {
      const found = await heads(ctx);
      if (!found.length) return wait('no rounds ingested yet');
      // One as_of for the publication: the chain that is furthest behind.
      return { asOf: Math.min(...found.map((h) => h.timestamp)), pricesAt: await dexPriceBlocks(ctx.store.db, chains) };
    },
    load: async (ctx, { asOf }) => {
      const db = ctx.store.db;
      const dex = new DexRepository(db);
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
      return { asOf, feeds, prices };
    },
    compute: computeOracles,
    documents: (output, input) => {
      const docs = new DocumentSet(oraclesPaths, { asOf: input.asOf, source: SOURCE, freshFor: FRESH_FOR_SECONDS });
      for (const oracle of new Set(targets.map((f) => f.oracle))) {
        docs.add('oracles.pairs', { oracle }, output.pairs);
        for (const [pair, records] of output.records) docs.add('oracles.pair', { oracle, pair }, records);
      }
      return docs.documents;
    },
    describe: (input) => `as of ${input.asOf}`,
  });

  return [ingestJob, computeOraclesJob];
}
