import { DAY, dailyHistoryInstants, HOUR, nowSeconds } from '../../core/time.js';
import { ingest } from '../../jobs/evm/ingest.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import { blockAtOrBefore } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import type { DatasetDocument } from '../../store/datasets.js';
import { DexRepository, dexDepthUsd, dexPriceBlocks } from '../dex/public.js';
import { computeJob, DocumentSet, ingestStart, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { computeLending, type LendingOutput, type MarketInput } from './compute.js';
import { AAVE_POOL_ABI } from './events.js';
import type { MarketSnapshot } from './facts.js';
import { LendingRepository } from './repo.js';
import { lendingPaths } from './routes.js';
import { LendingSink, type MorphoParams } from './sink.js';
import { readAaveSnapshot, readMorphoSnapshot } from './snapshot.js';
import { type LendingMarketTarget, lendingTargets } from './targets.js';

/**
 * The lending area's jobs:
 * - `lending.ingest`: the markets' events (Aave Pool and aToken transfers, Morpho singleton) → `lending_events`;
 * - `lending.snapshot`: each market's state at the ingested head (every 5 minutes of chain time) and at the end of
 *   each of the last 6 UTC days when missing (read from the node's history) → `lending_snapshots`;
 * - `lending.compute`: snapshots + liquidations + DEX prices and depth → the 7 lending paths, published at once.
 */

export const LENDING_COMPUTATION = 'lending.compute';
/** Where ingestion starts for a market without a start block (production forks the registry dates not). */
const LOOKBACK_SECONDS = 30 * DAY;
/** A new head snapshot at most this often (chain time): state moves slowly next to the cost of reading it. */
const SNAPSHOT_EVERY_SECONDS = 300;
/** A daily snapshot must lie within this much before the end of its day to stand for it. */
const DAILY_TOLERANCE_SECONDS = 6 * HOUR;
const FRESH_FOR_SECONDS = 1800;
const SOURCE =
  'lending market events (eth_getLogs) and state (eth_call multicall at the as_of block); DEX depth and prices';

const startKey = (chain: string) => `lending:${chain}:start`;

/** The Morpho markets of a view: loan token = the base asset, collateral among the listed assets. */
function morphoAccepts(market: LendingMarketTarget): (p: MorphoParams) => boolean {
  const base = market.assets.find((a) => a.symbol.toUpperCase() === market.baseAsset.toUpperCase())?.address;
  const collaterals = new Set(market.assets.map((a) => a.address));
  return (p) => p.loanToken === base && collaterals.has(p.collateralToken);
}

export function lendingJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = lendingTargets(env);
  if (!evm || !targets.length) return [];
  const chains = [...new Set(targets.map((m) => m.chain))];
  const sourceOf = (chain: string, _ctx?: JobContext): EvmSource => evm.source(chain);
  const marketsOn = (chain: string) => targets.filter((m) => m.chain === chain);
  const sinks = new Map<string, LendingSink>();
  /** Daily snapshots the node could not serve (pruned history): not retried by this process. */
  const unavailable = new Set<string>();

  const startOf = async (ctx: JobContext, chain: string, source: EvmSource): Promise<number> =>
    (
      await ingestStart(ctx, source, startKey(chain), {
        startBlocks: marketsOn(chain).map((m) => m.startBlock),
        lookbackSeconds: LOOKBACK_SECONDS,
      })
    ).block;

  const ingestJob: JobDef = {
    name: 'lending.ingest',
    area: 'lending',
    description: `Reads lending market events (Aave, Morpho) from ${chains.join(', ')}`,
    everySeconds: 10,
    maxAttempts: 5,
    backoffMs: 2000,
    async run(ctx) {
      const parts: string[] = [];
      for (const chain of chains) {
        const source = sourceOf(chain, ctx);
        const markets = marketsOn(chain);
        const start = await startOf(ctx, chain, source);
        let sink = sinks.get(chain);
        if (!sink) {
          sink = new LendingSink(chain, start);
          sinks.set(chain, sink);
        }
        // aTokens: read from each pool's reserves now (a reserve listed later is picked up by the next run).
        const aave = markets.filter((m) => m.design === 'aave-v3');
        const aTokens = new Map<string, { pool: string; asset: string }>();
        for (const m of aave) {
          const [list] = await source.multicall({
            contracts: [{ address: m.pool, abi: AAVE_POOL_ABI, functionName: 'getReservesList' }],
            allowFailure: false,
          });
          const assets = (list as readonly string[]).map((a) => a.toLowerCase() as `0x${string}`);
          const data = await source.multicall({
            contracts: assets.map((asset) => ({
              address: m.pool,
              abi: AAVE_POOL_ABI,
              functionName: 'getReserveData' as const,
              args: [asset] as const,
            })),
            allowFailure: false,
          });
          data.forEach((d, i) => {
            aTokens.set(d.aTokenAddress.toLowerCase(), { pool: m.pool, asset: assets[i]! });
          });
        }
        const morpho = new Map<string, (p: MorphoParams) => boolean>();
        for (const m of markets.filter((x) => x.design === 'morpho-blue')) {
          const previous = morpho.get(m.pool);
          const accepts = morphoAccepts(m);
          morpho.set(m.pool, previous ? (p) => previous(p) || accepts(p) : accepts);
        }
        sink.setTargets({ aavePools: aave.map((m) => m.pool), aTokens, morpho });
        const result = await ingest(source, ctx.store, sink, {
          signal: ctx.signal,
          now: () => nowSeconds(ctx.clock),
          log: ctx.log,
        });
        parts.push(
          `${chain}: blocks ${result.from}–${result.to}, ${result.facts} events of ${markets.length} markets` +
            (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : ''),
        );
      }
      return parts.join('; ');
    },
  };

  const snapshotOf = async (
    ctx: JobContext,
    m: LendingMarketTarget,
    block: { number: number; timestamp: number },
  ): Promise<MarketSnapshot> => {
    const repo = new LendingRepository(ctx.store.db);
    const source = sourceOf(m.chain, ctx);
    const participants = await repo.participants(m.chain, m.pool, block.number);
    if (m.design === 'aave-v3') return readAaveSnapshot(source, m, participants, block);
    const accepts = morphoAccepts(m);
    const markets = (await repo.createdMarkets(m.chain, m.pool))
      .map(({ id, data }) => ({
        id: id as `0x${string}`,
        ...(JSON.parse(data) as Omit<MorphoParams, 'lltv'> & { lltv: string }),
      }))
      .filter((x) => accepts({ ...x, lltv: BigInt(x.lltv) }));
    const prices = new DexRepository(ctx.store.db);
    const hour = Math.floor(block.timestamp / HOUR) * HOUR;
    const known = await prices.prices(m.chain, hour - 6 * HOUR, hour);
    const usdPrice = (token: string) => {
      const rows = known.filter((p) => p.token === token).sort((a, b) => b.hour - a.hour);
      return rows[0]?.priceUsd ?? null;
    };
    return readMorphoSnapshot(source, m, markets, participants, block, usdPrice);
  };

  const snapshotJob: JobDef = {
    name: 'lending.snapshot',
    area: 'lending',
    description: 'Reads each lending market’s state (reserves, totals, rates, prices, positions) at the ingested head',
    everySeconds: 10,
    maxAttempts: 3,
    backoffMs: 2000,
    async run(ctx) {
      const repo = new LendingRepository(ctx.store.db);
      const parts: string[] = [];
      for (const chain of chains) {
        const checkpoint = await readCheckpoint<{ block: number }>(ctx.store.db, `lending:${chain}`);
        if (!checkpoint) continue;
        const source = sourceOf(chain, ctx);
        const head = await source.getBlock(checkpoint.block);
        if (!head) continue;
        const start = (await readCheckpoint<{ block: number }>(ctx.store.db, startKey(chain)))?.block ?? 0;
        for (const m of marketsOn(chain)) {
          const times = await repo.snapshotTimes(chain, m.pool);
          const last = times[times.length - 1];
          let taken = 0;
          if (!last || (last.blockNumber < head.number && head.timestamp - last.timestamp >= SNAPSHOT_EVERY_SECONDS)) {
            await repo.saveSnapshot(await snapshotOf(ctx, m, head));
            taken++;
          }
          // The end of each earlier day of the history, when missing and the node still has that state.
          const marketStart = m.startBlock ?? start;
          const startTs = (await source.getBlock(marketStart))?.timestamp ?? head.timestamp;
          for (const t of dailyHistoryInstants(head.timestamp).slice(1)) {
            if (t < startTs) continue;
            const have = times.some((x) => x.timestamp <= t && x.timestamp > t - DAILY_TOLERANCE_SECONDS);
            const id = `${chain}:${m.pool}:${t}`;
            if (have || unavailable.has(id)) continue;
            const number = await blockAtOrBefore(source, t, marketStart, head.number);
            if (number === undefined) continue;
            const block = await source.getBlock(number);
            if (!block || block.timestamp <= t - DAILY_TOLERANCE_SECONDS) continue;
            try {
              await repo.saveSnapshot(await snapshotOf(ctx, m, block));
              taken++;
            } catch (err) {
              unavailable.add(id);
              ctx.log.warn(
                { err, market: m.pool, block: number },
                'lending: no state at a past day end; its score stays a gap',
              );
            }
          }
          // Keep the 3 newest and the one standing for each day of the last 8; drop the rest.
          const after = await repo.snapshotTimes(chain, m.pool);
          const keep = new Set(after.slice(-3).map((x) => x.blockNumber));
          for (const t of dailyHistoryInstants(head.timestamp, 8)) {
            const best = after.filter((x) => x.timestamp <= t).pop();
            if (best) keep.add(best.blockNumber);
          }
          await repo.deleteSnapshots(
            chain,
            m.pool,
            after.filter((x) => !keep.has(x.blockNumber)).map((x) => x.blockNumber),
          );
          parts.push(`${m.protocol} ${m.version} ${m.baseAsset}: ${taken} snapshots`);
        }
      }
      return parts.join('; ') || 'no events ingested yet';
    },
  };

  const computeLendingJob = computeJob({
    name: LENDING_COMPUTATION,
    area: 'lending',
    description: 'Lending market analytics and liquidity health scores, published for the 7 lending paths',
    inputs: async (ctx) => {
      const repo = new LendingRepository(ctx.store.db);
      const snapshots: [string, number][] = [];
      for (const m of targets) {
        const s = await repo.latestSnapshot(m.chain, m.pool);
        if (s) snapshots.push([s.pool, s.blockNumber]);
      }
      return snapshots.length
        ? { snapshots, pricesAt: await dexPriceBlocks(ctx.store.db, chains) }
        : wait('no snapshots yet');
    },
    load: async (ctx) => {
      const db = ctx.store.db;
      const repo = new LendingRepository(db);
      const dex = new DexRepository(db);
      const latest = new Map<LendingMarketTarget, MarketSnapshot | undefined>();
      for (const m of targets) latest.set(m, await repo.latestSnapshot(m.chain, m.pool));
      const taken = [...latest.values()].filter((s): s is MarketSnapshot => s !== undefined);
      if (!taken.length) return wait('no snapshots yet');
      const asOf = Math.min(...taken.map((s) => s.timestamp));
      const markets: MarketInput[] = [];
      const depthByChain = new Map<string, Awaited<ReturnType<typeof dexDepthUsd>>>();
      for (const m of targets) {
        const snapshot = latest.get(m);
        let depth = depthByChain.get(m.chain);
        if (!depth) {
          depth = await dexDepthUsd(dex, m.chain, asOf);
          depthByChain.set(m.chain, depth);
        }
        const hourly = await dex.prices(m.chain, Math.floor((asOf - 8 * DAY) / HOUR) * HOUR, asOf);
        const priceMap = new Map(hourly.map((p) => [`${p.token}:${p.hour}`, p.priceUsd]));
        const oraclePrice = new Map((snapshot?.reserves ?? []).map((r) => [r.asset, r.priceUsd]));
        markets.push({
          source: m,
          latest: snapshot,
          daily: await repo.snapshotsAtOrBefore(
            m.chain,
            m.pool,
            dailyHistoryInstants(asOf).slice(1),
            DAILY_TOLERANCE_SECONDS,
          ),
          liquidations: await repo.events(m.chain, m.pool, ['liquidation'], asOf - 7 * DAY, asOf),
          priceAt: (token, t) =>
            priceMap.get(`${token}:${Math.floor(t / HOUR) * HOUR}`) ?? oraclePrice.get(token) ?? null,
          depthUsd: depth,
        });
      }
      return { asOf, markets };
    },
    compute: (input) => computeLending({ markets: input.markets }, input.asOf),
    documents: (output, input) => lendingDocuments(output, input.asOf),
    describe: (input) => `as of ${input.asOf}`,
  });

  return [ingestJob, snapshotJob, computeLendingJob];
}

/** The documents of one computation, at their paths (canonical letter case per path). */
export function lendingDocuments(output: LendingOutput, asOf: number): DatasetDocument[] {
  const docs = new DocumentSet(lendingPaths, { asOf, source: SOURCE, freshFor: FRESH_FOR_SECONDS });
  const values = (k: { chain: string; protocol: string; version: string; baseAsset: string }) => ({
    chain: k.chain,
    protocol: k.protocol,
    version: k.version,
    base_asset: k.baseAsset,
  });
  docs.add('lending.available-markets', {}, output.available);
  for (const a of output.assets)
    docs.add('lending.asset-analytics', { ...values(a.key), token_address: a.token }, a.data);
  for (const m of output.markets) docs.add('lending.protocol-analytics', values(m.key), m.data);
  for (const s of output.scores) {
    const v = values(s.key);
    docs.add(
      'lending.protocol-score',
      { ...v, version: v.version.toLowerCase(), base_asset: v.base_asset.toLowerCase() },
      s.data,
    );
  }
  for (const o of output.overviews) docs.add('lending.market-overview', { protocol: o.protocol }, o.data);
  for (const o of output.overviewScores) docs.add('lending.market-overview-score', { protocol: o.protocol }, o.data);
  docs.add('lending.all-markets', {}, output.all);
  return docs.documents;
}
