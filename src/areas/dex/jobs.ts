import { nowSeconds } from '../../core/time.js';
import type { JobContext, JobDef } from '../../jobs/types.js';
import { computeJob, DocumentSet, eachTarget, wait } from '../kit/index.js';
import type { AreaEnv } from '../kit/module.js';
import { computeDex } from './compute.js';
import { DexIngest } from './ingest.js';
import { computeHourlyPrices } from './prices.js';
import { DexRepository, HISTORY_SECONDS, pricesKey } from './repo.js';
import { dexPaths } from './routes.js';
import { DEX_METHODOLOGY } from './score.js';
import { dexTargets, type PriceAnchor } from './targets.js';

/**
 * The DEX area's jobs: `dex.ingest` (logs → facts, token metadata, a state snapshot at the ingested head),
 * `prices.hourly` (USD prices per token and hour from the facts) and `dex.compute` (facts + prices → the 9 paths'
 * documents, published at once).
 */
export const DEX_COMPUTATION = 'dex.compute';
/** Half an hour without a newer block means the chain or the RPC stalled, and clients should know. */

/** Prices are (re)computed for this many hours back: the history plus one day of margin for late facts. */
const PRICE_HOURS = 15 * 24;

/**
 * Prices for the hours up to each chain's newest snapshot, unless already computed for that snapshot. Incremental:
 * after a run at an earlier block of the chain, only the hours from the one before that block's hour are computed
 * again, each pool entering them with its newest state of the window (`lastPricedSwaps`, `lastSyncs`), which gives
 * the same prices as computing the whole window (`dex/jobs.test.ts`); a run costs the new facts and the pools, not
 * the 15 days. The first run, a head below the last one (a reorganisation) or a checkpoint without its time computes
 * the whole window.
 */
export async function updatePrices(
  ctx: JobContext,
  repo: DexRepository,
  chains: readonly string[],
  anchors: readonly PriceAnchor[],
  now: number,
) {
  return eachTarget(ctx, chains, String, async (chain) => {
    const head = await repo.latestSnapshotBlock(chain);
    if (!head) return [];
    const key = pricesKey(chain);
    const last = await repo.checkpoint<PricesCheckpoint>(key);
    if (last?.block === head.blockNumber) return `${chain}: up to date at block ${head.blockNumber}`;
    const lastHour = Math.floor(head.timestamp / 3600) * 3600;
    const firstHour = lastHour - (PRICE_HOURS - 1) * 3600;
    const from = pricesFrom(last, head, firstHour);
    // Each pool enters the first hour with its newest state: V2 syncs of any age, V3 swaps of the window.
    const swaps =
      from === firstHour
        ? await repo.swaps(chain, firstHour - 1, head.timestamp)
        : [
            ...(await repo.lastPricedSwaps(chain, firstHour - 1, from - 1)),
            ...(await repo.swaps(chain, from - 1, head.timestamp)),
          ];
    const syncs = await repo.syncs(chain, from - 1, head.timestamp);
    const prices = computeHourlyPrices({
      chain,
      hours: Array.from({ length: (lastHour - from) / 3600 + 1 }, (_, i) => from + i * 3600),
      tokens: await repo.tokens(chain),
      pools: await repo.pools(chain),
      swaps,
      syncs,
      anchors: anchors.filter((a) => a.chain === chain).map((a) => ({ address: a.address, peg: a.peg })),
    });
    const value: PricesCheckpoint = { block: head.blockNumber, timestamp: head.timestamp };
    await repo.replacePrices(chain, from, lastHour, prices, { key, value, now });
    const hours = (lastHour - from) / 3600 + 1;
    return `${chain}: ${prices.length} prices over ${hours} hours up to block ${head.blockNumber}`;
  });
}

/** What `prices:<chain>` holds: the snapshot block the prices were computed for, and its time. */
interface PricesCheckpoint {
  readonly block: number;
  readonly timestamp?: number;
}

/**
 * The first hour to compute: the hour before the last run's block's hour (its hour was partial then; one more for a
 * late fact of the finality window), within the window; the whole window without a usable last run.
 */
export function pricesFrom(
  last: PricesCheckpoint | undefined,
  head: { readonly blockNumber: number },
  firstHour: number,
): number {
  if (last?.timestamp === undefined || last.block > head.blockNumber) return firstHour;
  return Math.max(firstHour, Math.floor(last.timestamp / 3600) * 3600 - 3600);
}

export function dexJobs(env: AreaEnv): JobDef[] {
  const evm = env.sources.get('evm');
  const targets = dexTargets(env);
  if (!evm || !targets.chains.length) return [];
  const { chains, deployments, anchors } = targets;
  const ingest = new DexIngest(evm, deployments, Math.max(HISTORY_SECONDS, PRICE_HOURS * 3600));
  const prices = (ctx: JobContext) =>
    updatePrices(ctx, new DexRepository(ctx.store.db), chains, anchors, nowSeconds(ctx.clock));

  return [
    {
      name: 'dex.ingest',
      area: 'dex',
      description: `Reads DEX factory and pool events, token metadata and pool state from ${chains.join(', ')}`,
      everySeconds: 10,
      maxAttempts: 5,
      backoffMs: 2000,
      run: async (ctx) =>
        (await eachTarget(ctx, chains, String, (chain) => ingest.run(ctx, chain), { concurrent: true })).join('; '),
    },
    {
      name: 'prices.hourly',
      area: 'dex',
      description: 'USD prices per token and hour from pool prices, anchored on stablecoins',
      everySeconds: 30,
      run: async (ctx) => (await prices(ctx)).join('; ') || 'no snapshot yet',
    },
    computeJob({
      name: DEX_COMPUTATION,
      runAfter: ['dex.ingest', 'prices.hourly'],
      area: 'dex',
      description: 'Pool and protocol analytics and volume continuity scores, published for the 9 DEX paths',
      // The computation needs the prices of its snapshot: it makes them first when the price job has not yet.
      inputs: async (ctx) => {
        await prices(ctx);
        const repo = new DexRepository(ctx.store.db);
        const heads: [string, number][] = [];
        for (const chain of chains) {
          const head = await repo.latestSnapshotBlock(chain);
          if (head) heads.push([chain, head.blockNumber]);
        }
        return heads.length ? { heads, prices: await repo.priceBlocks(chains) } : wait('no snapshot yet');
      },
      load: async (ctx) =>
        (await new DexRepository(ctx.store.db).computeInput(deployments, chains)) ?? wait('no snapshot yet'),
      compute: computeDex,
      documents: (output, input) => {
        const docs = new DocumentSet(dexPaths, { asOf: input.asOf.timestamp });
        const key = (k: string) => {
          const [chain, protocol, version] = k.split('/') as [string, string, string];
          return { chain, protocol, version };
        };
        const scored = { methodology: DEX_METHODOLOGY };
        docs.add('dex.available-dexes', {}, output.availableDexes);
        for (const [k, pools] of output.availablePools) docs.add('dex.available-pools', key(k), pools);
        for (const [pool, data] of output.poolAnalytics) docs.add('dex.pool-analytics', { pool_address: pool }, data);
        for (const [k, data] of output.protocolAnalytics) docs.add('dex.protocol-analytics', key(k), data);
        for (const [protocol, data] of output.protocolOverview) docs.add('dex.protocol-overview', { protocol }, data);
        for (const [pool, data] of output.poolScores) docs.add('dex.pool-score', { pool_address: pool }, data, scored);
        for (const [k, data] of output.protocolScores) docs.add('dex.protocol-score', key(k), data, scored);
        for (const [protocol, data] of output.protocolOverviewScores) {
          docs.add('dex.protocol-overview-score', { protocol }, data, scored);
        }
        docs.add('dex.all-protocols', {}, output.allProtocols, scored);
        return docs.documents;
      },
      describe: (input) => `at block ${input.asOf.blockNumber}`,
    }),
  ];
}
